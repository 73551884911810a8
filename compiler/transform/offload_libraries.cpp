// OffloadLibraries: on cuda vdevices, the calls a vendor library does best become destination-passing
// calls of the runtime's library functions (TVM's partition_for_cublas / partition_for_cudnn +
// RunCodegen, in one pass): R.matmul -> R.call_dps_packed("tvms.cublas.matmul", ...), R.nn.conv2d ->
// R.call_dps_packed("tvms.cudnn.conv2d?...", ...), the call's attributes in the name. Only the
// cases the libraries take are offloaded (float32 / float64 / float16 / bfloat16 matmuls; conv2d in
// NCHW/OIHW or NHWC/OHWI, symmetric padding); the rest keep their generated kernels. On CPU vdevices
// a bfloat16 matmul becomes tvms.cpu.matmul_bf16 (AMX or AVX512-BF16 dot products, cpu_matmul_bf16.h). A permute_dims used only as a matmul's B
// that swaps B's last two axes becomes cuBLAS's transpose (tvms.cublas.matmul_transpose_b), the permute
// keeping only its other axes, or going when they are the identity. Attention, as R.nn.attention or
// written out, becomes one fused tvms.attention call (attention_pattern.h). The printed module reads back.
#include <unordered_map>
#include <unordered_set>

#include "compiler/op/infer_util.h"
#include "compiler/op/nn_attrs.h"
#include "compiler/transform/attention_pattern.h"
#include "compiler/op/registry.h"
#include "compiler/transform/passes.h"
#include "compiler/transform/rewriter.h"
#include "compiler/transform/targets.h"
#include "runtime/cpu_matmul_bf16.h"
#include "runtime/cuda_attention.h"
#include "runtime/cuda_libraries.h"
#include "runtime/target_kind.h"

namespace tvms::transform {

using namespace ir;

namespace {

bool floatTensor(const StructInfo* s, const std::string& dtype, bool halves = false) {
  bool wide = dtype == "float32" || dtype == "float64", half = dtype == "float16" || dtype == "bfloat16";
  return s && s->kind == StructInfo::Kind::Tensor && s->rank() >= 0 && s->dtype == dtype && (wide || (halves && half));
}

// The permutation `p` with its last two axes swapped: the permute whose transpose it is.
std::vector<int64_t> lastTwoSwapped(std::vector<int64_t> p) {
  std::swap(p[p.size() - 1], p[p.size() - 2]);
  return p;
}

bool identity(const std::vector<int64_t>& p) {
  for (size_t i = 0; i < p.size(); ++i)
    if (p[i] != static_cast<int64_t>(i)) return false;
  return true;
}

class Offload : public Rewriter {
  // A GEMM epilogue chain (findGemmEpilogues): its matmul, its bias, the activation it ends in.
  struct Epilogue {
    const Binding* matmul;
    ExprPtr bias;
    std::string activation;
  };

 public:
  Offload(const IRModule& m, const DeviceRemap& remap) : m_(m), remap_(remap) {}

  // Attention (R.nn.attention, or softmax(q @ kt * c) @ v written out) on a kind that offers the fused
  // kernel becomes one tvms.attention call; its chain's other bindings go (attention_pattern.h).
  void findAttentions(const Function& f) {
    attention_ = findAttention(f, [&](const StructInfo& out, int64_t featureSize) {
      const runtime::TargetKind* kind = kernelKind(out);
      auto dtype = runtime::dtypeFromName(out.dtype);
      return kind && kind->offers(runtime::kAttention) && dtype && runtime::attentionTakes(*dtype, featureSize);
    });
  }

