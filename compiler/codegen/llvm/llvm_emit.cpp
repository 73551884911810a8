// Loop IR -> LLVM IR. Each kernel becomes:
//   name(buffers, dims, env)          the C ABI entry: loads the buffer pointers, calls name.impl
//   name.impl(noalias b0..bn, dims, env)  the body; buffers are noalias so loops vectorize
//   name.parK(noalias b.., dims, begin, end) + name.parK.thunk(closure, begin, end) per parallel loop,
//                                     run by env->parallel_for
#include "compiler/codegen/llvm/llvm_emit.h"

#include <cmath>

#include <stdexcept>
#include <unordered_map>

#include <llvm/IR/IRBuilder.h>
#include <llvm/IR/Intrinsics.h>
#include <llvm/IR/Verifier.h>
#include <llvm/Support/raw_ostream.h>

namespace tvms::codegen::llvm_backend {

using namespace tir;

namespace {

using llvm::IRBuilder;
using llvm::Value;

class FunctionEmitter {
 public:
  // `buffers`: the parameters; `shared`: the kernel's shared buffers when this function is a parallel
  // body (the kernel's own frame holds them and hands them to its tasks), else empty.
  FunctionEmitter(const Kernel& k, llvm::Module& m, llvm::Function* fn, std::vector<Value*> buffers, Value* dims, std::vector<Value*> shared = {})
      : k_(k), m_(m), ctx_(m.getContext()), fn_(fn), b_(ctx_), buffers_(std::move(buffers)), dims_(dims) {
    llvm::FastMathFlags fmf;
    fmf.setAllowReassoc();  // reductions and register tiles vectorize; results stay within float tolerance
    fmf.setAllowContract(); // a * b + c may become an FMA
    b_.setFastMathFlags(fmf);
    auto* entry = llvm::BasicBlock::Create(ctx_, "entry", fn_);
    b_.SetInsertPoint(entry);
    // Locals and local arrays live in this function's frame (a parallel body gets its own); a shared
    // buffer (on a CPU: memory of the whole kernel call, as a split reduction's parts) in the kernel's.
    size_t nextShared = 0;
    for (size_t i = 0; i < k_.buffers.size(); ++i) {
      if (k_.buffers[i].param) continue;
      if (k_.buffers[i].scope == MemoryScope::Shared && nextShared < shared.size()) {
        buffers_.push_back(shared[nextShared++]);
        continue;
      }
      auto* a = b_.CreateAlloca(memType(k_.buffers[i].type), b_.getInt64(k_.buffers[i].localSize), k_.buffers[i].name);
      a->setAlignment(llvm::Align(64));
      buffers_.push_back(a);
    }
    for (size_t i = 0; i < k_.vars.size(); ++i)
      if (k_.vars[i].role == Variable::Role::Local) locals_[static_cast<int>(i)] = b_.CreateAlloca(regType(k_.vars[i].type), nullptr, k_.vars[i].name);
  }

  IRBuilder<>& builder() { return b_; }
  // The kernel's shared buffers as this function holds them, in the kernel's order.
  std::vector<Value*> sharedBuffers() const {
    std::vector<Value*> out;
    for (size_t i = 0; i < k_.buffers.size(); ++i)
      if (!k_.buffers[i].param && k_.buffers[i].scope == MemoryScope::Shared) out.push_back(buffers_[i]);
    return out;
  }
  void bindVar(int id, Value* v) { vars_[id] = v; }

