#pragma once
// The loop IR (TVM's TIR, much reduced) that LegalizeOps lowers every op to, that a target's schedule
// rewrites (compiler/schedule) and that each backend compiles (compiler/codegen): flat buffers
// (row-major, contiguous) in a memory scope, loops of a kind (serial, parallel, vectorized,
// unrolled, bound to a GPU thread axis), loads, stores, scalar arithmetic, locals for reductions and
// register tiles, and a barrier. A kernel is one function of the C ABI in runtime/kernel_abi.h.
// Kept apart from codegen as TVM keeps TIR apart from its code generators: the op builders say what
// a kernel computes, the schedule says how loops run, the backend only translates.
#include <cstdint>
#include <memory>
#include <optional>
#include <string>
#include <string_view>
#include <vector>

#include "compiler/tir/target.h"
#include "runtime/dtype.h"

namespace tvms::tir {

// The runtime's element types (runtime/dtype.h). float16 / bfloat16 kernels are built for cuda only
// (computed in float32, stored 16-bit); the CPU backend refuses them with a clear error.
using ScalarType = runtime::DType;
std::optional<ScalarType> scalarTypeOf(std::string_view dtype);  // "float32" -> F32
using runtime::dtypeName;
using runtime::isUnsignedDType;
bool isFloat(ScalarType t);

// Binary operators. Comparisons give Bool; And/Or/Xor are bitwise on integers, logical on Bool.
enum class BinOp { Add, Sub, Mul, Div, Mod, FloorDiv, FloorMod, Min, Max, Pow, Atan2,
                   Lt, Le, Gt, Ge, Eq, Ne, And, Or, Xor, Shl, Shr };
enum class UnOp { Neg, Not, Abs, Exp, Log, Sqrt, Rsqrt, Tanh, Sigmoid, Erf, Floor, Ceil, Round, Trunc,
                  Sin, Cos, Tan, Asin, Acos, Atan, Sinh, Cosh, Asinh, Acosh, Atanh };
std::string_view opName(BinOp op);  // "+", "floordiv", "<" (the printer's spelling)
std::string_view opName(UnOp op);   // "exp", "neg"
bool isComparison(BinOp op);

struct Expr;
using ExprP = std::shared_ptr<const Expr>;
struct Expr {
  enum class Kind { Int, Float, Var, Load, Binary, Unary, Select, Cast, Reinterpret };
  Kind kind = Kind::Int;
  ScalarType type = ScalarType::I64;
  int64_t intValue = 0;
  double floatValue = 0;
  int id = -1;      // Var: index into Kernel::vars; Load: index into Kernel::buffers
  BinOp binOp = BinOp::Add;  // Binary
  UnOp unOp = UnOp::Neg;     // Unary
  ExprP a, b, c;    // operands; Load: a = flat index; Select: a ? b : c; Cast, Reinterpret (a's bits as `type`, of its size): a
};

// How a loop's iterations run (TVM's ForKind, with thread binding carrying its tag).
enum class ForKind {
  Serial,
  Parallel,       // split across the runtime's thread pool (CPU; only at the top of a kernel)
  Vectorized,     // the iterations become SIMD lanes (the backend asks its vectorizer for the target's width)
  Unrolled,       // fully unrolled by the backend
  ThreadBinding,  // one iteration per GPU thread of the axis in `threadTag` (blockIdx.x, threadIdx.x, ...)
};
std::string_view forKindName(ForKind k);  // "serial", "parallel", "vectorized", "unroll", "thread_binding"

// How the compute describes an axis to the schedule (TVM's iter types): a spatial loop's iterations
// are independent (any of them may run in parallel); a reduction loop's are not.
enum class IterType { Spatial, Reduction };

struct Stmt;
using StmtP = std::shared_ptr<const Stmt>;
struct Stmt {
  enum class Kind { For, Store, Assign, Seq, Barrier, If, WarpReduce, While };
  Kind kind = Kind::Seq;
  int var = -1;          // For: its loop variable; Assign: the local scalar
  ExprP extent;          // For: runs var over [0, extent)
  IterType iter = IterType::Reduction;  // For: what the compute says (Reduction unless marked spatial)
  ForKind forKind = ForKind::Serial;    // For: what the schedule decided
  std::string threadTag;  // For with ThreadBinding: "blockIdx.x", "threadIdx.x", ...
  bool keepScalar = false; // For: a register tile's reduction loop; the loop vectorizer leaves it (the
                           // SLP vectorizer vectorizes its body across the tile's columns instead)
  int buffer = -1;       // Store
  bool atomicAdd = false; // Store: buffer[index] += value, atomically (several GPU blocks add into one output)
  bool finalValue = false; // Store: the element's final value, where the kernel's other stores and loads of
                           // the buffer are partial sums (a CPU GEMM's last K block): where fusion folds
                           // an epilogue (compiler/tir/fuse.h)
  ExprP index, value;    // Store: buffer[index] = value; Assign: var = value
  ExprP cond;             // If: body runs when cond holds; While: body runs again while cond holds
  std::vector<StmtP> body;  // For, Seq, If
  // Barrier: every thread of the block waits here (T.tvm_storage_sync("shared")); no fields.
  // WarpReduce: the local `var` of every lane of the warp combined with `combiner` (Add, Mul, Max,
  // Min), the result in every lane (a butterfly of warp shuffles).
  BinOp combiner = BinOp::Add;
};

struct Variable {
  enum class Role { Dim, Loop, Local };
  std::string name;
  ScalarType type = ScalarType::I64;
  Role role = Role::Loop;
  int dimIndex = -1;  // Dim: position in the kernel's dims argument
  // Local: a value named once per iteration for reuse within it (fusion's folded epilogue), never
  // carried from one iteration to the next, so a schedule may deal the iterations out freely.
  bool temporary = false;
};

// Where a buffer lives: kernel parameters in the device's global memory; local arrays in the
// thread's registers/stack ("local") or in a GPU block's shared memory ("shared").
enum class MemoryScope { Global, Shared, Local };
std::string_view scopeName(MemoryScope s);

struct Buffer {
  std::string name;
  ScalarType type = ScalarType::F32;
  bool param = true;            // a kernel argument; else a local array of `localSize` elements
  int64_t localSize = 0;
  std::vector<std::string> shape;  // printed shape of a parameter (documentation and T.Buffer)
  MemoryScope scope = MemoryScope::Global;
};

struct Kernel {
  std::string name;
  Target target;                   // what it is built for (LegalizeOps: its output's vdevice)
  std::vector<Buffer> buffers;     // parameters first (inputs, then outputs), then local arrays
  std::vector<Variable> vars;
  std::vector<std::string> dims;   // the symbolic dims the caller passes, in order
  std::vector<StmtP> body;
  // A user's T.prim_func: its parameters in order, each a buffer (`index` into buffers) or an integer
  // scalar (`index` into dims); empty for the op builders' kernels (their buffers, in order).
  struct Param {
    bool scalar = false;
    int index = -1;
    // A float scalar (`s: T.float32`): its dim holds the bits of the value as a float64, which the
    // kernel reinterprets and casts (the dims argument is int64).
    bool floating = false;
  };
  std::vector<Param> signature;
  // Per dim, for a kernel with a signature: the (parameter position, axis) whose extent it is, or
  // (position, -1) for an integer scalar parameter itself; empty: the caller passes its own symbolic
  // dims by name.
  std::vector<std::pair<int, int>> dimSources;
  // Its loops were scheduled by whoever wrote it (T.parallel, T.thread_binding, ...): kept as written.
  bool scheduledByAuthor = false;
  // A user's global-scope allocations (`T.alloc_buffer` without a scope, as TVM's workspaces): each
  // a parameter buffer after the signature's buffers that the VM allocates on the call's device for
  // the call (`elements`: its size, an expression of the kernel's dims), so it may be large, sized
  // at run time, and shared by every thread and launch of the kernel (a stack array would not be).
  struct Workspace {
    int buffer = -1;
    ExprP elements;
  };
  std::vector<Workspace> workspaces;
  size_t paramCount() const;
};

// Builds kernels with typed expressions.
class KernelBuilder {
 public:
  explicit KernelBuilder(std::string name) { k_.name = std::move(name); }
  int param(std::string name, ScalarType t, std::vector<std::string> shape = {});
  int localArray(std::string name, ScalarType t, int64_t size, MemoryScope scope = MemoryScope::Local);
  // Scratch memory in the device's global memory for one call, `elements` long (an expression of the
  // kernel's dims): a Kernel::workspaces entry, declared after every parameter the call passes.
  int workspace(std::string name, ScalarType t, ExprP elements);
  ExprP dim(const std::string& name);  // a symbolic dim read from the dims argument
  int loopVar(std::string name);
  int local(std::string name, ScalarType t);
  Kernel take() { return std::move(k_); }
  const Kernel& kernel() const { return k_; }
  ScalarType bufferType(int b) const { return k_.buffers[b].type; }

