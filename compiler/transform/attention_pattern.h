#pragma once
// Attention as TVM users write it, found for OffloadLibraries: R.nn.attention without a window
// (with or without a bias), and the written-out chain
//     s = R.matmul(q, kt); s2 = R.multiply(s, c) (or s / c, or no scale); [s3 = R.add(s2, bias)];
//     p = R.nn.softmax(s3, axis=-1); o = R.matmul(p, v)
// whose intermediates nothing else reads (the bias: a mask or position bias that broadcasts to the
// scores). Operands made by a permute_dims that only feeds the chain
// are taken before the permute (the permute becomes strides), and an output whose only use is a
// permute_dims is written in that permute's layout: the library reads and writes every tensor through
// strides (runtime/cuda_attention.cpp), so the copies around attention vanish with the score matrix.
#include <functional>
#include <unordered_map>
#include <unordered_set>
#include <vector>

#include "compiler/ir/expr.h"

namespace tvms::transform {

struct AttentionMatch {
  const ir::Binding* result = nullptr;  // the binding the library call replaces (its variable kept)
  ir::ExprPtr q, k, v;                  // the tensors handed over, as they lie
  // For each tensor, the axis holding each logical axis (batch, head, row, feature); -1: no such axis
  // (a rank-3 operand has no batch axis).
  std::vector<int64_t> qAxes, kAxes, vAxes, oAxes;
  double scale = 1;
  int causal = 0;  // 0 none, 1 TopLeft, 2 BottomRight
  ir::ExprPtr bias;                // null: none
  std::vector<int64_t> biasAxes;   // its axis for (batch, head, query row, key), -1 where it has none
};

struct AttentionPlan {
  std::unordered_map<const ir::Binding*, AttentionMatch> calls;  // by the binding each replaces
  std::unordered_set<const ir::Binding*> dropped;               // bindings the calls make dead
};

// Whether the library takes an attention with output `out` and queries of `featureSize` features
// (its vdevice's kind offers it; the dtype and the feature size are the kernel's).
using AttentionTakes = std::function<bool(const ir::StructInfo& out, int64_t featureSize)>;

// The attentions in `f` that `takes` accepts.
AttentionPlan findAttention(const ir::Function& f, const AttentionTakes& takes);

}  // namespace tvms::transform
