// vision.roi_align and vision.roi_pool as TOPI computes them (topi/vision/roi_align.py, roi_pool.py):
// each output bin of each region of interest (rois: (n, 5) of [batch index, x1, y1, x2, y2] in image
// coordinates, scaled by spatial_scale) from the feature map data (NCHW, or NHWC for roi_align).
// roi_align averages (or takes the max of) a grid of bilinear samples per bin: sample_ratio per side,
// or ceil(bin size) when it is not positive (a grid sized at run time from the region);
// `aligned` keeps regions smaller than a pixel (else they are widened to one), and a sample more
// than a pixel outside the map reads 0. roi_pool takes the max of the pixels whose centres fall in
// the bin (coordinates rounded half away from zero), 0 for an empty bin.
#include <cmath>

#include "compiler/op/infer_util.h"
#include "compiler/op/legalize_util.h"
#include "compiler/op/nn_attrs.h"

namespace tvms::op::kernels {

using namespace tir;

namespace {

constexpr ScalarType F = ScalarType::F32;
ExprP f32(double v) { return floatImm(v, F); }

struct Roi {
  const ir::StructInfo *data, *rois;
  ScalarType t, rt;
  std::vector<ExprP> dims, rd, od;
  bool nhwc;
  int pooledH, pooledW;
};

std::optional<Roi> roiOperands(KernelBuilder& kb, const LegalizeInput& in, std::string& error) {
  Roi r;
  r.data = in.args.empty() ? nullptr : in.args[0];
  r.rois = in.args.size() > 1 ? in.args[1] : nullptr;
  auto t = elementType(r.data), rt = elementType(r.rois);
  auto dims = shapeExprs(kb, r.data), rd = shapeExprs(kb, r.rois), od = shapeExprs(kb, &in.out);
  if (!t || !rt || !isFloat(*t) || !isFloat(*rt) || !dims || !rd || !od || dims->size() != 4 || rd->size() != 2 || od->size() != 4) {
    error = in.def.scriptName() + " needs float 4-D data and (n, 5) float rois of known shapes to compile";
    return std::nullopt;
  }
  std::string layout = infer::stringAttr(in.attr("layout")).value_or("NCHW");
  if (layout != "NCHW" && layout != "NHWC") {
    error = in.def.scriptName() + ": layout " + layout + " has no kernel (NCHW and NHWC do)";
    return std::nullopt;
  }
  std::vector<int64_t> sizes = nn::perDim(in.attr("pooled_size"), 2, 0);  // 0: not one or two integers
  if (sizes[0] <= 0 || sizes[1] <= 0) {
    error = in.def.scriptName() + ": pooled_size must be one or two positive integers";
    return std::nullopt;
  }
  r.t = *t, r.rt = *rt, r.dims = *dims, r.rd = *rd, r.od = *od, r.nhwc = layout == "NHWC";
  r.pooledH = static_cast<int>(sizes[0]), r.pooledW = static_cast<int>(sizes[1]);
  return r;
}

// Output index o as (roi, channel, bin row, bin column), whatever the layout.
struct Bin {
  ExprP roi, channel, row, column;
};
Bin binOf(const Roi& r, const std::vector<ExprP>& o) { return r.nhwc ? Bin{o[0], o[3], o[1], o[2]} : Bin{o[0], o[1], o[2], o[3]}; }
ExprP H(const Roi& r) { return r.nhwc ? r.dims[1] : r.dims[2]; }
ExprP W(const Roi& r) { return r.nhwc ? r.dims[2] : r.dims[3]; }
// A region's batch index, clamped into the batch: a bad index never reads outside the map.
ExprP batchOf(const Roi& r, const ExprP& value) { return min(max(cast(ScalarType::I64, value), intImm(0)), r.dims[0] - intImm(1)); }
ExprP pixelIndex(const Roi& r, const ExprP& n, const ExprP& c, const ExprP& y, const ExprP& x) {
  return r.nhwc ? flatIndex({n, y, x, c}, r.dims) : flatIndex({n, c, y, x}, r.dims);
}

}  // namespace

LegalizeResult roiAlign(const LegalizeInput& in) {
  KernelBuilder kb(in.kernelName);
  std::string error;
  auto r = roiOperands(kb, in, error);
  if (!r) return failure(error);
  std::string mode = infer::stringAttr(in.attr("mode")).value_or("avg");
  if (mode != "avg" && mode != "max") return failure("R.vision.roi_align: mode must be \"avg\" or \"max\", got \"" + mode + "\"");
  bool aligned = infer::boolAttr(in.attr("aligned"), false);
  int64_t ratio = infer::intAttr(in.attr("sample_ratio")).value_or(-1);
  double scale = floatAttr(in, "spatial_scale", 1.0);
  int data = kb.param("A", r->t, shapeText(r->data));
  int rois = kb.param("rois", r->rt, shapeText(r->rois));
  int out = kb.param("C", r->t, shapeText(&in.out));
  int y0 = kb.local("bin_y0", F), x0 = kb.local("bin_x0", F), binH = kb.local("bin_h", F), binW = kb.local("bin_w", F);
  int gridH = kb.local("grid_h", ScalarType::I64), gridW = kb.local("grid_w", ScalarType::I64), batch = kb.local("batch", ScalarType::I64);
  int acc = kb.local("acc", F);
  int sy = kb.loopVar("sy"), sx = kb.loopVar("sx");
  kb.add(outputNest(kb, r->od, [&](const std::vector<ExprP>& o) {
    Bin bin = binOf(*r, o);
    auto roi = [&](int k) { return cast(F, kb.load(rois, bin.roi * intImm(5) + intImm(k))); };
    ExprP startW = roi(1) * f32(scale), startH = roi(2) * f32(scale), endW = roi(3) * f32(scale), endH = roi(4) * f32(scale);
    ExprP roiH = endH - startH, roiW = endW - startW;
    if (!aligned) roiH = max(roiH, f32(1)), roiW = max(roiW, f32(1));
    std::vector<StmtP> body{assign(batch, batchOf(*r, roi(0))),
                            assign(binH, binary(BinOp::Div, roiH, f32(r->pooledH))),
                            assign(binW, binary(BinOp::Div, roiW, f32(r->pooledW))),
                            assign(y0, startH + cast(F, bin.row) * kb.var(binH)),
                            assign(x0, startW + cast(F, bin.column) * kb.var(binW)),
                            assign(gridH, ratio > 0 ? intImm(ratio) : cast(ScalarType::I64, unary(UnOp::Ceil, binary(BinOp::Div, roiH, f32(r->pooledH))))),
                            assign(gridW, ratio > 0 ? intImm(ratio) : cast(ScalarType::I64, unary(UnOp::Ceil, binary(BinOp::Div, roiW, f32(r->pooledW))))),
                            assign(acc, mode == "avg" ? f32(0) : f32(-INFINITY))};
    // One bilinear sample at (y, x): 0 more than a pixel outside, else clamped into the map.
    ExprP y = kb.var(y0) + (cast(F, kb.var(sy)) + f32(0.5)) * binary(BinOp::Div, kb.var(binH), cast(F, kb.var(gridH)));
    ExprP x = kb.var(x0) + (cast(F, kb.var(sx)) + f32(0.5)) * binary(BinOp::Div, kb.var(binW), cast(F, kb.var(gridW)));
    ExprP outside = binary(BinOp::Or, binary(BinOp::Or, binary(BinOp::Lt, y, f32(-1)), binary(BinOp::Lt, x, f32(-1))),
                           binary(BinOp::Or, binary(BinOp::Gt, y, cast(F, H(*r))), binary(BinOp::Gt, x, cast(F, W(*r)))));
    ExprP yc = min(max(y, f32(0)), cast(F, H(*r) - intImm(1))), xc = min(max(x, f32(0)), cast(F, W(*r) - intImm(1)));
    ExprP yl = unary(UnOp::Floor, yc), xl = unary(UnOp::Floor, xc);
    ExprP yh = min(unary(UnOp::Ceil, yc), cast(F, H(*r) - intImm(1))), xh = min(unary(UnOp::Ceil, xc), cast(F, W(*r) - intImm(1)));
    auto pixel = [&](const ExprP& yy, const ExprP& xx) {
      return cast(F, kb.load(data, pixelIndex(*r, kb.var(batch), bin.channel, cast(ScalarType::I64, yy), cast(ScalarType::I64, xx))));
    };
    ExprP fy = yc - yl, fx = xc - xl;
    ExprP top = pixel(yl, xl) + (pixel(yl, xh) - pixel(yl, xl)) * fx;
    ExprP bottom = pixel(yh, xl) + (pixel(yh, xh) - pixel(yh, xl)) * fx;
    ExprP sample = select(outside, f32(0), top + (bottom - top) * fy);
    ExprP count = cast(F, kb.var(gridH) * kb.var(gridW));
    StmtP accumulate = mode == "avg" ? assign(acc, kb.var(acc) + binary(BinOp::Div, sample, count)) : assign(acc, max(kb.var(acc), sample));
    body.push_back(forLoop(sy, kb.var(gridH), {forLoop(sx, kb.var(gridW), {accumulate})}));
    body.push_back(store(out, flatIndex(o, r->od), cast(r->t, kb.var(acc))));
    return body;
  }));
  return done(kb, {0, 1});
}

LegalizeResult roiPool(const LegalizeInput& in) {
  KernelBuilder kb(in.kernelName);
  std::string error;
  auto r = roiOperands(kb, in, error);
  if (!r) return failure(error);
  if (r->nhwc) return failure("R.vision.roi_pool: layout NHWC has no kernel (NCHW does, as in TVM)");
  double scale = floatAttr(in, "spatial_scale", 1.0);
  int data = kb.param("A", r->t, shapeText(r->data));
  int rois = kb.param("rois", r->rt, shapeText(r->rois));
  int out = kb.param("C", r->t, shapeText(&in.out));
  int hs = kb.local("h_start", ScalarType::I64), he = kb.local("h_end", ScalarType::I64), ws = kb.local("w_start", ScalarType::I64);
  int we = kb.local("w_end", ScalarType::I64), batch = kb.local("batch", ScalarType::I64), acc = kb.local("acc", F);
  int y = kb.loopVar("y"), x = kb.loopVar("x");
  kb.add(outputNest(kb, r->od, [&](const std::vector<ExprP>& o) {
    Bin bin = binOf(*r, o);
    auto roi = [&](int k) { return cast(F, kb.load(rois, bin.roi * intImm(5) + intImm(k))); };
    auto rounded = [&](const ExprP& v) { return cast(ScalarType::I64, unary(UnOp::Floor, v * f32(scale) + f32(0.5))); };  // half away from zero for >= 0
    ExprP startW = rounded(roi(1)), startH = rounded(roi(2)), endW = rounded(roi(3)), endH = rounded(roi(4));
    ExprP binH = binary(BinOp::Div, cast(F, max(endH - startH + intImm(1), intImm(1))), f32(r->pooledH));
    ExprP binW = binary(BinOp::Div, cast(F, max(endW - startW + intImm(1), intImm(1))), f32(r->pooledW));
    auto clampTo = [&](const ExprP& v, const ExprP& n) { return min(max(v, intImm(0)), n); };
    auto lower = [&](const ExprP& i, const ExprP& b) { return cast(ScalarType::I64, unary(UnOp::Floor, cast(F, i) * b)); };
    auto upper = [&](const ExprP& i, const ExprP& b) { return cast(ScalarType::I64, unary(UnOp::Ceil, cast(F, i + intImm(1)) * b)); };
    std::vector<StmtP> body{assign(batch, batchOf(*r, roi(0))),
                            assign(hs, clampTo(lower(bin.row, binH) + startH, H(*r))),
                            assign(he, clampTo(upper(bin.row, binH) + startH, H(*r))),
                            assign(ws, clampTo(lower(bin.column, binW) + startW, W(*r))),
                            assign(we, clampTo(upper(bin.column, binW) + startW, W(*r))),
                            assign(acc, f32(-INFINITY))};
    ExprP value = cast(F, kb.load(data, pixelIndex(*r, kb.var(batch), bin.channel, kb.var(hs) + kb.var(y), kb.var(ws) + kb.var(x))));
    body.push_back(forLoop(y, max(kb.var(he) - kb.var(hs), intImm(0)), {forLoop(x, max(kb.var(we) - kb.var(ws), intImm(0)), {assign(acc, max(kb.var(acc), value))})}));
    ExprP empty = binary(BinOp::Or, binary(BinOp::Le, kb.var(he), kb.var(hs)), binary(BinOp::Le, kb.var(we), kb.var(ws)));
    body.push_back(store(out, flatIndex(o, r->od), cast(r->t, select(empty, f32(0), kb.var(acc)))));
    return body;
  }));
  return done(kb, {0, 1});
}

}  // namespace tvms::op::kernels
