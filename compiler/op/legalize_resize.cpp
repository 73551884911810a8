// image.resize2d and resize3d as TOPI computes them: each output position mapped back to a (fractional) input
// position by coordinate_transformation_mode, then sampled by nearest_neighbor (rounding_method),
// linear (the 4 neighbours) or cubic (the 16 neighbours, Keys' kernel with cubic_alpha, out-of-image
// taps dropped and the rest renormalised with cubic_exclude); neighbours outside clamp to the edge.
#include "compiler/op/infer_util.h"
#include "compiler/op/legalize_util.h"

#include <algorithm>

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

// resize2d (layout NCHW / NHWC: axes H, W) and resize3d (NCDHW / NDHWC: axes D, H, W), one kernel
// over the layout's spatial axes: nearest takes one tap, linear 2 per axis, cubic 4 per axis, each
// tap weighted by the product of its axes' weights.
LegalizeResult resizeNd(const LegalizeInput& in, const std::string& spatialAxes) {
  const std::string name = in.def.scriptName();
  const ir::StructInfo* x = in.args.empty() ? nullptr : in.args[0];
  auto t = elementType(x), ot = elementType(&in.out);
  if (!t || !ot || !isFloat(*t)) return failure(name + " kernels take float tensors");
  const size_t rank = spatialAxes.size() + 2;
  std::string layout = infer::stringAttr(in.attr("layout")).value_or(rank == 4 ? "NCHW" : "NCDHW");
  std::string method = infer::stringAttr(in.attr("method")).value_or("linear");
  std::string mode = infer::stringAttr(in.attr("coordinate_transformation_mode")).value_or("half_pixel");
  std::string rounding = infer::stringAttr(in.attr("rounding_method")).value_or("round");
  std::vector<size_t> axes;
  for (char c : spatialAxes) axes.push_back(layout.find(c));
  if (layout.size() != rank || std::count(axes.begin(), axes.end(), std::string::npos))
    return failure(name + ": layout " + layout + " has no kernel (" + (rank == 4 ? "NCHW and NHWC" : "NCDHW and NDHWC") + " do)");
  if (method == "nearest_neighbor" ? !nearest(rounding, f32(0)) : method != "linear" && method != "cubic")
    return failure(name + ": method \"" + method + "\" with rounding \"" + rounding + "\" has no kernel");
  KernelBuilder kb(in.kernelName);
  auto xd = shapeExprs(kb, x), od = shapeExprs(kb, &in.out);
  if (!xd || !od || xd->size() != rank) return failure("the shapes must be known to compile " + name);
  if (!sourceCoordinate(mode, intImm(0), intImm(1), intImm(1)))
    return failure(name + ": coordinate_transformation_mode \"" + mode + "\" has no kernel yet");
  double alpha = floatAttr(in, "cubic_alpha", -0.75);
  bool exclude = infer::intAttr(in.attr("cubic_exclude")).value_or(0) != 0;
  int a = kb.param("A", *t, shapeText(x));
  int c = kb.param("C", *ot, shapeText(&in.out));
  int acc = kb.local("acc", F), wsum = kb.local("wsum", F);
  kb.add(outputNest(kb, *od, [&](const std::vector<ExprP>& o) {
    // Per spatial axis: the source coordinate, its first tap and the taps' weights (offsets from it).
    struct Axis {
      ExprP first;                 // the index of the tap at offset 0
      std::vector<int> offsets;
      std::vector<ExprP> weights;  // one per offset
    };
    std::vector<Axis> per;
    for (size_t k = 0; k < axes.size(); ++k) {
      ExprP source = sourceCoordinate(mode, o[axes[k]], (*xd)[axes[k]], (*od)[axes[k]]);
      if (method == "nearest_neighbor") {
        per.push_back({cast(ScalarType::I64, nearest(rounding, source)), {0}, {f32(1)}});
      } else {
        ExprP floor = unary(UnOp::Floor, source), frac = source - floor;
        if (method == "linear") per.push_back({cast(ScalarType::I64, floor), {0, 1}, {f32(1) - frac, frac}});
        else per.push_back({cast(ScalarType::I64, floor), {-1, 0, 1, 2}, cubicWeights(frac, alpha)});
      }
    }
    std::vector<StmtP> steps{assign(acc, f32(0)), assign(wsum, f32(0))};
    // Every combination of the axes' taps.
    std::vector<size_t> tap(axes.size(), 0);
    for (bool more = true; more;) {
      std::vector<ExprP> at = o;
      ExprP weight = f32(1), inside = nullptr;
      for (size_t k = 0; k < axes.size(); ++k) {
        ExprP index = per[k].first + intImm(per[k].offsets[tap[k]]);
        const ExprP& n = (*xd)[axes[k]];
        at[axes[k]] = clampIndex(index, n);
        weight = weight * per[k].weights[tap[k]];
        ExprP within = binary(BinOp::And, binary(BinOp::Ge, index, intImm(0)), binary(BinOp::Lt, index, n));
        inside = inside ? binary(BinOp::And, inside, within) : within;
      }
      if (exclude && method == "cubic") weight = select(inside, weight, f32(0));
      steps.push_back(assign(acc, kb.var(acc) + weight * cast(F, kb.load(a, flatIndex(at, *xd)))));
      steps.push_back(assign(wsum, kb.var(wsum) + weight));
      more = false;
      for (size_t k = axes.size(); k-- > 0;) {
        if (++tap[k] < per[k].offsets.size()) { more = true; break; }
        tap[k] = 0;
      }
    }
    ExprP value = exclude && method == "cubic" ? binary(BinOp::Div, kb.var(acc), kb.var(wsum)) : kb.var(acc);
    steps.push_back(store(c, flatIndex(o, *od), cast(*ot, value)));
    return steps;
  }));
  return done(kb, {0});
}

