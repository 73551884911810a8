// The allocator of the tvms process: mimalloc (linked ahead of libc, so it serves every library in
// the process, tree-sitter and the LLVM plugin included). Parsing and lowering a 10k-line file makes
// ~50 MiB of small objects; with glibc's malloc a third of `tvms lint`'s time went to malloc itself
// and to page faults on fresh heap pages (each one a VM exit on the machines measured: 8,000 faults).
// mimalloc with large (2 MiB, transparent huge) pages faults ~200 times: bench/lint at 10k lines
// 0.41 s -> 0.20 s (bench/RESULTS.md).
#include <cstring>

#include <mimalloc.h>

namespace tvms::cli {

namespace {

// mimalloc reads its options once, when it starts, which is before main and before any static
// constructor of this program: shared libraries are initialised first. Only an executable's
// .preinit_array runs earlier than that, with the process's arguments, so the option is set there.
// `tvms lsp` keeps ordinary pages: the server's heap shrinks and grows for hours, where large pages
// would pin memory it has given back. It gives memory back after 2 s unused instead of mimalloc's
// 25 ms: every keystroke frees and makes again a copy of the text and the IR of what it relowers,
// and with a typist's pause between keystrokes (longer than 25 ms) each one faulted those pages in
// anew, ~2 ms of a 200-line paste's 8 at 10k lines (a VM exit per fault on the machines measured).
void chooseHeapPages(int argc, char** argv, char**) {
  if (argc > 1 && std::strcmp(argv[1], "lsp") == 0) {
    mi_option_set(mi_option_decommit_delay, 2000);
    mi_option_set(mi_option_segment_decommit_delay, 2000);
    return;
  }
  mi_option_set(mi_option_large_os_pages, 1);
}

__attribute__((section(".preinit_array"), used)) void (*const kChooseHeapPages)(int, char**, char**) = chooseHeapPages;

}  // namespace

}  // namespace tvms::cli
