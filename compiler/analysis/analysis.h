#pragma once
// Struct-info deduction and the module's vdevice checks. Deduction is per function: a function whose
// IR object did not change (the frontend re-lowers only the edited function) and whose module
// context (vdevice list, function signatures) is unchanged keeps its previous results.
#include <memory>
#include <string_view>
#include <unordered_map>
#include <vector>

#include "compiler/diagnostics/diagnostic.h"
#include "compiler/frontend/frontend.h"

namespace tvms::analysis {

using syntax::ByteRange;

struct VarFact {
  ir::StructInfoPtr sinfo;             // null: unknown (after an error, or an unmodelled op)
  // Where its vdevice came from, root first: built and used while deducing the function (TVS203/214
  // carry it as related information), emptied afterwards.
  std::vector<diag::Related> placement;
};

// A module function as the functions calling it see it: its parameters' and result's struct info (a
// prim_func: its parameters and matched buffers as written), compared by structure — not as printed
// text — so an edit inside a function keeps its callers' analyses while its signature is equal.
struct Signature {
  bool defined = false;  // false: the module has no function of that name
  std::vector<ir::StructInfoPtr> params;
  ir::StructInfoPtr ret;
  std::vector<std::string> primParams;  // prim_func: "name:annotation" per parameter, then each matched buffer
  bool operator==(const Signature& other) const;
  bool operator!=(const Signature& other) const { return !(*this == other); }
};

struct FunctionAnalysis {
  const ir::Function* function = nullptr;
  // The function analysed, watched: an analysis is reused only for the very object it analysed
  // (analyzes(f)). Comparing addresses alone reused a stale analysis when a relowered function was
  // allocated where a freed one had been.
  std::weak_ptr<const ir::Function> owner;
  bool analyzes(const std::shared_ptr<ir::Function>& f) const {
    return f && function == f.get() && !owner.expired();
  }
  std::unordered_map<const ir::Var*, VarFact> vars;
  ir::StructInfoPtr ret;  // the return struct info after refinement from the body
  std::vector<diag::Diagnostic> diagnostics;
  Signature signature;  // its signature as the functions calling it see it
  // What it was deduced against: the module's vdevice list and the signatures of the module functions
  // it looked at (by name; an undefined Signature for a name the module did not define). It is reused
  // while they hold.
  std::string deviceKey;
  std::vector<std::string> globalsUsed;
  std::vector<std::pair<std::string, Signature>> signaturesUsed;
  // Its vdevice strings / I.vdevice values and hint_on_device calls (checks.h: collectVDeviceUses),
  // so the module's vdevice checks need not walk an unchanged function again.
  std::vector<const ir::VDeviceRef*> vdeviceUses;
  std::vector<const ir::Call*> hints;
};

struct ModuleAnalysis {
  std::vector<std::shared_ptr<const FunctionAnalysis>> functions;  // aligned with module->functions (null: prim_func)
  std::vector<diag::Diagnostic> diagnostics;                        // module-level vdevice checks
  size_t deduced = 0;  // functions deduced by this call (the others were reused)
  std::vector<diag::Diagnostic> all() const;
};

// `text` is the document text (fixes quote operands). For a one-shot lint, `keepFacts` false drops each
// function's facts about its variables once its checks are done (nothing reads them after; hover and
// the editor's features do, on the language server's analyses). `helpers` threads beside the caller's
// deduce functions too (a large module's; the result is the same, in the same order).
ModuleAnalysis analyzeModule(const frontend::Region& region, std::string_view text,
                             const ModuleAnalysis* previous = nullptr, bool keepFacts = true, unsigned helpers = 0);

// Deduction of a function built by a pass (no source text, no ranges): what Normalize annotates
// every variable with.
std::shared_ptr<const FunctionAnalysis> deduceWithoutSource(const ir::IRModule& m, const ir::Function& fn);

// RealizeVDevice's device boundaries: a call whose result is not tied to its operands' device (a call
// of another function, hint_on_device, to_vdevice, an op whose result's vdevice is written).
bool isDeviceBoundary(const ir::Call& c);

// "kind:i", the spelling that names a declared entry.
std::string spellingOf(const ir::IRModule& m, const ir::VDevice* v);

}  // namespace tvms::analysis
