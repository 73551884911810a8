#pragma once
// The build pipeline as data (as TVM's Sequential of ModulePasses and MLIR's pass registry): one list
// of named passes in order, declared in pass_list.cpp, drives `tvms build` (and run), `--print-after`
// (which stops after the pass it prints), `--passes=NAME,...`, `tvms parse --after` and the server's
// tvms/viewIR. Adding a pass is one entry there.
#include <optional>
#include <string>
#include <string_view>
#include <vector>

#include "compiler/transform/legalize_ops.h"
#include "compiler/transform/lower_to_vm.h"

namespace tvms::driver {

struct BuildOptions;

// What the passes hand along: the module (Relax, then legalized with its kernels beside it), then
// the VM's bytecode.
struct PipelineState {
  transform::LegalizedModule legal;       // legal.module: what every pass up to LowerToVM rewrites
  std::optional<transform::LoweredVM> vm;  // set by LowerToVM
  std::vector<std::string> errors;        // a pass that cannot go on says why here; the pipeline stops
  // Set by the driver before each pass: the pass after it in the plan ("" for the last), and whether
  // the module is printed after it. A pass may do the next one's work with its own when nothing looks
  // at the module between them (FuseOps with FuseTIR, function by function) and say so in `ranNext`.
  std::string_view nextPass;
  bool printedAfter = false;
  bool ranNext = false;
};

struct Pass {
  std::string_view name;
  std::string_view summary;            // one line: what it does
  std::vector<std::string_view> needs;  // passes that must have run before it
  // In the default pipeline: whether these options run it (null: always). A pass they leave out is
  // printed after, or named in --passes, only when asked for as `howToAsk` says.
  bool (*askedFor)(const BuildOptions& options) = nullptr;
  std::string_view howToAsk;
  // Whether the options carry what it needs to run at all (null: nothing): UpdateVDevice's vdevice.
  bool (*hasArguments)(const BuildOptions& options) = nullptr;
  void (*run)(PipelineState& state, const BuildOptions& options) = nullptr;
};

// Every pass, in pipeline order.
const std::vector<Pass>& passList();
const Pass* findPass(std::string_view name);
// "UpdateVDevice, Normalize, ...": the names, for messages.
std::string passNamesText();

// The passes a build runs: `options.passes` when given, else the list's passes the options ask for;
// up to `options.stopAfter` when set. An empty result and `*error` set when that cannot run (an unknown
// pass, one named twice or before a pass it needs, one without its arguments, stopping after a pass
// that does not run).
std::vector<const Pass*> planPasses(const BuildOptions& options, std::string* error);

}  // namespace tvms::driver
