#pragma once
// A compiled module as the VM runs it: the device list (slot i = vdevice i of global_infos), the
// kernels by name and target kind, constants, and each function's bytecode. Written to and read
// from .tvmx files together with one module blob per target kind (llvm: a shared library).
#include <cstdint>
#include <map>
#include <memory>
#include <optional>
#include <string>
#include <vector>

#include "runtime/kernel_library.h"
#include "runtime/ndarray.h"

#include "runtime/target_kind.h"

namespace tvms::runtime {

struct DeviceSlot {
  std::string kind;      // target kind: "llvm", "cuda"
  int deviceType = 1;    // DLPack code
  int64_t vdeviceId = 0;
  std::string scope = "global";
  std::string spelling;  // "llvm:0", for messages
  // The device its kernels were built for when `tvms build --device SPELLING=X` remapped it ("cpu",
  // "cuda:0"), "" otherwise: the artifact runs it there without the flag being given again.
  std::string builtFor;
};

// An operand of shape arithmetic: an immediate or a slot of the frame's dim heap.
struct DimOperand {
  bool isSlot = false;
  int64_t value = 0;
};

enum class Opcode : uint8_t {
  ComputeDim,   // heap[dst] = b <op> d (+ - * / % M(ax) m(in))   args: op, b.isSlot, b.value, d.isSlot, d.value
                // op 'B' / 'E': check b and d broadcast / are equal, else fail with string args[5]
  AllocStorage, // r[dst] = storage on slot a, bytes (operand)   args: dst, slot, isSlot, value
  AllocTensor,  // r[dst] = view of storage r[a] at offset 0, dtype, dims (operands)
  CallKernel,   // kernel a on device slot b (r[args]..., dims heap[slots]...)  args: kernel, slot, nBuf, regs..., dim slots...
  ToDevice,     // r[dst] = copy of r[a] on slot b
  LoadConst,    // r[dst] = constant a on slot b
  MakeTuple,    // r[dst] = (r[args]...)
  GetItem,      // r[dst] = r[a][b]
  Move,         // r[dst] = r[a]
  CallFunc,     // r[dst] = function a (r[args]...)
  IfNot,        // if not r[a]: pc = b
  Goto,         // pc = a
  Ret,          // return r[a]
  Release,      // r[a] = nothing (its last use: storage may go back to the device)
  CallLibrary,  // library function a on device slot b (r[args]...: inputs, then the output)  args: function, slot, n, regs...
  Print,        // prints r[args]... with format string a (-1: none); r[dst] = ()       args: format, regs...
  Assert,       // fails the run unless r[a] is true: message string b (-1: none) with r[args]...; r[dst] = ()  args: cond, format, regs...
  MakeShape,    // r[dst] = a shape value of the dims (operands)                    args: isSlot, value, ...
  ShapeOf,      // r[dst] = the shape of the tensor r[a]
  MakeInt,      // r[dst] = an integer (a prim value) from one operand                args: isSlot, value
  ShapeToTensor,// r[dst] = the shape value r[a] as a 1-D int64 tensor on slot b
  TensorToShape,// r[dst] = the values of the 1-D integer tensor r[a] as a shape value
  ShapeDims,    // heap[args[1 + i]] = dim i of the shape value r[a] (slot -1: not bound)  args: reg, slots...
  View,         // r[dst] = the tensor r[a]'s storage under the dims (operands), same dtype: no copy  args: reg, isSlot, value, ...
  MakeClosure,  // r[dst] = function a with the captured values r[args]...            args: function, regs...
  InvokeClosure,// r[dst] = the closure r[a] called with r[args]..., then what it captured  args: closure, regs...
};

struct Instruction {
  Opcode op;
  int32_t dst = -1;
  std::vector<int64_t> args;
};

// What a parameter must be: a tensor of this dtype and rank on this slot; each dim either fixed,
// bound to a heap slot at its first appearance, or checked against the slot after that.
struct ParamSpec {
  std::string name;
  bool tensor = true;
  std::string dtype;     // empty: any
  int ndim = -1;         // -1: any rank
  // Computed: an expression of dims bound elsewhere ("n * 3"), `program` its postfix form
  // (runtime/shape_math.h evalDimProgram), checked once every parameter is bound.
  struct Dim {
    enum Kind { Any, Fixed, Bind, Check, Computed } kind = Any;
    int64_t value = 0;
    std::string name;
    std::vector<int64_t> program;
  };
  std::vector<Dim> dims;
  int slot = -1;         // -1: anywhere
  std::string sinfo;     // the parameter's struct info as TVMScript, for messages
  bool tuple = false;    // a tuple of `fields` (each a tensor or a tuple again)
  std::vector<ParamSpec> fields;
  bool prim = false;     // an integer (R.Prim("int64")): its value binds dims[0] (Bind / Check)
};

struct VMFunction {
  std::string name;
  std::vector<ParamSpec> params;
  std::string retSInfo;
  int numRegisters = 0;  // params occupy registers 0..params-1
  int numDims = 0;       // heap slots
  std::vector<Instruction> code;
  std::vector<std::string> outputNames;  // for printing: the returned variable, or its tuple fields
};

// A compiled kernel. Which device runs it is the call site's choice (call_kernel's slot): one
// kernel serves every device of its target kind.
struct KernelRef {
  std::string name;
  std::string kind{kHostKind};  // the target kind it is built for: which library holds it
};

// The kernels of one target kind as the artifact stores them (llvm: a shared library).
struct KernelModule {
  std::string kind;
  std::vector<char> blob;
};

struct ConstantData {
  DType dtype = DType::F32;
  std::vector<int64_t> shape;
  std::vector<char> bytes;
};

// CUDA graphs (TVM's relax.backend.use_cuda_graph; `--cuda-graph`): whether the VM records a
// function's device work on a call and replays it after (runtime/graph_capture.h). Auto and On both
// record what can be recorded; On also says why a function could not be.
enum class GraphMode { Auto, On, Off };
const char* graphModeName(GraphMode m);  // "auto", "on", "off"
std::optional<GraphMode> parseGraphMode(const std::string& text);

struct Executable {
  std::vector<DeviceSlot> devices;
  std::vector<KernelRef> kernels;
  std::vector<std::string> libraryFunctions;  // the runtime library functions called (runtime/registry.h), by name
  std::vector<ConstantData> constants;
  std::vector<std::string> strings;  // the format strings of Print and Assert
  std::vector<VMFunction> functions;
  std::map<std::string, std::shared_ptr<KernelLibrary>> libraries;  // by target kind: JIT'd, or the artifact's modules loaded
  std::vector<KernelModule> modules;  // one blob per target kind, when built for an artifact
  GraphMode graphs = GraphMode::Auto;  // the build's choice; `tvms run --cuda-graph` overrides it

  const VMFunction* function(const std::string& name) const;
  // The function `name`; throws std::invalid_argument listing the module's functions when it has none.
  const VMFunction& functionNamed(const std::string& name) const;
};

// .tvmx: "TVMX" + version, metadata (JSON), constants, one module blob per target kind.
void saveExecutable(const Executable& e, const std::string& path);
// Loads the module of each kind through its registered loader (runtime/registry.h); throws
// std::runtime_error with a clear message.
Executable loadExecutable(const std::string& path);

// A listing of the bytecode, for --print-after=LowerToVM and tests.
std::string disassemble(const Executable& e);

}  // namespace tvms::runtime
