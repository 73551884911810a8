#pragma once
// The pipeline half of a file's Python (builder_program.h): TVM's passes, Sequential, PassContext,
// partition_for_cublas / cudnn, relax.build and relax.VirtualMachine given their meaning over the
// modules the program made, as a ProgramPipeline for `tvms build` / `tvms run`, and checked against
// those modules (TVS301-TVS304).
#include <memory>
#include <optional>
#include <string>
#include <vector>

#include "compiler/frontend/frontend.h"
#include "compiler/frontend/python_value.h"

namespace tvms::frontend {

class PythonEvaluator;

// A module the program holds (a builder's, TVMScript's or tvm.IRModule's), with the pipeline applied
// to it so far.
struct ModuleObj : PyObject {
  size_t region = 0;
  std::vector<std::string> passes;  // the pipeline applied so far, in order
  std::vector<std::pair<size_t, std::shared_ptr<const ir::VDevice>>> updateVDevice;
  bool offload = false;
  std::string typeName() const override { return "tvm.IRModule"; }
};

class PipelineModel {
 public:
  // `regions` are the program's (a module's region indexes them), kept by the caller.
  PipelineModel(PythonEvaluator& py, const std::vector<std::unique_ptr<Region>>& regions) : py_(py), regions_(regions) {}
  // A call of `name` (canonical, builder spellings resolved) that is a pipeline call; nullopt when
  // `name` is none of them.
  std::optional<PyValue> call(const std::string& name, TSNode call);
  // A pass object called on a module (`relax.transform.LegalizeOps()(mod)`); nullopt: not a pass.
  std::optional<PyValue> callObject(const PyValue& callee, TSNode call);
  // `with PassContext(...)`: true when `value` is one (entered or left).
  bool enter(const PyValue& value);
  bool exit(const PyValue& value);
  // What relax.build compiles, and how: its last call's.
  const std::optional<ProgramPipeline>& pipeline() const { return pipeline_; }

 private:
  struct Context {
    std::optional<bool> useCudaGraph;  // config "relax.backend.use_cuda_graph"
  };
  std::optional<PyValue> makePass(const std::string& name, TSNode call);
  std::optional<PyValue> sequential(TSNode call);
  std::optional<PyValue> partitionFor(const std::string& library, TSNode call);
  std::optional<PyValue> build(TSNode call);
  void checkTarget(const ProgramPipeline& p, const std::vector<std::shared_ptr<const ir::VDevice>>& vdevices, TSNode at, const Region& r);
  std::optional<PyValue> passContext(TSNode call);
  std::optional<PyValue> virtualMachine(TSNode call);
  // The module's vdevice list after the UpdateVDevice passes the program applied to it.
  std::vector<std::shared_ptr<const ir::VDevice>> effectiveVDevices(const ModuleObj& m);
  void report(diag::Code code, TSNode at, std::string message, std::vector<diag::Related> related = {});

  PythonEvaluator& py_;
  const std::vector<std::unique_ptr<Region>>& regions_;
  std::optional<ProgramPipeline> pipeline_;
  std::vector<Context> contexts_;  // the `with PassContext(...)` blocks open, innermost last
};

}  // namespace tvms::frontend
