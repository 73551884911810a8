#pragma once
// The schedule of a kernel for its target: what LegalizeOps applies to each kernel the op builders
// return. The builders say what a kernel computes and which loops are spatial (independent
// iterations); the schedule decides how loops run on the target: the CPU schedule for CPU kinds, the
// default GPU schedule for cuda. A kind without a schedule keeps its loops serial.
#include "compiler/tir/loop_ir.h"

namespace tvms::schedule {

// Applies the schedule of `k.target` to the kernel in place.
void apply(tir::Kernel& k);

// The CPU schedule: each top-level spatial loop runs on the thread pool (Parallel); a flat one (no
// loop inside) is first split into chunks of 16384 iterations; an innermost spatial loop whose
// stores and loads walk memory with unit stride (or not at all), with no loop-carried scalar, is
// Vectorized.
void applyCpu(tir::Kernel& k);

// The default GPU schedule (cuda): each top-level statement becomes one launch; a top-level spatial
// nest is fused and bound to blockIdx.x / threadIdx.x (256 threads per block) behind a bounds check,
// anything else runs in one thread (compiler/schedule/gpu_schedule.cpp).
void applyGpu(tir::Kernel& k);

// A kernel whose author bound its loops to GPU threads, in the form the CUDA backend launches: each
// top-level perfect nest of blockIdx.x/y/z then threadIdx.x/y/z bindings becomes one blockIdx.x loop
// around one threadIdx.x loop (the indices recovered by division, x fastest); anything else is kept
// (compiler/schedule/gpu_launch.cpp).
void canonicalizeGpuLaunches(tir::Kernel& k);

}  // namespace tvms::schedule