  // GEMM epilogues (cuBLASLt): `y = R.add(R.matmul(a, b), bias)`, optionally followed by `z = R.nn.relu(y)`
  // or `R.nn.gelu_tanh(y)`, each intermediate used only by the next, b 2-D and bias 1-D along the
  // output's last axis in the matmul's float type, become one call at the chain's last binding; the
  // others go. (R.nn.gelu is erf's: cuBLASLt's GELU is the tanh form, so gelu stays a fused kernel.)
  void findGemmEpilogues(const Function& f) {
    epilogues_.clear();
    dropped_.clear();
    std::unordered_map<const Var*, int> uses = useCounts(f);
    std::unordered_map<const Var*, const Binding*> boundBy;
    std::vector<const Binding*> adds;
    forEachBinding(f, [&](const Binding& b) {
      auto* c = as<Call>(b.value);
      if (!c || c->callee || b.vars.size() != 1) return;
      boundBy[b.vars[0].get()] = &b;
      if (c->def == add_) adds.push_back(&b);
    });
    std::unordered_map<const Var*, const Binding*> userOf;  // a call binding that reads the variable
    for (auto& [var, binding] : boundBy)
      for (auto& a : as<Call>(binding->value)->args)
        if (auto* v = as<Var>(a)) userOf[v] = binding;
    auto onlyUser = [&](const Var* v) -> const Binding* {
      auto u = userOf.find(v);
      return uses[v] == 1 && u != userOf.end() ? u->second : nullptr;
    };
    for (const Binding* add : adds) {
      auto* c = as<Call>(add->value);
      if (c->args.size() != 2) continue;
      for (int side = 0; side < 2; ++side) {
        auto* product = as<Var>(c->args[static_cast<size_t>(side)]);
        auto* bias = as<Var>(c->args[static_cast<size_t>(1 - side)]);
        auto mm = product ? boundBy.find(product) : boundBy.end();
        if (!bias || mm == boundBy.end() || uses[product] != 1 || attention_.dropped.count(mm->second)) continue;
        auto* mc = as<Call>(mm->second->value);
        const StructInfo* out = product->annotation.get();
        if (mc->def != matmul_ || !out || !epilogueTakes(*mc, *out, bias->annotation.get())) continue;
        Epilogue e{mm->second, c->args[static_cast<size_t>(1 - side)], "none"};
        const Binding* last = add;
        if (const Binding* next = onlyUser(add->vars[0].get())) {
          auto* nc = as<Call>(next->value);
          if (nc->def == relu_ || nc->def == geluTanh_) {
            e.activation = nc->def == relu_ ? "relu" : "gelu_tanh";
            last = next;
          }
        }
        dropped_.insert(mm->second);
        if (last != add) dropped_.insert(add);
        epilogues_[last] = e;
        break;
      }
    }
  }

  // A matmul's B made by a permute_dims used by nothing else: the GEMM transposes B itself (cuBLAS's
  // op T) and the permute keeps only the rest of its axes (none: it goes), instead of a copy kernel
  // writing the transposed layout (attention's K^T: a permute that reads across rows).
  void findTransposedOperands(const Function& f) {
    transposed_.clear();
    sourceOf_.clear();
    std::unordered_map<const Var*, int> uses = useCounts(f);
    std::unordered_map<const Var*, const Binding*> permuteOf;
    std::vector<const Binding*> matmuls;
    forEachBinding(f, [&](const Binding& b) {
      auto* c = as<Call>(b.value);
      if (!c || c->callee || b.vars.size() != 1) return;
      if (c->def == permute_) permuteOf[b.vars[0].get()] = &b;
      if (c->def == matmul_) matmuls.push_back(&b);
    });
    for (const Binding* mm : matmuls) {
      if (attention_.dropped.count(mm)) continue;
      auto* c = as<Call>(mm->value);
      auto* bt = c->args.size() > 1 ? as<Var>(c->args[1]) : nullptr;
      auto p = bt ? permuteOf.find(bt) : permuteOf.end();
      if (p == permuteOf.end() || uses[bt] != 1) continue;
      const StructInfo* out = mm->vars[0]->annotation.get();
      if (!out || out->kind != StructInfo::Kind::Tensor || !kernelKind(*out) || !kernelKind(*out)->offers(runtime::kCublasMatmulTransB) ||
          matmulFunction(*c, *out).empty())
        continue;
      auto* permute = as<Call>(p->second->value);
      const StructInfo* x = permute->args.empty() ? nullptr : sinfoOf(permute->args[0]);
      if (!x || x->rank() < 2 || !bt->annotation || !bt->annotation->shape) continue;
      auto axes = op::infer::permutation(permute->attrValue("axes"), x->rank());
      if (!axes) continue;
      transposed_[bt] = lastTwoSwapped(*axes);
    }
  }

