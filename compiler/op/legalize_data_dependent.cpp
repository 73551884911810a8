// Ops whose result's shape comes from their operands' values: unique, nonzero, dynamic_strided_slice.
// Each has two kernels (OpDef::shapeFunction): the first writes the result's dims into a 1-D int64
// tensor that the VM reads before the second runs with those dims, as TVM legalizes
// dynamic_strided_slice (TVM runs unique and nonzero through numpy on the host; these are kernels, so
// they run where their operand lives). unique and nonzero are serial, one thread on a GPU: they walk
// the elements in order. unique sorts positions with a stable bottom-up merge sort (O(n log n)) in
// workspaces the VM allocates for the call.
#include <functional>

#include "compiler/op/infer_util.h"
#include "compiler/op/legalize_util.h"

namespace tvms::op::kernels {

using namespace tir;

namespace {

ExprP i64(int64_t v) { return intImm(v); }
ExprP notOf(ExprP a) { return unary(UnOp::Not, std::move(a)); }
ExprP both(ExprP a, ExprP b) { return binary(BinOp::And, std::move(a), std::move(b)); }
ExprP either(ExprP a, ExprP b) { return binary(BinOp::Or, std::move(a), std::move(b)); }
ExprP ceilDiv(ExprP a, ExprP b) { return floordiv(a + b - i64(1), b); }

// A total order on element values, as numpy sorts them: NaN after every number, NaNs equal.
ExprP isNan(const ExprP& v) { return binary(BinOp::Ne, v, v); }
ExprP lessThan(const ExprP& a, const ExprP& b, ScalarType t) {
  if (t == ScalarType::Bool) return binary(BinOp::Lt, cast(ScalarType::I32, a), cast(ScalarType::I32, b));
  if (!isFloat(t)) return binary(BinOp::Lt, a, b);
  return either(binary(BinOp::Lt, a, b), both(isNan(b), notOf(isNan(a))));
}

// All of a serial computation in one top-level loop of one iteration: on a GPU the whole kernel is
// then one launch of one thread, so its locals carry from one step to the next.
StmtP once(KernelBuilder& kb, std::vector<StmtP> body) { return forLoop(kb.loopVar("once"), i64(1), std::move(body)); }

// The elements unique compares: the flattened tensor (one element per item), or along an axis the
// slices x[..., a, ...] (items a of the axis, each `size` elements, compared lexicographically).
struct Items {
  KernelBuilder& kb;
  int x;
  ScalarType t;
  ExprP count, outer, inner;  // items, and the extents before and after the axis (1 and 1 when flattened)
  bool flat;
  ExprP size() const { return outer * inner; }
  // Element e (0 <= e < size) of item a.
  ExprP at(const ExprP& a, const ExprP& e) const {
    if (flat) return kb.load(x, a);
    return kb.load(x, (floordiv(e, inner) * count + a) * inner + floormod(e, inner));
  }
  // Statements leaving in local `c` -1, 0 or 1: item a against item b.
  std::vector<StmtP> compare(int c, const ExprP& a, const ExprP& b) const {
    auto step = [&](const ExprP& e) {
      ExprP va = at(a, e), vb = at(b, e);
      return assign(c, select(lessThan(va, vb, t), i64(-1), select(lessThan(vb, va, t), i64(1), i64(0))));
    };
    if (flat) return {step(i64(0))};
    int e = kb.loopVar("elem");
    return {assign(c, i64(0)), forLoop(e, size(), {ifThen(binary(BinOp::Eq, kb.var(c), i64(0)), {step(kb.var(e))})})};
  }
};

// perm[0, n) := the item positions in ascending order of their items, equal items in position order (a
// stable bottom-up merge sort through `tmp`).
std::vector<StmtP> stableSort(KernelBuilder& kb, const Items& items, int perm, int tmp) {
  ExprP n = items.count;
  // Names of their own: the printed kernel reads back by name (a local `i` and a loop `i` would clash).
  int k = kb.loopVar("sort_init"), blk = kb.loopVar("sort_block"), m = kb.loopVar("sort_step"), k2 = kb.loopVar("sort_copy");
  int w = kb.local("width", ScalarType::I64), lo = kb.local("lo", ScalarType::I64), mid = kb.local("mid", ScalarType::I64);
  int hi = kb.local("hi", ScalarType::I64), i = kb.local("left_at", ScalarType::I64), j = kb.local("right_at", ScalarType::I64);
  int c = kb.local("sort_cmp", ScalarType::I64), left = kb.local("take_left", ScalarType::Bool);
  ExprP last = max(n - i64(1), i64(0));
  ExprP twice = kb.var(w) * i64(2);
  ExprP leftOpen = binary(BinOp::Lt, kb.var(i), kb.var(mid)), rightOpen = binary(BinOp::Lt, kb.var(j), kb.var(hi));
  std::vector<StmtP> merge{assign(c, i64(1)),
                           ifThen(both(leftOpen, rightOpen), items.compare(c, kb.load(perm, kb.var(i)), kb.load(perm, kb.var(j)))),
                           assign(left, both(leftOpen, either(notOf(rightOpen), binary(BinOp::Le, kb.var(c), i64(0))))),
                           store(tmp, kb.var(lo) + kb.var(m),
                                 select(kb.var(left), kb.load(perm, min(kb.var(i), last)), kb.load(perm, min(kb.var(j), last)))),
                           assign(i, kb.var(i) + cast(ScalarType::I64, kb.var(left))),
                           assign(j, kb.var(j) + cast(ScalarType::I64, notOf(kb.var(left))))};
  std::vector<StmtP> pass{
      forLoop(blk, ceilDiv(n, twice),
              {assign(lo, kb.var(blk) * twice), assign(mid, min(kb.var(lo) + kb.var(w), n)), assign(hi, min(kb.var(lo) + twice, n)),
               assign(i, kb.var(lo)), assign(j, kb.var(mid)), forLoop(m, kb.var(hi) - kb.var(lo), merge)}),
      forLoop(k2, n, {store(perm, kb.var(k2), kb.load(tmp, kb.var(k2)))}), assign(w, twice)};
  return {forLoop(k, n, {store(perm, kb.var(k), kb.var(k))}), assign(w, i64(1)),
          whileLoop(binary(BinOp::Lt, kb.var(w), n), std::move(pass))};
}

// 1 when sorted position k starts a group (k is 0, or its item differs from the one before it), else 0:
// the statements comparing the two items (through local `c`), then the value.
std::pair<std::vector<StmtP>, ExprP> startsGroup(KernelBuilder& kb, const Items& items, int perm, int k, int c) {
  std::vector<StmtP> compare = items.compare(c, kb.load(perm, kb.var(k)), kb.load(perm, max(kb.var(k) - i64(1), i64(0))));
  return {compare, cast(ScalarType::I64, either(binary(BinOp::Eq, kb.var(k), i64(0)), binary(BinOp::Ne, kb.var(c), i64(0))))};
}

struct UniqueFlags {
  bool sorted, index, inverse, counts;
};
UniqueFlags uniqueFlags(const LegalizeInput& in) {
  return {infer::boolAttr(in.attr("sorted"), true), infer::boolAttr(in.attr("return_index"), false),
          infer::boolAttr(in.attr("return_inverse"), false), infer::boolAttr(in.attr("return_counts"), false)};
}

// x's items for unique, or an error.
std::optional<Items> uniqueItems(KernelBuilder& kb, const LegalizeInput& in, int x, std::string& error) {
  const ir::StructInfo* xs = in.args.empty() ? nullptr : in.args[0];
  auto dims = shapeExprs(kb, xs);
  auto t = elementType(xs);
  if (!dims || !t) {
    error = "R.unique needs its operand's shape and dtype to compile";
    return std::nullopt;
  }
  const int rank = static_cast<int>(dims->size());
  if (!in.attr("axis") || in.attr("axis")->kind == ir::Value::Kind::None || rank == 0)
    return Items{kb, x, *t, product(*dims), i64(1), i64(1), true};
  int axis = axisAttr(in, "axis", rank, 0);
  if (axis < 0) {
    error = "R.unique: axis out of range";
    return std::nullopt;
  }
  auto a = static_cast<size_t>(axis);
  return Items{kb, x, *t, (*dims)[a], product(*dims, 0, a), product(*dims, a + 1), false};
}

}  // namespace

// [U, then U / item count / U for each of index / inverse / counts asked for]: U counted on the
// sorted positions, one more wherever an item differs from the one before it.
LegalizeResult uniqueShape(const LegalizeInput& in) {
  KernelBuilder kb(in.kernelName);
  auto t = elementType(in.args.empty() ? nullptr : in.args[0]);
  if (!t) return failure("R.unique: dtype has no kernels yet");
  int x = kb.param("A", *t, shapeText(in.args[0]));
  int dimsOut = kb.param("dims", ScalarType::I64, shapeText(&in.out));
  std::string error;
  auto items = uniqueItems(kb, in, x, error);
  if (!items) return failure(error);
  UniqueFlags f = uniqueFlags(in);
  int perm = kb.workspace("perm", ScalarType::I64, items->count), tmp = kb.workspace("merged", ScalarType::I64, items->count);
  int k = kb.loopVar("item");
  int u = kb.local("distinct", ScalarType::I64), c = kb.local("same", ScalarType::I64);
  std::vector<StmtP> body = stableSort(kb, *items, perm, tmp);
  auto [count, starts] = startsGroup(kb, *items, perm, k, c);
  count.push_back(assign(u, kb.var(u) + starts));
  body.push_back(assign(u, i64(0)));
  body.push_back(forLoop(k, items->count, count));
  // The values: U of them, or along an axis x's shape with U on that axis.
  int slot = 0;
  if (items->flat) {
    body.push_back(store(dimsOut, i64(slot++), kb.var(u)));
  } else {
    auto dims = shapeExprs(kb, in.args[0]);
    int axis = axisAttr(in, "axis", static_cast<int>(dims->size()), 0);
    for (int d = 0; d < static_cast<int>(dims->size()); ++d)
      body.push_back(store(dimsOut, i64(slot++), d == axis ? kb.var(u) : (*dims)[static_cast<size_t>(d)]));
  }
  if (f.index) body.push_back(store(dimsOut, i64(slot++), kb.var(u)));
  if (f.inverse) body.push_back(store(dimsOut, i64(slot++), items->count));
  if (f.counts) body.push_back(store(dimsOut, i64(slot++), kb.var(u)));
  kb.add(once(kb, std::move(body)));
  return done(kb, {0});
}

// The distinct items in sorted order (group g of equal items at position g) or in the order they
// first occur (position order[g]), with each group's first position (the stable sort puts it first in
// its group), the count of each group, and each item's group position (the inverse).
LegalizeResult unique(const LegalizeInput& in) {
  KernelBuilder kb(in.kernelName);
  auto t = elementType(in.args.empty() ? nullptr : in.args[0]);
  if (!t) return failure("R.unique: dtype has no kernels yet");
  UniqueFlags f = uniqueFlags(in);
  std::vector<const ir::StructInfo*> outs;
  if (in.out.kind == ir::StructInfo::Kind::Tuple) for (auto& field : in.out.fields) outs.push_back(field.get());
  else outs.push_back(&in.out);
  if (outs.size() != 1u + f.index + f.inverse + f.counts) return failure("R.unique: unexpected result");
  int x = kb.param("A", *t, shapeText(in.args[0]));
  int values = kb.param("values", *t, shapeText(outs[0]));
  size_t next = 1;
  int index = f.index ? kb.param("indices", ScalarType::I64, shapeText(outs[next++])) : -1;
  int inverse = f.inverse ? kb.param("inverse", ScalarType::I64, shapeText(outs[next++])) : -1;
  int counts = f.counts ? kb.param("counts", ScalarType::I64, shapeText(outs[next++])) : -1;
  std::string error;
  auto items = uniqueItems(kb, in, x, error);
  if (!items) return failure(error);
  auto od = shapeExprs(kb, outs[0]);
  if (!od) return failure("R.unique: the result's shape must be known to compile");
  int axis = items->flat ? 0 : axisAttr(in, "axis", static_cast<int>(od->size()), 0);
  ExprP distinct = (*od)[static_cast<size_t>(axis)];
  int perm = kb.workspace("perm", ScalarType::I64, items->count), tmp = kb.workspace("merged", ScalarType::I64, items->count);
  int group = kb.workspace("group", ScalarType::I64, items->count);
  int order = f.sorted ? -1 : kb.workspace("order", ScalarType::I64, distinct);
  int k = kb.loopVar("item"), i = kb.loopVar("in_order"), i2 = kb.loopVar("element"), e = kb.loopVar("slice_elem"), p = kb.loopVar("group_at");
  int g = kb.local("g", ScalarType::I64), c = kb.local("same", ScalarType::I64), seen = kb.local("seen", ScalarType::I64);
  int fresh = kb.local("fresh", ScalarType::Bool);
  std::vector<StmtP> body = stableSort(kb, *items, perm, tmp);
  // Groups, walking the sorted positions: a new one wherever an item differs from the one before it.
  ExprP here = kb.load(perm, kb.var(k));
  auto [grouping, starts] = startsGroup(kb, *items, perm, k, c);
  grouping.push_back(assign(g, kb.var(g) + starts));
  grouping.push_back(store(group, here, kb.var(g)));
  body.push_back(assign(g, i64(-1)));
  body.push_back(forLoop(k, items->count, grouping));
  // Unsorted: each group's position is the order its first item comes in.
  auto position = [&](const ExprP& grp) { return f.sorted ? grp : kb.load(order, grp); };
  if (!f.sorted) {
    body.push_back(forLoop(p, distinct, {store(order, kb.var(p), i64(-1))}));
    body.push_back(assign(seen, i64(0)));
    ExprP grp = kb.load(group, kb.var(i));
    body.push_back(forLoop(i, items->count, {ifThen(binary(BinOp::Lt, kb.load(order, grp), i64(0)),
                                                    {store(order, grp, kb.var(seen)), assign(seen, kb.var(seen) + i64(1))})}));
  }
  // Each group's first item (values, index), its size (counts): the sorted positions walked again.
  int k2 = kb.loopVar("sorted_item");
  ExprP item = kb.load(perm, kb.var(k2));
  ExprP grp = kb.load(group, item);
  ExprP pos = position(grp);
  std::vector<StmtP> first;
  if (items->flat) first.push_back(store(values, pos, kb.load(x, item)));
  else
    first.push_back(forLoop(e, items->size(), {store(values, (floordiv(kb.var(e), items->inner) * distinct + pos) * items->inner + floormod(kb.var(e), items->inner),
                                                     items->at(item, kb.var(e)))}));
  if (index >= 0) first.push_back(store(index, pos, item));
  if (counts >= 0) first.push_back(store(counts, pos, i64(0)));
  ExprP before = kb.load(group, kb.load(perm, max(kb.var(k2) - i64(1), i64(0))));
  std::vector<StmtP> emit{assign(fresh, either(binary(BinOp::Eq, kb.var(k2), i64(0)), binary(BinOp::Ne, grp, before))), ifThen(kb.var(fresh), first)};
  if (counts >= 0) emit.push_back(store(counts, pos, kb.load(counts, pos) + i64(1)));
  body.push_back(forLoop(k2, items->count, emit));
  if (inverse >= 0) body.push_back(forLoop(i2, items->count, {store(inverse, kb.var(i2), position(kb.load(group, kb.var(i2))))}));
  kb.add(once(kb, std::move(body)));
  return done(kb, {0});
}

// [rank, how many elements are nonzero]: NaN counts as nonzero, as numpy has it.
LegalizeResult nonzeroShape(const LegalizeInput& in) {
  const ir::StructInfo* xs = in.args.empty() ? nullptr : in.args[0];
  KernelBuilder kb(in.kernelName);
  auto dims = shapeExprs(kb, xs);
  auto t = elementType(xs);
  if (!dims || !t) return failure("R.nonzero needs its operand's shape and dtype to compile");
  int x = kb.param("A", *t, shapeText(xs));
  int out = kb.param("dims", ScalarType::I64, shapeText(&in.out));
  int i = kb.loopVar("i"), n = kb.local("nonzero", ScalarType::I64);
  ExprP nonzero = binary(BinOp::Ne, kb.load(x, kb.var(i)), constantOf(0, *t));
  kb.add(once(kb, {assign(n, i64(0)), forLoop(i, product(*dims), {assign(n, kb.var(n) + cast(ScalarType::I64, nonzero))}),
                   store(out, i64(0), i64(static_cast<int64_t>(dims->size()))), store(out, i64(1), kb.var(n))}));
  return done(kb, {0});
}

// Column c of the result: the indices of the c-th nonzero element in row-major order.
LegalizeResult nonzero(const LegalizeInput& in) {
  const ir::StructInfo* xs = in.args.empty() ? nullptr : in.args[0];
  KernelBuilder kb(in.kernelName);
  auto dims = shapeExprs(kb, xs);
  auto od = shapeExprs(kb, &in.out);
  auto t = elementType(xs);
  if (!dims || !od || od->size() != 2 || !t) return failure("R.nonzero needs its operand's shape and dtype to compile");
  int x = kb.param("A", *t, shapeText(xs));
  int out = kb.param("indices", ScalarType::I64, shapeText(&in.out));
  int n = kb.local("column", ScalarType::I64);
  ExprP count = (*od)[1];
  StmtP walk = loopNest(kb, *dims, [&](const std::vector<ExprP>& idx) {
    std::vector<StmtP> put;
    for (size_t d = 0; d < idx.size(); ++d) put.push_back(store(out, i64(static_cast<int64_t>(d)) * count + kb.var(n), idx[d]));
    put.push_back(assign(n, kb.var(n) + i64(1)));
    return std::vector<StmtP>{ifThen(binary(BinOp::Ne, kb.load(x, flatIndex(idx, *dims)), constantOf(0, *t)), put)};
  }, false, "i");
  kb.add(once(kb, {assign(n, i64(0)), walk}));
  return done(kb, {0});
}

namespace {

// One axis of a dynamic slice: its begin, end and stride read from the tensors, begin and end counted
// from the end when negative and clamped as numpy slices (TVM's canonicalize_index).
struct SliceAxis {
  ExprP begin, length, stride;
};
std::optional<std::vector<SliceAxis>> sliceAxes(KernelBuilder& kb, const LegalizeInput& in, const std::vector<ExprP>& dims, int b, int e, int s,
                                                std::string& error) {
  std::optional<int64_t> given;
  for (int arg = 1; arg <= 3; ++arg) {
    const ir::StructInfo* v = in.args.size() > static_cast<size_t>(arg) ? in.args[static_cast<size_t>(arg)] : nullptr;
    auto n = v && v->shape && v->shape->size() == 1 ? infer::constInt((*v->shape)[0]) : std::nullopt;
    if (!n || (given && *given != *n)) {
      error = "R.dynamic_strided_slice: begin, end and strides must be 1-D tensors of one known length to compile";
      return std::nullopt;
    }
    given = n;
  }
  if (*given > static_cast<int64_t>(dims.size())) {
    error = "R.dynamic_strided_slice: more begin values than axes";
    return std::nullopt;
  }
  std::vector<SliceAxis> axes;
  for (size_t d = 0; d < dims.size(); ++d) {
    ExprP n = dims[d];
    if (static_cast<int64_t>(d) >= *given) {
      axes.push_back({i64(0), n, i64(1)});
      continue;
    }
    auto read = [&](int buffer) { return cast(ScalarType::I64, kb.load(buffer, i64(static_cast<int64_t>(d)))); };
    ExprP stride = read(s);
    ExprP negative = binary(BinOp::Lt, stride, i64(0));
    auto canonical = [&](const ExprP& v) {
      ExprP counted = select(binary(BinOp::Lt, v, i64(0)), v + n, v);
      return min(max(counted, select(negative, i64(-1), i64(0))), select(negative, n - i64(1), n));
    };
    ExprP from = canonical(read(b)), to = canonical(read(e));
    // ceil((to - from) / stride) for either sign: to - from is within the axis, and the remainder test
    // keeps any stride (INT64_MIN too) from overflowing, as `a + b - 1` would.
    ExprP step = select(binary(BinOp::Eq, stride, i64(0)), i64(1), stride);  // no division by zero: that axis is empty
    ExprP diff = to - from;
    ExprP length = floordiv(diff, step) + cast(ScalarType::I64, binary(BinOp::Ne, floormod(diff, step), i64(0)));
    length = select(binary(BinOp::Eq, stride, i64(0)), i64(0), max(length, i64(0)));
    axes.push_back({from, length, stride});
  }
  return axes;
}

}  // namespace

LegalizeResult dynamicStridedSliceShape(const LegalizeInput& in) {
  const ir::StructInfo* xs = in.args.empty() ? nullptr : in.args[0];
  KernelBuilder kb(in.kernelName);
  auto dims = shapeExprs(kb, xs);
  auto t = elementType(xs);
  if (!dims || !t || in.args.size() < 4) return failure("R.dynamic_strided_slice needs its operand's shape and dtype to compile");
  int x = kb.param("A", *t, shapeText(xs));
  int b = kb.param("begin", elementType(in.args[1]).value_or(ScalarType::I64), shapeText(in.args[1]));
  int e = kb.param("end", elementType(in.args[2]).value_or(ScalarType::I64), shapeText(in.args[2]));
  int s = kb.param("strides", elementType(in.args[3]).value_or(ScalarType::I64), shapeText(in.args[3]));
  int out = kb.param("dims", ScalarType::I64, shapeText(&in.out));
  (void)x;
  std::string error;
  auto axes = sliceAxes(kb, in, *dims, b, e, s, error);
  if (!axes) return failure(error);
  std::vector<StmtP> body;
  for (size_t d = 0; d < axes->size(); ++d) body.push_back(store(out, i64(static_cast<int64_t>(d)), (*axes)[d].length));
  kb.add(once(kb, std::move(body)));
  return done(kb, {0, 1, 2, 3});
}

LegalizeResult dynamicStridedSlice(const LegalizeInput& in) {
  const ir::StructInfo* xs = in.args.empty() ? nullptr : in.args[0];
  KernelBuilder kb(in.kernelName);
  auto dims = shapeExprs(kb, xs);
  auto od = shapeExprs(kb, &in.out);
  auto t = elementType(xs);
  if (!dims || !od || !t || in.args.size() < 4 || od->size() != dims->size())
    return failure("R.dynamic_strided_slice needs its operand's shape and dtype to compile");
  int x = kb.param("A", *t, shapeText(xs));
  int b = kb.param("begin", elementType(in.args[1]).value_or(ScalarType::I64), shapeText(in.args[1]));
  int e = kb.param("end", elementType(in.args[2]).value_or(ScalarType::I64), shapeText(in.args[2]));
  int s = kb.param("strides", elementType(in.args[3]).value_or(ScalarType::I64), shapeText(in.args[3]));
  int out = kb.param("C", *t, shapeText(&in.out));
  std::string error;
  auto axes = sliceAxes(kb, in, *dims, b, e, s, error);
  if (!axes) return failure(error);
  kb.add(outputNest(kb, *od, [&](const std::vector<ExprP>& idx) {
    std::vector<ExprP> source;
    for (size_t d = 0; d < idx.size(); ++d) source.push_back((*axes)[d].begin + idx[d] * (*axes)[d].stride);
    return std::vector<StmtP>{store(out, flatIndex(idx, *od), kb.load(x, flatIndex(source, *dims)))};
  }));
  return done(kb, {0, 1, 2, 3});
}

}  // namespace tvms::op::kernels
