#pragma once
// The values the static Python evaluator (python_eval.h) computes: what a name of the file's Python
// holds at a point of the program, as far as it can be known without running anything. Lists, dicts
// and objects are shared, so identity is kept: two `I.vdevice("llvm")` calls are two objects, one
// call bound to a name is one object however often the name is used (what TVM's vdevice checks ask).
#include <map>
#include <memory>
#include <string>
#include <vector>

#include "compiler/ir/expr.h"
#include "compiler/ir/vdevice.h"
#include "compiler/syntax/document.h"

namespace tvms::frontend {

struct PyValue;
using PyList = std::vector<PyValue>;

// An object of the builder APIs or the pipeline (a BlockBuilder, a frame, a module, a pass, an
// executable): what it is, for the code that gives it meaning (builder_program.cpp).
struct PyObject {
  virtual ~PyObject() = default;
  virtual std::string typeName() const = 0;
};

struct PyValue {
  enum class Kind {
    Unknown,   // not known statically; `why` says what made it so
    None, Bool, Int, Float, Str,
    Tuple, List, Dict,
    VDevice,   // an I.vdevice / tvm.ir.VDevice object (identity = the pointer)
    Device,    // tvm.cpu(0), tvm.cuda(1)
    Relax,     // a Relax expression built by the program (a variable, an op call)
    SInfo,     // R.Tensor(...), relax.TensorStructInfo(...)
    Array,     // a numpy array: its shape and dtype only
    SymVar,    // tirx.Var("n", "int64"): a symbolic dimension, `text` its name, `dtype` its type
    Namespace, // a module or attribute path without a value of its own: "numpy.random", "tvm.relax"
    PyFunction,// a `def` of the file
    Lambda,    // a `lambda` expression: `text` its source (an index map for R.layout_transform)
    Object,    // builder/pipeline objects
  };
  Kind kind = Kind::Unknown;
  bool boolean = false;
  int64_t integer = 0;
  double real = 0;
  std::string text;                       // Str; Namespace: its dotted path; Unknown: why
  std::shared_ptr<PyList> items;          // Tuple / List (shared: identity); Array: its shape as Ints
  std::shared_ptr<std::vector<std::pair<PyValue, PyValue>>> dict;  // Dict, in insertion order
  std::shared_ptr<ir::VDevice> vdevice;   // VDevice
  ir::DeviceHint device;                  // Device
  ir::ExprPtr relax;                      // Relax
  ir::StructInfoPtr sinfo;                // SInfo
  std::string dtype;                      // Array
  TSNode node{};                          // PyFunction: its function_definition
  std::shared_ptr<PyObject> object;       // Object
  syntax::ByteRange origin;               // where the value was made (a VDevice's call, a list literal)

  static PyValue unknown(std::string why) { PyValue v; v.text = std::move(why); return v; }
  static PyValue none() { PyValue v; v.kind = Kind::None; return v; }
  static PyValue ofBool(bool b) { PyValue v; v.kind = Kind::Bool; v.boolean = b; return v; }
  static PyValue ofInt(int64_t i) { PyValue v; v.kind = Kind::Int; v.integer = i; return v; }
  static PyValue ofFloat(double d) { PyValue v; v.kind = Kind::Float; v.real = d; return v; }
  static PyValue ofStr(std::string s) { PyValue v; v.kind = Kind::Str; v.text = std::move(s); return v; }
  static PyValue ofSequence(PyList items, bool tuple) {
    PyValue v;
    v.kind = tuple ? Kind::Tuple : Kind::List;
    v.items = std::make_shared<PyList>(std::move(items));
    return v;
  }
  static PyValue ofNamespace(std::string path) { PyValue v; v.kind = Kind::Namespace; v.text = std::move(path); return v; }
  static PyValue ofRelax(ir::ExprPtr e) { PyValue v; v.kind = Kind::Relax; v.relax = std::move(e); return v; }
  static PyValue ofObject(std::shared_ptr<PyObject> o) { PyValue v; v.kind = Kind::Object; v.object = std::move(o); return v; }

  bool known() const { return kind != Kind::Unknown; }
  bool isSequence() const { return kind == Kind::Tuple || kind == Kind::List; }
  template <class T>
  T* as() const { return kind == Kind::Object ? dynamic_cast<T*>(object.get()) : nullptr; }
};

// Python's repr-like text of a value, for messages ("(1, 28, 28, 3)").
std::string describe(const PyValue& v);

}  // namespace tvms::frontend
