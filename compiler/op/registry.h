#pragma once
// The op registry: every Relax op tvms knows, each declared once with its parameters (kinds and
// defaults), its vdevice rule and its documentation. The frontend checks and normalises calls with it;
// hover and completion read its docs; struct-info deduction and legalization attach to the same entry
// (`infer`, `legalize`) as they land.
#include <functional>
#include <memory>
#include <optional>
#include <string>
#include <string_view>
#include <vector>

#include "compiler/ir/expr.h"
#include "compiler/op/infer.h"

namespace tvms::tir {
struct Expr;
}  // namespace tvms::tir

namespace tvms::op {
struct LegalizeInput;
struct LegalizeResult;
// Lowers one call of the op to a loop-IR kernel (compiler/op/legalize.h).
using LegalizeFn = LegalizeResult (*)(const LegalizeInput&);
// An elementwise op's value at one element from its tensor operands' values there
// (compiler/op/scalar_math.h); null when this call cannot be computed that way.
using ScalarFn = std::shared_ptr<const tir::Expr> (*)(const std::vector<std::shared_ptr<const tir::Expr>>& x, const LegalizeInput& in);
}  // namespace tvms::op

namespace tvms::op {

enum class ParamKind {
  // Expression parameters (Call::args)
  Tensor,      // a tensor-valued expression
  TensorList,  // a tuple of tensors: (a, b) or a tuple-valued variable
  Expr,        // any Relax expression (call_tir's callee and argument tuple, ...)
  Shape,       // a shape expression: (2, n), [2, n], R.shape([...]) or a shape-valued variable
  Prim,        // a prim value: a number or symbolic expression (clip's bounds)
  Callee,      // a function: cls.fn, or a string naming a packed function
  Variadic,    // every remaining positional argument (call_packed's arguments)
  // Attribute parameters (Call::attrs)
  Int, Float, Bool, String,
  IntList,     // an int or a list of ints: axis, padding, strides
  DType, VDevice, Device,
  Any,         // any literal (kept as written)
  // Struct info (Call::sinfoArgs): out_sinfo / sinfo_args
  SInfo,
};
bool isExpressionKind(ParamKind k);
bool isAttributeKind(ParamKind k);
std::string_view kindName(ParamKind k);

struct Param {
  std::string name;
  ParamKind kind;
  std::optional<ir::Value> defaultValue;  // none: required
  bool optionalNone = false;              // default is None (for expression parameters: may be absent)
  bool positional = false;                // attribute printed positionally
  std::string eraAlias;                   // the v0.26 spelling of the keyword (out_sinfo -> out_ty)
  bool required() const { return !defaultValue && !optionalNone; }
  std::string text() const;  // as the signature shows it: "axis=-1", "*tensors"
};

// How the result's vdevice follows the operands (LANGUAGE.md §6.1).
enum class DeviceRule { Strict, Lenient, PrimaryInput, FillValue, NoDevice, ToVDevice, HintOnDevice, Written, Unmodelled };

struct OpDef {
  std::string name;        // "relax.nn.conv2d"
  std::vector<Param> params;
  DeviceRule deviceRule = DeviceRule::Unmodelled;
  std::string doc;
  std::string pythonOperator;  // "+" for add: the Python operator that means this op, if any
  bool modelled = false;       // arguments checked and (next issues) deduced and legalized
  // Shape and dtype deduction (the vdevice follows deviceRule); null for unmodelled ops.
  InferFn infer = nullptr;
  // Its kernel in the loop IR (LegalizeOps); null: the op cannot be compiled yet.
  LegalizeFn legalize = nullptr;
  // An op whose result's shape depends on its operands' values (unique, nonzero,
  // dynamic_strided_slice), as TVM legalizes them: a kernel that writes the result's dims (every
  // output's, in order) into a 1-D int64 tensor, which the VM reads (R.tensor_to_shape) before
  // `legalize`'s kernel runs with those dims. Null for every other op.
  LegalizeFn shapeFunction = nullptr;
  // Elementwise ops: the value of one element (kernels::elementwise builds the loops around it).
  ScalarFn scalar = nullptr;
  // An op with no kernel that still runs: what runs it ("the VM's copy between devices"). Empty with
  // no kernel: the op cannot run yet (`tvms explain --ops` says which).
  std::string runsBy;
  // An op TVM runs only through a contrib library (BYOC), with no kernel of its own: that library, named
  // in `tvms explain --ops` and in the build's error.
  std::string library;
  // Convolutions and pooling: what their declaration table says of their windows, read by their
  // attribute records (nn_attrs.h) rather than from their names. dims 0: not such an op.
  struct Window {
    int dims = 0;  // spatial dims, 1-3
    bool transpose = false, adaptive = false;
  } window;

  const Param* param(std::string_view n) const;
  std::string signature() const;  // "R.nn.softmax(data, axis=-1)"
  std::string scriptName() const; // "R.nn.softmax"
};

// The ops the passes and the VM treat themselves, by identity (Call::def == &builtin::callTir()).
namespace builtin {
const OpDef& callTir();
const OpDef& callTirInplace();
const OpDef& toVDevice();
const OpDef& hintOnDevice();
const OpDef& callDpsPacked();
const OpDef& print();
const OpDef& assertOp();
const OpDef& callPacked();
const OpDef& callPurePacked();
const OpDef& nullValue();
const OpDef& shapeOf();
const OpDef& reshape();  // a view where RewriteDataflowReshape proved a copy unneeded
const OpDef& shapeToTensor();
const OpDef& tensorToShape();
const OpDef& callTirWithGrad();
const OpDef& callInplacePacked();
const OpDef& callBuiltinWithCtx();
const OpDef& makeClosure();
const OpDef& invokeClosure();
const OpDef& invokePureClosure();
// The memory forms TVM's passes leave (LowerToVM runs them).
const OpDef& memoryAllocStorage();
const OpDef& memoryAllocTensor();
const OpDef& builtinAllocTensor();
const OpDef& memoryKillStorage();
const OpDef& memoryKillTensor();
const OpDef& memoryView();
const OpDef& memoryEnsureZeroOffset();
}  // namespace builtin

// Looks an op up by registry name ("relax.add") or script name ("R.add").
const OpDef* findOp(std::string_view name);
const OpDef* findOpByPythonOperator(std::string_view pyOp, bool unary);
// True for every op name of TVM's registry, modelled or not, and for names under the builtin families
// (memory.*, vm.*, builtin.*, ccl.*, dist.*, grad.*, inspect.*, vision.*).
bool isKnownOpName(std::string_view registryName);
const std::vector<const OpDef*>& allOps();
// Levenshtein distance, for "did you mean" suggestions (op names, target kinds).
size_t editDistance(std::string_view a, std::string_view b);
// Known op names closest to a misspelling, best first (for "did you mean").
std::vector<std::string> closestOpNames(std::string_view registryName, size_t max = 3);

}  // namespace tvms::op