  void stmt(const StmtP& s) {
    switch (s->kind) {
      case Stmt::Kind::Seq: for (auto& c : s->body) stmt(c); break;
      case Stmt::Kind::Store: {
        Value* v = expr(s->value);
        ScalarType t = k_.buffers[s->buffer].type;
        if (t == ScalarType::Bool) v = b_.CreateZExt(v, b_.getInt8Ty());
        if (isHalf(t)) v = narrowed(v, t);
        if (s->atomicAdd) {  // a user's kernel may add atomically on the CPU too
          if (t != ScalarType::F32 && t != ScalarType::F64 && t != ScalarType::I32 && t != ScalarType::I64)
            throw std::runtime_error("kernel " + k_.name + ": an atomic add of " + std::string(dtypeName(t)) + " on the CPU");
          b_.CreateAtomicRMW(isFloat(t) ? llvm::AtomicRMWInst::FAdd : llvm::AtomicRMWInst::Add, address(s->buffer, s->index), v, llvm::MaybeAlign(),
                             llvm::AtomicOrdering::Monotonic);
          break;
        }
        b_.CreateStore(v, address(s->buffer, s->index));
        break;
      }
      case Stmt::Kind::Assign: b_.CreateStore(expr(s->value), locals_.at(s->var)); break;
      case Stmt::Kind::For:
        if (s->forKind == ForKind::ThreadBinding || s->forKind == ForKind::Parallel)
          throw std::runtime_error("kernel " + k_.name + ": a " + std::string(forKindName(s->forKind)) + " loop where the CPU backend cannot run one" +
                                   (s->forKind == ForKind::Parallel ? " (only a kernel's top-level loops run on the thread pool)" : ""));
        loop(s->var, b_.getInt64(0), expr(s->extent), s->body, s->keepScalar ? LoopHint::KeepScalar : hintOf(s->forKind));
        break;
      case Stmt::Kind::Barrier: throw std::runtime_error("kernel " + k_.name + ": a GPU barrier reached the CPU backend");
      case Stmt::Kind::WarpReduce: throw std::runtime_error("kernel " + k_.name + ": a GPU warp reduction reached the CPU backend");
      case Stmt::Kind::If: {
        auto* then = llvm::BasicBlock::Create(ctx_, "then", fn_);
        auto* after = llvm::BasicBlock::Create(ctx_, "endif", fn_);
        b_.CreateCondBr(expr(s->cond), then, after);
        b_.SetInsertPoint(then);
        for (auto& c : s->body) stmt(c);
        b_.CreateBr(after);
        b_.SetInsertPoint(after);
        break;
      }
      case Stmt::Kind::While: {
        auto* head = llvm::BasicBlock::Create(ctx_, "while", fn_);
        auto* body = llvm::BasicBlock::Create(ctx_, "while.body", fn_);
        auto* after = llvm::BasicBlock::Create(ctx_, "while.end", fn_);
        b_.CreateBr(head);
        b_.SetInsertPoint(head);
        b_.CreateCondBr(expr(s->cond), body, after);
        b_.SetInsertPoint(body);
        for (auto& c : s->body) stmt(c);
        b_.CreateBr(head);
        b_.SetInsertPoint(after);
        break;
      }
    }
  }

  // What the loop's metadata asks of LLVM's loop passes.
  enum class LoopHint { None, KeepScalar, Vectorize, Unroll };
  static LoopHint hintOf(ForKind k) {
    return k == ForKind::Vectorized ? LoopHint::Vectorize : k == ForKind::Unrolled ? LoopHint::Unroll : LoopHint::None;
  }

  // for var in [begin, end): body
  void loop(int var, Value* begin, Value* end, const std::vector<StmtP>& body, LoopHint hint = LoopHint::None) {
    auto* pre = b_.GetInsertBlock();
    auto* head = llvm::BasicBlock::Create(ctx_, k_.vars[var].name + ".head", fn_);
    auto* bodyBlock = llvm::BasicBlock::Create(ctx_, k_.vars[var].name + ".body", fn_);
    auto* exit = llvm::BasicBlock::Create(ctx_, k_.vars[var].name + ".exit", fn_);
    b_.CreateBr(head);
    b_.SetInsertPoint(head);
    auto* i = b_.CreatePHI(b_.getInt64Ty(), 2, k_.vars[var].name);
    i->addIncoming(begin, pre);
    b_.CreateCondBr(b_.CreateICmpSLT(i, end), bodyBlock, exit);
    b_.SetInsertPoint(bodyBlock);
    vars_[var] = i;
    bool outerCalls = madeCall_;
    madeCall_ = false;
    for (auto& s : body) stmt(s);
    // A body calling libm (tanhf, erff) has no vector form here: forcing the vectorizer on it would
    // only make LLVM warn that it could not.
    if (hint == LoopHint::Vectorize && madeCall_) hint = LoopHint::None;
    madeCall_ = madeCall_ || outerCalls;
    auto* next = b_.CreateAdd(i, b_.getInt64(1), "", true, true);
    i->addIncoming(next, b_.GetInsertBlock());
    auto* latch = b_.CreateBr(head);
    // KeepScalar: llvm.loop.vectorize.enable = false, since vectorizing across iterations would turn
    // every accumulator of a register tile into its own vector reduction and spill them all.
    // Vectorize: the schedule's vectorized loop, enabled whatever the cost model thinks.
    // Unroll: llvm.loop.unroll.full.
    llvm::Metadata* property = nullptr;
    if (hint == LoopHint::KeepScalar || hint == LoopHint::Vectorize)
      property = llvm::MDNode::get(ctx_, {llvm::MDString::get(ctx_, "llvm.loop.vectorize.enable"),
                                          llvm::ConstantAsMetadata::get(hint == LoopHint::Vectorize ? b_.getTrue() : b_.getFalse())});
    if (hint == LoopHint::Unroll) property = llvm::MDNode::get(ctx_, {llvm::MDString::get(ctx_, "llvm.loop.unroll.full")});
    if (property) {
      auto* id = llvm::MDNode::getDistinct(ctx_, {nullptr, property});
      id->replaceOperandWith(0, id);
      latch->setMetadata(llvm::LLVMContext::MD_loop, id);
    }
    b_.SetInsertPoint(exit);
  }

