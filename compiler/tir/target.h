#pragma once
// What a kernel is built for: the target kind of its vdevice (runtime/target_kind.h) and
// what the schedule needs to know of that machine. LegalizeOps takes it from the vdevice of each
// call's output; the schedule (compiler/schedule) and the backend registered for the kind
// (compiler/codegen/backend.h) read it.
#include <string>

#include "runtime/target_kind.h"

namespace tvms::tir {

struct Target {
  std::string kind{runtime::kHostKind};
  // llvm: the widest SIMD register the kernels may use, in bits (512 on AVX-512, 256 on AVX2, 128
  // on SSE/NEON). The CPU schedule sizes register tiles from it and the backend compiles for it.
  int vectorBits = 0;

  // The build machine's CPU: its vector width, or $TVMS_CPU_VECTOR_BITS (128, 256 or 512) when set,
  // which also makes the backend leave the wider units alone (an AVX2-only build on an AVX-512 host).
  static Target host();
  // A target of the kind `kind` spells on this machine (runtime/target_kind.h): the host's vector
  // width for CPU kinds, the kind alone otherwise; an alias becomes its kind's name ("cpu" -> llvm).
  static Target forKind(const std::string& kind);
  // Kernels of a CPU kind are host code (the CPU schedule, the LLVM code generator); of a GPU kind,
  // the GPU schedule's launches.
  bool isCpu() const;
  bool isGpu() const;
  // The part of the target that changes the code: kernels are the same kernel only when this matches.
  std::string key() const { return kind + ":" + std::to_string(vectorBits); }
};

}  // namespace tvms::tir
