#pragma once
// Hands the allocator's free pages back to the system now, rather than when the allocator would.

namespace tvms::runtime {

// Under mimalloc (the tvms binary links it ahead of libc: tools/tvms/allocator.cpp) its free pages,
// those of threads that ended included, are decommitted now; under any other allocator (the test
// binaries) nothing happens. For a one-shot command at the end of a phase whose memory the next phase
// will not reuse: a 1 MB lint's syntax trees were made on the parse helper's heap, which the helper left
// behind when it ended, resident until exit (1.2 MiB of its peak RSS).
void returnFreeMemory();

}  // namespace tvms::runtime
