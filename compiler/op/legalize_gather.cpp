// Reading elements at computed positions: take (indices along an axis, clamped into range as
// mode="clip" does; "fast" promises in-range indices and "wrap" wraps them) and strided_slice.
#include "compiler/op/infer_util.h"
#include "compiler/op/legalize_util.h"

namespace tvms::op::kernels {

using namespace tir;

namespace {

// R.take(x, R.prim_value(i), axis): the axis taken away, one index for every element; the index a
// constant or an expression of symbolic dims (n - 1), wrapped or clamped into the axis as `mode` says.
LegalizeResult takeScalar(const LegalizeInput& in, const ir::StructInfo* x) {
  const ir::ExprPtr& arg = in.call.args[1];
  ir::PrimExprPtr index;
  if (auto* p = ir::as<ir::PrimValue>(arg)) index = p->value;
  else if (auto* v = ir::as<ir::Var>(arg); v && v->annotation) index = v->annotation->primValue;
  auto t = elementType(x);
  KernelBuilder kb(in.kernelName);
  auto xd = shapeExprs(kb, x), od = shapeExprs(kb, &in.out);
  ExprP i = index ? dimExpr(kb, index) : nullptr;
  if (!t || !xd || !od || !i) return failure("R.take with a scalar index needs the index as a number or an expression of symbolic dims to compile");
  int rank = static_cast<int>(xd->size());
  int axis = axisAttr(in, "axis", rank, 0);
  if (axis < 0 || !in.attr("axis") || in.attr("axis")->kind == ir::Value::Kind::None) return failure("R.take with a scalar index needs an axis to compile");
  ExprP n = (*xd)[static_cast<size_t>(axis)];
  std::string mode = infer::stringAttr(in.attr("mode")).value_or("fast");
  i = mode == "wrap" ? binary(BinOp::FloorMod, i, n) : binary(BinOp::Max, intImm(0), binary(BinOp::Min, i, n - intImm(1)));
  int a = kb.param("A", *t, shapeText(x));
  int c = kb.param("C", *t, shapeText(&in.out));
  kb.add(outputNest(kb, *od, [&](const std::vector<ExprP>& o) {
    std::vector<ExprP> at(o.begin(), o.begin() + axis);
    at.push_back(i);
    at.insert(at.end(), o.begin() + axis, o.end());
    return std::vector<StmtP>{store(c, flatIndex(o, *od), kb.load(a, flatIndex(at, *xd)))};
  }));
  return done(kb, {0});
}

}  // namespace

LegalizeResult take(const LegalizeInput& in) {
  const ir::StructInfo* x = in.args.size() > 0 ? in.args[0] : nullptr;
  const ir::StructInfo* ix = in.args.size() > 1 ? in.args[1] : nullptr;
  bool scalarIndex = in.call.args.size() > 1 && (ir::as<ir::PrimValue>(in.call.args[1]) || (ix && ix->kind == ir::StructInfo::Kind::Prim));
  if (scalarIndex) return takeScalar(in, x);
  if (ix && ix->kind != ir::StructInfo::Kind::Tensor) return failure("R.take needs a tensor or a scalar index");
  auto t = elementType(x), it = elementType(ix);
  if (!t || !it || (*it != ScalarType::I32 && *it != ScalarType::I64)) return failure("R.take needs a tensor and int32/int64 indices");
  KernelBuilder kb(in.kernelName);
  auto xd = shapeExprs(kb, x), id = shapeExprs(kb, ix), od = shapeExprs(kb, &in.out);
  if (!xd || !id || !od) return failure("the shapes must be known to compile R.take");
  bool flat = !in.attr("axis") || in.attr("axis")->kind == ir::Value::Kind::None;
  std::vector<ExprP> src = flat ? std::vector<ExprP>{product(*xd)} : *xd;
  int rank = static_cast<int>(src.size());
  int axis = flat ? 0 : axisAttr(in, "axis", rank, 0);
  std::string mode = infer::stringAttr(in.attr("mode")).value_or("fast");
  int a = kb.param("A", *t, shapeText(x));
  int ind = kb.param("indices", *it, shapeText(ix));
  int c = kb.param("C", *t, shapeText(&in.out));
  size_t ir = id->size();
  kb.add(outputNest(kb, *od, [&](const std::vector<ExprP>& o) {
    // o = [before axis..., index dims..., after axis...]
    std::vector<ExprP> idxDims(o.begin() + axis, o.begin() + axis + static_cast<long>(ir));
    ExprP i = cast(ScalarType::I64, kb.load(ind, flatIndex(idxDims, *id)));
    ExprP n = src[static_cast<size_t>(axis)];
    if (mode == "wrap") i = binary(BinOp::FloorMod, i, n);
    else i = binary(BinOp::Max, intImm(0), binary(BinOp::Min, i, n - intImm(1)));  // clip; "fast" is clamped too, so a bad index never reads outside
    std::vector<ExprP> at(o.begin(), o.begin() + axis);
    at.push_back(i);
    at.insert(at.end(), o.begin() + axis + static_cast<long>(ir), o.end());
    return std::vector<StmtP>{store(c, flatIndex(o, *od), kb.load(a, flatIndex(at, src)))};
  }));
  return done(kb, {0, 1});
}

LegalizeResult stridedSlice(const LegalizeInput& in) {
  const ir::StructInfo* x = in.args.empty() ? nullptr : in.args[0];
  auto t = elementType(x);
  if (!t) return failure("dtype " + (x ? x->dtype : std::string("?")) + " has no kernels yet");
  KernelBuilder kb(in.kernelName);
  auto xd = shapeExprs(kb, x), od = shapeExprs(kb, &in.out);
  if (!xd || !od) return failure("the shapes must be known to compile R.strided_slice");
  int rank = static_cast<int>(xd->size());
  auto axes = infer::intList(in.attr("axes")), begin = infer::intList(in.attr("begin"));
  auto strides = infer::intList(in.attr("strides"));
  if (!axes || !begin || axes->size() != begin->size()) return failure("R.strided_slice needs axes and begin of one length");
  // Each axis reads x at start + i * stride; start is begin clamped into the axis as numpy does.
  std::vector<ExprP> start(static_cast<size_t>(rank), intImm(0)), step(static_cast<size_t>(rank), intImm(1));
  for (size_t i = 0; i < axes->size(); ++i) {
    int ax = static_cast<int>((*axes)[i] < 0 ? (*axes)[i] + rank : (*axes)[i]);
    if (ax < 0 || ax >= rank) return failure("R.strided_slice: axis out of range");
    int64_t s = strides && i < strides->size() ? (*strides)[i] : 1;
    if (s == 0) return failure("R.strided_slice: a stride of 0");
    ExprP n = (*xd)[static_cast<size_t>(ax)];
    int64_t b = (*begin)[i];
    ExprP bExpr = b < 0 ? n + intImm(b) : intImm(b);
    ExprP hi = s > 0 ? n : n - intImm(1);
    start[static_cast<size_t>(ax)] = binary(BinOp::Max, intImm(s > 0 ? 0 : -1), binary(BinOp::Min, bExpr, hi));
    step[static_cast<size_t>(ax)] = intImm(s);
  }
  int a = kb.param("A", *t, shapeText(x));
  int c = kb.param("C", *t, shapeText(&in.out));
  kb.add(outputNest(kb, *od, [&](const std::vector<ExprP>& o) {
    std::vector<ExprP> at;
    for (int d = 0; d < rank; ++d) at.push_back(start[static_cast<size_t>(d)] + o[static_cast<size_t>(d)] * step[static_cast<size_t>(d)]);
    return std::vector<StmtP>{store(c, flatIndex(o, *od), kb.load(a, flatIndex(at, *xd)))};
  }));
  return done(kb, {0});
}

}  // namespace tvms::op::kernels

