#pragma once
// Operator fusion on a legalized module (TVM's FuseOps then FuseTIR, over tvms's loop IR,
// compiler/tir/fuse.h):
//   FuseOps: kernel calls that feed each other in one binding block, on one vdevice, whose
//   intermediate results are used once, are grouped — chains of injective kernels, a reduction with
//   its injective prologue and elementwise epilogue — each group into a private Relax function
//   marked R.func_attr({"Primitive": True}) that the caller calls in the group's place.
//   FuseTIR: each call of such a function becomes one R.call_tir of one kernel fused from the
//   group's computes and scheduled for the target of the group's vdevice (TVM's FuseTIR drops the
//   target; here a fused kernel is always built for its own vdevice). The kernels no call uses any
//   more go.
// A group never spans two vdevices (nor an R.to_vdevice, which is no kernel call), never includes a
// library call (cuBLAS / cuDNN), a user's prim_func or a kernel with several outputs.
#include "compiler/transform/legalize_ops.h"

namespace tvms::transform {

LegalizedModule fuseOps(LegalizedModule m);
LegalizedModule fuseTIR(LegalizedModule m);
// fuseTIR(fuseOps(m)), one function at a time: a function's groups become kernels before the next
// function is grouped, so the groups' Primitive functions never all exist at once (a module of 1,020
// layers' groups were 9 MB, the peak of its build). The pipeline runs this when nothing prints the
// module between the two passes.
LegalizedModule fuseOpsAndTIR(LegalizedModule m);

// The attribute FuseOps marks a group's function with (TVM's).
constexpr const char* kPrimitiveAttr = "Primitive";

}  // namespace tvms::transform
