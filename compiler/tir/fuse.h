#pragma once
// Fusion of kernels on the loop IR (TVM's AnnotateTIROpPattern and FuseTIR, on tvms's loop IR): what
// a kernel's compute allows (its pattern), and the one kernel a group of producer -> consumer kernels
// becomes. Works on computes (kernels as the op builders made them, before any schedule); the caller
// schedules the result for its target.
//
// A group has at most one anchor (a kernel that is not injective: a reduction, a norm, softmax) and
// any number of injective kernels (one perfect nest of spatial loops storing its output once per
// element at the row-major index of its loops: elementwise, broadcast, transpose, gather, reshape).
//   - An injective kernel whose output feeds another member is inlined: each load of its output
//     becomes its value at that index (TVM's compute_inline), so the prologue of a reduction
//     (scale -> softmax) and chains of elementwise ops become one loop nest.
//   - An injective kernel after the anchor that reads the anchor's output at its own output index
//     (an elementwise epilogue: layer_norm -> scale -> SiLU -> residual add) is folded into the
//     anchor's stores (TVM's reverse_compute_inline): each store of the anchor's output stores the
//     epilogue's value instead.
//   - A CPU GEMM (its stores of the final values marked `finalValue`, its other stores and loads of
//     the output partial sums between K blocks) is an anchor that takes epilogues only (TVM's
//     out-elementwise-fusable): the epilogue folds into the final stores, the partial sums go
//     through the group's output, which must keep the GEMM's dtype.
#include <optional>
#include <string>
#include <vector>

#include "compiler/tir/loop_ir.h"

namespace tvms::tir {

// What fusion may do with a kernel (TVM's OpPatternKind, as far as fusion needs it).
enum class FusionPattern {
  Injective,  // inlined into its consumer, or folded into its producer's stores
  Anchor,     // one per group: prologues inlined into its loads, epilogues folded into its stores
  Opaque,     // never fused: several outputs, a user's scheduled kernel, local arrays or reads of its output (but a CPU GEMM's)
};
FusionPattern fusionPattern(const Kernel& compute);

// Whether injective `consumer` reads its input `param` only at its own output's index (so it can be
// folded into the stores of the kernel that makes that input).
bool readsAtOwnIndex(const Kernel& consumer, int param);

// How many times the compute reads each element of its input `param`, from its static loop extents:
// about 1 for a sum, 3 for softmax, 9 for a 3x3 pool, N for a matmul's A (N columns); 1 when an
// extent is symbolic. An injective producer inlined into it is computed that many times per element,
// so fusion takes only cheap rereads (a matmul's operands stay apart: it is TVM's
// out-elementwise-fusable pattern).
double readsPerElement(const Kernel& compute, int param);

// One member of a group: its compute, and for each of its input parameters where the value comes
// from: an input of the group (>= 0) or the output of an earlier member m (-(m + 1)).
struct FusionMember {
  const Kernel* compute = nullptr;
  std::vector<int> inputs;
};

// The group as one kernel named `name`, or nullopt with `*why`. Members are in dependency order and
// each member's output feeds exactly one later member, except the last, whose output is the group's.
// The kernel's parameters are the group's inputs (each taking the buffer name and shape of its first
// use) and then the output.
std::optional<Kernel> fuseKernels(const std::vector<FusionMember>& members, size_t groupInputs, const std::string& name, std::string* why);

}  // namespace tvms::tir
