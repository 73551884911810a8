// Elementwise kernels. Same-shape operands run as one flat loop split into chunks on the thread pool
// (the inner loop vectorizes); broadcasting runs a loop nest over the output, the outermost loop
// parallel. Compile-time scalars (R.const(2, "float32"), Python numbers) are inlined.
#include <cmath>
#include <map>

#include "compiler/ir/printer.h"
#include "compiler/op/infer_util.h"
#include "compiler/op/legalize_util.h"

namespace tvms::op::kernels {

using namespace tir;

namespace {

constexpr int64_t kChunk = 16384;  // elements per parallel part of a flat loop

const std::map<std::string, BinOp>& binaryOps() {
  static const std::map<std::string, BinOp> m = {
      {"add", BinOp::Add}, {"subtract", BinOp::Sub}, {"multiply", BinOp::Mul}, {"divide", BinOp::Div}, {"floor_divide", BinOp::FloorDiv},
      {"mod", BinOp::Mod}, {"floor_mod", BinOp::FloorMod}, {"power", BinOp::Pow}, {"maximum", BinOp::Max}, {"minimum", BinOp::Min},
      {"equal", BinOp::Eq}, {"not_equal", BinOp::Ne}, {"less", BinOp::Lt}, {"less_equal", BinOp::Le}, {"greater", BinOp::Gt}, {"greater_equal", BinOp::Ge},
      {"logical_and", BinOp::And}, {"logical_or", BinOp::Or}, {"logical_xor", BinOp::Xor}, {"atan2", BinOp::Atan2},
      {"bitwise_and", BinOp::And}, {"bitwise_or", BinOp::Or}, {"bitwise_xor", BinOp::Xor}, {"left_shift", BinOp::Shl}, {"right_shift", BinOp::Shr},
      {"log_add_exp", BinOp::Add}};
  return m;
}

// The scalar function of a unary op, or null when it has no kernel yet.
ExprP unaryValue(const std::string& op, ExprP x, const LegalizeInput& in) {
  ScalarType t = x->type;
  auto k = [&](double v) { return floatImm(v, t); };
  static const std::map<std::string, UnOp> direct = {
      {"exp", UnOp::Exp}, {"log", UnOp::Log}, {"sqrt", UnOp::Sqrt}, {"tanh", UnOp::Tanh}, {"sigmoid", UnOp::Sigmoid}, {"abs", UnOp::Abs},
      {"negative", UnOp::Neg}, {"floor", UnOp::Floor}, {"ceil", UnOp::Ceil}, {"round", UnOp::Round}, {"trunc", UnOp::Trunc},
      {"sin", UnOp::Sin}, {"cos", UnOp::Cos}, {"erf", UnOp::Erf}, {"rsqrt", UnOp::Rsqrt}, {"logical_not", UnOp::Not}, {"bitwise_not", UnOp::Not},
      {"tan", UnOp::Tan}, {"asin", UnOp::Asin}, {"acos", UnOp::Acos}, {"atan", UnOp::Atan}, {"sinh", UnOp::Sinh}, {"cosh", UnOp::Cosh},
      {"asinh", UnOp::Asinh}, {"acosh", UnOp::Acosh}, {"atanh", UnOp::Atanh}};
  if (auto it = direct.find(op); it != direct.end()) return unary(it->second, x);
  if (op == "square") return x * x;
  if (op == "isnan") return binary(BinOp::Ne, x, x);
  if (op == "isinf") return binary(BinOp::Eq, unary(UnOp::Abs, x), k(INFINITY));
  if (op == "isfinite") return binary(BinOp::Lt, unary(UnOp::Abs, x), k(INFINITY));
  if (op == "broadcast_to") return x;
  if (op == "astype") {
    auto to = tir::scalarTypeOf(in.out.dtype);
    return to ? cast(*to, x) : nullptr;
  }
  if (op == "nn.leakyrelu") return select(binary(BinOp::Gt, x, k(0)), x, k(floatAttr(in, "alpha", 0.01)) * x);
  if (op == "nn.selu") {
    // scale * (x > 0 ? x : alpha * (exp(x) - 1)), the constants of Klambauer et al. (as TVM uses)
    const double alpha = 1.6732632423543772848170429916717, scale = 1.0507009873554804934193349852946;
    return k(scale) * select(binary(BinOp::Gt, x, k(0)), x, k(alpha) * (unary(UnOp::Exp, x) - k(1)));
  }
  if (op == "nn.softplus") {
    double beta = floatAttr(in, "beta", 1.0), threshold = floatAttr(in, "threshold", 20.0);
    ExprP bx = k(beta) * x;
    return select(binary(BinOp::Gt, bx, k(threshold)), x, binary(BinOp::Div, unary(UnOp::Log, k(1) + unary(UnOp::Exp, bx)), k(beta)));
  }
  if (op == "nn.gelu_tanh") {
    ExprP inner = k(std::sqrt(2.0 / M_PI)) * (x + k(0.044715) * x * x * x);
    return k(0.5) * x * (k(1) + unary(UnOp::Tanh, inner));
  }
  if (op == "nn.relu") return binary(BinOp::Max, x, k(0));
  if (op == "nn.silu") return x * unary(UnOp::Sigmoid, x);
  if (op == "nn.gelu") return k(0.5) * x * (k(1) + unary(UnOp::Erf, x * k(M_SQRT1_2)));
  if (op == "sign") return select(binary(BinOp::Gt, x, k(0)), k(1), select(binary(BinOp::Lt, x, k(0)), k(-1), k(0)));
  if (op == "clip") {
    auto bound = [&](size_t i) -> ExprP {
      if (i < in.scalars.size() && in.scalars[i]) return k(*in.scalars[i]);
      return nullptr;
    };
    ExprP lo = bound(1), hi = bound(2);
    if (!lo || !hi) return nullptr;
    return binary(BinOp::Min, binary(BinOp::Max, x, lo), hi);
  }
  return nullptr;
}

bool sameDims(const std::vector<ExprP>& a, const std::vector<ExprP>& b) {
  if (a.size() != b.size()) return false;
  for (size_t i = 0; i < a.size(); ++i) {
    if (a[i] == b[i]) continue;
    if (a[i]->kind == Expr::Kind::Int && b[i]->kind == Expr::Kind::Int && a[i]->intValue == b[i]->intValue) continue;
    if (a[i]->kind == Expr::Kind::Var && b[i]->kind == Expr::Kind::Var && a[i]->id == b[i]->id) continue;
    return false;
  }
  return true;
}

}  // namespace

LegalizeResult elementwise(const LegalizeInput& in) {
  std::string op = in.def.name.substr(6);  // "relax.add" -> "add"
  auto outType = elementType(&in.out);
  if (!outType) return failure("dtype " + in.out.dtype + " has no kernels yet");
  KernelBuilder kb(in.kernelName);
  LegalizeResult r;
  auto outDims = shapeExprs(kb, &in.out);
  if (!outDims) return failure("the result's shape must be known to compile " + in.def.scriptName());
  bool binaryOp = binaryOps().count(op) > 0;
  bool ternaryOp = op == "where" || op == "ewise_fma";
  size_t operands = ternaryOp ? 3 : binaryOp ? 2 : 1;
  struct Operand { int buffer = -1; std::vector<ExprP> dims; ExprP scalar; };
  std::vector<Operand> ops(operands);
  for (size_t i = 0; i < operands; ++i) {
    const ir::StructInfo* s = i < in.args.size() ? in.args[i] : nullptr;
    auto t = elementType(s);
    if (!t) return failure("operand " + std::to_string(i + 1) + " of " + in.def.scriptName() + " has dtype '" + (s ? s->dtype : "?") + "', which has no kernels yet");
    if (i < in.scalars.size() && in.scalars[i]) {
      ops[i].scalar = floatImm(*in.scalars[i], *t);
      continue;
    }
    auto dims = shapeExprs(kb, s);
    if (!dims) return failure("the shape of operand " + std::to_string(i + 1) + " must be known to compile " + in.def.scriptName());
    ops[i].dims = *dims;
    ops[i].buffer = kb.param(std::string(1, static_cast<char>('A' + i)), *t, shapeText(s));
    r.bufferArgs.push_back(i);
  }
  int out = kb.param("C", *outType, shapeText(&in.out));

  auto value = [&](const std::vector<ExprP>& loads) -> ExprP {
    if (op == "where") return select(loads[0]->type == ScalarType::Bool ? loads[0] : binary(BinOp::Ne, loads[0], intImm(0)), loads[1], loads[2]);
    if (op == "ewise_fma") return loads[0] * loads[1] + loads[2];
    if (op == "log_add_exp") {  // max + log(1 + exp(-|a - b|)): no overflow for large operands
      ExprP hi = binary(BinOp::Max, loads[0], loads[1]);
      ExprP v = hi + unary(UnOp::Log, floatImm(1, loads[0]->type) + unary(UnOp::Exp, unary(UnOp::Neg, unary(UnOp::Abs, loads[0] - loads[1]))));
      return v->type == *outType ? v : cast(*outType, v);
    }
    if (binaryOp) {
      ExprP v = binary(binaryOps().at(op), loads[0], loads[1]);
      return v->type == *outType ? v : cast(*outType, v);
    }
    return unaryValue(op, loads[0], in);
  };

  bool flat = true;
  for (auto& o : ops) flat = flat && (o.scalar || sameDims(o.dims, *outDims));
  if (flat) {
    ExprP n = product(*outDims);
    int o = kb.loopVar("o"), i = kb.loopVar("i");
    ExprP idx = kb.var(o) * intImm(kChunk) + kb.var(i);
    std::vector<ExprP> loads;
    for (auto& x : ops) loads.push_back(x.scalar ? x.scalar : kb.load(x.buffer, idx));
    ExprP v = value(loads);
    if (!v) return failure(in.def.scriptName() + " has no kernel yet");
    ExprP parts = binary(BinOp::FloorDiv, n + intImm(kChunk - 1), intImm(kChunk));
    ExprP inner = binary(BinOp::Min, intImm(kChunk), n - kb.var(o) * intImm(kChunk));
    kb.add(forLoop(o, parts, {forLoop(i, inner, {store(out, idx, v)}, true)}, true));
  } else {
    // A loop nest over the output; each operand indexed with its broadcast (right-aligned) dims.
    size_t rank = outDims->size();
    std::vector<int> loops;
    for (size_t d = 0; d < rank; ++d) loops.push_back(kb.loopVar("i" + std::to_string(d)));
    std::vector<ExprP> loads;
    for (auto& x : ops) {
      if (x.scalar) { loads.push_back(x.scalar); continue; }
      std::vector<ExprP> idx;
      size_t offset = rank - x.dims.size();
      for (size_t d = 0; d < x.dims.size(); ++d) {
        bool broadcast = x.dims[d]->kind == Expr::Kind::Int && x.dims[d]->intValue == 1;
        idx.push_back(broadcast ? intImm(0) : kb.var(loops[offset + d]));
      }
      loads.push_back(kb.load(x.buffer, flatIndex(idx, x.dims)));
    }
    ExprP v = value(loads);
    if (!v) return failure(in.def.scriptName() + " has no kernel yet");
    std::vector<ExprP> outIdx;
    for (int l : loops) outIdx.push_back(kb.var(l));
    StmtP body = store(out, flatIndex(outIdx, *outDims), v);
    for (size_t d = rank; d-- > 0;) body = forLoop(loops[d], (*outDims)[d], {body}, true);
    kb.add(body);
  }
  r.kernel = kb.take();
  return r;
}

LegalizeResult copyLike(const LegalizeInput& in) {
  auto t = elementType(&in.out);
  if (!t) return failure("dtype " + in.out.dtype + " has no kernels yet");
  KernelBuilder kb(in.kernelName);
  auto dims = shapeExprs(kb, in.args.empty() ? nullptr : in.args[0]);
  if (!dims) return failure("the shape of the operand must be known to compile " + in.def.scriptName());
  int a = kb.param("A", *t, shapeText(in.args[0]));
  int c = kb.param("C", *t, shapeText(&in.out));
  int o = kb.loopVar("o"), i = kb.loopVar("i");
  ExprP n = product(*dims);
  ExprP idx = kb.var(o) * intImm(kChunk) + kb.var(i);
  kb.add(forLoop(o, binary(BinOp::FloorDiv, n + intImm(kChunk - 1), intImm(kChunk)),
                 {forLoop(i, binary(BinOp::Min, intImm(kChunk), n - kb.var(o) * intImm(kChunk)), {store(c, idx, kb.load(a, idx))}, true)}, true));
  return done(kb, {0});
}

}  // namespace tvms::op::kernels

