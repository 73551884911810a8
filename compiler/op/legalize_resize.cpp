// image.resize2d as TOPI computes it: each output position mapped back to a (fractional) input
// position by coordinate_transformation_mode, then sampled by nearest_neighbor (rounding_method),
// linear (the 4 neighbours) or cubic (the 16 neighbours, Keys' kernel with cubic_alpha, out-of-image
// taps dropped and the rest renormalised with cubic_exclude); neighbours outside clamp to the edge.
#include "compiler/op/infer_util.h"
#include "compiler/op/legalize_util.h"

namespace tvms::op::kernels {

using namespace tir;

namespace {

constexpr ScalarType F = ScalarType::F32;

ExprP f32(double v) { return floatImm(v, F); }

// The input coordinate of output index `x` along an axis of `in` input and `out` output elements.
ExprP sourceCoordinate(const std::string& mode, const ExprP& x, const ExprP& in, const ExprP& out) {
  ExprP xf = cast(F, x), inF = cast(F, in), outF = cast(F, out);
  ExprP scale = binary(BinOp::Div, inF, outF);
  if (mode == "half_pixel") return (xf + f32(0.5)) * scale - f32(0.5);
  if (mode == "pytorch_half_pixel") return select(binary(BinOp::Gt, out, intImm(1)), (xf + f32(0.5)) * scale - f32(0.5), f32(0));
  if (mode == "align_corners")
    return select(binary(BinOp::Gt, out, intImm(1)), binary(BinOp::Div, xf * (inF - f32(1)), outF - f32(1)), f32(0));
  if (mode == "asymmetric") return xf * scale;
  if (mode == "tf_half_pixel_for_nn") return (xf + f32(0.5)) * scale;
  return nullptr;
}

ExprP clampIndex(const ExprP& i, const ExprP& n) { return max(intImm(0), min(i, n - intImm(1))); }

ExprP nearest(const std::string& rounding, const ExprP& x) {
  if (rounding == "floor") return unary(UnOp::Floor, x);
  if (rounding == "ceil") return unary(UnOp::Ceil, x);
  if (rounding == "round_prefer_floor") return unary(UnOp::Ceil, x - f32(0.5));
  if (rounding == "round_prefer_ceil") return unary(UnOp::Floor, x + f32(0.5));
  if (rounding == "round" || rounding.empty()) return unary(UnOp::Round, x);
  return nullptr;
}

// Keys' cubic weights of the taps at offsets -1, 0, 1, 2 from floor(x), for fraction t.
std::vector<ExprP> cubicWeights(const ExprP& t, double a) {
  ExprP A = f32(a);
  auto far = [&](const ExprP& d) { return ((A * d - f32(5) * A) * d + f32(8) * A) * d - f32(4) * A; };  // 1 < |d| < 2
  auto near = [&](const ExprP& d) { return ((A + f32(2)) * d - (A + f32(3))) * d * d + f32(1); };     // |d| <= 1
  return {far(t + f32(1)), near(t), near(f32(1) - t), far(f32(2) - t)};
}

}  // namespace

LegalizeResult resize2d(const LegalizeInput& in) {
  const ir::StructInfo* x = in.args.empty() ? nullptr : in.args[0];
  auto t = elementType(x), ot = elementType(&in.out);
  if (!t || !ot || !isFloat(*t)) return failure("R.image.resize2d kernels take float tensors");
  std::string layout = infer::stringAttr(in.attr("layout")).value_or("NCHW");
  std::string method = infer::stringAttr(in.attr("method")).value_or("linear");
  std::string mode = infer::stringAttr(in.attr("coordinate_transformation_mode")).value_or("half_pixel");
  std::string rounding = infer::stringAttr(in.attr("rounding_method")).value_or("round");
  size_t hAxis = layout.find('H'), wAxis = layout.find('W');
  if (layout.size() != 4 || hAxis == std::string::npos || wAxis == std::string::npos) return failure("R.image.resize2d: layout " + layout + " has no kernel (NCHW and NHWC do)");
  if (method == "nearest_neighbor" ? !nearest(rounding, f32(0)) : method != "linear" && method != "cubic")
    return failure("R.image.resize2d: method \"" + method + "\" with rounding \"" + rounding + "\" has no kernel");
  KernelBuilder kb(in.kernelName);
  auto xd = shapeExprs(kb, x), od = shapeExprs(kb, &in.out);
  if (!xd || !od || xd->size() != 4) return failure("the shapes must be known to compile R.image.resize2d");
  if (!sourceCoordinate(mode, intImm(0), intImm(1), intImm(1)))
    return failure("R.image.resize2d: coordinate_transformation_mode \"" + mode + "\" has no kernel yet");
  double alpha = floatAttr(in, "cubic_alpha", -0.75);
  bool exclude = infer::intAttr(in.attr("cubic_exclude")).value_or(0) != 0;
  int a = kb.param("A", *t, shapeText(x));
  int c = kb.param("C", *ot, shapeText(&in.out));
  int acc = kb.local("acc", F), wsum = kb.local("wsum", F);
  kb.add(outputNest(kb, *od, [&](const std::vector<ExprP>& o) {
    const ExprP &H = (*xd)[hAxis], &W = (*xd)[wAxis];
    ExprP ys = sourceCoordinate(mode, o[hAxis], H, (*od)[hAxis]), xs = sourceCoordinate(mode, o[wAxis], W, (*od)[wAxis]);
    auto sample = [&](const ExprP& yi, const ExprP& xi) {
      std::vector<ExprP> at = o;
      at[hAxis] = clampIndex(yi, H);
      at[wAxis] = clampIndex(xi, W);
      return cast(F, kb.load(a, flatIndex(at, *xd)));
    };
    ExprP value;
    std::vector<StmtP> steps;
    if (method == "nearest_neighbor") {
      value = sample(cast(ScalarType::I64, nearest(rounding, ys)), cast(ScalarType::I64, nearest(rounding, xs)));
    } else if (method == "linear") {
      ExprP y0 = unary(UnOp::Floor, ys), x0 = unary(UnOp::Floor, xs);
      ExprP fy = ys - y0, fx = xs - x0;
      ExprP yi = cast(ScalarType::I64, y0), xi = cast(ScalarType::I64, x0);
      ExprP top = sample(yi, xi) * (f32(1) - fx) + sample(yi, xi + intImm(1)) * fx;
      ExprP bottom = sample(yi + intImm(1), xi) * (f32(1) - fx) + sample(yi + intImm(1), xi + intImm(1)) * fx;
      value = top * (f32(1) - fy) + bottom * fy;
    } else {  // cubic: 4 x 4 taps
      ExprP y0 = unary(UnOp::Floor, ys), x0 = unary(UnOp::Floor, xs);
      auto wy = cubicWeights(ys - y0, alpha), wx = cubicWeights(xs - x0, alpha);
      ExprP yi = cast(ScalarType::I64, y0), xi = cast(ScalarType::I64, x0);
      steps = {assign(acc, f32(0)), assign(wsum, f32(0))};
      for (int dy = -1; dy <= 2; ++dy)
        for (int dx = -1; dx <= 2; ++dx) {
          ExprP py = yi + intImm(dy), px = xi + intImm(dx);
          ExprP w = wy[static_cast<size_t>(dy + 1)] * wx[static_cast<size_t>(dx + 1)];
          if (exclude) {
            ExprP inside = binary(BinOp::And, binary(BinOp::And, binary(BinOp::Ge, py, intImm(0)), binary(BinOp::Lt, py, H)),
                                  binary(BinOp::And, binary(BinOp::Ge, px, intImm(0)), binary(BinOp::Lt, px, W)));
            w = select(inside, w, f32(0));
          }
          steps.push_back(assign(acc, kb.var(acc) + w * sample(py, px)));
          steps.push_back(assign(wsum, kb.var(wsum) + w));
        }
      value = exclude ? binary(BinOp::Div, kb.var(acc), kb.var(wsum)) : kb.var(acc);
    }
    steps.push_back(store(c, flatIndex(o, *od), cast(*ot, value)));
    return steps;
  }));
  return done(kb, {0});
}

}  // namespace tvms::op::kernels
