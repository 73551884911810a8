#pragma once
// The CUDA driver API, loaded with dlopen on first use (libcuda.so.1, which the NVIDIA driver
// installs): tvms builds and runs without it, and a machine without a GPU gets a clear error naming
// what is missing instead of a link failure. Only the entry points the CUDA device uses, declared
// here (no CUDA headers at build time).
#include <cstddef>
#include <cstdint>
#include <string>

namespace tvms::runtime::cu {

using Result = int;
using Device = int;
using Context = void*;
using Stream = void*;
using Event = void*;
using Module = void*;
using Function = void*;
using MemPool = void*;
using DevicePtr = unsigned long long;
using Graph = void*;
using GraphExec = void*;
using GraphNode = void*;

constexpr int kAttrComputeCapabilityMajor = 75;
constexpr int kAttrComputeCapabilityMinor = 76;
constexpr int kMemPoolReleaseThreshold = 4;
constexpr unsigned kStreamNonBlocking = 1;
// CU_STREAM_CAPTURE_MODE_RELAXED: the capturing thread may still call cuMemAlloc (a capture's
// memory is allocated outside the graph, see CudaDevice::beginCapture).
constexpr int kStreamCaptureModeRelaxed = 2;

struct Driver {
  Result (*init)(unsigned);
  Result (*deviceGetCount)(int*);
  Result (*deviceGet)(Device*, int);
  Result (*deviceGetName)(char*, int, Device);
  Result (*deviceGetAttribute)(int*, int, Device);
  Result (*devicePrimaryCtxRetain)(Context*, Device);
  Result (*ctxSetCurrent)(Context);
  Result (*streamCreate)(Stream*, unsigned);
  Result (*streamDestroy)(Stream);
  Result (*streamSynchronize)(Stream);
  Result (*streamWaitEvent)(Stream, Event, unsigned);
  Result (*eventCreate)(Event*, unsigned);
  Result (*eventRecord)(Event, Stream);
  Result (*eventSynchronize)(Event);
  Result (*eventElapsedTime)(float*, Event, Event);
  Result (*eventDestroy)(Event);
  Result (*memAllocAsync)(DevicePtr*, size_t, Stream);
  Result (*memFreeAsync)(DevicePtr, Stream);
  Result (*deviceGetDefaultMemPool)(MemPool*, Device);
  Result (*memPoolSetAttribute)(MemPool, int, void*);
  Result (*memHostAlloc)(void**, size_t, unsigned);
  Result (*memFreeHost)(void*);
  Result (*memcpyHtoDAsync)(DevicePtr, const void*, size_t, Stream);
  Result (*memcpyDtoHAsync)(void*, DevicePtr, size_t, Stream);
  Result (*memcpyDtoDAsync)(DevicePtr, DevicePtr, size_t, Stream);
  Result (*memcpyPeerAsync)(DevicePtr, Context, DevicePtr, Context, size_t, Stream);
  Result (*moduleLoadData)(Module*, const void*);
  Result (*moduleGetFunction)(Function*, Module, const char*);
  Result (*moduleUnload)(Module);
  Result (*launchKernel)(Function, unsigned, unsigned, unsigned, unsigned, unsigned, unsigned, unsigned, Stream, void**, void**);
  Result (*getErrorString)(Result, const char**);
  Result (*pointerGetAttribute)(void*, int, DevicePtr);
  // Stream capture and CUDA graphs (runtime/cuda_device.cpp's CapturedGraph).
  Result (*memAlloc)(DevicePtr*, size_t);
  Result (*memFree)(DevicePtr);
  Result (*streamBeginCapture)(Stream, int);
  Result (*streamEndCapture)(Stream, Graph*);
  Result (*graphInstantiateWithFlags)(GraphExec*, Graph, unsigned long long);
  Result (*graphLaunch)(GraphExec, Stream);
  Result (*graphExecDestroy)(GraphExec);
  Result (*graphDestroy)(Graph);
  Result (*graphGetNodes)(Graph, GraphNode*, size_t*);
};

constexpr int kPointerAttributeMemoryType = 2;
constexpr unsigned kMemoryTypeHost = 1;
constexpr unsigned kMemHostAllocPortable = 1;

// Whether `p` lies in page-locked host memory (cuMemHostAlloc'd or registered): DMA can read it.
bool isPinnedHost(const void* p);

// The driver, initialised (cuInit); throws std::runtime_error saying why it is unavailable (no
// libcuda.so.1: no NVIDIA driver on this machine; or cuInit's error).
const Driver& driver();

// Throws std::runtime_error "<what>: <the driver's message>" unless r is success.
void check(Result r, const std::string& what);

}  // namespace tvms::runtime::cu
