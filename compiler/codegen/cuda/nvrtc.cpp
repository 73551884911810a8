#include "compiler/codegen/cuda/nvrtc.h"

#include "runtime/dynamic_library.h"

#include <mutex>
#include <stdexcept>
#include <vector>

namespace tvms::codegen::cuda {

namespace {

// The few NVRTC entry points used, declared here so the build needs no CUDA headers.
using nvrtcProgram = void*;
using nvrtcResult = int;
struct Nvrtc {
  nvrtcResult (*createProgram)(nvrtcProgram*, const char*, const char*, int, const char* const*, const char* const*) = nullptr;
  nvrtcResult (*compileProgram)(nvrtcProgram, int, const char* const*) = nullptr;
  nvrtcResult (*getPTXSize)(nvrtcProgram, size_t*) = nullptr;
  nvrtcResult (*getPTX)(nvrtcProgram, char*) = nullptr;
  nvrtcResult (*getProgramLogSize)(nvrtcProgram, size_t*) = nullptr;
  nvrtcResult (*getProgramLog)(nvrtcProgram, char*) = nullptr;
  nvrtcResult (*destroyProgram)(nvrtcProgram*) = nullptr;
  const char* (*getErrorString)(nvrtcResult) = nullptr;
  std::string failure;
};

const Nvrtc& nvrtc() {
  static Nvrtc n;
  static std::once_flag once;
  std::call_once(once, [] {
    std::string why;
    void* h = runtime::openFirst({"libnvrtc.so.13", "libnvrtc.so.12", "libnvrtc.so"}, why);
    if (!h) {
      n.failure = "building cuda kernels needs NVRTC from the CUDA Toolkit (libnvrtc.so.13), which could not be loaded: " + why;
      return;
    }
    auto get = [&](auto& fn, const char* sym) { runtime::bindSymbol(h, fn, sym, "NVRTC", n.failure); };
    get(n.createProgram, "nvrtcCreateProgram");
    get(n.compileProgram, "nvrtcCompileProgram");
    get(n.getPTXSize, "nvrtcGetPTXSize");
    get(n.getPTX, "nvrtcGetPTX");
    get(n.getProgramLogSize, "nvrtcGetProgramLogSize");
    get(n.getProgramLog, "nvrtcGetProgramLog");
    get(n.destroyProgram, "nvrtcDestroyProgram");
    get(n.getErrorString, "nvrtcGetErrorString");
  });
  if (!n.failure.empty()) throw std::runtime_error(n.failure);
  return n;
}

}  // namespace

std::string compileToPtx(const std::string& source, const std::string& arch) {
  const Nvrtc& n = nvrtc();
  nvrtcProgram prog = nullptr;
  if (nvrtcResult r = n.createProgram(&prog, source.c_str(), "tvms_kernels.cu", 0, nullptr, nullptr))
    throw std::runtime_error(std::string("NVRTC: ") + n.getErrorString(r));
  std::string archOption = "--gpu-architecture=" + arch;
  const char* options[] = {archOption.c_str(), "--std=c++17", "-default-device"};
  nvrtcResult rc = n.compileProgram(prog, 3, options);
  if (rc != 0) {
    size_t logSize = 0;
    n.getProgramLogSize(prog, &logSize);
    std::string log(logSize, '\0');
    if (logSize) n.getProgramLog(prog, log.data());
    n.destroyProgram(&prog);
    throw std::runtime_error("NVRTC could not compile the cuda kernels (" + std::string(n.getErrorString(rc)) + "):\n" + log);
  }
  size_t size = 0;
  n.getPTXSize(prog, &size);
  std::string ptx(size, '\0');
  n.getPTX(prog, ptx.data());
  n.destroyProgram(&prog);
  if (!ptx.empty() && ptx.back() == '\0') ptx.pop_back();
  return ptx;
}

}  // namespace tvms::codegen::cuda
