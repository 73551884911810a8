// conv1d/2d/3d (not transposed), any layout of data, weight and output (NCHW, NHWC, OIHW, OHWI,
// HWIO, ...), strides, padding, dilation, groups: a GEMM over the implicit im2col matrix, through
// the same tiled GEMM as matmul (legalize_gemm.h). For batch n and group g:
//   rows = output positions (od, oh, ow), columns = the group's output channels,
//   k = (kd, kh, kw, ic) over the window and the group's input channels;
// A(row, k) is the input element under that window position, zero where it falls in the padding,
// packed per tile so the micro-kernel reads it with unit stride.
#include "compiler/op/legalize_gemm.h"
#include "compiler/op/infer_util.h"
#include "compiler/op/nn_attrs.h"

namespace tvms::op::kernels {

using namespace codegen;

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
    out[i] = i == 0 ? flat : binary("floormod", flat, extents[i]);
    flat = binary("floordiv", flat, extents[i]);
  }
  return out;
}

}  // namespace

LegalizeResult conv(const LegalizeInput& in) {
  const std::string name = in.def.scriptName();
  if (in.def.name.find("transpose") != std::string::npos) return convTranspose(in);
  const ir::StructInfo* data = in.args.size() > 0 ? in.args[0] : nullptr;
  const ir::StructInfo* weight = in.args.size() > 1 ? in.args[1] : nullptr;
  auto t = elementType(data);
  if (!t || !isFloat(*t) || !weight || weight->dtype != data->dtype || in.out.dtype != data->dtype)
    return failure(name + " kernels take float32 or float64 data and weight of one dtype (and out_dtype equal to it)");
  const int dims = nn::spatialDims(in.def.name);
  std::string dataLayout = infer::stringAttr(in.attr("data_layout")).value_or("");
  nn::Layout dl = nn::parseLayout(dataLayout, 'N', 'C', dims);
  nn::Layout kl = nn::parseLayout(infer::stringAttr(in.attr("kernel_layout")).value_or(""), 'O', 'I', dims);
  nn::Layout ol = nn::parseLayout(infer::stringAttr(in.attr("out_layout")).value_or(dataLayout), 'N', 'C', dims);
  if (!dl.valid || !kl.valid || !ol.valid) return failure(name + ": unsupported layout");
  KernelBuilder kb(in.kernelName);
  auto x = shapeExprs(kb, data), w = shapeExprs(kb, weight), o = shapeExprs(kb, &in.out);
  if (!x || !w || !o) return failure("the operands' shapes must be known to compile " + name);
  int64_t groups = infer::intAttr(in.attr("groups")).value_or(1);
  if (groups < 1) return failure(name + ": groups must be positive");
  auto strides = nn::perDim(in.attr("strides"), dims, 1);
  auto dilation = nn::perDim(in.attr("dilation"), dims, 1);
  auto pad = nn::padding(in.attr("padding"), dims);

  int D = kb.param("data", *t, shapeText(data));
  int W = kb.param("weight", *t, shapeText(weight));
  int Y = kb.param("out", *t, shapeText(&in.out));
  auto xs = rowMajorStrides(*x), ws = rowMajorStrides(*w), os = rowMajorStrides(*o);
  ExprP G = intImm(groups);
  ExprP icg = (*w)[kl.channel];                              // input channels per group
  ExprP ocg = binary("floordiv", (*w)[kl.batch], G);         // output channels per group
  std::vector<ExprP> outSpatial, window;                     // row extents, window extents
  for (int i = 0; i < dims; ++i) {
    outSpatial.push_back((*o)[ol.spatial[i]]);
    window.push_back((*w)[kl.spatial[i]]);
  }
  std::vector<ExprP> kExtents = window;
  kExtents.push_back(icg);

  GemmOperands gm;
  gm.batch = (*x)[dl.batch] * G;
  gm.M = product(outSpatial);
  gm.N = ocg;
  gm.K = product(kExtents);
  gm.packA = true;
  auto n = [G](const ExprP& b) { return binary("floordiv", b, G); };
  auto g = [G](const ExprP& b) { return binary("floormod", b, G); };
  gm.a = [&, D, n, g](const ExprP& b, const ExprP& row, const ExprP& k) {
    auto pos = unflatten(row, outSpatial);
    auto kk = unflatten(k, kExtents);
    ExprP index = n(b) * xs[dl.batch] + (g(b) * icg + kk[dims]) * xs[dl.channel];
    ExprP inside;
    for (int i = 0; i < dims; ++i) {
      ExprP at = pos[i] * intImm(strides[i]) + kk[i] * intImm(dilation[i]) - intImm(pad.before[i]);
      ExprP extent = (*x)[dl.spatial[i]];
      ExprP ok = binary("and", binary(">=", at, intImm(0)), binary("<", at, extent));
      inside = inside ? binary("and", inside, ok) : ok;
      // Clamped so the load stays in the buffer; the select below drops it in the padding.
      ExprP clamped = binary("max", intImm(0), binary("min", at, extent - intImm(1)));
      index = index + clamped * xs[dl.spatial[i]];
    }
    return select(inside, kb.load(D, index), floatImm(0, *t));
  };
  gm.b = [&, W, g](const ExprP& b, const ExprP& k, const ExprP& col) {
    auto kk = unflatten(k, kExtents);
    ExprP index = (g(b) * ocg + col) * ws[kl.batch] + kk[dims] * ws[kl.channel];
    for (int i = 0; i < dims; ++i) index = index + kk[i] * ws[kl.spatial[i]];
    return kb.load(W, index);
  };
  gm.cIndex = [&, n, g](const ExprP& b, const ExprP& row, const ExprP& col) {
    auto pos = unflatten(row, outSpatial);
    ExprP index = n(b) * os[ol.batch] + (g(b) * ocg + col) * os[ol.channel];
    for (int i = 0; i < dims; ++i) index = index + pos[i] * os[ol.spatial[i]];
    return index;
  };
  addTiledGemm(kb, *t, Y, gm);
  return done(kb, {0, 1});
}

}  // namespace tvms::op::kernels

