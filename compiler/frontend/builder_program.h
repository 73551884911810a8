#pragma once
// The Python around the IR: a file's program evaluated statically (python_eval.h), with TVM's builder
// APIs given their meaning, so a module built in Python gets the same Relax IR, source map and checks
// as one written in TVMScript:
// - IRBuilder programs: `with IRBuilder() as b:`, `relax_builder.function()`, `R.func_name`, `R.arg`,
//   `R.dataflow()`, `R.emit`, `R.emit_match_cast`, `R.output`, `R.func_ret_value`, `b.get()`,
//   `I.ir_module()` frames;
// - BlockBuilder programs: `relax.BlockBuilder()`, `relax.Var`, `bb.function`, `bb.dataflow`,
//   `bb.emit`, `bb.emit_output`, `bb.emit_func_output`, `bb.match_cast`, `bb.get()`;
// - modules: `tvm.IRModule({...}, global_infos=...)`, `mod.update_global_info`;
// - the pipeline: `relax.transform.*()(mod)`, `partition_for_cublas/cudnn`, `PassContext`,
//   `relax.build`, `relax.VirtualMachine`, checked against the module (TVS301-TVS304): builder_pipeline.h.
// TVMScript definitions the program reaches are lowered where they stand, reading its names.
#include <functional>
#include <set>

#include "compiler/frontend/frontend.h"

namespace tvms::frontend {

class Aliases;

// Lowers a TVMScript definition (a decorated class or function) with the program's names visible
// (`python` may be null: a definition the program never reached). Appends its region(s) to `out`.
using TvmscriptLowering = std::function<void(TSNode decorated, class PythonEvaluator* python, std::vector<Region>& out)>;

struct ProgramResult {
  std::vector<Region> regions;                // TVMScript regions reached and builder programs' modules
  std::set<uint32_t> lowered;                 // start bytes of the TVMScript definitions lowered above
  std::optional<ProgramPipeline> pipeline;    // `region` indexes `regions`
  std::vector<diag::Diagnostic> diagnostics;  // about the Python: not followed (TVS011), pipeline checks
};

// Evaluates the file's Python. Cheap for a file that is only TVMScript: its statements are imports
// and decorated definitions.
ProgramResult runProgram(const syntax::Document& doc, const Aliases& aliases, const TvmscriptLowering& lowerTvmscript);

}  // namespace tvms::frontend