  Value* expr(const ExprP& e) {
    switch (e->kind) {
      case Expr::Kind::Int:
        if (e->type == ScalarType::Bool) return b_.getInt1(e->intValue != 0);
        return llvm::ConstantInt::get(regType(e->type), e->intValue, true);
      case Expr::Kind::Float: return llvm::ConstantFP::get(regType(e->type), e->floatValue);
      case Expr::Kind::Var: {
        const Variable& v = k_.vars[e->id];
        if (v.role == Variable::Role::Local) return b_.CreateLoad(regType(v.type), locals_.at(e->id));
        if (v.role == Variable::Role::Dim)
          return b_.CreateLoad(b_.getInt64Ty(), b_.CreateConstInBoundsGEP1_64(b_.getInt64Ty(), dims_, v.dimIndex), v.name);
        auto it = vars_.find(e->id);
        if (it == vars_.end()) throw std::runtime_error("kernel " + k_.name + ": loop variable " + v.name + " used outside its loop");
        return it->second;
      }
      case Expr::Kind::Load: {
        ScalarType t = k_.buffers[e->id].type;
        Value* v = b_.CreateLoad(memType(t), address(e->id, e->a));
        if (isHalf(t)) return widened(v, t);
        return t == ScalarType::Bool ? b_.CreateICmpNE(v, b_.getInt8(0)) : v;
      }
      case Expr::Kind::Binary: return binaryOp(e->binOp, expr(e->a), expr(e->b), e->a->type);
      case Expr::Kind::Unary: return unaryOp(e->unOp, expr(e->a), e->a->type);
      case Expr::Kind::Select: return b_.CreateSelect(expr(e->a), expr(e->b), expr(e->c));
      case Expr::Kind::Cast: return castTo(expr(e->a), e->a->type, e->type);
      case Expr::Kind::Reinterpret: return b_.CreateBitCast(expr(e->a), regType(e->type));
    }
    throw std::runtime_error("unknown loop IR expression");
  }

  llvm::Type* regType(ScalarType t) {
    switch (t) {
      case ScalarType::Bool: return b_.getInt1Ty();
      case ScalarType::I8: case ScalarType::U8: return b_.getInt8Ty();
      case ScalarType::I16: case ScalarType::U16: return b_.getInt16Ty();
      case ScalarType::U32: return b_.getInt32Ty();
      case ScalarType::U64: return b_.getInt64Ty();
      case ScalarType::I32: return b_.getInt32Ty();
      case ScalarType::I64: return b_.getInt64Ty();
      case ScalarType::F32: return b_.getFloatTy();
      case ScalarType::F64: return b_.getDoubleTy();
      case ScalarType::F16: case ScalarType::BF16: return b_.getFloatTy();  // computed in float32, as on the GPU
      case ScalarType::F8E4M3: case ScalarType::F8E5M2: return b_.getFloatTy();
    }
    throw std::runtime_error("kernel " + k_.name + ": an unknown element type");
  }
  // In memory: bool as a byte, the 16-bit floats as their bits, the 8-bit floats as theirs.
  llvm::Type* memType(ScalarType t) {
    if (t == ScalarType::Bool || runtime::isFloat8DType(t)) return b_.getInt8Ty();
    return isHalf(t) ? b_.getInt16Ty() : regType(t);
  }
  // The float types stored narrower than they compute (float32 in registers).
  static bool isHalf(ScalarType t) { return t == ScalarType::F16 || t == ScalarType::BF16 || runtime::isFloat8DType(t); }

  // 16 bits -> float32, exact: float16 through LLVM's half (F16C's vcvtph2ps where the CPU has
  // it), bfloat16 as the high half of a float32.
  Value* widened(Value* bits, ScalarType t) {
    if (runtime::isFloat8DType(t)) {  // every one of the 256 values, read from a table of runtime::fp8ToFloat's
      llvm::GlobalVariable* table = fp8Table(t);
      return b_.CreateLoad(b_.getFloatTy(), b_.CreateInBoundsGEP(table->getValueType(), table, {b_.getInt32(0), b_.CreateZExt(bits, b_.getInt32Ty())}));
    }
    if (t == ScalarType::F16) return b_.CreateFPExt(b_.CreateBitCast(bits, b_.getHalfTy()), b_.getFloatTy());
    return b_.CreateBitCast(b_.CreateShl(b_.CreateZExt(bits, b_.getInt32Ty()), 16), b_.getFloatTy());
  }
  // float32 -> 16 bits, rounding to nearest even (runtime/dtype.h's floatToBf16 for bfloat16: a NaN
  // stays a quiet NaN); written out for bfloat16 so no library routine is needed.
  Value* narrowed(Value* v, ScalarType t) {
    if (runtime::isFloat8DType(t)) return narrowedFp8(v, t);
    if (t == ScalarType::F16) return b_.CreateBitCast(b_.CreateFPTrunc(v, b_.getHalfTy()), b_.getInt16Ty());
    Value* bits = b_.CreateBitCast(v, b_.getInt32Ty());
    Value* odd = b_.CreateAnd(b_.CreateLShr(bits, 16), b_.getInt32(1));
    Value* rounded = b_.CreateLShr(b_.CreateAdd(b_.CreateAdd(bits, b_.getInt32(0x7fff)), odd), 16);
    Value* nan = b_.CreateOr(b_.CreateLShr(bits, 16), b_.getInt32(0x40));
    return b_.CreateTrunc(b_.CreateSelect(b_.CreateFCmpUNO(v, v), nan, rounded), b_.getInt16Ty());
  }