 protected:
  void binding(const Binding& b, std::vector<BindingPtr>& out) override {
    if (attention_.dropped.count(&b) || dropped_.count(&b)) return;
    if (auto e = epilogues_.find(&b); e != epilogues_.end()) return epilogueCall(b, e->second, out);
    if (auto a = attention_.calls.find(&b); a != attention_.calls.end()) return attentionCall(b, a->second, out);
    auto* c = as<Call>(b.value);
    if (!c || c->callee || !c->def || b.vars.size() != 1) return Rewriter::binding(b, out);
    if (auto t = transposed_.find(b.vars[0].get()); t != transposed_.end()) return untransposed(b, t->second, out);
    const StructInfo* result = b.vars[0]->annotation.get();
    if (!result || result->kind != StructInfo::Kind::Tensor) return Rewriter::binding(b, out);
    const tir::Target target = targetOf(m_, executionVDevice(m_, result), remap_);
    const runtime::TargetKind* kind = runtime::findTargetKind(target.kind);
    if (!kind) return Rewriter::binding(b, out);
    std::string function;
    if (c->def == matmul_ && kind->offers(runtime::kCublasMatmul)) function = matmulFunction(*c, *result);
    if (c->def == matmul_ && kind->offers(runtime::kCpuMatmulBf16) && cpuBf16MatmulPays(target)) function = cpuMatmulFunction(*c, *result);
    ExprPtr b1 = c->args.size() > 1 ? c->args[1] : nullptr;
    if (!function.empty() && c->def == matmul_ && transposedOperand(b1)) function = std::string(runtime::kCublasMatmulTransB);
    if (c->def == conv2d_ && kind->offers(runtime::kCudnnConv2d)) function = conv2dFunction(*c, *result);
    if (function.empty()) return Rewriter::binding(b, out);
    auto call = std::make_shared<Call>();
    call->def = &op::builtin::callDpsPacked();
    call->op = call->def->name;
    std::vector<ExprPtr> operands{expr(c->args[0]), expr(b1)};
    call->args = {std::make_shared<ExternFunc>(function), std::make_shared<Tuple>(operands)};
    call->sinfoArgs = {b.vars[0]->annotation};
    call->sinfoKey = Call::SInfoArgsKey::OutSInfo;
    out.push_back(copyBinding(b, call));
  }

 private:
  const StructInfo* arg(const Call& c, size_t i) const { return i < c.args.size() ? sinfoOf(c.args[i]) : nullptr; }

  // Whether B comes transposed (findTransposedOperands) and the library takes it so; `b` becomes the
  // operand cuBLAS reads: the permute's input when the rest of the permute is the identity.
  bool transposedOperand(ExprPtr& b) {
    auto* v = as<Var>(b);
    if (!v || !transposed_.count(v)) return false;
    auto source = sourceOf_.find(v);
    if (source != sourceOf_.end()) b = source->second;  // the identity rest: B^T is the permute's input itself
    return true;
  }
  const runtime::TargetKind* kernelKind(const StructInfo& s) const {
    return runtime::findTargetKind(targetOf(m_, executionVDevice(m_, &s), remap_).kind);
  }

  // The permute that made a transposed B: its other axes only, or nothing when those are the identity.
  void untransposed(const Binding& b, const std::vector<int64_t>& rest, std::vector<BindingPtr>& out) {
    auto* c = as<Call>(b.value);
    const Var* v = b.vars[0].get();
    if (identity(rest)) {
      sourceOf_[v] = c->args[0];
      return;
    }
    auto call = std::make_shared<Call>(*c);
    call->args = {expr(c->args[0])};
    for (auto& a : call->attrs)
      if (a.name == "axes") {
        std::vector<Value> items;
        for (int64_t x : rest) items.push_back(Value::ofInt(x));
        a.value = Value::ofList(items);
        a.written = true;
      }
    std::vector<PrimExprPtr> dims = *v->annotation->shape;
    std::swap(dims[dims.size() - 1], dims[dims.size() - 2]);
    auto annotation = std::make_shared<StructInfo>(*v->annotation);
    annotation->shape = dims;
    auto copy = std::make_shared<Binding>(b);
    copy->value = call;
    copy->vars = {define(b.vars[0], annotation)};
    out.push_back(copy);
  }

