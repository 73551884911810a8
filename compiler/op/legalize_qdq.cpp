// quantize / dequantize, as TVM's relax.op.quantize and dequantize define them:
//   quantize:   clamp(round(data / scale) + zero_point, the output type's range), round half to even;
//               to float8 (e4m3fn, e5m2) without the round: the cast rounds to the nearest float8
//   dequantize: (data - zero_point) * scale, clamped into the output type's range for float16
// scale and zero_point are one value for the whole tensor (0-d, or one element) or one per index of
// `axis`. Computed in float32 (float64 for float64 data).
#include "compiler/op/legalize_util.h"

#include <limits>

#include "compiler/op/infer_util.h"

namespace tvms::op::kernels {

using namespace tir;

namespace {

struct Qdq {
  int data, scale, zeroPoint, out;
  std::vector<ExprP> dims, scaleDims, zeroDims;
  int axis;
  ScalarType ct;
};

// The element of a per-axis parameter for output index `o`: its only element, or the one at o[axis].
ExprP perAxis(KernelBuilder& kb, int buffer, const std::vector<ExprP>& dims, const std::vector<ExprP>& o, int axis) {
  bool one = dims.empty() || (dims.size() == 1 && dims[0]->kind == Expr::Kind::Int && dims[0]->intValue == 1);
  return kb.load(buffer, one ? intImm(0) : o[static_cast<size_t>(axis)]);
}

LegalizeResult build(const LegalizeInput& in, const std::function<ExprP(KernelBuilder&, const Qdq&, const std::vector<ExprP>&)>& value) {
  if (in.args.size() < 3) return failure(in.def.scriptName() + " takes data, scale and zero_point");
  auto dt = elementType(in.args[0]), st = elementType(in.args[1]), zt = elementType(in.args[2]), ot = elementType(&in.out);
  if (!dt || !st || !zt || !ot) return failure("dtype " + in.out.dtype + " has no kernels yet");
  KernelBuilder kb(in.kernelName);
  auto dims = shapeExprs(kb, in.args[0]), sd = shapeExprs(kb, in.args[1]), zd = shapeExprs(kb, in.args[2]);
  if (!dims || !sd || !zd || sd->size() > 1 || zd->size() > 1) return failure("the shapes must be known (scale and zero_point 0-d or 1-D) to compile " + in.def.scriptName());
  int axis = axisAttr(in, "axis", static_cast<int>(dims->size()), -1);
  if (axis < 0 && !dims->empty()) return failure(in.def.scriptName() + ": axis out of range");
  Qdq q;
  q.data = kb.param("A", *dt, shapeText(in.args[0]));
  q.scale = kb.param("S", *st, shapeText(in.args[1]));
  q.zeroPoint = kb.param("Z", *zt, shapeText(in.args[2]));
  q.out = kb.param("C", *ot, shapeText(&in.out));
  q.dims = *dims;
  q.scaleDims = *sd;
  q.zeroDims = *zd;
  q.axis = axis;
  q.ct = *dt == ScalarType::F64 || *ot == ScalarType::F64 ? ScalarType::F64 : ScalarType::F32;
  kb.add(outputNest(kb, *dims, [&](const std::vector<ExprP>& o) {
    return std::vector<StmtP>{store(q.out, flatIndex(o, *dims), value(kb, q, o))};
  }));
  return done(kb, {0, 1, 2});
}

// The range of an integer or float8 output type (TVM's tirx.min_value / max_value).
std::pair<double, double> rangeOf(ScalarType t) {
  switch (t) {
    case ScalarType::I8: return {-128, 127};
    case ScalarType::U8: return {0, 255};
    case ScalarType::I32: return {std::numeric_limits<int32_t>::min(), std::numeric_limits<int32_t>::max()};
    case ScalarType::F8E4M3: return {-448, 448};
    case ScalarType::F8E5M2: return {-57344, 57344};
    default: return {-std::numeric_limits<double>::infinity(), std::numeric_limits<double>::infinity()};
  }
}

}  // namespace

LegalizeResult quantize(const LegalizeInput& in) {
  auto ot = elementType(&in.out);
  bool float8 = ot && runtime::isFloat8DType(*ot);
  if (!ot || (*ot != ScalarType::I8 && *ot != ScalarType::U8 && *ot != ScalarType::I32 && !float8))
    return failure("R.quantize to " + in.out.dtype + " has no kernel (int8, uint8, int32, float8_e4m3fn and float8_e5m2 do)");
  auto [lo, hi] = rangeOf(*ot);
  return build(in, [&](KernelBuilder& kb, const Qdq& q, const std::vector<ExprP>& o) {
    ExprP x = cast(q.ct, kb.load(q.data, flatIndex(o, q.dims)));
    ExprP s = cast(q.ct, perAxis(kb, q.scale, q.scaleDims, o, q.axis));
    ExprP z = cast(q.ct, perAxis(kb, q.zeroPoint, q.zeroDims, o, q.axis));
    ExprP scaled = binary(BinOp::Div, x, s);
    ExprP v = (float8 ? scaled : unary(UnOp::Round, scaled)) + z;  // TVM rounds for integer outputs only
    return cast(*ot, min(max(v, floatImm(lo, q.ct)), floatImm(hi, q.ct)));
  });
}

LegalizeResult dequantize(const LegalizeInput& in) {
  auto ot = elementType(&in.out);
  if (!ot || !isFloat(*ot)) return failure("R.dequantize to " + in.out.dtype + " has no kernel (float types do)");
  return build(in, [&](KernelBuilder& kb, const Qdq& q, const std::vector<ExprP>& o) {
    ExprP x = cast(q.ct, kb.load(q.data, flatIndex(o, q.dims)));
    ExprP s = cast(q.ct, perAxis(kb, q.scale, q.scaleDims, o, q.axis));
    ExprP z = cast(q.ct, perAxis(kb, q.zeroPoint, q.zeroDims, o, q.axis));
    ExprP v = (x - z) * s;
    if (*ot == ScalarType::F16) v = min(max(v, floatImm(-65504.0, q.ct)), floatImm(65504.0, q.ct));
    if (runtime::isFloat8DType(*ot)) v = min(max(v, floatImm(rangeOf(*ot).first, q.ct)), floatImm(rangeOf(*ot).second, q.ct));
    return *ot == q.ct ? v : cast(*ot, v);
  });
}

}  // namespace tvms::op::kernels
