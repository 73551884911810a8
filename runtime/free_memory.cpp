#include "runtime/free_memory.h"

// mimalloc's, when the process links it; a weak reference is null otherwise (no mimalloc.h here, so the
// runtime builds and links without it).
extern "C" void mi_collect(bool force) __attribute__((weak));

namespace tvms::runtime {

void returnFreeMemory() {
  if (mi_collect) mi_collect(true);
}

}  // namespace tvms::runtime
