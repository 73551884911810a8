#include "runtime/target_kind.h"

#include <deque>
#include <mutex>
#include <stdexcept>

#include "runtime/cpu_matmul_bf16.h"
#include "runtime/cpu_module.h"
#include "runtime/cuda_attention.h"
#include "runtime/cuda_device.h"
#include "runtime/cuda_libraries.h"
#include "runtime/cuda_module.h"
#include "runtime/device_api.h"

namespace tvms::runtime {

namespace {

// A family's reader of its record (parseConv2dCallName, ...) as a LibraryAttrsReader.
template <auto parse>
LibraryAttrs attrsReadBy(const std::string& name) {
  return parse(name);
}

std::unique_ptr<DeviceAPI> openCpu(int index, const DeviceOptions& o) {
  return makeCpuDevice(index, o.pinnedHostMemory ? HostMemory::Pinned : HostMemory::Pageable);
}
std::unique_ptr<DeviceAPI> openCuda(int index, const DeviceOptions&) { return makeCudaDevice(index); }

// The kinds TVM's TargetKind registry has that a vdevice may name. Device types are DLPack's
// (kDLCPU 1, kDLCUDA 2, kDLOpenCL 4, kDLVulkan 7, kDLMetal 8, kDLROCM 10, kDLWebGPU 15, kDLHexagon 16).
// Kinds without a code generator and a device are known (lint accepts them, the server colours
// them) and a build says tvms cannot compile for them yet.
std::deque<TargetKind> declaredKinds() {
  using C = DeviceClass;
  std::deque<TargetKind> k;
  const std::vector<LibraryOffload> cpuOffloads{{kCpuMatmulBf16, cpuMatmulBf16}};
  k.push_back({"llvm", {"cpu"}, 1, "cpu", C::Cpu, std::string(codegens::llvm), cpuOffloads, false, openCpu, loadCpuModule});
  // TVM's C source target: tvms builds its kernels with the same LLVM code generator.
  k.push_back({"c", {}, 1, "", C::Cpu, std::string(codegens::llvm), cpuOffloads, false, openCpu, loadCpuModule});
  k.push_back({"cuda", {"gpu"}, 2, "cuda", C::Gpu, std::string(codegens::cuda), {{kCublasMatmul, cublasMatmul},
                                                                {kCublasMatmulTransB, cublasMatmulTransposeB},
                                                                {kCudnnConv2d, cudnnConv2d, attrsReadBy<parseConv2dCallName>},
                                                                {kCublasLtMatmulBias, cublasLtMatmulBias, attrsReadBy<parseGemmEpilogueCallName>},
                                                                {kAttention, cudaAttention, attrsReadBy<parseAttentionCallName>}}, true, openCuda,
               loadCudaModule, /* cuDNN's tensor descriptors declare 16-byte alignment */ 16});
  for (auto [name, type] : {std::pair<const char*, int>{"opencl", 4}, {"vulkan", 7}, {"metal", 8}, {"rocm", 10}, {"webgpu", 15}, {"hexagon", 16}})
    k.push_back({name, {}, type, name, type == 16 ? C::Accelerator : C::Gpu, "", {}, false, nullptr, nullptr});
  return k;
}

struct Table {
  std::mutex mutex;
  std::deque<TargetKind> kinds = declaredKinds();  // a deque: entries never move, lookups hand out pointers
};

Table& table() {
  static Table t;
  return t;
}

template <typename Match>
const TargetKind* findIf(Match match) {
  Table& t = table();
  std::lock_guard<std::mutex> lock(t.mutex);
  for (const TargetKind& k : t.kinds)
    if (match(k)) return &k;
  return nullptr;
}

bool spells(const TargetKind& k, std::string_view s) {
  if (k.name == s) return true;
  for (auto& a : k.aliases)
    if (a == s) return true;
  return false;
}

}  // namespace

bool TargetKind::offers(std::string_view libraryFunction) const {
  for (auto& f : offloads)
    if (f.name == libraryFunction) return true;
  return false;
}

const LibraryOffload* findLibraryOffload(std::string_view name) {
  name = name.substr(0, name.find('?'));
  const LibraryOffload* found = nullptr;
  findIf([&](const TargetKind& k) {
    for (auto& f : k.offloads)
      if (f.name == name) found = &f;
    return found != nullptr;
  });
  return found;
}

LibraryCall readLibraryCall(const std::string& name) {
  const LibraryOffload* offload = findLibraryOffload(name);
  if (!offload) throw std::runtime_error("library function " + name + " is not in this build of tvms");
  LibraryCall call{name, {}};
  if (offload->readAttrs) call.attrs = offload->readAttrs(name);
  return call;
}

const TargetKind* findTargetKind(std::string_view name) {
  return findIf([&](const TargetKind& k) { return k.name == name; });
}

const TargetKind* targetKindSpelled(std::string_view spelling) {
  return findIf([&](const TargetKind& k) { return spells(k, spelling); });
}

const TargetKind* targetKindOfDeviceFunction(std::string_view function) {
  if (function.empty()) return nullptr;
  return findIf([&](const TargetKind& k) { return k.deviceFunction == function; });
}

const TargetKind* targetKindOfDeviceType(int dlDeviceType) {
  return findIf([&](const TargetKind& k) { return k.dlDeviceType == dlDeviceType; });
}

std::vector<const TargetKind*> targetKinds() {
  Table& t = table();
  std::lock_guard<std::mutex> lock(t.mutex);
  std::vector<const TargetKind*> out;
  for (const TargetKind& k : t.kinds) out.push_back(&k);
  return out;
}

const TargetKind& registerTargetKind(TargetKind kind) {
  Table& t = table();
  std::lock_guard<std::mutex> lock(t.mutex);
  for (const TargetKind& k : t.kinds) {
    bool taken = spells(k, kind.name);
    for (auto& a : kind.aliases) taken |= spells(k, a);
    if (taken) throw std::invalid_argument("target kind '" + kind.name + "': the name or an alias is already a kind's");
  }
  t.kinds.push_back(std::move(kind));
  return t.kinds.back();
}

bool sameKernelFamily(std::string_view a, std::string_view b) {
  if (a == b) return true;
  const TargetKind* ka = targetKindSpelled(a);
  const TargetKind* kb = targetKindSpelled(b);
  return ka && kb && ka->isCpu() && kb->isCpu();
}

}  // namespace tvms::runtime
