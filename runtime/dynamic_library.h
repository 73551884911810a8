#pragma once
// Loading a shared library that tvms does not link (the CUDA driver, NVRTC, cuBLAS, cuDNN): the
// first of several sonames that loads, and its entry points, each missing one named.
#include <dlfcn.h>

#include <initializer_list>
#include <string>

namespace tvms::runtime {

// The handle of the first of `names` that dlopen loads, or null with dlerror's text in `why`.
inline void* openFirst(std::initializer_list<const char*> names, std::string& why) {
  for (const char* n : names) {
    if (void* h = ::dlopen(n, RTLD_NOW | RTLD_LOCAL)) return h;
    why = ::dlerror();
  }
  return nullptr;
}

// Binds `fn` to `symbol` of `handle`; on a missing symbol, sets `failure` (if still empty) to
// "<library> lacks <symbol>" and returns false.
template <typename F>
bool bindSymbol(void* handle, F& fn, const char* symbol, const std::string& library, std::string& failure) {
  fn = reinterpret_cast<F>(::dlsym(handle, symbol));
  if (!fn && failure.empty()) failure = library + " lacks " + symbol;
  return fn != nullptr;
}

}  // namespace tvms::runtime