  // float32 -> float8 as runtime::floatToFp8: below the smallest normal a multiple of the smallest
  // subnormal (rounded to even), else the mantissa rounded to nearest even (a carry moves into the
  // exponent), saturated to the largest finite code; NaN stays NaN.
  Value* narrowedFp8(Value* v, ScalarType t) {
    runtime::Fp8Format f = runtime::fp8Format(t);
    auto i32 = [&](int64_t x) { return b_.getInt32(static_cast<uint32_t>(x)); };
    Value* bits = b_.CreateBitCast(v, b_.getInt32Ty());
    Value* sign = b_.CreateAnd(b_.CreateLShr(bits, 24), i32(0x80));
    Value* a = b_.CreateAnd(bits, i32(0x7fffffff));
    Value* exponent = b_.CreateSub(b_.CreateLShr(a, 23), i32(127));
    Value* magnitude = b_.CreateBitCast(a, b_.getFloatTy());
    Value* scaled = b_.CreateFMul(magnitude, llvm::ConstantFP::get(b_.getFloatTy(), std::ldexp(1.0, f.bias - 1 + f.mantissaBits)));
    Value* subnormal = b_.CreateFPToUI(b_.CreateIntrinsic(llvm::Intrinsic::roundeven, {b_.getFloatTy()}, {scaled}), b_.getInt32Ty());
    int shift = 23 - f.mantissaBits;
    Value* keep = b_.CreateLShr(b_.CreateAnd(a, i32(0x7fffff)), shift);
    Value* rest = b_.CreateAnd(a, i32((1 << shift) - 1));
    Value* half = i32(1 << (shift - 1));
    Value* odd = b_.CreateICmpNE(b_.CreateAnd(keep, i32(1)), i32(0));
    Value* up = b_.CreateOr(b_.CreateICmpUGT(rest, half), b_.CreateAnd(b_.CreateICmpEQ(rest, half), odd));
    Value* normal = b_.CreateAdd(b_.CreateAdd(b_.CreateShl(b_.CreateAdd(exponent, i32(f.bias)), f.mantissaBits), keep), b_.CreateZExt(up, b_.getInt32Ty()));
    Value* code = b_.CreateSelect(b_.CreateICmpSLT(exponent, i32(1 - f.bias)), subnormal, normal);
    code = b_.CreateSelect(b_.CreateICmpUGT(code, i32(f.maxCode)), i32(f.maxCode), code);
    code = b_.CreateSelect(b_.CreateICmpUGT(a, i32(0x7f800000)), i32(0x7f), code);
    return b_.CreateTrunc(b_.CreateOr(sign, code), b_.getInt8Ty());
  }
  llvm::GlobalVariable* fp8Table(ScalarType t) {
    std::string name = "tvms_" + std::string(runtime::dtypeName(t)) + "_values";
    if (auto* existing = m_.getNamedGlobal(name)) return existing;
    std::vector<float> values;
    for (int b = 0; b < 256; ++b) values.push_back(runtime::fp8ToFloat(static_cast<uint8_t>(b), t));
    auto* init = llvm::ConstantDataArray::get(m_.getContext(), values);
    return new llvm::GlobalVariable(m_, init->getType(), true, llvm::GlobalValue::PrivateLinkage, init, name);
  }