// affine_grid (2-D) as PyTorch and TVM define it: the target grid's normalised coordinates —
// align_corners: -1 + 2 i / (n - 1), else (2 i + 1) / n - 1 — x along W and y along H, and
// grid[n, d, i, j] = theta[n, d, 0] * x + theta[n, d, 1] * y + theta[n, d, 2].
LegalizeResult affineGrid(const LegalizeInput& in) {
  const ir::StructInfo* theta = in.args.empty() ? nullptr : in.args[0];
  auto t = elementType(theta);
  if (!t || !isFloat(*t)) return failure("R.image.affine_grid takes a float theta");
  bool alignCorners = infer::boolAttr(in.attr("align_corners"), true);
  KernelBuilder kb(in.kernelName);
  auto td = shapeExprs(kb, theta), od = shapeExprs(kb, &in.out);
  if (!td || !od || td->size() != 3 || od->size() != 4) return failure("the shapes must be known to compile R.image.affine_grid (2-D)");
  int a = kb.param("A", *t, shapeText(theta));
  int c = kb.param("C", *t, shapeText(&in.out));
  ScalarType ct = *t == ScalarType::F64 ? ScalarType::F64 : F;
  auto normalised = [&](const ExprP& i, const ExprP& n) {
    ExprP fi = cast(ct, i), fn = cast(ct, n);
    if (alignCorners) return floatImm(-1, ct) + binary(BinOp::Div, floatImm(2, ct) * fi, cast(ct, max(n - intImm(1), intImm(1))));
    return binary(BinOp::Div, floatImm(2, ct) * fi + floatImm(1, ct), fn) - floatImm(1, ct);
  };
  kb.add(outputNest(kb, *od, [&](const std::vector<ExprP>& o) {
    ExprP y = normalised(o[2], (*od)[2]), x = normalised(o[3], (*od)[3]);
    auto coefficient = [&](int k) { return cast(ct, kb.load(a, flatIndex({o[0], o[1], intImm(k)}, *td))); };
    ExprP v = coefficient(0) * x + coefficient(1) * y + coefficient(2);
    return std::vector<StmtP>{store(c, flatIndex(o, *od), ct == *t ? v : cast(*t, v))};
  }));
  return done(kb, {0});
}

