#include "runtime/cuda_driver.h"

#include "runtime/dynamic_library.h"

#include <mutex>
#include <stdexcept>

namespace tvms::runtime::cu {

namespace {
struct Loaded {
  Driver d{};
  std::string failure;
};

Loaded& loaded() {
  static Loaded l;
  static std::once_flag once;
  std::call_once(once, [] {
    std::string why;
    void* h = openFirst({"libcuda.so.1"}, why);
    if (!h) {
      l.failure = "no CUDA driver on this machine (libcuda.so.1 could not be loaded: " + why + ")";
      return;
    }
    auto get = [&](auto& fn, const char* sym) { bindSymbol(h, fn, sym, "the CUDA driver (too old?)", l.failure); };
    Driver& d = l.d;
    get(d.init, "cuInit");
    get(d.deviceGetCount, "cuDeviceGetCount");
    get(d.deviceGet, "cuDeviceGet");
    get(d.deviceGetName, "cuDeviceGetName");
    get(d.deviceGetAttribute, "cuDeviceGetAttribute");
    get(d.devicePrimaryCtxRetain, "cuDevicePrimaryCtxRetain");
    get(d.ctxSetCurrent, "cuCtxSetCurrent");
    get(d.streamCreate, "cuStreamCreate");
    get(d.streamDestroy, "cuStreamDestroy_v2");
    get(d.streamSynchronize, "cuStreamSynchronize");
    get(d.streamWaitEvent, "cuStreamWaitEvent");
    get(d.eventCreate, "cuEventCreate");
    get(d.eventRecord, "cuEventRecord");
    get(d.eventSynchronize, "cuEventSynchronize");
    get(d.eventElapsedTime, "cuEventElapsedTime_v2");
    get(d.eventDestroy, "cuEventDestroy_v2");
    get(d.memAllocAsync, "cuMemAllocAsync");
    get(d.memFreeAsync, "cuMemFreeAsync");
    get(d.deviceGetDefaultMemPool, "cuDeviceGetDefaultMemPool");
    get(d.memPoolSetAttribute, "cuMemPoolSetAttribute");
    get(d.memHostAlloc, "cuMemHostAlloc");
    get(d.memFreeHost, "cuMemFreeHost");
    get(d.memcpyHtoDAsync, "cuMemcpyHtoDAsync_v2");
    get(d.memcpyDtoHAsync, "cuMemcpyDtoHAsync_v2");
    get(d.memcpyDtoDAsync, "cuMemcpyDtoDAsync_v2");
    get(d.memcpyPeerAsync, "cuMemcpyPeerAsync");
    get(d.moduleLoadData, "cuModuleLoadData");
    get(d.moduleGetFunction, "cuModuleGetFunction");
    get(d.moduleUnload, "cuModuleUnload");
    get(d.launchKernel, "cuLaunchKernel");
    get(d.getErrorString, "cuGetErrorString");
    get(d.pointerGetAttribute, "cuPointerGetAttribute");
    get(d.memAlloc, "cuMemAlloc_v2");
    get(d.memFree, "cuMemFree_v2");
    get(d.streamBeginCapture, "cuStreamBeginCapture_v2");
    get(d.streamEndCapture, "cuStreamEndCapture");
    get(d.graphInstantiateWithFlags, "cuGraphInstantiateWithFlags");
    get(d.graphLaunch, "cuGraphLaunch");
    get(d.graphExecDestroy, "cuGraphExecDestroy");
    get(d.graphDestroy, "cuGraphDestroy");
    get(d.graphGetNodes, "cuGraphGetNodes");
    if (!l.failure.empty()) return;
    if (Result r = d.init(0)) {
      const char* s = nullptr;
      d.getErrorString(r, &s);
      l.failure = "the CUDA driver did not initialise (" + std::string(s ? s : "error " + std::to_string(r)) + ")";
    }
  });
  return l;
}
}  // namespace

const Driver& driver() {
  Loaded& l = loaded();
  if (!l.failure.empty()) throw std::runtime_error(l.failure);
  return l.d;
}

bool isPinnedHost(const void* p) {
  const Driver& d = driver();
  unsigned type = 0;
  return d.pointerGetAttribute(&type, kPointerAttributeMemoryType, reinterpret_cast<DevicePtr>(p)) == 0 && type == kMemoryTypeHost;
}

void check(Result r, const std::string& what) {
  if (r == 0) return;
  const char* s = nullptr;
  if (loaded().failure.empty()) loaded().d.getErrorString(r, &s);
  throw std::runtime_error(what + ": " + (s ? s : "CUDA error " + std::to_string(r)));
}

}  // namespace tvms::runtime::cu