  ExprP var(int id) const;
  ExprP load(int buffer, ExprP index) const;
  void add(StmtP s) { k_.body.push_back(std::move(s)); }

 private:
  Kernel k_;
};

ExprP intImm(int64_t v);
ExprP floatImm(double v, ScalarType t);
ExprP binary(BinOp op, ExprP a, ExprP b);  // comparisons give Bool; arithmetic keeps a's type
ExprP unary(UnOp op, ExprP a);
ExprP select(ExprP cond, ExprP a, ExprP b);
ExprP cast(ScalarType t, ExprP a);
ExprP reinterpret(ScalarType t, ExprP a);  // T.reinterpret: a's bits as t (the same size; 16-bit floats excluded)
inline ExprP operator+(ExprP a, ExprP b) { return binary(BinOp::Add, std::move(a), std::move(b)); }
inline ExprP operator*(ExprP a, ExprP b) { return binary(BinOp::Mul, std::move(a), std::move(b)); }
inline ExprP operator-(ExprP a, ExprP b) { return binary(BinOp::Sub, std::move(a), std::move(b)); }
inline ExprP min(ExprP a, ExprP b) { return binary(BinOp::Min, std::move(a), std::move(b)); }
inline ExprP max(ExprP a, ExprP b) { return binary(BinOp::Max, std::move(a), std::move(b)); }
inline ExprP floordiv(ExprP a, ExprP b) { return binary(BinOp::FloorDiv, std::move(a), std::move(b)); }
inline ExprP floormod(ExprP a, ExprP b) { return binary(BinOp::FloorMod, std::move(a), std::move(b)); }

// A loop over [0, extent). `spatial`: the compute says its iterations are independent, so the
// target's schedule may run them in parallel, vectorize or bind them to GPU threads.
StmtP forLoop(int var, ExprP extent, std::vector<StmtP> body, bool spatial = false);
StmtP tileLoop(int var, ExprP extent, std::vector<StmtP> body);  // a For with keepScalar
StmtP store(int buffer, ExprP index, ExprP value);
StmtP atomicAddTo(int buffer, ExprP index, ExprP value);  // buffer[index] += value, atomically
StmtP assign(int local, ExprP value);
StmtP seq(std::vector<StmtP> body);
StmtP barrier();
StmtP ifThen(ExprP cond, std::vector<StmtP> body);
StmtP whileLoop(ExprP cond, std::vector<StmtP> body);  // a user's `while`: serial, as written
StmtP warpReduce(int local, BinOp combiner);

// The kernel as a T.prim_func body (flat indices), for --print-after and tvms/viewIR: loop kinds
// (T.serial / T.parallel / T.vectorized / T.unroll / T.thread_binding), buffer scopes, barriers.
std::vector<std::string> printKernelBody(const Kernel& k);

}  // namespace tvms::tir

namespace tvms::tir {
// Every field of the kernel that the generated code depends on, as text: two kernels with the same
// fingerprint compile to the same code for the same target (kernel caches key on it). Without the
// name: two kernels that differ only in their names (add, add1) share it. Shared subexpressions are
// written once, so its length is the kernel's distinct nodes, not its expanded tree.
std::string fingerprint(const Kernel& k, bool withName = true);
}  // namespace tvms::tir