 private:
  Value* address(int buffer, const ExprP& index) {
    return b_.CreateInBoundsGEP(memType(k_.buffers[buffer].type), buffers_.at(buffer), expr(index));
  }
  Value* intrinsic(llvm::Intrinsic::ID id, std::vector<Value*> args) {
    return b_.CreateIntrinsic(id, {args[0]->getType()}, args);
  }
  Value* libm(const char* f32, const char* f64, Value* x, ScalarType t) {
    madeCall_ = true;
    auto* ty = x->getType();
    auto callee = m_.getOrInsertFunction(t == ScalarType::F64 ? f64 : f32, llvm::FunctionType::get(ty, {ty}, false));
    return b_.CreateCall(callee, {x});
  }
  Value* libm2(const char* f32, const char* f64, Value* a, Value* b, ScalarType t) {
    madeCall_ = true;
    auto* ty = a->getType();
    auto callee = m_.getOrInsertFunction(t == ScalarType::F64 ? f64 : f32, llvm::FunctionType::get(ty, {ty, ty}, false));
    return b_.CreateCall(callee, {a, b});
  }
  // Integer division never traps (x86's idiv raises SIGFPE for a zero divisor and for INT_MIN / -1):
  // as NumPy defines them, x / 0 == 0, x % 0 == 0, INT_MIN / -1 == INT_MIN (wrapping) and x % -1 == 0.
  // A constant divisor other than 0 and -1 (every index computation) keeps the plain instruction.
  bool plainDivisor(Value* b) {
    auto* c = llvm::dyn_cast<llvm::ConstantInt>(b);
    return c && !c->isZero() && !c->isMinusOne();
  }
  Value* divisorOrOne(Value* b, Value*& zeroOrMinusOne) {
    auto* ty = b->getType();
    zeroOrMinusOne = b_.CreateOr(b_.CreateICmpEQ(b, llvm::ConstantInt::get(ty, 0)), b_.CreateICmpEQ(b, llvm::ConstantInt::getSigned(ty, -1)));
    return b_.CreateSelect(zeroOrMinusOne, llvm::ConstantInt::get(ty, 1), b);
  }
  Value* safeSDiv(Value* a, Value* b) {
    if (plainDivisor(b)) return b_.CreateSDiv(a, b);
    Value* special = nullptr;
    Value* q = b_.CreateSDiv(a, divisorOrOne(b, special));
    Value* zero = llvm::ConstantInt::get(a->getType(), 0);
    Value* byMinusOne = b_.CreateSub(zero, a);  // wrapping: INT_MIN stays INT_MIN
    return b_.CreateSelect(special, b_.CreateSelect(b_.CreateICmpEQ(b, zero), zero, byMinusOne), q);
  }
  Value* safeSRem(Value* a, Value* b) {
    if (plainDivisor(b)) return b_.CreateSRem(a, b);
    Value* special = nullptr;  // x % 1 == 0: already the answer for a divisor of 0 or -1
    return b_.CreateSRem(a, divisorOrOne(b, special));
  }
  Value* binaryOp(BinOp op, Value* a, Value* b, ScalarType t) {
    bool f = isFloat(t);
    using P = llvm::CmpInst::Predicate;
    if (isUnsignedDType(t)) return unsignedOp(op, a, b);
    auto zero = [&] { return llvm::ConstantInt::get(a->getType(), 0); };
    switch (op) {
      case BinOp::Atan2: return libm2("atan2f", "atan2", a, b, t);
      case BinOp::Shl: return b_.CreateShl(a, b);
      case BinOp::Shr: return b_.CreateAShr(a, b);  // numpy's right_shift of signed ints is arithmetic
      case BinOp::Add: return f ? b_.CreateFAdd(a, b) : b_.CreateAdd(a, b);
      case BinOp::Sub: return f ? b_.CreateFSub(a, b) : b_.CreateSub(a, b);
      case BinOp::Mul: return f ? b_.CreateFMul(a, b) : b_.CreateMul(a, b);
      case BinOp::Div: return f ? b_.CreateFDiv(a, b) : safeSDiv(a, b);
      case BinOp::Mod: return f ? b_.CreateFRem(a, b) : safeSRem(a, b);
      case BinOp::Pow:
        if (!f) throw std::runtime_error("integer power is not supported");
        return intrinsic(llvm::Intrinsic::pow, {a, b});
      case BinOp::FloorDiv: {
        if (f) return intrinsic(llvm::Intrinsic::floor, {b_.CreateFDiv(a, b)});
        Value* q = safeSDiv(a, b);
        Value* r = safeSRem(a, b);
        Value* adjust = b_.CreateAnd(b_.CreateICmpNE(r, zero()), b_.CreateICmpNE(b_.CreateICmpSLT(r, zero()), b_.CreateICmpSLT(b, zero())));
        return b_.CreateSub(q, b_.CreateZExt(adjust, a->getType()));
      }
      case BinOp::FloorMod: {
        if (f) return b_.CreateFSub(a, b_.CreateFMul(b, intrinsic(llvm::Intrinsic::floor, {b_.CreateFDiv(a, b)})));
        Value* r = safeSRem(a, b);
        Value* adjust = b_.CreateAnd(b_.CreateICmpNE(r, zero()), b_.CreateICmpNE(b_.CreateICmpSLT(r, zero()), b_.CreateICmpSLT(b, zero())));
        return b_.CreateSelect(adjust, b_.CreateAdd(r, b), r);
      }
      // NaN-propagating, as numpy's maximum / minimum.
      case BinOp::Max: return f ? intrinsic(llvm::Intrinsic::maximum, {a, b}) : b_.CreateSelect(b_.CreateICmpSGT(a, b), a, b);
      case BinOp::Min: return f ? intrinsic(llvm::Intrinsic::minimum, {a, b}) : b_.CreateSelect(b_.CreateICmpSLT(a, b), a, b);
      case BinOp::And: return b_.CreateAnd(a, b);
      case BinOp::Or: return b_.CreateOr(a, b);
      case BinOp::Xor: return b_.CreateXor(a, b);
      case BinOp::Lt: return f ? b_.CreateFCmp(P::FCMP_OLT, a, b) : b_.CreateICmp(P::ICMP_SLT, a, b);
      case BinOp::Le: return f ? b_.CreateFCmp(P::FCMP_OLE, a, b) : b_.CreateICmp(P::ICMP_SLE, a, b);
      case BinOp::Gt: return f ? b_.CreateFCmp(P::FCMP_OGT, a, b) : b_.CreateICmp(P::ICMP_SGT, a, b);
      case BinOp::Ge: return f ? b_.CreateFCmp(P::FCMP_OGE, a, b) : b_.CreateICmp(P::ICMP_SGE, a, b);
      case BinOp::Eq: return f ? b_.CreateFCmp(P::FCMP_OEQ, a, b) : b_.CreateICmp(P::ICMP_EQ, a, b);
      case BinOp::Ne: return f ? b_.CreateFCmp(P::FCMP_UNE, a, b) : b_.CreateICmp(P::ICMP_NE, a, b);
    }
    throw std::runtime_error("loop IR: unknown binary op " + std::string(opName(op)));
  }
  // uint8: division by zero gives 0 (never a trap, as for the signed types); floor division and
  // modulo are the plain ones, with nothing below zero.
  Value* unsignedOp(BinOp op, Value* a, Value* b) {
    using P = llvm::CmpInst::Predicate;
    auto zero = llvm::ConstantInt::get(a->getType(), 0);
    auto safe = [&](bool remainder) {
      Value* isZero = b_.CreateICmpEQ(b, zero);
      Value* divisor = b_.CreateSelect(isZero, llvm::ConstantInt::get(a->getType(), 1), b);
      Value* q = remainder ? b_.CreateURem(a, divisor) : b_.CreateUDiv(a, divisor);
      return b_.CreateSelect(isZero, zero, q);
    };
    switch (op) {
      case BinOp::Div: case BinOp::FloorDiv: return safe(false);
      case BinOp::Mod: case BinOp::FloorMod: return safe(true);
      case BinOp::Shr: return b_.CreateLShr(a, b);
      case BinOp::Max: return b_.CreateSelect(b_.CreateICmpUGT(a, b), a, b);
      case BinOp::Min: return b_.CreateSelect(b_.CreateICmpULT(a, b), a, b);
      case BinOp::Lt: return b_.CreateICmp(P::ICMP_ULT, a, b);
      case BinOp::Le: return b_.CreateICmp(P::ICMP_ULE, a, b);
      case BinOp::Gt: return b_.CreateICmp(P::ICMP_UGT, a, b);
      case BinOp::Ge: return b_.CreateICmp(P::ICMP_UGE, a, b);
      default: return binaryOp(op, a, b, ScalarType::I32);  // the same bits as signed: add, sub, mul, and, or, xor, shl, ==, !=
    }
  }
  Value* unaryOp(UnOp op, Value* x, ScalarType t) {
    bool f = isFloat(t);
    auto one = [&] { return llvm::ConstantFP::get(x->getType(), 1.0); };
    switch (op) {
      case UnOp::Neg: return f ? b_.CreateFNeg(x) : b_.CreateNeg(x);
      case UnOp::Not: return b_.CreateNot(x);
      case UnOp::Abs:
        if (isUnsignedDType(t)) return x;
        return f ? intrinsic(llvm::Intrinsic::fabs, {x}) : b_.CreateSelect(b_.CreateICmpSLT(x, llvm::ConstantInt::get(x->getType(), 0)), b_.CreateNeg(x), x);
      default: break;
    }
    if (!f) throw std::runtime_error("loop IR: " + std::string(opName(op)) + " needs a float operand");
    switch (op) {
      case UnOp::Exp: return intrinsic(llvm::Intrinsic::exp, {x});
      case UnOp::Log: return intrinsic(llvm::Intrinsic::log, {x});
      case UnOp::Sqrt: return intrinsic(llvm::Intrinsic::sqrt, {x});
      case UnOp::Floor: return intrinsic(llvm::Intrinsic::floor, {x});
      case UnOp::Ceil: return intrinsic(llvm::Intrinsic::ceil, {x});
      case UnOp::Trunc: return intrinsic(llvm::Intrinsic::trunc, {x});
      case UnOp::Round: return intrinsic(llvm::Intrinsic::roundeven, {x});  // numpy rounds half to even
      case UnOp::Sin: return intrinsic(llvm::Intrinsic::sin, {x});
      case UnOp::Cos: return intrinsic(llvm::Intrinsic::cos, {x});
      case UnOp::Sigmoid: return b_.CreateFDiv(one(), b_.CreateFAdd(one(), intrinsic(llvm::Intrinsic::exp, {b_.CreateFNeg(x)})));
      case UnOp::Rsqrt: return b_.CreateFDiv(one(), intrinsic(llvm::Intrinsic::sqrt, {x}));
      // tanh, erf, the inverse and hyperbolic functions through libm, as numpy computes them.
      case UnOp::Tanh: return libm("tanhf", "tanh", x, t);
      case UnOp::Erf: return libm("erff", "erf", x, t);
      case UnOp::Tan: return libm("tanf", "tan", x, t);
      case UnOp::Asin: return libm("asinf", "asin", x, t);
      case UnOp::Acos: return libm("acosf", "acos", x, t);
      case UnOp::Atan: return libm("atanf", "atan", x, t);
      case UnOp::Sinh: return libm("sinhf", "sinh", x, t);
      case UnOp::Cosh: return libm("coshf", "cosh", x, t);
      case UnOp::Asinh: return libm("asinhf", "asinh", x, t);
      case UnOp::Acosh: return libm("acoshf", "acosh", x, t);
      case UnOp::Atanh: return libm("atanhf", "atanh", x, t);
      default: break;
    }
    throw std::runtime_error("loop IR: unknown unary op " + std::string(opName(op)));
  }
  // A cast to a 16-bit float rounds to it (the value then computes in float32 like every 16-bit one).
  Value* castTo(Value* v, ScalarType from, ScalarType to) {
    Value* out = castRegister(v, from, to);
    return isHalf(to) && from != to ? widened(narrowed(out, to), to) : out;
  }
  Value* castRegister(Value* v, ScalarType from, ScalarType to) {
    llvm::Type* ty = regType(to);
    if (from == ScalarType::Bool) return isFloat(to) ? b_.CreateUIToFP(v, ty) : b_.CreateZExt(v, ty);
    if (to == ScalarType::Bool)
      return isFloat(from) ? b_.CreateFCmpUNE(v, llvm::ConstantFP::get(v->getType(), 0.0)) : b_.CreateICmpNE(v, llvm::ConstantInt::get(v->getType(), 0));
    if (isFloat(from) && isFloat(to)) return b_.CreateFPCast(v, ty);
    // A float to an 8- or 16-bit integer goes through int32 and wraps, as C's conversion of an
    // in-range value does (LLVM's direct fptosi/fptoui to i8 is poison outside the type's range);
    // to uint32 through int64, so values past INT32_MAX convert.
    unsigned width = ty->getIntegerBitWidth();
    if (isFloat(from) && width <= 16) return b_.CreateTrunc(b_.CreateFPToSI(v, b_.getInt32Ty()), ty);
    if (isFloat(from) && to == ScalarType::U32) return b_.CreateTrunc(b_.CreateFPToSI(v, b_.getInt64Ty()), ty);
    if (isFloat(from)) return isUnsignedDType(to) ? b_.CreateFPToUI(v, ty) : b_.CreateFPToSI(v, ty);
    if (isFloat(to)) return isUnsignedDType(from) ? b_.CreateUIToFP(v, ty) : b_.CreateSIToFP(v, ty);
    return isUnsignedDType(from) ? b_.CreateZExtOrTrunc(v, ty) : b_.CreateSExtOrTrunc(v, ty);
  }

