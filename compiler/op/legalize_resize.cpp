// image.resize2d and resize3d as TOPI computes them: each output position mapped back to a (fractional) input
// position by coordinate_transformation_mode, then sampled by nearest_neighbor (rounding_method),
// linear (the 4 neighbours) or cubic (the 16 neighbours, Keys' kernel with cubic_alpha, out-of-image
// taps dropped and the rest renormalised with cubic_exclude); neighbours outside clamp to the edge.
#include "compiler/op/image_attrs.h"
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
  const ResizeAttrs attrs = resizeAttrs(in.call, static_cast<int>(spatialAxes.size()));
  const std::string &layout = attrs.layout, &method = attrs.method, &mode = attrs.coordinateMode, &rounding = attrs.rounding;
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
  const double alpha = attrs.cubicAlpha;
  const bool exclude = attrs.cubicExclude;
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
// grid_sample as TOPI computes it (its _grid_sample_2d / _3d): data NCHW with a grid (N, H_out, W_out, 2)
// of normalised (x, y), or NCDHW with (N, D_out, H_out, W_out, 3) of (x, y, z). Each position is
// unnormalised (align_corners: -1 and 1 are the corner pixels' centres, else their outer edges); then
// "border" clamps it into the image and "reflection" reflects it at the edges (TOPI's _reflect_coordinates)
// and clamps; "nearest" takes the nearest pixel, "bilinear" the 2^d neighbours, "bicubic" (2-D) the 4 x 4
// neighbours with PyTorch's A = -0.75, each tap padded as the mode says. Taps outside the image read 0.
LegalizeResult gridSample(const LegalizeInput& in) {
  const ir::StructInfo* x = in.args.empty() ? nullptr : in.args[0];
  const ir::StructInfo* grid = in.args.size() > 1 ? in.args[1] : nullptr;
  auto t = elementType(x), gt = elementType(grid);
  if (!t || !gt || !isFloat(*t) || !isFloat(*gt)) return failure("R.image.grid_sample takes float data and a float grid");
  std::string method = infer::stringAttr(in.attr("method")).value_or("bilinear");
  std::string padding = infer::stringAttr(in.attr("padding_mode")).value_or("zeros");
  bool alignCorners = infer::boolAttr(in.attr("align_corners"), false);
  KernelBuilder kb(in.kernelName);
  auto xd = shapeExprs(kb, x), gd = shapeExprs(kb, grid), od = shapeExprs(kb, &in.out);
  if (!xd || !gd || !od || (xd->size() != 4 && xd->size() != 5) || gd->size() != xd->size())
    return failure("the shapes must be known to compile R.image.grid_sample (4-D data with a 4-D grid, or 5-D with 5-D)");
  const size_t spatial = xd->size() - 2;  // 2 (H, W) or 3 (D, H, W)
  std::string layout = infer::stringAttr(in.attr("layout")).value_or(spatial == 2 ? "NCHW" : "NCDHW");
  if (layout != (spatial == 2 ? "NCHW" : "NCDHW")) return failure("R.image.grid_sample: layout " + layout + " has no kernel (NCHW and NCDHW do, as in TVM)");
  if (method != "bilinear" && method != "nearest" && method != "bicubic") return failure("R.image.grid_sample: no method \"" + method + "\"");
  if (method == "bicubic" && spatial != 2) return failure("R.image.grid_sample: bicubic sampling is 2-D only (as in TVM and PyTorch)");
  if (padding != "zeros" && padding != "border" && padding != "reflection") return failure("R.image.grid_sample: no padding_mode \"" + padding + "\"");
  int a = kb.param("A", *t, shapeText(x));
  int g = kb.param("G", *gt, shapeText(grid));
  int c = kb.param("C", *t, shapeText(&in.out));
  int acc = kb.local("acc", F);
  kb.add(outputNest(kb, *od, [&](const std::vector<ExprP>& o) {
    // Axis k of the image (0: the first spatial axis) and its extent; the grid gives x first.
    auto extent = [&](size_t k) { return (*xd)[2 + k]; };
    auto clip = [&](const ExprP& v, const ExprP& n) { return min(max(v, f32(0)), cast(F, n) - f32(1)); };
    // TOPI's reflection: a position outside [start, start + span] folded back by whole spans.
    auto reflect = [&](const ExprP& v, const ExprP& n) {
      ExprP span = alignCorners ? cast(F, n) - f32(1) : cast(F, n);
      ExprP start = alignCorners ? f32(0) : f32(-0.5);
      ExprP distance = unary(UnOp::Abs, start - v);
      ExprP safeSpan = max(span, f32(1));  // one pixel with align_corners: nothing to reflect into
      ExprP times = unary(UnOp::Trunc, binary(BinOp::Div, unary(UnOp::Trunc, distance), safeSpan));
      ExprP extra = distance - times * safeSpan;
      ExprP even = binary(BinOp::Eq, binary(BinOp::FloorMod, cast(ScalarType::I64, times), intImm(2)), intImm(0));
      ExprP folded = select(even, extra + start, span - extra + start);
      ExprP inside = binary(BinOp::And, binary(BinOp::Ge, v, start), binary(BinOp::Le, v, span + start));
      return select(binary(BinOp::Le, span, f32(0)), f32(0), select(inside, v, folded));
    };
    auto pad = [&](const ExprP& v, const ExprP& n) {
      if (padding == "border") return clip(v, n);
      if (padding == "reflection") return clip(reflect(v, n), n);
      return v;
    };
    auto unnormalised = [&](size_t k) {
      std::vector<ExprP> at(o.begin(), o.end());
      at.erase(at.begin() + 1);  // the grid has no channel axis: (N, spatial..., component)
      at.push_back(intImm(static_cast<int64_t>(spatial - 1 - k)));
      ExprP v = cast(F, kb.load(g, flatIndex(at, *gd)));
      ExprP fn = cast(F, extent(k));
      return alignCorners ? (v + f32(1)) * (fn - f32(1)) * f32(0.5) : ((v + f32(1)) * fn - f32(1)) * f32(0.5);
    };
    auto tap = [&](const std::vector<ExprP>& idx) {
      ExprP inside;
      std::vector<ExprP> at{o[0], o[1]};
      for (size_t k = 0; k < spatial; ++k) {
        ExprP ok = binary(BinOp::And, binary(BinOp::Ge, idx[k], intImm(0)), binary(BinOp::Lt, idx[k], extent(k)));
        inside = inside ? binary(BinOp::And, inside, ok) : ok;
        at.push_back(clampIndex(idx[k], extent(k)));
      }
      return select(inside, cast(F, kb.load(a, flatIndex(at, *xd))), f32(0));
    };
    std::vector<ExprP> pos;
    for (size_t k = 0; k < spatial; ++k) pos.push_back(method == "bicubic" ? unnormalised(k) : pad(unnormalised(k), extent(k)));
    std::vector<StmtP> steps;
    if (method == "nearest") {
      std::vector<ExprP> idx;
      for (auto& p : pos) idx.push_back(cast(ScalarType::I64, unary(UnOp::Round, p)));
      steps.push_back(assign(acc, tap(idx)));
    } else if (method == "bilinear") {
      ExprP sum;
      for (int corner = 0; corner < (1 << spatial); ++corner) {
        std::vector<ExprP> idx;
        ExprP weight;
        for (size_t k = 0; k < spatial; ++k) {
          ExprP base = unary(UnOp::Floor, pos[k]), frac = pos[k] - base;
          bool upper = (corner >> (spatial - 1 - k)) & 1;
          idx.push_back(cast(ScalarType::I64, base) + intImm(upper));
          ExprP w = upper ? frac : f32(1) - frac;
          weight = weight ? weight * w : w;
        }
        ExprP term = tap(idx) * weight;
        sum = sum ? sum + term : term;
      }
      steps.push_back(assign(acc, sum));
    } else {  // bicubic, 2-D: four rows of four taps, each row interpolated along x, then the rows along y
      constexpr double A = -0.75;
      auto near = [&](const ExprP& f) { return ((f32(A + 2) * f - f32(A + 3)) * f * f) + f32(1); };
      auto far = [&](const ExprP& f) { return ((f32(A) * f - f32(5 * A)) * f + f32(8 * A)) * f - f32(4 * A); };
      auto cubic = [&](const std::vector<ExprP>& p, const ExprP& f) {
        return p[0] * far(f + f32(1)) + p[1] * near(f) + p[2] * near(f32(1) - f) + p[3] * far(f32(2) - f);
      };
      ExprP y0 = unary(UnOp::Floor, pos[0]), x0 = unary(UnOp::Floor, pos[1]);
      auto padTap = [&](const ExprP& v, size_t k) {  // an integer tap position through the padding mode
        if (padding == "zeros") return cast(ScalarType::I64, v);
        return cast(ScalarType::I64, pad(v, extent(k)));
      };
      std::vector<ExprP> rows;
      for (int i = 0; i < 4; ++i) {
        ExprP yi = padTap(y0 + f32(i - 1), 0);
        std::vector<ExprP> row;
        for (int j = 0; j < 4; ++j) row.push_back(tap({yi, padTap(x0 + f32(j - 1), 1)}));
        rows.push_back(cubic(row, pos[1] - x0));
      }
      steps.push_back(assign(acc, cubic(rows, pos[0] - y0)));
    }
    steps.push_back(store(c, flatIndex(o, *od), cast(*t, kb.var(acc))));
    return steps;
  }));
  return done(kb, {0, 1});
}

LegalizeResult resize2d(const LegalizeInput& in) { return resizeNd(in, "HW"); }
LegalizeResult resize3d(const LegalizeInput& in) { return resizeNd(in, "DHW"); }

}  // namespace tvms::op::kernels
