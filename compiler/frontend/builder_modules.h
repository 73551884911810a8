#pragma once
// Modules as builder programs assemble them: `tvm.IRModule({...}, global_infos=...)`,
// `IRModule.from_expr`, `I.module_global_infos` in an IRBuilder frame, `mod.update_global_info`.
// A module is the region its functions' builder lowered into; its vdevice list is the program's list
// object, whose entries, by identity, are what the functions' vdevice uses must be.
#include <memory>
#include <optional>
#include <string>
#include <vector>

#include "compiler/frontend/builder_objects.h"

namespace tvms::frontend {
class PythonEvaluator;
}

namespace tvms::frontend::builder {

class ModuleAssembly {
 public:
  // `regions` and `states` are the program's, kept by it.
  ModuleAssembly(PythonEvaluator& py, std::vector<std::unique_ptr<Region>>& regions, std::vector<std::shared_ptr<BuilderState>>& states)
      : py_(py), regions_(regions), states_(states) {}
  // tvm.IRModule(...) (or, with `single`, IRModule.from_expr(f) naming f `single`): a ModuleObj, an
  // unknown value when the module is not known statically, nullopt when the call is not one.
  std::optional<PyValue> assemble(TSNode call, const std::string& single = "");
  // global_infos={"vdevice": [...]} for `region`'s module.
  void setGlobalInfos(size_t region, const PyValue& infos, TSNode node);
  // The module's vdevice list set to `list` (written at `node`).
  void setVDevices(size_t region, const PyValue& list, TSNode node);

 private:
  std::vector<BuilderState*> statesOf(size_t region);

  PythonEvaluator& py_;
  std::vector<std::unique_ptr<Region>>& regions_;
  std::vector<std::shared_ptr<BuilderState>>& states_;
};

}  // namespace tvms::frontend::builder