namespace tvms::op::kernels {

using namespace tir;

// concat / stack: each input copied into its slice of the output along `axis` (stack: a new axis of
// the inputs' count), one loop nest per input, the outermost parallel. LegalizeOps passes the tuple's
// fields as the call's leading operands.
LegalizeResult joinAlongAxis(const LegalizeInput& in, bool stack) {
  auto t = elementType(&in.out);
  if (!t) return failure("dtype " + in.out.dtype + " has no kernels yet");
  KernelBuilder kb(in.kernelName);
  auto od = shapeExprs(kb, &in.out);
  if (!od || od->empty()) return failure("the result's shape must be known to compile " + in.def.scriptName());
  int rank = static_cast<int>(od->size());
  int axis = axisAttr(in, "axis", rank, 0);
  if (axis < 0 || axis >= rank) return failure(in.def.scriptName() + ": axis out of range");
  size_t inputs = 0;
  while (inputs < in.args.size() && in.args[inputs] && in.args[inputs]->kind == ir::StructInfo::Kind::Tensor) ++inputs;
  if (inputs == 0) return failure(in.def.scriptName() + " needs at least one tensor");
  std::vector<int> bufs;
  std::vector<std::vector<ExprP>> dims;
  for (size_t i = 0; i < inputs; ++i) {
    auto d = shapeExprs(kb, in.args[i]);
    auto it = elementType(in.args[i]);
    if (!d || !it || *it != *t) return failure("the inputs of " + in.def.scriptName() + " need known shapes and the result's dtype");
    if (stack) d->insert(d->begin() + axis, intImm(1));  // each input is one slice of the new axis
    dims.push_back(*d);
    bufs.push_back(kb.param("A" + std::to_string(i), *t, shapeText(in.args[i])));
  }
  int c = kb.param("C", *t, shapeText(&in.out));
  ExprP offset = intImm(0);
  std::vector<size_t> buffers;
  for (size_t i = 0; i < inputs; ++i) {
    ExprP at = offset;
    kb.add(outputNest(kb, dims[i], [&](const std::vector<ExprP>& idx) {
      std::vector<ExprP> o = idx;
      o[static_cast<size_t>(axis)] = o[static_cast<size_t>(axis)] + at;
      return std::vector<StmtP>{store(c, flatIndex(o, *od), kb.load(bufs[i], flatIndex(idx, dims[i])))};
    }));
    offset = offset + dims[i][static_cast<size_t>(axis)];
    buffers.push_back(i);
  }
  return done(kb, buffers);
}

}  // namespace tvms::op::kernels

