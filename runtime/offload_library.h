#pragma once
// Shared by the library functions of cuda vdevices (cuBLAS, cuDNN): loading the library on first
// use with an error that names the way around it, and the stream of the slot a call runs on.
#include <initializer_list>
#include <stdexcept>
#include <string>

#include "runtime/cuda_device.h"
#include "runtime/dynamic_library.h"

namespace tvms::runtime {

// The library (the first of `names` that loads), or a clear error with the way around it.
inline void* openOffloadLibrary(std::initializer_list<const char*> names, const char* what) {
  std::string why;
  if (void* h = openFirst(names, why)) return h;
  throw std::runtime_error(std::string(what) + " could not be loaded (" + why + "); `tvms build --no-offload` uses generated kernels instead");
}

template <typename F>
void bindOrThrow(void* h, F& fn, const char* sym, const char* what) {
  std::string failure;
  if (!bindSymbol(h, fn, sym, what, failure)) throw std::runtime_error(failure);
}

inline void* offloadStream(DeviceAPI& device, const char* what) {
  void* s = cudaStreamOf(device);
  if (!s) throw std::runtime_error(std::string(what) + " runs on cuda devices only, not on " + device.name());
  return s;
}

}  // namespace tvms::runtime
