// Pooling, 1-3 spatial dims, any layout: max_pool / avg_pool (pool_size, strides, padding, dilation,
// ceil_mode, count_include_pad) and adaptive_avg_pool (each output cell averages the input cells
// [floor(o*L/S), ceil((o+1)*L/S))). A loop nest over the output (outermost parallel), the window an
// inner nest accumulating in a local.
#include <limits>

#include "compiler/op/infer_util.h"
#include "compiler/op/legalize_util.h"
#include "compiler/op/nn_attrs.h"

namespace tvms::op::kernels {

using namespace tir;

LegalizeResult pool(const LegalizeInput& in, Pooling kind, int dims) {
  const std::string name = in.def.scriptName();
  bool adaptive = kind == Pooling::AdaptiveAvg;
  bool isMax = kind == Pooling::Max;
  const ir::StructInfo* x = in.args.empty() ? nullptr : in.args[0];
  auto t = elementType(x);
  if (!t || !isFloat(*t)) return failure(name + " kernels take float tensors");
  const nn::PoolAttrs attrs = nn::poolAttrs(in.def, in.call);
  const nn::Layout &dl = attrs.data, &ol = attrs.out;
  if (!dl.valid || !ol.valid) return failure(name + ": unsupported layout");
  KernelBuilder kb(in.kernelName);
  auto xd = shapeExprs(kb, x), od = shapeExprs(kb, &in.out);
  if (!xd || !od) return failure("the shapes must be known to compile " + name);
  const std::vector<int64_t>&size = attrs.poolSize, &strides = attrs.strides, &dilation = attrs.dilation;
  const nn::Padding& pad = attrs.padding;
  const bool countPad = attrs.countIncludePad;
  int a = kb.param("A", *t, shapeText(x));
  int c = kb.param("C", *t, shapeText(&in.out));
  int acc = kb.local("acc", *t), count = kb.local("count", ScalarType::I64);
  std::vector<int> win;
  for (int i = 0; i < dims; ++i) win.push_back(kb.loopVar("w" + std::to_string(i)));
  auto xStrides = [&] {
    std::vector<ExprP> s(xd->size(), intImm(1));
    for (size_t i = xd->size(); i-- > 1;) s[i - 1] = s[i] * (*xd)[i];
    return s;
  }();
  kb.add(outputNest(kb, *od, [&](const std::vector<ExprP>& o) {
    ExprP base = o[static_cast<size_t>(ol.batch)] * xStrides[static_cast<size_t>(dl.batch)] +
                 o[static_cast<size_t>(ol.channel)] * xStrides[static_cast<size_t>(dl.channel)];
    ExprP inside, index = base;
    std::vector<ExprP> extent;
    for (int i = 0; i < dims; ++i) {
      ExprP oi = o[static_cast<size_t>(ol.spatial[i])], L = (*xd)[static_cast<size_t>(dl.spatial[i])];
      ExprP at;
      if (adaptive) {
        ExprP S = (*od)[static_cast<size_t>(ol.spatial[i])];
        ExprP begin = binary(BinOp::FloorDiv, oi * L, S);
        ExprP end = binary(BinOp::FloorDiv, (oi + intImm(1)) * L + S - intImm(1), S);
        extent.push_back(end - begin);
        at = begin + kb.var(win[i]);
      } else {
        extent.push_back(intImm(size[i]));
        at = oi * intImm(strides[i]) + kb.var(win[i]) * intImm(dilation[i]) - intImm(pad.before[i]);
      }
      ExprP ok = binary(BinOp::And, binary(BinOp::Ge, at, intImm(0)), binary(BinOp::Lt, at, L));
      inside = inside ? binary(BinOp::And, inside, ok) : ok;
      index = index + binary(BinOp::Max, intImm(0), binary(BinOp::Min, at, L - intImm(1))) * xStrides[static_cast<size_t>(dl.spatial[i])];
    }
    ExprP v = kb.load(a, index);
    ExprP none = floatImm(isMax ? -std::numeric_limits<double>::infinity() : 0, *t);
    StmtP step = isMax ? assign(acc, select(inside, binary(BinOp::Max, kb.var(acc), v), kb.var(acc)))
                       : seq({assign(acc, kb.var(acc) + select(inside, v, floatImm(0, *t))),
                              assign(count, kb.var(count) + select(inside, intImm(1), intImm(0)))});
    for (int i = dims; i-- > 0;) step = forLoop(win[i], extent[static_cast<size_t>(i)], {step});
    ExprP result = kb.var(acc);
    if (!isMax) {
      ExprP divisor = countPad && !adaptive ? product(extent) : binary(BinOp::Max, kb.var(count), intImm(1));
      result = binary(BinOp::Div, kb.var(acc), cast(*t, divisor));
    }
    return std::vector<StmtP>{assign(acc, none), assign(count, intImm(0)), step, store(c, flatIndex(o, *od), result)};
  }));
  return done(kb, {0});
}

}  // namespace tvms::op::kernels
