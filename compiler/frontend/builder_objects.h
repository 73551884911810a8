#pragma once
// The Python objects builder programs hold (builder_program.cpp) and module assembly reads
// (builder_modules.cpp): a builder's state, its frames, the functions it built. Internal to the
// frontend's builder files.
#include <memory>
#include <string>
#include <vector>

#include "compiler/frontend/cst.h"
#include "compiler/frontend/frontend.h"
#include "compiler/frontend/lowerer.h"
#include "compiler/frontend/python_value.h"

namespace tvms::frontend::builder {

struct FunctionObj : PyObject {
  size_t region = 0;
  ir::FunctionPtr relax;
  ir::PrimFuncPtr tir;
  std::string typeName() const override { return relax ? "relax.Function" : "tirx.PrimFunc"; }
};

// One builder program: its region, the Lowerer that lowers its expressions, the function being built.
struct BuilderState {
  size_t region = 0;
  std::unique_ptr<Lowerer> lowerer;
  ir::FunctionPtr fn;
  ir::SeqExprPtr seq;
  ir::BindingBlockPtr block;
  bool moduleFrame = false;
  bool isBlockBuilder = false;
  bool pending = false;  // made for values before any builder; the next BlockBuilder adopts it
  uint64_t frame = 0;    // the Python function run that made it
  PyValue result;  // IRBuilder.get(): the last function, or the module of an I.ir_module() frame
  std::shared_ptr<PyList> outputs;  // the open dataflow frame's R.output variables
  struct Suspended {
    ir::FunctionPtr fn;
    ir::SeqExprPtr seq;
    ir::BindingBlockPtr block;
    std::shared_ptr<PyList> outputs;
  };
  std::vector<Suspended> suspended;  // outer functions paused by a function begun inside them
};
struct IRBuilderObj : PyObject {
  std::shared_ptr<BuilderState> st;
  std::string typeName() const override { return "IRBuilder"; }
};
struct BlockBuilderObj : PyObject {
  std::shared_ptr<BuilderState> st;
  std::string typeName() const override { return "relax.BlockBuilder"; }
};
struct FunctionFrameObj : PyObject {
  std::shared_ptr<BuilderState> st;
  std::string name;
  PyValue params;  // BlockBuilder.function's list of relax.Var
  PyValue attrs;
  std::string typeName() const override { return "FunctionFrame"; }
};
struct DataflowFrameObj : PyObject {
  std::shared_ptr<BuilderState> st;
  std::shared_ptr<PyList> outputs = std::make_shared<PyList>();
  std::string typeName() const override { return "BlockFrame"; }
};
struct ModuleFrameObj : PyObject {
  std::shared_ptr<BuilderState> st;
  std::string typeName() const override { return "IRModuleFrame"; }
};

// The statement a node stands in (its ancestor whose parent is a block or the module).
inline TSNode statementOf(TSNode n) {
  while (!ts_node_is_null(n)) {
    TSNode p = ts_node_parent(n);
    if (ts_node_is_null(p) || isType(p, "block") || isType(p, "module")) return n;
    n = p;
  }
  return n;
}

// Grows a builder's region to cover the statement `n` stands in.
inline void extendToStatement(Region& r, TSNode n) {
  syntax::ByteRange s = rangeOf(statementOf(n));
  r.range.begin = std::min(r.range.begin, s.begin);
  r.range.end = std::max(r.range.end, s.end);
}

}  // namespace tvms::frontend::builder