  const Kernel& k_;
  llvm::Module& m_;
  llvm::LLVMContext& ctx_;
  llvm::Function* fn_;
  IRBuilder<> b_;
  std::vector<Value*> buffers_;
  Value* dims_;
  std::unordered_map<int, Value*> vars_;
  std::unordered_map<int, Value*> locals_;
  bool madeCall_ = false;  // a libm call was emitted in the loop body being emitted
};

class KernelEmitter {
 public:
  KernelEmitter(const Kernel& k, llvm::Module& m) : k_(k), m_(m), ctx_(m.getContext()) {}

  void emit() {
    auto* ptr = llvm::PointerType::getUnqual(ctx_);
    auto* i64 = llvm::Type::getInt64Ty(ctx_);
    auto* i32 = llvm::Type::getInt32Ty(ctx_);
    size_t n = k_.paramCount();
    std::vector<llvm::Type*> implParams(n, ptr);
    implParams.push_back(ptr);  // dims
    implParams.push_back(ptr);  // env
    auto* impl = llvm::Function::Create(llvm::FunctionType::get(i32, implParams, false), llvm::Function::InternalLinkage,
                                        k_.name + ".impl", m_);
    markNoAlias(impl, n);
    std::vector<Value*> bufs;
    for (size_t i = 0; i < n; ++i) bufs.push_back(impl->getArg(i));
    FunctionEmitter body(k_, m_, impl, bufs, impl->getArg(n));
    Value* env = impl->getArg(n + 1);
    int parallelIndex = 0;
    for (auto& s : k_.body) {
      if (s->kind == Stmt::Kind::For && s->forKind == ForKind::Parallel) parallelFor(body, *s, bufs, impl->getArg(n), env, parallelIndex++);
      else body.stmt(s);
    }
    body.builder().CreateRet(llvm::ConstantInt::get(i32, 0));

    // The C ABI entry point.
    auto* entry = llvm::Function::Create(llvm::FunctionType::get(i32, {ptr, ptr, ptr}, false), llvm::Function::ExternalLinkage,
                                         k_.name, m_);
    IRBuilder<> b(llvm::BasicBlock::Create(ctx_, "entry", entry));
    std::vector<Value*> args;
    for (size_t i = 0; i < n; ++i) args.push_back(b.CreateLoad(ptr, b.CreateConstInBoundsGEP1_64(ptr, entry->getArg(0), i)));
    args.push_back(entry->getArg(1));
    args.push_back(entry->getArg(2));
    b.CreateRet(b.CreateCall(impl, args));
    (void)i64;
  }

