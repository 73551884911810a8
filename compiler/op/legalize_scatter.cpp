// Kernels of the index-tensor ops. Gathers are loop nests over the output (all spatial). Scatters
// copy data to the output, then apply the updates in one serial loop in index order: two updates
// of one position apply in the order ONNX defines, where a parallel loop would race (a GPU runs
// that loop in one thread: correct, not fast). An index below zero counts from the end, and every
// index is clamped into its axis, so a bad one never reads or writes outside a buffer.
#include "compiler/op/infer_util.h"
#include "compiler/op/legalize_util.h"

namespace tvms::op::kernels {

using namespace tir;

namespace {

// The operands every kernel here reads: data (or predictions) first, then the index tensor.
struct Operands {
  ScalarType t, it;
  std::vector<ExprP> xd, id, od;
};
std::optional<Operands> operands(KernelBuilder& kb, const LegalizeInput& in, std::string& error) {
  const ir::StructInfo* x = in.args.size() > 0 ? in.args[0] : nullptr;
  const ir::StructInfo* ix = in.args.size() > 1 ? in.args[1] : nullptr;
  auto t = elementType(x), it = elementType(ix);
  auto xd = shapeExprs(kb, x), id = shapeExprs(kb, ix), od = shapeExprs(kb, &in.out);
  if (!t || !it || (*it != ScalarType::I32 && *it != ScalarType::I64)) error = in.def.scriptName() + " needs a tensor of a supported dtype and int32/int64 indices";
  else if (!xd || !id || !od) error = "the shapes must be known to compile " + in.def.scriptName();
  if (!error.empty()) return std::nullopt;
  return Operands{*t, *it, *xd, *id, *od};
}

bool knownReduction(const std::string& r) { return r == "update" || r == "add" || r == "mul" || r == "max" || r == "min"; }

// How an update combines with the element it lands on (knownReduction(reduction)).
std::optional<ExprP> combine(const std::string& reduction, ExprP old, ExprP update) {
  if (reduction == "update") return update;
  if (reduction == "add") return old + update;
  if (reduction == "mul") return old * update;
  if (reduction == "max") return max(old, update);
  if (reduction == "min") return min(old, update);
  return std::nullopt;
}

// A serial nest over `dims` (the scatter's updates, in index order) around body(indices).
StmtP serialNest(KernelBuilder& kb, const std::vector<ExprP>& dims, const std::function<std::vector<StmtP>(const std::vector<ExprP>&)>& body) {
  return loopNest(kb, dims, body, false, "u");
}

StmtP copyAll(KernelBuilder& kb, int from, int to, const std::vector<ExprP>& dims) {
  int i = kb.loopVar("i");
  return forLoop(i, product(dims), {store(to, kb.var(i), kb.load(from, kb.var(i)))}, true);
}

}  // namespace

LegalizeResult gatherElements(const LegalizeInput& in) {
  KernelBuilder kb(in.kernelName);
  std::string error;
  auto f = operands(kb, in, error);
  if (!f) return failure(error);
  int axis = axisAttr(in, "axis", static_cast<int>(f->xd.size()), 0);
  if (axis < 0) return failure("R.gather_elements: axis out of range");
  int a = kb.param("A", f->t, shapeText(in.args[0]));
  int ind = kb.param("indices", f->it, shapeText(in.args[1]));
  int c = kb.param("C", f->t, shapeText(&in.out));
  kb.add(outputNest(kb, f->od, [&](const std::vector<ExprP>& o) {
    std::vector<ExprP> at = o;
    at[static_cast<size_t>(axis)] = indexInAxis(kb.load(ind, flatIndex(o, f->id)), f->xd[static_cast<size_t>(axis)]);
    return std::vector<StmtP>{store(c, flatIndex(o, f->od), kb.load(a, flatIndex(at, f->xd)))};
  }));
  return done(kb, {0, 1});
}

// gather_nd: output [batch..., index positions..., rest...] reads data[batch..., indices[b, p, :]..., rest...].
LegalizeResult gatherNd(const LegalizeInput& in) {
  KernelBuilder kb(in.kernelName);
  std::string error;
  auto f = operands(kb, in, error);
  if (!f) return failure(error);
  size_t batch = static_cast<size_t>(infer::intAttr(in.attr("batch_dims")).value_or(0));
  auto depth = f->id.empty() ? std::nullopt : infer::constInt(in.args[1]->shape->back());
  if (!depth || batch + static_cast<size_t>(*depth) > f->xd.size()) return failure("R.gather_nd needs a known index depth within data's rank");
  size_t k = static_cast<size_t>(*depth), positions = f->id.size() - 1;
  int a = kb.param("A", f->t, shapeText(in.args[0]));
  int ind = kb.param("indices", f->it, shapeText(in.args[1]));
  int c = kb.param("C", f->t, shapeText(&in.out));
  kb.add(outputNest(kb, f->od, [&](const std::vector<ExprP>& o) {
    std::vector<ExprP> at(o.begin(), o.begin() + static_cast<long>(batch));
    std::vector<ExprP> where(o.begin(), o.begin() + static_cast<long>(positions));
    for (size_t j = 0; j < k; ++j) {
      where.push_back(intImm(static_cast<int64_t>(j)));
      at.push_back(indexInAxis(kb.load(ind, flatIndex(where, f->id)), f->xd[batch + j]));
      where.pop_back();
    }
    at.insert(at.end(), o.begin() + static_cast<long>(positions), o.end());
    return std::vector<StmtP>{store(c, flatIndex(o, f->od), kb.load(a, flatIndex(at, f->xd)))};
  }));
  return done(kb, {0, 1});
}

LegalizeResult scatterElements(const LegalizeInput& in) {
  KernelBuilder kb(in.kernelName);
  std::string error;
  auto f = operands(kb, in, error);
  if (!f) return failure(error);
  std::string reduction = infer::stringAttr(in.attr("reduction")).value_or("update");
  int axis = axisAttr(in, "axis", static_cast<int>(f->xd.size()), 0);
  if (axis < 0) return failure("R.scatter_elements: axis out of range");
  if (!knownReduction(reduction))
    return failure("R.scatter_elements: reduction \"" + reduction + "\" has no kernel yet (update, add, mul, max and min do)");
  int a = kb.param("A", f->t, shapeText(in.args[0]));
  int ind = kb.param("indices", f->it, shapeText(in.args[1]));
  int u = kb.param("updates", f->t, shapeText(in.args[2]));
  int c = kb.param("C", f->t, shapeText(&in.out));
  kb.add(copyAll(kb, a, c, f->xd));
  kb.add(serialNest(kb, f->id, [&](const std::vector<ExprP>& i) {
    std::vector<ExprP> at = i;
    at[static_cast<size_t>(axis)] = indexInAxis(kb.load(ind, flatIndex(i, f->id)), f->xd[static_cast<size_t>(axis)]);
    ExprP dst = flatIndex(at, f->xd);
    return std::vector<StmtP>{store(c, dst, *combine(reduction, kb.load(c, dst), kb.load(u, flatIndex(i, f->id))))};
  }));
  return done(kb, {0, 1, 2});
}

// scatter_nd: indices (positions..., k), updates (positions..., data.shape[k:]...).
LegalizeResult scatterNd(const LegalizeInput& in) {
  KernelBuilder kb(in.kernelName);
  std::string error;
  auto f = operands(kb, in, error);
  if (!f) return failure(error);
  std::string reduction = infer::stringAttr(in.attr("reduction")).value_or("update");
  if (!knownReduction(reduction)) return failure("R.scatter_nd: reduction \"" + reduction + "\" has no kernel");
  auto ud = shapeExprs(kb, in.args.size() > 2 ? in.args[2] : nullptr);
  auto depth = f->id.empty() ? std::nullopt : infer::constInt(in.args[1]->shape->back());
  if (!ud || !depth || static_cast<size_t>(*depth) > f->xd.size()) return failure("R.scatter_nd needs known shapes and an index depth within data's rank");
  size_t k = static_cast<size_t>(*depth), positions = f->id.size() - 1;
  if (ud->size() != positions + f->xd.size() - k) return failure("R.scatter_nd: updates must have indices.shape[:-1] + data.shape[k:]");
  int a = kb.param("A", f->t, shapeText(in.args[0]));
  int ind = kb.param("indices", f->it, shapeText(in.args[1]));
  int u = kb.param("updates", f->t, shapeText(in.args[2]));
  int c = kb.param("C", f->t, shapeText(&in.out));
  kb.add(copyAll(kb, a, c, f->xd));
  kb.add(serialNest(kb, *ud, [&](const std::vector<ExprP>& i) {
    std::vector<ExprP> where(i.begin(), i.begin() + static_cast<long>(positions)), at;
    for (size_t j = 0; j < k; ++j) {
      where.push_back(intImm(static_cast<int64_t>(j)));
      at.push_back(indexInAxis(kb.load(ind, flatIndex(where, f->id)), f->xd[j]));
      where.pop_back();
    }
    at.insert(at.end(), i.begin() + static_cast<long>(positions), i.end());
    ExprP dst = flatIndex(at, f->xd);
    return std::vector<StmtP>{store(c, dst, *combine(reduction, kb.load(c, dst), kb.load(u, flatIndex(i, *ud))))};
  }));
  return done(kb, {0, 1, 2});
}

// one_hot: on_value where the index equals the position along the new axis. The values are
// compile-time numbers (R.prim_value(1.0)).
LegalizeResult oneHot(const LegalizeInput& in) {
  auto t = elementType(&in.out);
  const ir::StructInfo* ix = in.args.empty() ? nullptr : in.args[0];
  auto it = elementType(ix);
  if (!t || !it) return failure("R.one_hot needs int32/int64 indices and a supported result dtype");
  if (in.scalars.size() < 3 || !in.scalars[1] || !in.scalars[2]) return failure("R.one_hot: on_value and off_value must be constants to compile");
  KernelBuilder kb(in.kernelName);
  auto id = shapeExprs(kb, ix), od = shapeExprs(kb, &in.out);
  if (!id || !od) return failure("the shapes must be known to compile R.one_hot");
  int axis = axisAttr(in, "axis", static_cast<int>(od->size()), static_cast<int>(od->size()) - 1);
  if (axis < 0) return failure("R.one_hot: axis out of range");
  int ind = kb.param("indices", *it, shapeText(ix));
  int c = kb.param("C", *t, shapeText(&in.out));
  kb.add(outputNest(kb, *od, [&](const std::vector<ExprP>& o) {
    std::vector<ExprP> at = o;
    at.erase(at.begin() + axis);
    ExprP hit = binary(BinOp::Eq, cast(ScalarType::I64, kb.load(ind, flatIndex(at, *id))), o[static_cast<size_t>(axis)]);
    return std::vector<StmtP>{store(c, flatIndex(o, *od), select(hit, constantOf(*in.scalars[1], *t), constantOf(*in.scalars[2], *t)))};
  }));
  return done(kb, {0});
}

// slice_scatter: positions start, start + step, ... (< end) of `axis` come from src, the rest
// from the input.
LegalizeResult sliceScatter(const LegalizeInput& in) {
  const ir::StructInfo* x = in.args.size() > 0 ? in.args[0] : nullptr;
  const ir::StructInfo* src = in.args.size() > 1 ? in.args[1] : nullptr;
  auto t = elementType(x);
  if (!t || elementType(src) != t) return failure("R.slice_scatter needs input and src of one supported dtype");
  if (in.scalars.size() < 5 || !in.scalars[2] || !in.scalars[3] || !in.scalars[4]) return failure("R.slice_scatter: start, end and step must be constants to compile");
  auto start = static_cast<int64_t>(*in.scalars[2]), end = static_cast<int64_t>(*in.scalars[3]), step = static_cast<int64_t>(*in.scalars[4]);
  if (step <= 0) return failure("R.slice_scatter: step must be positive");
  KernelBuilder kb(in.kernelName);
  auto xd = shapeExprs(kb, x), sd = shapeExprs(kb, src);
  if (!xd || !sd) return failure("the shapes must be known to compile R.slice_scatter");
  int axis = axisAttr(in, "axis", static_cast<int>(xd->size()), 0);
  if (axis < 0) return failure("R.slice_scatter: axis out of range");
  size_t ax = static_cast<size_t>(axis);
  int a = kb.param("A", *t, shapeText(x));
  int s = kb.param("src", *t, shapeText(src));
  int c = kb.param("C", *t, shapeText(&in.out));
  kb.add(outputNest(kb, *xd, [&](const std::vector<ExprP>& o) {
    ExprP j = o[ax] - intImm(start);
    ExprP slot = floordiv(j, intImm(step));
    ExprP hit = binary(BinOp::And, binary(BinOp::And, binary(BinOp::Ge, j, intImm(0)), binary(BinOp::Lt, o[ax], intImm(end))),
                       binary(BinOp::And, binary(BinOp::Eq, floormod(j, intImm(step)), intImm(0)), binary(BinOp::Lt, slot, (*sd)[ax])));
    std::vector<ExprP> at = o;
    at[ax] = max(intImm(0), min(slot, (*sd)[ax] - intImm(1)));
    ExprP fromSrc = kb.load(s, flatIndex(at, *sd));
    ExprP here = flatIndex(o, *xd);
    return std::vector<StmtP>{store(c, here, select(hit, fromSrc, kb.load(a, here)))};
  }));
  return done(kb, {0, 1});
}

}  // namespace tvms::op::kernels