// grid_sample (NCHW) as PyTorch and TVM define it: grid (N, H_out, W_out, 2) holds normalised (x, y)
// in [-1, 1], unnormalised by align_corners (true: (g + 1) / 2 * (n - 1), false: ((g + 1) * n - 1) / 2);
// bilinear takes the 4 neighbours, nearest the one at the rounded position (half to even); a
// neighbour outside the image is 0 (padding_mode "zeros") or the coordinate is first clamped into it
// ("border").
LegalizeResult gridSample(const LegalizeInput& in) {
  const ir::StructInfo* x = in.args.empty() ? nullptr : in.args[0];
  const ir::StructInfo* grid = in.args.size() > 1 ? in.args[1] : nullptr;
  auto t = elementType(x), gt = elementType(grid);
  if (!t || !gt || !isFloat(*t) || !isFloat(*gt)) return failure("R.image.grid_sample takes float data and a float grid");
  std::string method = infer::stringAttr(in.attr("method")).value_or("bilinear");
  std::string padding = infer::stringAttr(in.attr("padding_mode")).value_or("zeros");
  std::string layout = infer::stringAttr(in.attr("layout")).value_or("NCHW");
  bool alignCorners = infer::boolAttr(in.attr("align_corners"), false);
  if (layout != "NCHW") return failure("R.image.grid_sample: layout " + layout + " has no kernel (NCHW does)");
  if (method != "bilinear" && method != "nearest") return failure("R.image.grid_sample: method \"" + method + "\" has no kernel yet (bilinear and nearest do)");
  if (padding != "zeros" && padding != "border") return failure("R.image.grid_sample: padding_mode \"" + padding + "\" has no kernel yet (zeros and border do)");
  KernelBuilder kb(in.kernelName);
  auto xd = shapeExprs(kb, x), gd = shapeExprs(kb, grid), od = shapeExprs(kb, &in.out);
  if (!xd || !gd || !od || xd->size() != 4 || gd->size() != 4) return failure("the shapes must be known to compile R.image.grid_sample");
  int a = kb.param("A", *t, shapeText(x));
  int g = kb.param("G", *gt, shapeText(grid));
  int c = kb.param("C", *t, shapeText(&in.out));
  int acc = kb.local("acc", F);
  kb.add(outputNest(kb, *od, [&](const std::vector<ExprP>& o) {
    const ExprP &H = (*xd)[2], &W = (*xd)[3];
    auto source = [&](int component, const ExprP& n) {
      ExprP v = cast(F, kb.load(g, flatIndex({o[0], o[2], o[3], intImm(component)}, *gd)));
      ExprP fn = cast(F, n);
      ExprP s = alignCorners ? (v + f32(1)) * (fn - f32(1)) * f32(0.5) : ((v + f32(1)) * fn - f32(1)) * f32(0.5);
      return padding == "border" ? min(max(s, f32(0)), fn - f32(1)) : s;
    };
    ExprP xs = source(0, W), ys = source(1, H);
    auto tap = [&](const ExprP& yi, const ExprP& xi) {
      ExprP inside = binary(BinOp::And, binary(BinOp::And, binary(BinOp::Ge, yi, intImm(0)), binary(BinOp::Lt, yi, H)),
                            binary(BinOp::And, binary(BinOp::Ge, xi, intImm(0)), binary(BinOp::Lt, xi, W)));
      ExprP value = cast(F, kb.load(a, flatIndex({o[0], o[1], clampIndex(yi, H), clampIndex(xi, W)}, *xd)));
      return select(inside, value, f32(0));
    };
    std::vector<StmtP> steps;
    if (method == "nearest") {
      steps.push_back(assign(acc, tap(cast(ScalarType::I64, unary(UnOp::Round, ys)), cast(ScalarType::I64, unary(UnOp::Round, xs)))));
    } else {
      ExprP y0 = unary(UnOp::Floor, ys), x0 = unary(UnOp::Floor, xs);
      ExprP fy = ys - y0, fx = xs - x0;
      ExprP yi = cast(ScalarType::I64, y0), xi = cast(ScalarType::I64, x0);
      steps.push_back(assign(acc, (tap(yi, xi) * (f32(1) - fx) + tap(yi, xi + intImm(1)) * fx) * (f32(1) - fy) +
                                      (tap(yi + intImm(1), xi) * (f32(1) - fx) + tap(yi + intImm(1), xi + intImm(1)) * fx) * fy));
    }
    steps.push_back(store(c, flatIndex(o, *od), cast(*t, kb.var(acc))));
    return steps;
  }));
  return done(kb, {0, 1});
}

LegalizeResult resize2d(const LegalizeInput& in) { return resizeNd(in, "HW"); }
LegalizeResult resize3d(const LegalizeInput& in) { return resizeNd(in, "DHW"); }

}  // namespace tvms::op::kernels