  // The chain as one tvms.cublaslt.matmul_bias call, B transposed by cuBLASLt where a permute made it.
  void epilogueCall(const Binding& b, const Epilogue& e, std::vector<BindingPtr>& out) {
    auto* mm = as<Call>(e.matmul->value);
    ExprPtr operandB = mm->args[1];
    runtime::GemmEpilogueAttrs attrs{e.activation, transposedOperand(operandB)};
    auto call = std::make_shared<Call>();
    call->def = &op::builtin::callDpsPacked();
    call->op = call->def->name;
    std::vector<ExprPtr> operands{expr(mm->args[0]), expr(operandB), expr(e.bias)};
    call->args = {std::make_shared<ExternFunc>(runtime::gemmEpilogueCallName(attrs)), std::make_shared<Tuple>(operands)};
    call->sinfoArgs = {b.vars[0]->annotation};
    call->sinfoKey = Call::SInfoArgsKey::OutSInfo;
    out.push_back(copyBinding(b, call));
  }

  void attentionCall(const Binding& b, const AttentionMatch& m, std::vector<BindingPtr>& out) {
    runtime::AttentionAttrs attrs{m.qAxes, m.kAxes, m.vAxes, m.oAxes, m.scale, m.causal, m.biasAxes};
    auto call = std::make_shared<Call>();
    call->def = &op::builtin::callDpsPacked();
    call->op = call->def->name;
    std::vector<ExprPtr> operands{expr(m.q), expr(m.k), expr(m.v)};
    if (m.bias) operands.push_back(expr(m.bias));
    call->args = {std::make_shared<ExternFunc>(runtime::attentionCallName(attrs)), std::make_shared<Tuple>(operands)};
    call->sinfoArgs = {b.vars[0]->annotation};
    call->sinfoKey = Call::SInfoArgsKey::OutSInfo;
    out.push_back(copyBinding(b, call));
  }

  // cuBLAS: A (..., M, K) @ B (K, N) or with A's batch dims; same float dtype throughout.
  std::string matmulFunction(const Call& c, const StructInfo& out) const {
    const StructInfo *a = arg(c, 0), *b = arg(c, 1);
    // float16 / bfloat16 too: cuBLAS multiplies them on the tensor cores, accumulating in float32.
    if (!floatTensor(a, out.dtype, true) || !floatTensor(b, out.dtype, true) || a->rank() < 2 || b->rank() < 2) return "";
    if (b->rank() != 2 && b->rank() != a->rank()) return "";
    if (auto d = op::infer::stringAttr(c.attrValue("out_dtype")); d && !d->empty() && *d != out.dtype) return "";
    return std::string(runtime::kCublasMatmul);
  }

  // The CPU's bfloat16 GEMM: A (..., M, K) @ B (K, N), or B with A's batch dims exactly, all bfloat16.
  std::string cpuMatmulFunction(const Call& c, const StructInfo& out) const {
    const StructInfo *a = arg(c, 0), *b = arg(c, 1);
    if (out.dtype != "bfloat16" || matmulFunction(c, out).empty() || !a->shape || !b->shape) return "";
    if (b->rank() == a->rank() && a->rank() > 2)
      for (size_t i = 0; i + 2 < a->shape->size(); ++i)
        if (!op::infer::sameDim((*a->shape)[i], (*b->shape)[i])) return "";  // a broadcast batch stays a kernel
    return std::string(runtime::kCpuMatmulBf16);
  }

