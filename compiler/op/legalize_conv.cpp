// conv1d/2d/3d (not transposed), any layout of data, weight and output (NCHW, NHWC, OIHW, OHWI,
// HWIO, ...), strides, padding, dilation, groups: a GEMM over the implicit im2col matrix, through
// the same tiled GEMM as matmul (compiler/schedule/gemm.h: the target's schedule builds it). For batch n and group g:
//   rows = output positions (od, oh, ow), columns = the group's output channels,
//   k = (kd, kh, kw, ic) over the window and the group's input channels;
// A(row, k) is the input element under that window position, zero where it falls in the padding,
// packed per tile so the micro-kernel reads it with unit stride.
#include "compiler/op/legalize_util.h"
#include "compiler/schedule/gemm.h"
#include "compiler/op/infer_util.h"
#include "compiler/op/nn_attrs.h"

#include <variant>

namespace tvms::op::kernels {

using namespace tir;

LegalizeResult convTranspose(const LegalizeInput& in);

namespace {

std::vector<ExprP> rowMajorStrides(const std::vector<ExprP>& dims) {
  std::vector<ExprP> s(dims.size(), intImm(1));
  for (size_t i = dims.size(); i-- > 1;) s[i - 1] = s[i] * dims[i];
  return s;
}

// Splits a flat index into coordinates of `extents` (row-major, the last one fastest).
std::vector<ExprP> unflatten(ExprP flat, const std::vector<ExprP>& extents) {
  std::vector<ExprP> out(extents.size());
  for (size_t i = extents.size(); i-- > 0;) {
    out[i] = i == 0 ? flat : binary(BinOp::FloorMod, flat, extents[i]);
    flat = binary(BinOp::FloorDiv, flat, extents[i]);
  }
  return out;
}

// What both convolution kernels read from the call: layouts, shapes, groups, strides, dilation, padding.
struct ConvCall {
  int dims = 2;
  nn::Layout dl, kl, ol;
  std::vector<ExprP> x, w, o;
  int64_t groups = 1;
  std::vector<int64_t> strides, dilation;
  nn::Padding pad;
  ScalarType t = ScalarType::F32;
};
std::variant<ConvCall, LegalizeResult> readConv(const LegalizeInput& in, KernelBuilder& kb) {
  const std::string name = in.def.scriptName();
  const ir::StructInfo* data = in.args.size() > 0 ? in.args[0] : nullptr;
  const ir::StructInfo* weight = in.args.size() > 1 ? in.args[1] : nullptr;
  auto t = elementType(data);
  if (!t || !isFloat(*t) || !weight || weight->dtype != data->dtype || in.out.dtype != data->dtype)
    return failure(name + " kernels take float data and weight of one dtype (and out_dtype equal to it)");
  ConvCall c;
  c.t = *t;
  // The weight's first slot is O for a convolution, I for a transposed one (IOHW): nn::ConvAttrs.
  const nn::ConvAttrs a = nn::convAttrs(in.def, in.call);
  c.dims = a.dims;
  c.dl = a.data;
  c.kl = a.kernel;
  c.ol = a.out;
  if (!c.dl.valid || !c.kl.valid || !c.ol.valid) return failure(name + ": unsupported layout");
  auto x = shapeExprs(kb, data), w = shapeExprs(kb, weight), o = shapeExprs(kb, &in.out);
  if (!x || !w || !o) return failure("the operands' shapes must be known to compile " + name);
  c.x = *x;
  c.w = *w;
  c.o = *o;
  c.groups = a.groups;
  if (c.groups < 1) return failure(name + ": groups must be positive");
  c.strides = a.strides;
  c.dilation = a.dilation;
  c.pad = a.padding;
  return c;
}

}  // namespace

LegalizeResult conv(const LegalizeInput& in) {
  if (in.def.window.transpose) return convTranspose(in);
  KernelBuilder kb(in.kernelName);
  auto read = readConv(in, kb);
  if (auto* failed = std::get_if<LegalizeResult>(&read)) return std::move(*failed);
  ConvCall& cc = std::get<ConvCall>(read);
  int D = kb.param("data", cc.t, shapeText(in.args[0]));
  int W = kb.param("weight", cc.t, shapeText(in.args[1]));
  int Y = kb.param("out", cc.t, shapeText(&in.out));
  auto xs = rowMajorStrides(cc.x), ws = rowMajorStrides(cc.w), os = rowMajorStrides(cc.o);
  ExprP G = intImm(cc.groups);
  ExprP icg = cc.w[cc.kl.channel];                              // input channels per group
  ExprP ocg = binary(BinOp::FloorDiv, cc.w[cc.kl.batch], G);         // output channels per group
  std::vector<ExprP> outSpatial, window;                     // row extents, window extents
  for (int i = 0; i < cc.dims; ++i) {
    outSpatial.push_back(cc.o[cc.ol.spatial[i]]);
    window.push_back(cc.w[cc.kl.spatial[i]]);
  }
  std::vector<ExprP> kExtents = window;
  kExtents.push_back(icg);

  schedule::GemmOperands gm;
  gm.batch = cc.x[cc.dl.batch] * G;
  gm.M = product(outSpatial);
  gm.N = ocg;
  gm.K = product(kExtents);
  gm.packA = true;
  auto n = [G](const ExprP& b) { return binary(BinOp::FloorDiv, b, G); };
  auto g = [G](const ExprP& b) { return binary(BinOp::FloorMod, b, G); };
  gm.a = [&, D, n, g](const ExprP& b, const ExprP& row, const ExprP& k) {
    auto pos = unflatten(row, outSpatial);
    auto kk = unflatten(k, kExtents);
    ExprP index = n(b) * xs[cc.dl.batch] + (g(b) * icg + kk[cc.dims]) * xs[cc.dl.channel];
    ExprP inside;
    for (int i = 0; i < cc.dims; ++i) {
      ExprP at = pos[i] * intImm(cc.strides[i]) + kk[i] * intImm(cc.dilation[i]) - intImm(cc.pad.before[i]);
      ExprP extent = cc.x[cc.dl.spatial[i]];
      ExprP ok = binary(BinOp::And, binary(BinOp::Ge, at, intImm(0)), binary(BinOp::Lt, at, extent));
      inside = inside ? binary(BinOp::And, inside, ok) : ok;
      // Clamped so the load stays in the buffer; the select below drops it in the padding.
      ExprP clamped = binary(BinOp::Max, intImm(0), binary(BinOp::Min, at, extent - intImm(1)));
      index = index + clamped * xs[cc.dl.spatial[i]];
    }
    return select(inside, kb.load(D, index), floatImm(0, cc.t));
  };
  gm.b = [&, W, g](const ExprP& b, const ExprP& k, const ExprP& col) {
    auto kk = unflatten(k, kExtents);
    ExprP index = (g(b) * ocg + col) * ws[cc.kl.batch] + kk[cc.dims] * ws[cc.kl.channel];
    for (int i = 0; i < cc.dims; ++i) index = index + kk[i] * ws[cc.kl.spatial[i]];
    return kb.load(W, index);
  };
  gm.cIndex = [&, n, g](const ExprP& b, const ExprP& row, const ExprP& col) {
    auto pos = unflatten(row, outSpatial);
    ExprP index = n(b) * os[cc.ol.batch] + (g(b) * ocg + col) * os[cc.ol.channel];
    for (int i = 0; i < cc.dims; ++i) index = index + pos[i] * os[cc.ol.spatial[i]];
    return index;
  };
  schedule::addGemm(kb, in.target, cc.t, Y, gm);
  return done(kb, {0, 1});
}

}  // namespace tvms::op::kernels