 private:
  void markNoAlias(llvm::Function* f, size_t n) {
    for (size_t i = 0; i < n; ++i) {
      f->addParamAttr(i, llvm::Attribute::NoAlias);
      f->addParamAttr(i, llvm::Attribute::NoCapture);
    }
  }

  // The loop's body outlined as name.parK(b.., dims, begin, end), called through a thunk by
  // env->parallel_for with a closure of {b.., dims}.
  void parallelFor(FunctionEmitter& caller, const Stmt& s, const std::vector<Value*>& bufs, Value* dims, Value* env, int index) {
    auto* ptr = llvm::PointerType::getUnqual(ctx_);
    auto* i64 = llvm::Type::getInt64Ty(ctx_);
    size_t n = bufs.size();
    std::vector<Value*> shared = caller.sharedBuffers();
    size_t m = shared.size(), closed = n + 1 + m;  // the closure: buffers, dims, the kernel's shared buffers
    std::string base = k_.name + ".par" + std::to_string(index);
    std::vector<llvm::Type*> params(closed, ptr);
    params.push_back(i64);
    params.push_back(i64);
    auto* part = llvm::Function::Create(llvm::FunctionType::get(llvm::Type::getVoidTy(ctx_), params, false),
                                        llvm::Function::InternalLinkage, base, m_);
    markNoAlias(part, n);
    std::vector<Value*> partBufs, partShared;
    for (size_t i = 0; i < n; ++i) partBufs.push_back(part->getArg(i));
    for (size_t i = 0; i < m; ++i) partShared.push_back(part->getArg(n + 1 + i));
    FunctionEmitter pe(k_, m_, part, partBufs, part->getArg(n), partShared);
    pe.loop(s.var, part->getArg(closed), part->getArg(closed + 1), s.body);
    pe.builder().CreateRetVoid();

    auto* thunk = llvm::Function::Create(llvm::FunctionType::get(llvm::Type::getVoidTy(ctx_), {ptr, i64, i64}, false),
                                         llvm::Function::InternalLinkage, base + ".thunk", m_);
    {
      IRBuilder<> b(llvm::BasicBlock::Create(ctx_, "entry", thunk));
      std::vector<Value*> args;
      for (size_t i = 0; i < closed; ++i) args.push_back(b.CreateLoad(ptr, b.CreateConstInBoundsGEP1_64(ptr, thunk->getArg(0), i)));
      args.push_back(thunk->getArg(1));
      args.push_back(thunk->getArg(2));
      b.CreateCall(part, args);
      b.CreateRetVoid();
    }

    auto& b = caller.builder();
    auto* closure = b.CreateAlloca(ptr, b.getInt64(static_cast<int64_t>(closed)), "closure");
    for (size_t i = 0; i < n; ++i) b.CreateStore(bufs[i], b.CreateConstInBoundsGEP1_64(ptr, closure, i));
    b.CreateStore(dims, b.CreateConstInBoundsGEP1_64(ptr, closure, n));
    for (size_t i = 0; i < m; ++i) b.CreateStore(shared[i], b.CreateConstInBoundsGEP1_64(ptr, closure, n + 1 + i));
    // env: {void* pool; void (*parallel_for)(pool, n, body, closure)}
    Value* pool = b.CreateLoad(ptr, env);
    Value* pf = b.CreateLoad(ptr, b.CreateConstInBoundsGEP1_64(ptr, env, 1));
    auto* pfType = llvm::FunctionType::get(llvm::Type::getVoidTy(ctx_), {ptr, i64, ptr, ptr}, false);
    b.CreateCall(pfType, pf, {pool, caller.expr(s.extent), thunk, closure});
  }

  const Kernel& k_;
  llvm::Module& m_;
  llvm::LLVMContext& ctx_;
};

}  // namespace

std::unique_ptr<llvm::Module> emitModule(const std::vector<tir::Kernel>& kernels, llvm::LLVMContext& ctx) {
  auto m = std::make_unique<llvm::Module>("tvms_kernels", ctx);
  for (auto& k : kernels) KernelEmitter(k, *m).emit();
  std::string err;
  llvm::raw_string_ostream os(err);
  if (llvm::verifyModule(*m, &os)) throw std::runtime_error("internal error: invalid LLVM IR for the kernels: " + os.str());
  return m;
}

}  // namespace tvms::codegen::llvm_backend