namespace tvms::op::kernels {

using namespace codegen;

// conv1d/2d/3d_transpose, any layout (weight IOHW by default: input channels first), strides,
// padding, output_padding (through the result's shape), dilation, groups: each output element
// gathers the inputs whose strided window covers it, out[o] += x[i] * w[k] where
// o = i * stride + k * dilation - pad. A plain loop nest (outermost parallel), not the tiled GEMM.
LegalizeResult convTranspose(const LegalizeInput& in) {
  const std::string name = in.def.scriptName();
  const ir::StructInfo* data = in.args.size() > 0 ? in.args[0] : nullptr;
  const ir::StructInfo* weight = in.args.size() > 1 ? in.args[1] : nullptr;
  auto t = elementType(data);
  if (!t || !isFloat(*t) || !weight || weight->dtype != data->dtype || in.out.dtype != data->dtype)
    return failure(name + " kernels take float32 or float64 data and weight of one dtype (and out_dtype equal to it)");
  const int dims = nn::spatialDims(in.def.name);
  std::string dataLayout = infer::stringAttr(in.attr("data_layout")).value_or("");
  nn::Layout dl = nn::parseLayout(dataLayout, 'N', 'C', dims);
  nn::Layout kl = nn::parseLayout(infer::stringAttr(in.attr("kernel_layout")).value_or(""), 'I', 'O', dims);
  nn::Layout ol = nn::parseLayout(infer::stringAttr(in.attr("out_layout")).value_or(dataLayout), 'N', 'C', dims);
  if (!dl.valid || !kl.valid || !ol.valid) return failure(name + ": unsupported layout");
  KernelBuilder kb(in.kernelName);
  auto x = shapeExprs(kb, data), w = shapeExprs(kb, weight), o = shapeExprs(kb, &in.out);
  if (!x || !w || !o) return failure("the operands' shapes must be known to compile " + name);
  int64_t groups = infer::intAttr(in.attr("groups")).value_or(1);
  if (groups < 1) return failure(name + ": groups must be positive");
  auto strides = nn::perDim(in.attr("strides"), dims, 1), dilation = nn::perDim(in.attr("dilation"), dims, 1);
  auto pad = nn::padding(in.attr("padding"), dims);
  int D = kb.param("data", *t, shapeText(data));
  int W = kb.param("weight", *t, shapeText(weight));
  int Y = kb.param("out", *t, shapeText(&in.out));
  auto xs = rowMajorStrides(*x), ws = rowMajorStrides(*w);
  ExprP G = intImm(groups);
  ExprP icg = binary("floordiv", (*x)[static_cast<size_t>(dl.channel)], G);
  ExprP ocg = (*w)[static_cast<size_t>(kl.channel)];  // output channels per group
  int ic = kb.loopVar("ic"), acc = kb.local("acc", *t);
  std::vector<int> win;
  for (int i = 0; i < dims; ++i) win.push_back(kb.loopVar("k" + std::to_string(i)));
  kb.add(outputNest(kb, *o, [&](const std::vector<ExprP>& oi) {
    ExprP n = oi[static_cast<size_t>(ol.batch)], oc = oi[static_cast<size_t>(ol.channel)];
    ExprP g = binary("floordiv", oc, ocg), ocInGroup = binary("floormod", oc, ocg);
    ExprP cin = g * icg + kb.var(ic);
    ExprP xIndex = n * xs[static_cast<size_t>(dl.batch)] + cin * xs[static_cast<size_t>(dl.channel)];
    ExprP wIndex = cin * ws[static_cast<size_t>(kl.batch)] + ocInGroup * ws[static_cast<size_t>(kl.channel)];
    ExprP ok;
    for (int i = 0; i < dims; ++i) {
      ExprP L = (*x)[static_cast<size_t>(dl.spatial[i])];
      ExprP num = oi[static_cast<size_t>(ol.spatial[i])] + intImm(pad.before[i]) - kb.var(win[i]) * intImm(dilation[i]);
      ExprP at = binary("floordiv", num, intImm(strides[i]));
      ExprP here = binary("and", binary(">=", num, intImm(0)), binary("and", binary("==", binary("floormod", num, intImm(strides[i])), intImm(0)), binary("<", at, L)));
      ok = ok ? binary("and", ok, here) : here;
      xIndex = xIndex + binary("max", intImm(0), binary("min", at, L - intImm(1))) * xs[static_cast<size_t>(dl.spatial[i])];
      wIndex = wIndex + kb.var(win[i]) * ws[static_cast<size_t>(kl.spatial[i])];
    }
    StmtP step = assign(acc, kb.var(acc) + select(ok, kb.load(D, xIndex) * kb.load(W, wIndex), floatImm(0, *t)));
    for (int i = dims; i-- > 0;) step = forLoop(win[i], (*w)[static_cast<size_t>(kl.spatial[i])], {step});
    step = forLoop(ic, icg, {step});
    return std::vector<StmtP>{assign(acc, floatImm(0, *t)), step, store(Y, flatIndex(oi, *o), kb.var(acc))};
  }));
  return done(kb, {0, 1});
}

}  // namespace tvms::op::kernels
