#include "runtime/free_memory.h"

// mimalloc's functions, referenced weakly: null unless the process links mimalloc (the tvms binary
// does; the test binaries and the runtime library alone do not, and need not).
#if __has_include(<mimalloc.h>)
#include <mimalloc.h>
#pragma weak mi_collect
#pragma weak mi_option_get
#pragma weak mi_option_set
#define TVMS_HAS_MIMALLOC_HEADER 1
#endif

namespace tvms::runtime {

void returnFreeMemory() {
#ifdef TVMS_HAS_MIMALLOC_HEADER
  if (!mi_collect || !mi_option_get || !mi_option_set) return;
  // mi_collect(true) frees the pages that are empty, but their memory stays resident until its decommit
  // delay (25 ms) has passed and mimalloc next looks: a 1 MB build's 8 MB of freed lint memory stayed
  // resident through the passes. With the delay 0 for the collection it goes back now.
  long delay = mi_option_get(mi_option_decommit_delay);
  mi_option_set(mi_option_decommit_delay, 0);
  mi_collect(true);
  mi_option_set(mi_option_decommit_delay, delay);
#endif
}

}  // namespace tvms::runtime
