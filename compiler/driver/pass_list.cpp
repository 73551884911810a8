#include "compiler/driver/pass_list.h"

#include <algorithm>

#include "compiler/driver/pipeline.h"
#include "compiler/transform/fuse.h"
#include "compiler/transform/passes.h"
#include "compiler/transform/views.h"

namespace tvms::driver {

namespace {

// UpdateVDevice(vdevice, index) for each `--update-vdevice`, in order.
void runUpdateVDevice(PipelineState& s, const BuildOptions& o) {
  for (auto& [index, vdevice] : o.updateVDevice) {
    if (index >= s.legal.module.vdevices.size()) {
      s.errors.push_back("UpdateVDevice: index " + std::to_string(index) + " is past the module's vdevice list (" +
                         std::to_string(s.legal.module.vdevices.size()) + " entries)");
      return;
    }
    s.legal.module = transform::updateVDevice(s.legal.module, vdevice, index);
  }
}

void runNormalize(PipelineState& s, const BuildOptions&) { s.legal.module = transform::normalize(std::move(s.legal.module)); }

void runRealizeVDevice(PipelineState& s, const BuildOptions&) {
  // Conflicts are lint's TVS204, reported before a build; the pass keeps the first placement.
  s.legal.module = transform::realizeVDevice(std::move(s.legal.module));
}

// With offload off the pass is still in the pipeline (printing after it shows the module unchanged).
void runOffloadLibraries(PipelineState& s, const BuildOptions& o) {
  if (o.offload) s.legal.module = transform::offloadLibraries(std::move(s.legal.module), o.remap);
}

void runLegalizeOps(PipelineState& s, const BuildOptions& o) { s.legal = transform::legalizeOps(std::move(s.legal.module), o.remap); }

void runFoldVDeviceScopeChange(PipelineState& s, const BuildOptions&) {
  s.legal.module = transform::foldVDeviceScopeChange(s.legal.module);
}

// Followed by FuseTIR with nothing printed between, both run function by function: the groups'
// Primitive functions never all exist at once (the same module after FuseTIR, less memory).
void runFuseOps(PipelineState& s, const BuildOptions&) {
  if (s.nextPass == "FuseTIR" && !s.printedAfter) {
    s.legal = transform::fuseOpsAndTIR(std::move(s.legal));
    s.ranNext = true;
  } else {
    s.legal = transform::fuseOps(std::move(s.legal));
  }
}
void runFuseTIR(PipelineState& s, const BuildOptions&) { s.legal = transform::fuseTIR(std::move(s.legal)); }

void runRewriteDataflowReshape(PipelineState& s, const BuildOptions&) { s.legal = transform::rewriteDataflowReshape(std::move(s.legal)); }

void runLowerToVM(PipelineState& s, const BuildOptions& o) {
  std::vector<std::string> kernelVDevices = s.legal.kernelVDevices;  // for code generation's messages
  s.vm = transform::lowerToVM(std::move(s.legal));
  s.legal = {};
  s.legal.kernelVDevices = std::move(kernelVDevices);
  for (auto& slot : s.vm->exe.devices)  // the artifact remembers which vdevices were built for another device
    if (auto it = o.remap.find(slot.spelling); it != o.remap.end()) slot.builtFor = it->second;
}

const std::vector<Pass> kPasses = {
    {"UpdateVDevice", "TVM's UpdateVDevice(vdevice, index): list entry `index` becomes `vdevice`, and what sat on it follows", {},
     [](const BuildOptions& o) { return !o.updateVDevice.empty(); },
     "add --update-vdevice=INDEX:KIND[:ID][:SCOPE] (or call relax.transform.UpdateVDevice in the file's program)",
     [](const BuildOptions& o) { return !o.updateVDevice.empty(); }, runUpdateVDevice},
    {"Normalize", "ANF, and deduced struct info on every variable", {}, nullptr, "", nullptr, runNormalize},
    {"RealizeVDevice", "every value placed: known placements flooded over co-location ties, hints resolved", {"Normalize"}, nullptr, "",
     nullptr, runRealizeVDevice},
    {"OffloadLibraries", "matmul / conv2d on a kind with library offloads -> R.call_dps_packed of cuBLAS / cuDNN", {"Normalize"},
     nullptr, "", nullptr, runOffloadLibraries},
    {"LegalizeOps", "each op call -> R.call_tir of a kernel built and scheduled for its vdevice's target", {"Normalize"}, nullptr, "",
     nullptr, runLegalizeOps},
    {"FoldVDeviceScopeChange", "TVM's: a call_tir whose only consumer changes the memory scope writes that scope directly",
     {"LegalizeOps"}, [](const BuildOptions& o) { return o.foldVDeviceScopeChange; }, "add --fold-vdevice-scope-change", nullptr,
     runFoldVDeviceScopeChange},
    {"FuseOps", "kernel calls that feed each other on one vdevice -> a private Primitive function per group (injective chains, a reduction with its prologue and elementwise epilogue)",
     {"LegalizeOps"}, [](const BuildOptions& o) { return o.fuse; }, "leave out --no-fuse", nullptr, runFuseOps},
    {"FuseTIR", "each group's call -> R.call_tir of one kernel fused from its members, scheduled for the group's vdevice", {"FuseOps"},
     [](const BuildOptions& o) { return o.fuse; }, "leave out --no-fuse", nullptr, runFuseTIR},
    {"RewriteDataflowReshape", "a kernel that only copies its operand in order (reshape, flatten, expand_dims, squeeze) -> R.reshape, a view: no kernel, no copy",
     {"LegalizeOps"}, nullptr, "", nullptr, runRewriteDataflowReshape},
    {"LowerToVM", "VM bytecode: device slots, kernel calls, storage planning", {"LegalizeOps"}, nullptr, "", nullptr, runLowerToVM},
};

std::string checkRequested(const std::vector<std::string>& names, const BuildOptions& options, std::vector<const Pass*>& out) {
  for (const std::string& name : names) {
    const Pass* p = findPass(name);
    if (!p) return "unknown pass '" + name + "' (passes: " + passNamesText() + ")";
    if (std::find(out.begin(), out.end(), p) != out.end()) return "--passes names " + name + " twice; each pass runs once";
    for (std::string_view need : p->needs)
      if (std::none_of(out.begin(), out.end(), [&](const Pass* q) { return q->name == need; }))
        return "--passes: " + name + " needs " + std::string(need) + " before it";
    if (p->hasArguments && !p->hasArguments(options)) return name + " needs its arguments: " + std::string(p->howToAsk);
    out.push_back(p);
  }
  return "";
}

}  // namespace

const std::vector<Pass>& passList() { return kPasses; }

const Pass* findPass(std::string_view name) {
  for (const Pass& p : kPasses)
    if (p.name == name) return &p;
  return nullptr;
}

std::string passNamesText() {
  std::string out;
  for (const Pass& p : kPasses) out += (out.empty() ? "" : ", ") + std::string(p.name);
  return out;
}

std::vector<const Pass*> planPasses(const BuildOptions& options, std::string* error) {
  std::vector<const Pass*> plan;
  std::string why;
  if (!options.passes.empty()) {
    why = checkRequested(options.passes, options, plan);
  } else {
    for (const Pass& p : kPasses)
      if (!p.askedFor || p.askedFor(options)) plan.push_back(&p);
  }
  if (why.empty() && !options.stopAfter.empty()) {
    const Pass* stop = findPass(options.stopAfter);
    auto at = std::find(plan.begin(), plan.end(), stop);
    if (!stop) why = "unknown pass '" + options.stopAfter + "' (passes: " + passNamesText() + ")";
    else if (at == plan.end() && !stop->howToAsk.empty()) why = options.stopAfter + " runs only when asked for: " + std::string(stop->howToAsk);
    else if (at == plan.end()) why = options.stopAfter + " is not among the passes run";
    else plan.erase(at + 1, plan.end());
  }
  if (!why.empty()) {
    if (error) *error = why;
    return {};
  }
  return plan;
}

}  // namespace tvms::driver