namespace tvms::op::kernels {

using namespace tir;

// conv1d/2d/3d_transpose, any layout (weight IOHW by default: input channels first), strides,
// padding, output_padding (through the result's shape), dilation, groups: each output element
// gathers the inputs whose strided window covers it, out[o] += x[i] * w[k] where
// o = i * stride + k * dilation - pad. A plain loop nest (outermost parallel), not the tiled GEMM.
LegalizeResult convTranspose(const LegalizeInput& in) {
  KernelBuilder kb(in.kernelName);
  auto read = readConv(in, kb);
  if (auto* failed = std::get_if<LegalizeResult>(&read)) return std::move(*failed);
  ConvCall& cc = std::get<ConvCall>(read);
  int D = kb.param("data", cc.t, shapeText(in.args[0]));
  int W = kb.param("weight", cc.t, shapeText(in.args[1]));
  int Y = kb.param("out", cc.t, shapeText(&in.out));
  auto xs = rowMajorStrides(cc.x), ws = rowMajorStrides(cc.w);
  ExprP G = intImm(cc.groups);
  ExprP icg = binary(BinOp::FloorDiv, cc.x[static_cast<size_t>(cc.dl.channel)], G);
  ExprP ocg = cc.w[static_cast<size_t>(cc.kl.channel)];  // output channels per group
  int ic = kb.loopVar("ic"), acc = kb.local("acc", cc.t);
  std::vector<int> win;
  for (int i = 0; i < cc.dims; ++i) win.push_back(kb.loopVar("k" + std::to_string(i)));
  kb.add(outputNest(kb, cc.o, [&](const std::vector<ExprP>& oi) {
    ExprP n = oi[static_cast<size_t>(cc.ol.batch)], oc = oi[static_cast<size_t>(cc.ol.channel)];
    ExprP g = binary(BinOp::FloorDiv, oc, ocg), ocInGroup = binary(BinOp::FloorMod, oc, ocg);
    ExprP cin = g * icg + kb.var(ic);
    ExprP xIndex = n * xs[static_cast<size_t>(cc.dl.batch)] + cin * xs[static_cast<size_t>(cc.dl.channel)];
    ExprP wIndex = cin * ws[static_cast<size_t>(cc.kl.batch)] + ocInGroup * ws[static_cast<size_t>(cc.kl.channel)];
    ExprP ok;
    for (int i = 0; i < cc.dims; ++i) {
      ExprP L = cc.x[static_cast<size_t>(cc.dl.spatial[i])];
      ExprP num = oi[static_cast<size_t>(cc.ol.spatial[i])] + intImm(cc.pad.before[i]) - kb.var(win[i]) * intImm(cc.dilation[i]);
      ExprP at = binary(BinOp::FloorDiv, num, intImm(cc.strides[i]));
      ExprP here = binary(BinOp::And, binary(BinOp::Ge, num, intImm(0)), binary(BinOp::And, binary(BinOp::Eq, binary(BinOp::FloorMod, num, intImm(cc.strides[i])), intImm(0)), binary(BinOp::Lt, at, L)));
      ok = ok ? binary(BinOp::And, ok, here) : here;
      xIndex = xIndex + binary(BinOp::Max, intImm(0), binary(BinOp::Min, at, L - intImm(1))) * xs[static_cast<size_t>(cc.dl.spatial[i])];
      wIndex = wIndex + kb.var(win[i]) * ws[static_cast<size_t>(cc.kl.spatial[i])];
    }
    StmtP step = assign(acc, kb.var(acc) + select(ok, kb.load(D, xIndex) * kb.load(W, wIndex), floatImm(0, cc.t)));
    for (int i = cc.dims; i-- > 0;) step = forLoop(win[i], cc.w[static_cast<size_t>(cc.kl.spatial[i])], {step});
    step = forLoop(ic, icg, {step});
    return std::vector<StmtP>{assign(acc, floatImm(0, cc.t)), step, store(Y, flatIndex(oi, cc.o), kb.var(acc))};
  }));
  return done(kb, {0, 1});
}

}  // namespace tvms::op::kernels
