#pragma once
// Relax expressions, bindings and functions. Nodes hold what the program says; deduced struct info
// lives in analysis results, and source ranges in the frontend's side table: the IR knows no CST.
#include <cstdint>
#include <memory>
#include <optional>
#include <string>
#include <vector>

#include "compiler/ir/struct_info.h"
#include "compiler/ir/value.h"

namespace tvms::op {
struct OpDef;  // compiler/op/registry.h: the IR refers to an op's definition, never needs its contents
}  // namespace tvms::op

namespace tvms::tir {
struct Kernel;  // compiler/tir/loop_ir.h: a prim_func's body as compiled
}  // namespace tvms::tir

namespace tvms::ir {

struct Expr {
  enum class Kind {
    Var, GlobalVar, Constant, PrimValue, StringImm, DataTypeImm, ShapeExpr, Tuple, TupleGetItem, Call, If,
    SeqExpr, Opaque, ExternFunc
  };
  explicit Expr(Kind k) : kind(k) {}
  virtual ~Expr() = default;
  const Kind kind;
};
using ExprPtr = std::shared_ptr<Expr>;

template <typename T>
T* as(const ExprPtr& e) { return e && e->kind == T::kKind ? static_cast<T*>(e.get()) : nullptr; }

struct Var : Expr {
  static constexpr Kind kKind = Kind::Var;
  Var(std::string n, StructInfoPtr ann, bool df) : Expr(kKind), isDataflow(df), name(std::move(n)), annotation(std::move(ann)) {}
  // First, so it sits in Expr's padding after `kind` (a Var with shared_ptr's count: 80 bytes, not 96).
  bool isDataflow = false;   // bound inside R.dataflow() and not passed to R.output
  std::string name;
  StructInfoPtr annotation;  // as written on the binding or parameter; null when none was written
};
using VarPtr = std::shared_ptr<Var>;

struct GlobalVar : Expr {
  static constexpr Kind kKind = Kind::GlobalVar;
  explicit GlobalVar(std::string n) : Expr(kKind), name(std::move(n)) {}
  std::string name;
};

// R.const(value, dtype), a bare Python number used as an operand (pythonLiteral), or a constant whose
// data lives in the metadata section (metadata["relax.expr.Constant"][i], metadataIndex >= 0).
struct Constant : Expr {
  static constexpr Kind kKind = Kind::Constant;
  Constant() : Expr(kKind) {}
  Value value;
  std::string dtype;
  bool pythonLiteral = false;
  int metadataIndex = -1;
  // A constant made from a numpy array of the program (`value` then holds its Python text): the
  // array's shape, known statically, its values not.
  std::optional<std::vector<int64_t>> arrayShape;
};

// A constant written as a (nested) list of numbers, R.const([[0, 1], [2, 3]], "int64"): its shape
// (every row as long as the first), its dtype (as written, else what R.const infers from the first
// element: bool, int32, float32) and its elements row-major. Nothing for any other constant, or a
// ragged or non-numeric list.
struct ListConstant {
  std::vector<int64_t> shape;
  std::string dtype;
  std::vector<const Value*> elements;
};
std::optional<ListConstant> listConstant(const Constant& c);
// The dtype R.const gives `c`: as written, else inferred from its (first) element; "" when unknown.
std::string constantDType(const Constant& c);

struct PrimValue : Expr {
  static constexpr Kind kKind = Kind::PrimValue;
  explicit PrimValue(PrimExprPtr v) : Expr(kKind), value(std::move(v)) {}
  PrimExprPtr value;
};

struct StringImm : Expr {
  static constexpr Kind kKind = Kind::StringImm;
  explicit StringImm(std::string v) : Expr(kKind), value(std::move(v)) {}
  std::string value;
};

struct DataTypeImm : Expr {
  static constexpr Kind kKind = Kind::DataTypeImm;
  explicit DataTypeImm(std::string v) : Expr(kKind), dtype(std::move(v)) {}
  std::string dtype;
};

struct ShapeExpr : Expr {
  static constexpr Kind kKind = Kind::ShapeExpr;
  explicit ShapeExpr(std::vector<PrimExprPtr> v) : Expr(kKind), values(std::move(v)) {}
  std::vector<PrimExprPtr> values;
};

struct Tuple : Expr {
  static constexpr Kind kKind = Kind::Tuple;
  explicit Tuple(std::vector<ExprPtr> f) : Expr(kKind), fields(std::move(f)) {}
  std::vector<ExprPtr> fields;
};

struct TupleGetItem : Expr {
  static constexpr Kind kKind = Kind::TupleGetItem;
  TupleGetItem(ExprPtr t, int i) : Expr(kKind), tuple(std::move(t)), index(i) {}
  ExprPtr tuple;
  int index;
};

// An expression tvms keeps as source text (an argument of an op it does not model, e.g. a lambda
// index map of R.layout_transform). It prints back verbatim.
struct OpaqueExpr : Expr {
  static constexpr Kind kKind = Kind::Opaque;
  explicit OpaqueExpr(std::string t) : Expr(kKind), text(std::move(t)) {}
  std::string text;
};

// A packed function named by its global symbol: R.call_pure_packed("vm.builtin.x", ...).
struct ExternFunc : Expr {
  static constexpr Kind kKind = Kind::ExternFunc;
  explicit ExternFunc(std::string s) : Expr(kKind), symbol(std::move(s)) {}
  std::string symbol;
};

struct CallAttr {
  std::string name;
  Value value;
  bool written = true;     // false when filled from the op's default (printed only in canonical dumps)
  bool positional = false; // printed positionally (hint_on_device's device and scope), else as name=value
};

// A call of an op (op = its registry name, "relax.add"), of a module function (callee = GlobalVar) or
// of a local value (callee = Var). args are the op's expression parameters in declaration order;
// attrs its attribute parameters; sinfoArgs the written out_sinfo / sinfo_args.
struct Call : Expr {
  static constexpr Kind kKind = Kind::Call;
  Call() : Expr(kKind) {}
  enum class SInfoArgsKey : uint8_t { None, OutSInfo, SInfoArgs };
  std::string op;
  // The op's entry in the registry, the call's identity for every pass (set by whoever makes the
  // call: the frontend, a pass); null for calls of functions (callee) and of ops the registry lacks.
  const op::OpDef* def = nullptr;
  ExprPtr callee;
  std::vector<ExprPtr> args;
  std::vector<CallAttr> attrs;
  std::vector<StructInfoPtr> sinfoArgs;
  // The small fields together: a call is the most common node, and these 8 bytes took its allocation
  // (with shared_ptr's count) past mimalloc's 224-byte size class into the 256-byte one.
  SInfoArgsKey sinfoKey = SInfoArgsKey::None;
  bool sinfoArgsAsList = false;  // out_sinfo=[...] rather than a single struct info
  // Names of the expression parameters declared after the struct-info parameter (call_tir's tir_vars):
  // from args[trailingArgsFrom] on, args print as name=value after out_sinfo. Empty: all positional.
  uint32_t trailingArgsFrom = 0;
  std::vector<std::string> trailingArgNames;
  std::string infix;             // the Python operator it was written with ("+", "<", unary "-"), if any
  const CallAttr* attr(std::string_view name) const {
    for (auto& a : attrs) if (a.name == name) return &a;
    return nullptr;
  }
  // The attribute's value, or null when the call has no such attribute (what every reader of one wants).
  const Value* attrValue(std::string_view name) const {
    const CallAttr* a = attr(name);
    return a ? &a->value : nullptr;
  }
};

// With make_shared's 16-byte count block, a Call fits mimalloc's 224-byte size class (see above).
static_assert(sizeof(Call) <= 208, "a Call grew past 208 bytes: its allocation moves to the 256-byte size class");

struct Binding {
  enum class Kind { Var, MatchCast, Unpack };
  Kind kind = Kind::Var;
  std::vector<VarPtr> vars;  // one, except Unpack (a, b = value)
  ExprPtr value;
  StructInfoPtr castSInfo;   // MatchCast
  // A nested `@R.function def name(...)` (a closure): its source lines as written (dedented), printed
  // back verbatim; vars[0] carries its signature as an R.Callable annotation, value is opaque. Null for
  // every other binding (held apart: inline it took a binding from 96 to 112 bytes with its count).
  std::shared_ptr<const std::vector<std::string>> verbatim;
};
using BindingPtr = std::shared_ptr<Binding>;
// The two most common nodes, with make_shared's 16-byte count: mimalloc's 80- and 96-byte classes.
static_assert(sizeof(Var) <= 64, "a Var grew past 64 bytes: its allocation moves past the 80-byte size class");
static_assert(sizeof(Binding) <= 80, "a Binding grew past 80 bytes: its allocation moves past the 96-byte size class");

struct BindingBlock {
  bool dataflow = false;
  std::vector<BindingPtr> bindings;
};
using BindingBlockPtr = std::shared_ptr<BindingBlock>;

struct SeqExpr : Expr {
  static constexpr Kind kKind = Kind::SeqExpr;
  SeqExpr() : Expr(kKind) {}
  std::vector<BindingBlockPtr> blocks;
  ExprPtr body;  // null when the function has no return (TVS008)
};
using SeqExprPtr = std::shared_ptr<SeqExpr>;

// if cond: ... else: ...  Bound to the variable both branches assign last.
struct If : Expr {
  static constexpr Kind kKind = Kind::If;
  If() : Expr(kKind) {}
  ExprPtr cond;
  SeqExprPtr thenBranch, elseBranch;
};

struct SymbolicVarDecl {
  std::string name;
  std::string dtype;  // n = T.int64() -> "int64"
};

struct Function {
  std::string name;
  AttrList decoratorArgs;  // @R.function(pure=False, private=True, check_well_formed=False)
  std::vector<VarPtr> params;
  StructInfoPtr retAnnotation;
  std::vector<SymbolicVarDecl> symbolicVars;
  AttrList attrs;          // R.func_attr({...})
  bool hasFuncAttr = false;
  std::string moduleAlias;  // `cls = Module` in the body (TVM's printer writes it): the name bound, or ""
  bool capturesPython = false;  // uses Python values from the enclosing scope: its struct info is not checked
  SeqExprPtr body;
  bool isPure() const;
  bool isPrivate() const;
};
using FunctionPtr = std::shared_ptr<Function>;

// T.prim_func: signature and buffers recorded, the body kept as source text (printed back verbatim)
// and read into the loop IR where tvms compiles it (compiler/frontend/lower_tir.h).
struct TirBuffer {
  std::string name;
  std::vector<PrimExprPtr> shape;
  std::string dtype;
};
struct TirParam {
  std::string name;
  enum class Kind { Buffer, Scalar, Handle, Other } kind = Kind::Other;
  TirBuffer buffer;          // Buffer
  std::string annotation;    // the annotation's text, printed back verbatim
};
// A name of a prim_func body the editor points at (hover, definition, references): a buffer or a
// variable (loop variable, block axis, let, scalar parameter), with what hover says of it.
struct TirSymbol {
  enum class Kind { Buffer, Variable } kind = Kind::Variable;
  std::string name;
  std::string detail;  // one line of TVMScript-like text: `A: T.Buffer((4, 8), "float32")`
};

struct PrimFunc {
  std::string name;
  AttrList decoratorArgs;
  std::vector<TirParam> params;
  std::string retAnnotation;              // text, usually empty
  std::vector<TirBuffer> matchedBuffers;  // X = T.match_buffer(param, shape, dtype) in the body
  AttrList attrs;                         // T.func_attr({...})
  std::vector<std::string> bodyLines;     // the body, dedented to column 0, verbatim
  // A kernel tvms built (LegalizeOps, FuseTIR) prints its body from its loop IR when the module is
  // printed, not when it is built: a scheduled CPU GEMM of symbolic size prints to 1.5 MB, and printing
  // it made a 1 MB module's build 7 MiB larger though the build prints nothing.
  struct LazyBody {
    virtual ~LazyBody() = default;
    virtual std::vector<std::string> lines() const = 0;
  };
  std::shared_ptr<const LazyBody> lazyBody;  // null: bodyLines is the body
  std::vector<std::string> body() const { return lazyBody ? lazyBody->lines() : bodyLines; }
  std::shared_ptr<const tir::Kernel> kernel;  // the body as a kernel (no target yet), or null:
  std::string kernelError;                    // why it was not read
  std::vector<std::shared_ptr<const TirSymbol>> symbols;  // the names the reader resolved (the source map points at them)
};
using PrimFuncPtr = std::shared_ptr<PrimFunc>;

}  // namespace tvms::ir
