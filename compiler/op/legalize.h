#pragma once
// The contract between LegalizeOps (compiler/transform) and each op's kernel builder: the call with
// its operands' struct info (static or symbolic shapes), operands known at compile time as scalars
// (R.const(2, "float32"), Python numbers) inlined into the kernel, and the result's struct info.
#include <optional>
#include <string>
#include <vector>

#include "compiler/tir/loop_ir.h"
#include "compiler/op/registry.h"

namespace tvms::op {

struct LegalizeInput {
  const OpDef& def;
  const ir::Call& call;
  std::vector<const ir::StructInfo*> args;    // struct info of each of call.args
  std::vector<std::optional<double>> scalars; // the value of an operand that is a compile-time scalar
  const ir::StructInfo& out;  // a tensor, or for split / topk / batch_norm / dropout a tuple of tensors
  std::string kernelName;
  tir::Target target;         // what the kernel is built for (the vdevice of the call's output)
  const ir::Value* attr(std::string_view name) const {
    const ir::CallAttr* a = call.attr(name);
    return a ? &a->value : nullptr;
  }
};

struct LegalizeResult {
  std::optional<tir::Kernel> kernel;
  std::vector<size_t> bufferArgs;  // which of call.args are the kernel's input buffers, in order (the output follows)
  std::string error;               // why it cannot be lowered (unsupported dtype, unknown rank, ...)
};

// The kernel builders, attached to their ops' registry entries.
namespace kernels {
LegalizeResult elementwise(const LegalizeInput& in);  // binary/unary ops, activations, clip, where, ewise_fma, astype, broadcast_to
LegalizeResult reduce(const LegalizeInput& in);       // sum, mean, max, min, prod, std, variance
LegalizeResult softmax(const LegalizeInput& in);      // nn.softmax, nn.log_softmax
LegalizeResult matmul(const LegalizeInput& in);       // tiled, outer loop on the thread pool
LegalizeResult copyLike(const LegalizeInput& in);     // reshape, flatten, expand_dims, squeeze (same bytes)
LegalizeResult permuteDims(const LegalizeInput& in);  // permute_dims (transpose)
LegalizeResult conv(const LegalizeInput& in);         // nn.conv1d/2d/3d, any layout, as a tiled implicit GEMM
LegalizeResult pool(const LegalizeInput& in);         // nn.max_pool*/avg_pool*/adaptive_avg_pool*, any layout
LegalizeResult fill(const LegalizeInput& in);         // full, full_like, zeros, ones, zeros_like, ones_like
LegalizeResult triangle(const LegalizeInput& in);     // tril, triu
LegalizeResult take(const LegalizeInput& in);         // take (clip / wrap)
LegalizeResult stridedSlice(const LegalizeInput& in); // strided_slice
LegalizeResult joinAlongAxis(const LegalizeInput& in);// concat, stack (the tuple's fields as operands)
LegalizeResult split(const LegalizeInput& in);        // split (a tuple result: one output buffer per piece)
LegalizeResult argReduce(const LegalizeInput& in);    // argmax, argmin
LegalizeResult scan(const LegalizeInput& in);         // cumsum, cumprod (inclusive / exclusive)
LegalizeResult median(const LegalizeInput& in);       // median along one axis or of everything
LegalizeResult norm(const LegalizeInput& in);         // nn.layer_norm, nn.rms_norm over the last axes
LegalizeResult prelu(const LegalizeInput& in);        // nn.prelu
LegalizeResult einsum(const LegalizeInput& in);       // einsum without "..." (a loop nest)
LegalizeResult ordering(const LegalizeInput& in);     // sort, argsort, topk (by repeated selection)
LegalizeResult arange(const LegalizeInput& in);       // arange with compile-time bounds
LegalizeResult dropout(const LegalizeInput& in);      // nn.dropout at inference (identity, mask of ones)
LegalizeResult groupedNorm(const LegalizeInput& in);  // nn.instance_norm, nn.group_norm, nn.batch_norm (a tuple result)
LegalizeResult outer(const LegalizeInput& in);        // outer
}  // namespace kernels

}  // namespace tvms::op
