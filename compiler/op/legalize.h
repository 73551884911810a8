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
  const ir::Value* attr(std::string_view name) const { return call.attrValue(name); }
};

struct LegalizeResult {
  std::optional<tir::Kernel> kernel;
  std::vector<size_t> bufferArgs;  // which of call.args are the kernel's input buffers, in order (the output follows)
  std::string error;               // why it cannot be lowered (unsupported dtype, unknown rank, ...)
};

// The kernel builders, attached to their ops' registry entries. A builder shared by a family of ops
// takes what tells them apart as an argument; the registry binds each op to its instance
// (kernels::reduceOp<Reduction::Sum>), so no builder looks at the op's name.
namespace kernels {
enum class Reduction { Sum, Mean, Max, Min, Prod, Std, Variance };
enum class Pooling { Max, Avg, AdaptiveAvg };
enum class GroupedNorm { Instance, Group, Batch };
enum class Ordering { Sort, Argsort, Topk };
enum class Fill { Zeros, Ones, Value };

LegalizeResult elementwise(const LegalizeInput& in);  // the loops around OpDef::scalar (binary/unary ops, activations, clip, where, ...)
LegalizeResult reduce(const LegalizeInput& in, Reduction r);  // sum, mean, max, min, prod, std, variance
LegalizeResult softmax(const LegalizeInput& in, bool log);    // nn.softmax, nn.log_softmax
LegalizeResult matmul(const LegalizeInput& in);       // the target's GEMM schedule (compiler/schedule/gemm.h)
LegalizeResult copyLike(const LegalizeInput& in);     // reshape, flatten, expand_dims, squeeze (same bytes)
LegalizeResult permuteDims(const LegalizeInput& in);  // permute_dims (transpose)
LegalizeResult conv(const LegalizeInput& in);  // nn.conv1d/2d/3d (+ _transpose), any layout (nn::ConvAttrs)
LegalizeResult pool(const LegalizeInput& in, Pooling p, int dims);      // nn.max_pool*/avg_pool*/adaptive_avg_pool*, any layout
LegalizeResult fill(const LegalizeInput& in, Fill f);  // full, full_like (Value), zeros, zeros_like, ones, ones_like
LegalizeResult triangle(const LegalizeInput& in, bool lower);  // tril, triu
LegalizeResult take(const LegalizeInput& in);         // take (clip / wrap)
LegalizeResult stridedSlice(const LegalizeInput& in); // strided_slice
LegalizeResult joinAlongAxis(const LegalizeInput& in, bool stack);  // concat, stack (the tuple's fields as operands)
LegalizeResult split(const LegalizeInput& in);        // split (a tuple result: one output buffer per piece)
LegalizeResult argReduce(const LegalizeInput& in, bool max);  // argmax, argmin
LegalizeResult scan(const LegalizeInput& in, bool sum);       // cumsum, cumprod (inclusive / exclusive)
LegalizeResult median(const LegalizeInput& in);       // median along one axis or of everything
LegalizeResult norm(const LegalizeInput& in, bool rms);  // nn.layer_norm, nn.rms_norm over the last axes
LegalizeResult prelu(const LegalizeInput& in);        // nn.prelu
LegalizeResult einsum(const LegalizeInput& in);       // einsum without "..." (a loop nest)
LegalizeResult ordering(const LegalizeInput& in, Ordering o);  // sort, argsort, topk (by repeated selection)
LegalizeResult arange(const LegalizeInput& in);
LegalizeResult elementCount(const LegalizeInput& in);  // size: the element count of x (no buffer of x is read)       // arange with compile-time bounds
LegalizeResult dropout(const LegalizeInput& in);      // nn.dropout at inference (identity, mask of ones)
LegalizeResult groupedNorm(const LegalizeInput& in, GroupedNorm n);  // nn.instance_norm, nn.group_norm, nn.batch_norm (a tuple result)
LegalizeResult outer(const LegalizeInput& in);        // outer
LegalizeResult tile(const LegalizeInput& in);         // tile (numpy.tile)
LegalizeResult repeat(const LegalizeInput& in);       // repeat along an axis or of the flattened tensor
LegalizeResult flip(const LegalizeInput& in);         // flip along an axis
LegalizeResult pad(const LegalizeInput& in);          // nn.pad: constant, edge, reflect
LegalizeResult pixelShuffle(const LegalizeInput& in); // nn.pixel_shuffle (NCHW)
LegalizeResult meshgrid(const LegalizeInput& in);     // meshgrid ("ij" / "xy"; a tuple result)
LegalizeResult eye(const LegalizeInput& in);          // eye, eye_like
LegalizeResult reverseSequence(const LegalizeInput& in);  // reverse_sequence: each batch's first seq_lengths elements reversed
LegalizeResult hammingWindow(const LegalizeInput& in);    // hamming_window with constant periodic / alpha / beta
LegalizeResult bucketize(const LegalizeInput& in);        // bucketize: how many boundaries lie below each element
LegalizeResult multinomialFromUniform(const LegalizeInput& in);  // multinomial_from_uniform: the first index whose running sum passes the sample
// Results shaped by their operands' values (OpDef::shapeFunction): each op's dims kernel, then its kernel.
LegalizeResult uniqueShape(const LegalizeInput& in);      // unique: how many distinct values (a stable merge sort)
LegalizeResult unique(const LegalizeInput& in);           // unique: values, first indices, inverse, counts
LegalizeResult nonzeroShape(const LegalizeInput& in);     // nonzero: (rank, how many are nonzero)
LegalizeResult nonzero(const LegalizeInput& in);          // nonzero: their indices, in row-major order
LegalizeResult dynamicStridedSliceShape(const LegalizeInput& in);  // dynamic_strided_slice: each axis's length
LegalizeResult dynamicStridedSlice(const LegalizeInput& in);       // dynamic_strided_slice: the elements
LegalizeResult roiAlign(const LegalizeInput& in);        // vision.roi_align: bilinear samples per bin, averaged or the max (NCHW / NHWC)
LegalizeResult roiPool(const LegalizeInput& in);         // vision.roi_pool: the max of each bin's pixels (NCHW)
LegalizeResult quantize(const LegalizeInput& in);         // quantize to int8 / uint8 / int32
LegalizeResult dequantize(const LegalizeInput& in);       // dequantize to a float type
LegalizeResult collapseSum(const LegalizeInput& in);  // collapse_sum_to, collapse_sum_like
LegalizeResult layoutTransform(const LegalizeInput& in);
LegalizeResult attention(const LegalizeInput& in);    // nn.attention (bias, scale, causal masks): one output per thread, float32 math
LegalizeResult nllLoss(const LegalizeInput& in);      // nn.nll_loss (none, sum, mean; weights, ignore_index)
LegalizeResult crossEntropyWithLogits(const LegalizeInput& in);
LegalizeResult resize2d(const LegalizeInput& in);
LegalizeResult resize3d(const LegalizeInput& in);
LegalizeResult affineGrid(const LegalizeInput& in);  // image.affine_grid: theta (N, 2, 3) applied to a [-1, 1] grid
LegalizeResult gridSample(const LegalizeInput& in);  // image.grid_sample: NCHW, bilinear / nearest, zeros / border  // image.resize3d: the same over D, H, W; NCDHW / NDHWC
LegalizeResult indexTensor(const LegalizeInput& in);  // index_tensor (the index tuple as operands 1..n)
LegalizeResult indexPut(const LegalizeInput& in);     // index_put (data, the index tuple, values)     // image.resize2d: nearest_neighbor, linear, cubic; NCHW / NHWC  // layout_transform by a lambda index map (padding filled)
LegalizeResult gatherElements(const LegalizeInput& in);  // gather_elements (ONNX)
LegalizeResult gatherNd(const LegalizeInput& in);     // gather_nd (ONNX, batch_dims)
LegalizeResult scatterElements(const LegalizeInput& in);  // scatter_elements (update, add, mul, max, min)
LegalizeResult scatterNd(const LegalizeInput& in);    // scatter_nd (update, add, mul, max, min)
LegalizeResult oneHot(const LegalizeInput& in);       // one_hot with constant on / off values
LegalizeResult sliceScatter(const LegalizeInput& in); // slice_scatter with constant start / end / step

// The instances the registry binds (a LegalizeFn takes only the input).
template <Reduction R> LegalizeResult reduceOp(const LegalizeInput& in) { return reduce(in, R); }
template <bool Log> LegalizeResult softmaxOp(const LegalizeInput& in) { return softmax(in, Log); }
template <Pooling P, int Dims> LegalizeResult poolOp(const LegalizeInput& in) { return pool(in, P, Dims); }
template <Fill F> LegalizeResult fillOp(const LegalizeInput& in) { return fill(in, F); }
template <bool Lower> LegalizeResult triangleOp(const LegalizeInput& in) { return triangle(in, Lower); }
template <bool Stack> LegalizeResult joinOp(const LegalizeInput& in) { return joinAlongAxis(in, Stack); }
template <bool Max> LegalizeResult argReduceOp(const LegalizeInput& in) { return argReduce(in, Max); }
template <bool Sum> LegalizeResult scanOp(const LegalizeInput& in) { return scan(in, Sum); }
template <bool Rms> LegalizeResult normOp(const LegalizeInput& in) { return norm(in, Rms); }
template <Ordering O> LegalizeResult orderingOp(const LegalizeInput& in) { return ordering(in, O); }
template <GroupedNorm N> LegalizeResult groupedNormOp(const LegalizeInput& in) { return groupedNorm(in, N); }
}  // namespace kernels

}  // namespace tvms::op