namespace tvms::op::kernels {

using namespace tir;

// permute_dims: a loop nest over the output (outermost parallel), each element read from the input at
// the permuted index.
LegalizeResult permuteDims(const LegalizeInput& in) {
  auto t = elementType(&in.out);
  if (!t) return failure("dtype " + in.out.dtype + " has no kernels yet");
  KernelBuilder kb(in.kernelName);
  const ir::StructInfo* x = in.args.empty() ? nullptr : in.args[0];
  auto inDims = shapeExprs(kb, x);
  auto outDims = shapeExprs(kb, &in.out);
  if (!inDims || !outDims || inDims->empty()) return failure("the shapes must be known to compile R.permute_dims");
  int rank = static_cast<int>(inDims->size());
  std::vector<int> axes;
  if (auto written = infer::intList(in.attr("axes"))) {
    for (auto a : *written) axes.push_back(static_cast<int>(a < 0 ? a + rank : a));
  } else {
    for (int d = rank; d-- > 0;) axes.push_back(d);
  }
  int a = kb.param("A", *t, shapeText(x));
  int c = kb.param("C", *t, shapeText(&in.out));
  std::vector<int> loops;
  for (int d = 0; d < rank; ++d) loops.push_back(kb.loopVar("i" + std::to_string(d)));
  std::vector<ExprP> inIdx(static_cast<size_t>(rank)), outIdx;
  for (int d = 0; d < rank; ++d) {
    inIdx[static_cast<size_t>(axes[static_cast<size_t>(d)])] = kb.var(loops[static_cast<size_t>(d)]);
    outIdx.push_back(kb.var(loops[static_cast<size_t>(d)]));
  }
  StmtP body = store(c, flatIndex(outIdx, *outDims), kb.load(a, flatIndex(inIdx, *inDims)));
  for (int d = rank; d-- > 0;) body = forLoop(loops[static_cast<size_t>(d)], (*outDims)[static_cast<size_t>(d)], {body}, true);
  kb.add(body);
  return done(kb, {0});
}

}  // namespace tvms::op::kernels

namespace tvms::op::kernels {

using namespace tir;

// outer(x1, x2): C[i, j] = x1[i] * x2[j].
LegalizeResult outer(const LegalizeInput& in) {
  auto t = elementType(&in.out);
  if (!t || in.args.size() < 2) return failure("dtype " + in.out.dtype + " has no kernels yet");
  KernelBuilder kb(in.kernelName);
  auto od = shapeExprs(kb, &in.out);
  if (!od || od->size() != 2) return failure("R.outer needs two 1-D operands of known length");
  int a = kb.param("A", *t, shapeText(in.args[0]));
  int b = kb.param("B", *t, shapeText(in.args[1]));
  int c = kb.param("C", *t, shapeText(&in.out));
  kb.add(outputNest(kb, *od, [&](const std::vector<ExprP>& idx) {
    return std::vector<StmtP>{store(c, flatIndex(idx, *od), kb.load(a, idx[0]) * kb.load(b, idx[1]))};
  }));
  return done(kb, {0, 1});
}

}  // namespace tvms::op::kernels
