// Kernels that read each output element from one computed position of the input (tile, repeat,
// flip, nn.pad, nn.pixel_shuffle, meshgrid), that build a matrix from sizes (eye, eye_like), and
// collapse_sum (the sum over the axes a broadcast added). Loop nests over the output, all spatial.
#include "compiler/op/index_map.h"
#include "compiler/op/infer_util.h"
#include "compiler/op/legalize_util.h"

#include <algorithm>
#include <map>

namespace tvms::op::kernels {

using namespace tir;

namespace {


// The common frame of the kernels here: one input A of x's dtype, the output C, a nest over the
// output whose element at `o` is A at at(o) (or what `value` makes of it).
struct OneInput {
  const ir::StructInfo* x;
  ScalarType t;
  std::vector<ExprP> xd, od;
};
std::optional<OneInput> oneInput(KernelBuilder& kb, const LegalizeInput& in, std::string& error) {
  const ir::StructInfo* x = in.args.empty() ? nullptr : in.args[0];
  auto t = elementType(x);
  auto xd = shapeExprs(kb, x), od = shapeExprs(kb, &in.out);
  if (!t) error = "dtype " + (x ? x->dtype : std::string("?")) + " has no kernels yet";
  else if (!xd || !od) error = "the shapes must be known to compile " + in.def.scriptName();
  if (!error.empty()) return std::nullopt;
  return OneInput{x, *t, *xd, *od};
}

LegalizeResult gatherFrom(const LegalizeInput& in, const std::function<ExprP(KernelBuilder&, int a, const OneInput&, const std::vector<ExprP>& o)>& value) {
  KernelBuilder kb(in.kernelName);
  std::string error;
  auto f = oneInput(kb, in, error);
  if (!f) return failure(error);
  int a = kb.param("A", f->t, shapeText(f->x));
  int c = kb.param("C", f->t, shapeText(&in.out));
  kb.add(outputNest(kb, f->od, [&](const std::vector<ExprP>& o) {
    return std::vector<StmtP>{store(c, flatIndex(o, f->od), value(kb, a, *f, o))};
  }));
  return done(kb, {0});
}

}  // namespace

LegalizeResult tile(const LegalizeInput& in) {
  return gatherFrom(in, [](KernelBuilder& kb, int a, const OneInput& f, const std::vector<ExprP>& o) {
    // x's axes are the output's last ones; each reads its index modulo x's length there.
    size_t lead = f.od.size() - f.xd.size();
    std::vector<ExprP> at;
    for (size_t i = 0; i < f.xd.size(); ++i) at.push_back(floormod(o[lead + i], f.xd[i]));
    return kb.load(a, flatIndex(at, f.xd));
  });
}

LegalizeResult repeat(const LegalizeInput& in) {
  int64_t reps = infer::intAttr(in.attr("repeats")).value_or(1);
  if (reps <= 0) return failure("R.repeat needs repeats >= 1 to compile");
  bool flat = !in.attr("axis") || in.attr("axis")->kind == ir::Value::Kind::None;
  return gatherFrom(in, [&](KernelBuilder& kb, int a, const OneInput& f, const std::vector<ExprP>& o) {
    if (flat) return kb.load(a, floordiv(o[0], intImm(reps)));
    int axis = axisAttr(in, "axis", static_cast<int>(f.xd.size()), 0);
    std::vector<ExprP> at = o;
    at[static_cast<size_t>(axis)] = floordiv(o[static_cast<size_t>(axis)], intImm(reps));
    return kb.load(a, flatIndex(at, f.xd));
  });
}

LegalizeResult flip(const LegalizeInput& in) {
  const ir::StructInfo* x = in.args.empty() ? nullptr : in.args[0];
  int axis = axisAttr(in, "axis", x ? x->rank() : -1, 0);
  if (axis < 0) return failure("R.flip: axis out of range");
  return gatherFrom(in, [&](KernelBuilder& kb, int a, const OneInput& f, const std::vector<ExprP>& o) {
    std::vector<ExprP> at = o;
    size_t ax = static_cast<size_t>(axis);
    at[ax] = f.xd[ax] - intImm(1) - o[ax];
    return kb.load(a, flatIndex(at, f.xd));
  });
}

// reverse_sequence: along seq_axis, the first len elements of each batch (its seq_lengths entry,
// clamped into [1, the axis's length], as TOPI does) reversed, the rest copied.
LegalizeResult reverseSequence(const LegalizeInput& in) {
  const ir::StructInfo* x = in.args.empty() ? nullptr : in.args[0];
  int rank = x ? x->rank() : -1;
  int seqAxis = axisAttr(in, "seq_axis", rank, 1), batchAxis = axisAttr(in, "batch_axis", rank, 0);
  if (seqAxis < 0 || batchAxis < 0 || seqAxis == batchAxis) return failure("R.reverse_sequence: seq_axis and batch_axis must be two different axes of data");
  auto lengthType = in.args.size() > 1 ? elementType(in.args[1]) : std::nullopt;
  if (!lengthType || (*lengthType != ScalarType::I32 && *lengthType != ScalarType::I64))
    return failure("R.reverse_sequence: seq_lengths must be an int32 or int64 tensor");
  KernelBuilder kb(in.kernelName);
  std::string error;
  auto f = oneInput(kb, in, error);
  if (!f) return failure(error);
  int a = kb.param("A", f->t, shapeText(f->x));
  int lengths = kb.param("L", *lengthType, shapeText(in.args[1]));
  int c = kb.param("C", f->t, shapeText(&in.out));
  size_t s = static_cast<size_t>(seqAxis), b = static_cast<size_t>(batchAxis);
  kb.add(outputNest(kb, f->od, [&](const std::vector<ExprP>& o) {
    ExprP len = max(intImm(1), min(cast(ScalarType::I64, kb.load(lengths, o[b])), f->xd[s]));
    std::vector<ExprP> at = o;
    at[s] = select(binary(BinOp::Lt, o[s], len), len - intImm(1) - o[s], o[s]);
    return std::vector<StmtP>{store(c, flatIndex(o, f->od), kb.load(a, flatIndex(at, f->xd)))};
  }));
  return done(kb, {0, 1});
}

// hamming_window: alpha - beta * cos(2 pi n / D), D the size (periodic) or the size - 1; a window of
// one element is 1.
LegalizeResult hammingWindow(const LegalizeInput& in) {
  auto t = elementType(&in.out);
  if (!t) return failure("dtype " + in.out.dtype + " has no kernels yet");
  for (size_t k = 1; k <= 3; ++k)
    if (in.scalars.size() <= k || !in.scalars[k]) return failure("R.hamming_window: periodic, alpha and beta must be constants to compile");
  bool periodic = *in.scalars[1] != 0;
  double alpha = *in.scalars[2], beta = *in.scalars[3];
  KernelBuilder kb(in.kernelName);
  auto od = shapeExprs(kb, &in.out);
  if (!od || od->size() != 1) return failure("the window's size must be known to compile R.hamming_window");
  int c = kb.param("C", *t, shapeText(&in.out));
  ScalarType ct = *t == ScalarType::F64 ? ScalarType::F64 : ScalarType::F32;
  ExprP n = (*od)[0];
  ExprP denominator = cast(ct, max(intImm(1), periodic ? n : n - intImm(1)));
  kb.add(outputNest(kb, *od, [&](const std::vector<ExprP>& o) {
    ExprP angle = binary(BinOp::Div, floatImm(2 * 3.14159265358979323846, ct) * cast(ct, o[0]), denominator);
    ExprP w = select(binary(BinOp::Eq, n, intImm(1)), floatImm(1, ct), floatImm(alpha, ct) - floatImm(beta, ct) * unary(UnOp::Cos, angle));
    return std::vector<StmtP>{store(c, o[0], ct == *t ? w : cast(*t, w))};
  }));
  return done(kb, {});
}

// pad_value as written: a number, TVM's old third argument R.const(v, dtype) (kept as text), or,
// when a newer module passed pad_mode third without a keyword, a mode string.
namespace {
struct PadSpec {
  double value = 0;
  std::string mode = "constant";
  bool ok = true;
};
PadSpec padSpec(const LegalizeInput& in) {
  PadSpec p;
  p.mode = infer::stringAttr(in.attr("pad_mode")).value_or("constant");
  const ir::Value* v = in.attr("pad_value");
  if (!v) return p;
  if (v->kind == ir::Value::Kind::Float) p.value = v->real;
  else if (v->kind == ir::Value::Kind::Int) p.value = static_cast<double>(v->integer);
  else if (v->kind == ir::Value::Kind::String) p.mode = v->text;
  else if (v->kind == ir::Value::Kind::Opaque) {  // R.const(0, "int32"): the number before the comma
    std::string text = v->text;
    size_t open = text.find('(');
    std::string head = open == std::string::npos ? "" : text.substr(0, open);
    p.ok = false;
    if (head == "R.const" || head == "relax.const") {
      size_t end = text.find_first_of(",)", open);
      auto n = ir::primNumber(*ir::primOpaque(text.substr(open + 1, end == std::string::npos ? std::string::npos : end - open - 1)));
      if (n) {
        p.value = n->value;
        p.ok = true;
      }
    }
  }
  return p;
}
}  // namespace

LegalizeResult pad(const LegalizeInput& in) {
  PadSpec spec = padSpec(in);
  if (!spec.ok) return failure("R.nn.pad: pad_value must be a number or R.const(number) to compile");
  if (spec.mode != "constant" && spec.mode != "edge" && spec.mode != "reflect")
    return failure("R.nn.pad: pad_mode \"" + spec.mode + "\" has no kernel (constant, edge and reflect do)");
  auto width = infer::intList(in.attr("pad_width"));
  if (!width) return failure("R.nn.pad needs pad_width as integers to compile");
  return gatherFrom(in, [&](KernelBuilder& kb, int a, const OneInput& f, const std::vector<ExprP>& o) {
    std::vector<ExprP> at;
    ExprP inside;
    for (size_t d = 0; d < f.xd.size(); ++d) {
      ExprP i = o[d] - intImm((*width)[2 * d]);
      ExprP n = f.xd[d];
      if (spec.mode == "edge") i = max(intImm(0), min(i, n - intImm(1)));
      // reflect (numpy's "reflect": the edge is not repeated): -1 -> 1, n -> n - 2
      if (spec.mode == "reflect") {
        i = select(binary(BinOp::Lt, i, intImm(0)), intImm(0) - i, i);
        i = select(binary(BinOp::Ge, i, n), n + n - intImm(2) - i, i);
        i = max(intImm(0), min(i, n - intImm(1)));  // pads wider than the axis stay inside
      }
      if (spec.mode == "constant") {
        ExprP in_d = binary(BinOp::And, binary(BinOp::Ge, i, intImm(0)), binary(BinOp::Lt, i, n));
        inside = inside ? binary(BinOp::And, inside, in_d) : in_d;
        i = max(intImm(0), min(i, n - intImm(1)));  // the load stays in bounds; select picks the pad value
      }
      at.push_back(i);
    }
    ExprP v = kb.load(a, flatIndex(at, f.xd));
    return inside ? select(inside, v, constantOf(spec.value, f.t)) : v;
  });
}

LegalizeResult pixelShuffle(const LegalizeInput& in) {
  int64_t r = infer::intAttr(in.attr("upscale_factor")).value_or(0);
  if (r <= 0) return failure("R.nn.pixel_shuffle needs a positive upscale_factor to compile");
  return gatherFrom(in, [&](KernelBuilder& kb, int a, const OneInput& f, const std::vector<ExprP>& o) {
    ExprP R = intImm(r);
    std::vector<ExprP> at{o[0], o[1] * intImm(r * r) + floormod(o[2], R) * R + floormod(o[3], R), floordiv(o[2], R), floordiv(o[3], R)};
    return kb.load(a, flatIndex(at, f.xd));
  });
}

// meshgrid: output i reads input i at its own axis (the first two swapped for "xy").
LegalizeResult meshgrid(const LegalizeInput& in) {
  if (in.out.kind != ir::StructInfo::Kind::Tuple) return failure("R.meshgrid needs a tuple result");
  size_t n = in.out.fields.size();
  bool xy = infer::stringAttr(in.attr("indexing")).value_or("ij") == "xy" && n >= 2;
  KernelBuilder kb(in.kernelName);
  std::vector<int> inputs, outputs;
  std::vector<std::vector<ExprP>> od;
  for (size_t i = 0; i < n; ++i) {
    auto t = elementType(in.args.size() > i ? in.args[i] : nullptr);
    auto d = shapeExprs(kb, in.out.fields[i].get());
    if (!t || !d) return failure("R.meshgrid needs tensors of supported dtypes and known lengths to compile");
    inputs.push_back(kb.param("A" + std::to_string(i), *t, shapeText(in.args[i])));
    od.push_back(*d);
  }
  for (size_t i = 0; i < n; ++i)
    outputs.push_back(kb.param("C" + std::to_string(i), kb.bufferType(inputs[i]), shapeText(in.out.fields[i].get())));
  std::vector<size_t> buffers;
  for (size_t i = 0; i < n; ++i) {
    size_t axis = xy && i < 2 ? 1 - i : i;
    kb.add(outputNest(kb, od[i], [&](const std::vector<ExprP>& o) {
      ExprP element = in.args[i]->rank() == 0 ? intImm(0) : o[axis];
      return std::vector<StmtP>{store(outputs[i], flatIndex(o, od[i]), kb.load(inputs[i], element))};
    }));
    buffers.push_back(i);
  }
  return done(kb, buffers);
}

// eye(n, m, k) and eye_like(x, k): ones where column - row == k. x itself is not read.
LegalizeResult eye(const LegalizeInput& in) {
  auto t = elementType(&in.out);
  if (!t) return failure("dtype " + in.out.dtype + " has no kernels yet");
  bool like = !in.args.empty() && in.args[0] && in.args[0]->kind == ir::StructInfo::Kind::Tensor;
  size_t kAt = like ? 1 : 2;
  int64_t k = 0;
  if (in.call.args.size() > kAt) {
    if (!in.scalars[kAt]) return failure(in.def.scriptName() + ": the diagonal k must be a constant to compile");
    k = static_cast<int64_t>(*in.scalars[kAt]);
  }
  KernelBuilder kb(in.kernelName);
  auto od = shapeExprs(kb, &in.out);
  if (!od || od->size() != 2) return failure("the result's shape must be known to compile " + in.def.scriptName());
  int c = kb.param("C", *t, shapeText(&in.out));
  kb.add(outputNest(kb, *od, [&](const std::vector<ExprP>& o) {
    ExprP on = binary(BinOp::Eq, o[1] - o[0], intImm(k));
    return std::vector<StmtP>{store(c, flatIndex(o, *od), select(on, constantOf(1, *t), constantOf(0, *t)))};
  }));
  return done(kb, {});
}

// collapse_sum_to / _like: each output element sums the data elements that broadcast from it (the
// data's leading axes beyond the target's rank, and the axes where the target has 1).
LegalizeResult collapseSum(const LegalizeInput& in) {
  KernelBuilder kb(in.kernelName);
  std::string error;
  auto f = oneInput(kb, in, error);
  if (!f) return failure(error);
  if (f->od.size() > f->xd.size()) return failure(in.def.scriptName() + ": the target has more axes than the data");
  size_t lead = f->xd.size() - f->od.size();
  std::vector<bool> summed(f->xd.size(), false);
  for (size_t d = 0; d < f->xd.size(); ++d) {
    if (d < lead) { summed[d] = true; continue; }
    const ir::PrimExprPtr& target = (*in.out.shape)[d - lead];
    const ir::PrimExprPtr& data = (*f->x->shape)[d];
    summed[d] = infer::constInt(target) == 1 && infer::constInt(data) != 1;
  }
  int a = kb.param("A", f->t, shapeText(f->x));
  int c = kb.param("C", f->t, shapeText(&in.out));
  int acc = kb.local("acc", f->t);
  kb.add(outputNest(kb, f->od, [&](const std::vector<ExprP>& o) {
    std::vector<int> loops(f->xd.size(), -1);
    std::vector<ExprP> at;
    for (size_t d = 0; d < f->xd.size(); ++d) {
      if (summed[d]) loops[d] = kb.loopVar("r" + std::to_string(d));
      at.push_back(summed[d] ? kb.var(loops[d]) : o[d - lead]);
    }
    StmtP sum = assign(acc, kb.var(acc) + kb.load(a, flatIndex(at, f->xd)));
    for (size_t d = f->xd.size(); d-- > 0;)
      if (summed[d]) sum = forLoop(loops[d], f->xd[d], {sum});
    return std::vector<StmtP>{assign(acc, constantOf(0, f->t)), sum, store(c, flatIndex(o, f->od), kb.var(acc))};
  }));
  return done(kb, {0});
}

namespace {

// An index-map result as a loop-IR expression, the map's parameters bound to loop variables.
ExprP mapped(KernelBuilder& kb, const ir::PrimExprPtr& e, const std::map<std::string, ExprP>& params) {
  if (e->kind == ir::PrimExpr::Kind::Var) {
    auto it = params.find(e->name);
    return it != params.end() ? it->second : dimExpr(kb, e);
  }
  if (e->kind == ir::PrimExpr::Kind::Binary) {
    ExprP a = mapped(kb, e->lhs, params), b = mapped(kb, e->rhs, params);
    if (!a || !b) return nullptr;
    if (e->name == "+") return a + b;
    if (e->name == "-") return a - b;
    if (e->name == "*") return a * b;
    if (e->name == "//") return floordiv(a, b);
    if (e->name == "%") return floormod(a, b);
    return nullptr;
  }
  return dimExpr(kb, e);
}

// pad_value as written: a number, None (0 here; TVM leaves such elements unspecified), or
// R.prim_value(T.float32(2)) as TVM's printer writes it.
std::optional<double> layoutPadValue(const ir::Value* v) {
  if (!v || v->kind == ir::Value::Kind::None) return 0.0;
  if (v->kind == ir::Value::Kind::Float) return v->real;
  if (v->kind == ir::Value::Kind::Int) return static_cast<double>(v->integer);
  if (v->kind != ir::Value::Kind::Opaque) return std::nullopt;
  std::string text = v->text;
  const std::string wrap = "R.prim_value(";
  if (text.rfind(wrap, 0) == 0 && text.back() == ')') text = text.substr(wrap.size(), text.size() - wrap.size() - 1);
  auto n = ir::primNumber(*ir::primOpaque(text));
  if (!n) return std::nullopt;
  return n->value;
}

}  // namespace

// layout_transform: output positions the map reaches get their input element (a nest over the
// input, each element stored where the map sends it: the map is one-to-one); when the output has
// more elements than the input, a first nest fills it with pad_value.
LegalizeResult layoutTransform(const LegalizeInput& in) {
  const ir::Value* v = in.attr("index_map");
  auto map = v && v->kind == ir::Value::Kind::Opaque ? parseIndexMap(v->text) : std::nullopt;
  if (!map) return failure("R.layout_transform: the index map must be a lambda tvms reads (lambda a, b: (b // 4, a, b % 4)) to compile");
  auto pad = layoutPadValue(in.attr("pad_value"));
  if (!pad) return failure("R.layout_transform: pad_value must be a number to compile");
  KernelBuilder kb(in.kernelName);
  std::string error;
  auto f = oneInput(kb, in, error);
  if (!f) return failure(error);
  if (map->params.size() != f->xd.size() || map->results.size() != f->od.size()) return failure("R.layout_transform: the index map does not fit the tensor's rank");
  int a = kb.param("A", f->t, shapeText(f->x));
  int c = kb.param("C", f->t, shapeText(&in.out));
  auto inCount = infer::product(*f->x->shape), outCount = infer::product(*in.out.shape);
  if (!inCount || !outCount || *inCount != *outCount)
    kb.add(outputNest(kb, f->od, [&](const std::vector<ExprP>& o) { return std::vector<StmtP>{store(c, flatIndex(o, f->od), constantOf(*pad, f->t))}; }));
  std::string why;
  kb.add(outputNest(kb, f->xd, [&](const std::vector<ExprP>& i) {
    std::map<std::string, ExprP> params;
    for (size_t k = 0; k < i.size(); ++k) params[map->params[k]] = i[k];
    std::vector<ExprP> at;
    for (auto& r : map->results) at.push_back(mapped(kb, r, params));
    if (std::count(at.begin(), at.end(), nullptr)) {
      why = "R.layout_transform: an index map result tvms cannot compute";
      return std::vector<StmtP>{};
    }
    return std::vector<StmtP>{store(c, flatIndex(at, f->od), kb.load(a, flatIndex(i, f->xd)))};
  }));
  if (!why.empty()) return failure(why);
  return done(kb, {0});
}

}  // namespace tvms::op::kernels