  // Whether the library beats the generated kernel where this is built: its dot-product kernels
  // (AMX, AVX512-BF16) need a 512-bit target, and the machine building has one of them. The call picks
  // its kernel again where it runs, so an artifact built here uses AMX on a host that has it.
  static bool cpuBf16MatmulPays(const tir::Target& target) {
    return target.vectorBits >= 512 && runtime::bestBf16GemmKernel() != runtime::Bf16GemmKernel::Portable;
  }

  // What cuBLASLt's bias epilogue takes: the matmul cuBLAS would take, on a kind offering the
  // epilogue, B 2-D, float32 / float16 / bfloat16 (no float64 epilogues), and a 1-D bias of the
  // output's last dim in the same dtype.
  bool epilogueTakes(const Call& mm, const StructInfo& out, const StructInfo* bias) const {
    const runtime::TargetKind* kind = kernelKind(out);
    if (!kind || !kind->offers(runtime::kCublasLtMatmulBias) || matmulFunction(mm, out).empty()) return false;
    const StructInfo* b = arg(mm, 1);
    if (!b || b->rank() != 2 || out.dtype == "float64" || !out.shape || out.shape->empty()) return false;
    if (!bias || bias->kind != StructInfo::Kind::Tensor || bias->dtype != out.dtype || !bias->shape || bias->shape->size() != 1) return false;
    return op::infer::sameDim((*bias->shape)[0], out.shape->back());
  }

  // cuDNN: 2-D, float32/float64, NCHW + OIHW or NHWC + OHWI, the output in the data's layout,
  // symmetric padding.
  std::string conv2dFunction(const Call& c, const StructInfo& out) const {
    const StructInfo *x = arg(c, 0), *w = arg(c, 1);
    if (!floatTensor(x, out.dtype) || !floatTensor(w, out.dtype) || x->rank() != 4 || w->rank() != 4) return "";
    const op::nn::ConvAttrs a = op::nn::convAttrs(*conv2d_, c);
    const std::string& data = a.dataLayoutText;
    if (!((data == "NCHW" && a.kernelLayoutText == "OIHW") || (data == "NHWC" && a.kernelLayoutText == "OHWI"))) return "";
    if ((!a.outLayoutText.empty() && a.outLayoutText != data) || !a.intsKnown || !a.listsExact) return "";
    if (a.padding.before != a.padding.after) return "";  // cuDNN pads both sides alike
    return runtime::conv2dCallName({data == "NHWC", a.strides, a.padding.before, a.dilation, a.groups});
  }

  const IRModule& m_;
  const DeviceRemap& remap_;
  const op::OpDef* matmul_ = op::findOp("relax.matmul");
  const op::OpDef* conv2d_ = op::findOp("relax.nn.conv2d");
  const op::OpDef* permute_ = op::findOp("relax.permute_dims");
  const op::OpDef* add_ = op::findOp("relax.add");
  const op::OpDef* relu_ = op::findOp("relax.nn.relu");
  const op::OpDef* geluTanh_ = op::findOp("relax.nn.gelu_tanh");
  std::unordered_map<const Binding*, Epilogue> epilogues_;  // the chain's last binding -> the chain
  std::unordered_set<const Binding*> dropped_;               // the chain's other bindings
  std::unordered_map<const Var*, std::vector<int64_t>> transposed_;  // B's permute -> its other axes
  std::unordered_map<const Var*, ExprPtr> sourceOf_;                 // a dropped identity permute -> its input
  AttentionPlan attention_;                                          // of the function being rewritten
};

}  // namespace

IRModule offloadLibraries(const IRModule& m, const DeviceRemap& remap) { return offloadLibraries(IRModule(m), remap); }

IRModule offloadLibraries(IRModule&& m, const DeviceRemap& remap) {
  IRModule out = std::move(m);
  const IRModule before = signaturesOf(out);
  Offload o(before, remap);
  for (auto& mf : out.functions)
    if (mf.relax) {
      o.findAttentions(*mf.relax);
      o.findTransposedOperands(*mf.relax);
      o.findGemmEpilogues(*mf.relax);
      mf.relax = o.function(*mf.relax);
    }
  return out;
}

}  // namespace tvms::transform
