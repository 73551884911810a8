// The allocator of the tvms process: mimalloc (linked ahead of libc, so it serves every library in
// the process, tree-sitter and the LLVM plugin included). Parsing and lowering a 10k-line file makes
// ~50 MiB of small objects; with glibc's malloc a third of `tvms lint`'s time went to malloc itself
// and to page faults on fresh heap pages: bench/lint at 10k lines 0.41 s -> 0.20 s with mimalloc
// (bench/RESULTS.md).
//
// mimalloc's large OS pages (2 MiB transparent huge pages) were on for a while and are not any more:
// on this 2-core machine a lint of a 5 MB file run after another memory-heavy process (bench/lint
// runs CPython between its runs) took 1.22-1.25 s with them and 0.92-0.96 s without, a 1 MB lint's
// peak RSS is 2.5 MiB lower without them and a fmt's 7 MiB, and a 4 MB build is 0.4 s faster. Each
// fresh huge page is zeroed whole on its first touch, 2 MiB for the first object placed in it.
#include <cstring>

#include <mimalloc.h>

namespace tvms::cli {

namespace {

// mimalloc reads its options once, when it starts, which is before main and before any static
// constructor of this program: shared libraries are initialised first. Only an executable's
// .preinit_array runs earlier than that, with the process's arguments, so the options are set there.
// `tvms lsp` gives memory back after 2 s unused instead of mimalloc's 25 ms: every keystroke frees and
// makes again a copy of the text and the IR of what it relowers, and with a typist's pause between
// keystrokes (longer than 25 ms) each one faulted those pages in anew, ~2 ms of a 200-line paste's 8
// at 10k lines (a VM exit per fault on the machines measured).
void chooseHeapPages(int argc, char** argv, char**) {
  if (argc > 1 && std::strcmp(argv[1], "lsp") == 0) {
    mi_option_set(mi_option_decommit_delay, 2000);
    mi_option_set(mi_option_segment_decommit_delay, 2000);
  }
}

__attribute__((section(".preinit_array"), used)) void (*const kChooseHeapPages)(int, char**, char**) = chooseHeapPages;

}  // namespace

}  // namespace tvms::cli
