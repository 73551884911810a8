#pragma once
// The loop IR that LegalizeOps lowers every op to and that each backend compiles: flat buffers
// (row-major, contiguous), loops (serial or parallel), loads, stores, scalar arithmetic, locals for
// reductions and register tiles. Small on purpose: a kernel is one function of the C ABI in
// runtime/kernel_abi.h (buffers, the values of the symbolic dims it reads, the runtime environment).
#include <cstdint>
#include <memory>
#include <optional>
#include <string>
#include <string_view>
#include <vector>

#include "runtime/dtype.h"

namespace tvms::codegen {

// The runtime's element types (runtime/dtype.h); kernels exist for all of them but float16.
using ScalarType = runtime::DType;
std::optional<ScalarType> scalarTypeOf(std::string_view dtype);  // "float32" -> F32; none without kernels (float16)
using runtime::dtypeName;
bool isFloat(ScalarType t);

struct Expr;
using ExprP = std::shared_ptr<const Expr>;
struct Expr {
  enum class Kind { Int, Float, Var, Load, Binary, Unary, Select, Cast };
  Kind kind = Kind::Int;
  ScalarType type = ScalarType::I64;
  int64_t intValue = 0;
  double floatValue = 0;
  int id = -1;      // Var: index into Kernel::vars; Load: index into Kernel::buffers
  std::string op;   // Binary: + - * / min max < <= > >= == != and or xor floordiv floormod mod pow atan2 shl shr
                    // Unary: neg exp log sqrt tanh sigmoid abs floor ceil round trunc erf sin cos tan asin
                    //   acos atan sinh cosh asinh acosh atanh rsqrt not (not and and/or/xor are bitwise on ints)
  ExprP a, b, c;    // operands; Load: a = flat index; Select: a ? b : c; Cast: a
};

struct Stmt;
using StmtP = std::shared_ptr<const Stmt>;
struct Stmt {
  enum class Kind { For, Store, Assign, Seq };
  Kind kind = Kind::Seq;
  int var = -1;          // For: its loop variable; Assign: the local scalar
  ExprP extent;          // For: runs var over [0, extent)
  bool parallel = false; // For: split across the runtime's thread pool (only at the top of a kernel)
  bool keepScalar = false; // For: a register tile's reduction loop; the loop vectorizer leaves it (the
                           // SLP vectorizer vectorizes its body across the tile's columns instead)
  int buffer = -1;       // Store
  ExprP index, value;    // Store: buffer[index] = value; Assign: var = value
  std::vector<StmtP> body;  // For, Seq
};

struct Variable {
  enum class Role { Dim, Loop, Local };
  std::string name;
  ScalarType type = ScalarType::I64;
  Role role = Role::Loop;
  int dimIndex = -1;  // Dim: position in the kernel's dims argument
};

struct Buffer {
  std::string name;
  ScalarType type = ScalarType::F32;
  bool param = true;            // a kernel argument; else a local array of `localSize` elements
  int64_t localSize = 0;
  std::vector<std::string> shape;  // printed shape of a parameter (documentation and T.Buffer)
};

struct Kernel {
  std::string name;
  std::vector<Buffer> buffers;     // parameters first (inputs, then outputs), then local arrays
  std::vector<Variable> vars;
  std::vector<std::string> dims;   // the symbolic dims the caller passes, in order
  std::vector<StmtP> body;
  size_t paramCount() const;
};

// Builds kernels with typed expressions.
class KernelBuilder {
 public:
  explicit KernelBuilder(std::string name) { k_.name = std::move(name); }
  int param(std::string name, ScalarType t, std::vector<std::string> shape = {});
  int localArray(std::string name, ScalarType t, int64_t size);
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
ExprP binary(std::string op, ExprP a, ExprP b);  // comparisons give Bool; arithmetic keeps a's type
ExprP unary(std::string op, ExprP a);
ExprP select(ExprP cond, ExprP a, ExprP b);
ExprP cast(ScalarType t, ExprP a);
inline ExprP operator+(ExprP a, ExprP b) { return binary("+", std::move(a), std::move(b)); }
inline ExprP operator*(ExprP a, ExprP b) { return binary("*", std::move(a), std::move(b)); }
inline ExprP operator-(ExprP a, ExprP b) { return binary("-", std::move(a), std::move(b)); }

StmtP forLoop(int var, ExprP extent, std::vector<StmtP> body, bool parallel = false);
StmtP tileLoop(int var, ExprP extent, std::vector<StmtP> body);  // a For with keepScalar
StmtP store(int buffer, ExprP index, ExprP value);
StmtP assign(int local, ExprP value);
StmtP seq(std::vector<StmtP> body);

// The kernel as a T.prim_func body (flat indices), for --print-after and tvms/viewIR.
std::vector<std::string> printKernelBody(const Kernel& k);

}  // namespace tvms::codegen
