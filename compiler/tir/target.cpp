#include "compiler/tir/target.h"

#include <algorithm>
#include <cstdlib>
#include <string_view>

namespace tvms::tir {

namespace {
int hostVectorBits() {
#if defined(__x86_64__) || defined(__i386__)
  __builtin_cpu_init();
  if (__builtin_cpu_supports("avx512f")) return 512;
  if (__builtin_cpu_supports("avx2") || __builtin_cpu_supports("avx")) return 256;
  return 128;
#else
  return 128;  // NEON / SSE-class units
#endif
}
}  // namespace

Target Target::host() {
  Target t;
  t.kind = runtime::kHostKind;
  t.vectorBits = hostVectorBits();
  if (const char* env = std::getenv("TVMS_CPU_VECTOR_BITS")) {
    std::string_view v = env;
    // Narrower only: kernels cannot use units the machine does not have.
    if (v == "128" || v == "256" || v == "512") t.vectorBits = std::min(t.vectorBits, std::atoi(env));
  }
  return t;
}

Target Target::forKind(const std::string& kind) {
  Target t;
  const runtime::TargetKind* k = runtime::targetKindSpelled(kind);
  t.kind = k ? k->name : kind;
  if (k && k->isCpu()) t.vectorBits = host().vectorBits;
  return t;
}

bool Target::isCpu() const {
  const runtime::TargetKind* k = runtime::findTargetKind(kind);
  return k && k->isCpu();
}

bool Target::isGpu() const {
  const runtime::TargetKind* k = runtime::findTargetKind(kind);
  return k && k->deviceClass == runtime::DeviceClass::Gpu;
}

}  // namespace tvms::tir