namespace tvms::op::kernels {

using namespace tir;

// split: the inverse of concat, one output buffer per piece, each a loop nest reading its slice.
LegalizeResult split(const LegalizeInput& in) {
  const ir::StructInfo* x = in.args.empty() ? nullptr : in.args[0];
  auto t = elementType(x);
  if (!t || in.out.kind != ir::StructInfo::Kind::Tuple) return failure("R.split needs a tensor of a supported dtype");
  KernelBuilder kb(in.kernelName);
  auto xd = shapeExprs(kb, x);
  if (!xd || xd->empty()) return failure("the shape must be known to compile R.split");
  int rank = static_cast<int>(xd->size());
  int axis = axisAttr(in, "axis", rank, 0);
  if (axis < 0 || axis >= rank) return failure("R.split: axis out of range");
  int a = kb.param("A", *t, shapeText(x));
  std::vector<std::vector<ExprP>> pieces;
  std::vector<int> outs;
  for (size_t i = 0; i < in.out.fields.size(); ++i) {
    auto d = shapeExprs(kb, in.out.fields[i].get());
    if (!d) return failure("the pieces' shapes must be known to compile R.split");
    pieces.push_back(*d);
  }
  for (size_t i = 0; i < pieces.size(); ++i) outs.push_back(kb.param("C" + std::to_string(i), *t, shapeText(in.out.fields[i].get())));
  ExprP offset = intImm(0);
  for (size_t i = 0; i < pieces.size(); ++i) {
    ExprP at = offset;
    kb.add(outputNest(kb, pieces[i], [&](const std::vector<ExprP>& idx) {
      std::vector<ExprP> src = idx;
      src[static_cast<size_t>(axis)] = src[static_cast<size_t>(axis)] + at;
      return std::vector<StmtP>{store(outs[i], flatIndex(idx, pieces[i]), kb.load(a, flatIndex(src, *xd)))};
    }));
    offset = offset + pieces[i][static_cast<size_t>(axis)];
  }
  return done(kb, {0});
}

}  // namespace tvms::op::kernels
