// TVM's pipeline calls over the modules a file's Python made (builder_pipeline.h).
#include "compiler/frontend/builder_pipeline.h"

#include <algorithm>

#include "compiler/frontend/python_eval.h"
#include "compiler/ir/vdevice.h"
#include "runtime/target_kind.h"

namespace tvms::frontend {

using namespace ir;

namespace {

struct PassObj : PyObject {
  std::vector<std::string> names;
  std::vector<std::pair<size_t, std::shared_ptr<const VDevice>>> updateVDevice;
  std::string typeName() const override { return "tvm.transform.Pass"; }
};
struct ExecutableObj : PyObject {
  std::shared_ptr<ModuleObj> module;
  std::string typeName() const override { return "relax.Executable"; }
};
struct VMObj : PyObject {
  std::string typeName() const override { return "relax.VirtualMachine"; }
};
// tvm.transform.PassContext(config={...}): what a relax.build inside its `with` reads.
struct PassContextObj : PyObject {
  std::optional<bool> useCudaGraph;  // config "relax.backend.use_cuda_graph"
  std::string typeName() const override { return "tvm.transform.PassContext"; }
};

bool endsWith(std::string_view s, std::string_view suffix) { return s.size() >= suffix.size() && s.substr(s.size() - suffix.size()) == suffix; }

}  // namespace

std::optional<PyValue> PipelineModel::call(const std::string& name, TSNode call) {
  if (name.rfind("tvm.relax.transform.", 0) == 0 || name.rfind("tvm.s_tir.transform.", 0) == 0 || name.rfind("tvm.tir.transform.", 0) == 0)
    return makePass(name.substr(name.rfind('.') + 1), call);
  if (name == "tvm.transform.Sequential" || name == "tvm.ir.transform.Sequential") return sequential(call);
  if (name == "tvm.transform.PassContext" || name == "tvm.ir.transform.PassContext") return passContext(call);
  if (endsWith(name, "partition_for_cublas")) return partitionFor("cublas", call);
  if (endsWith(name, "partition_for_cudnn")) return partitionFor("cudnn", call);
  if (name == "tvm.relax.build" || name == "tvm.compile" || name == "tvm.relax.vm.build") return build(call);
  if (name == "tvm.relax.VirtualMachine" || name == "tvm.relax.vm.VirtualMachine") return virtualMachine(call);
  return std::nullopt;
}

bool PipelineModel::enter(const PyValue& value) {
  auto* c = value.as<PassContextObj>();
  if (c) contexts_.push_back({c->useCudaGraph});
  return c;
}

bool PipelineModel::exit(const PyValue& value) {
  if (!value.as<PassContextObj>()) return false;
  if (!contexts_.empty()) contexts_.pop_back();
  return true;
}

// partition_for_cublas / cudnn: the module offloads to the library where its ops match (as TVM does).
std::optional<PyValue> PipelineModel::partitionFor(const std::string& library, TSNode call) {
  auto args = py_.arguments(field(call, "arguments"));
  if (args.positional.empty()) return std::nullopt;
  auto* m = args.positional[0].as<ModuleObj>();
  if (!m) return PyValue::unknown("a module not known statically");
  auto out = std::make_shared<ModuleObj>(*m);
  out->offload = true;
  out->passes.push_back("partition_for_" + library);
  return PyValue::ofObject(out);
}

std::optional<PyValue> PipelineModel::makePass(const std::string& name, TSNode call) {
  auto p = std::make_shared<PassObj>();
  p->names.push_back(name);
  if (name == "UpdateVDevice") {
    auto args = py_.arguments(field(call, "arguments"));
    const PyValue* v = args.get(0, "new_vdevice");
    const PyValue* i = args.get(1, "index");
    if (!v || v->kind != PyValue::Kind::VDevice || !i || i->kind != PyValue::Kind::Int) {
      py_.notFollowed(call, "UpdateVDevice with values not known statically");
      return PyValue::unknown("an UpdateVDevice pass not known statically");
    }
    p->updateVDevice.emplace_back(static_cast<size_t>(i->integer), v->vdevice);
  }
  return PyValue::ofObject(p);
}
std::optional<PyValue> PipelineModel::sequential(TSNode call) {
  auto args = py_.arguments(field(call, "arguments"));
  const PyValue* list = args.get(0, "passes");
  if (!list || !list->isSequence()) return PyValue::unknown("a Sequential of passes not known statically");
  auto p = std::make_shared<PassObj>();
  for (auto& x : *list->items) {
    auto* q = x.as<PassObj>();
    if (!q) return PyValue::unknown("a Sequential of passes not known statically");
    p->names.insert(p->names.end(), q->names.begin(), q->names.end());
    p->updateVDevice.insert(p->updateVDevice.end(), q->updateVDevice.begin(), q->updateVDevice.end());
  }
  return PyValue::ofObject(p);
}
std::optional<PyValue> PipelineModel::callObject(const PyValue& callee, TSNode call) {
  auto* pass = callee.as<PassObj>();
  if (!pass) return std::nullopt;
  const PassObj& p = *pass;
  auto args = py_.arguments(field(call, "arguments"));
  if (args.positional.empty()) return std::nullopt;
  auto* m = args.positional[0].as<ModuleObj>();
  if (!m) return PyValue::unknown("a pass applied to a module not known statically");
  auto out = std::make_shared<ModuleObj>(*m);
  out->passes.insert(out->passes.end(), p.names.begin(), p.names.end());
  out->updateVDevice.insert(out->updateVDevice.end(), p.updateVDevice.begin(), p.updateVDevice.end());
  return PyValue::ofObject(out);
}

// The module's vdevice list after the UpdateVDevice passes the program applied to it.
std::vector<std::shared_ptr<const VDevice>> PipelineModel::effectiveVDevices(const ModuleObj& m) {
  std::vector<std::shared_ptr<const VDevice>> list = regions_[m.region]->module->vdevices;
  for (auto& [index, v] : m.updateVDevice)
    if (index < list.size()) list[index] = v;
  return list;
}

void PipelineModel::report(diag::Code code, TSNode at, std::string message, std::vector<diag::Related> related) {
  auto d = diag::make(code, rangeOf(at), std::move(message));
  d.related = std::move(related);
  py_.diagnostics().push_back(std::move(d));
}

std::optional<PyValue> PipelineModel::build(TSNode call) {
  auto args = py_.arguments(field(call, "arguments"));
  if (args.positional.empty()) return std::nullopt;
  auto m = std::dynamic_pointer_cast<ModuleObj>(args.positional[0].object);
  if (!m) return PyValue::unknown("a build of a module not known statically");
  ProgramPipeline p;
  p.region = m->region;
  p.passes = m->passes;
  p.updateVDevice = m->updateVDevice;
  p.offload = m->offload;
  // The innermost `with PassContext(...)` that says, as TVM reads its config.
  for (auto it = contexts_.rbegin(); it != contexts_.rend() && !p.useCudaGraph; ++it) p.useCudaGraph = it->useCudaGraph;
  auto vdevices = effectiveVDevices(*m);
  if (const PyValue* t = args.get(1, "target")) {
    TSNode tnode = args.nodeOf(1, "target");
    if (t->kind == PyValue::Kind::Dict) {
      report(diag::Code::TVS303, tnode,
             "relax.build takes one target (a string or tvm.target.Target), not a dict of targets as the old Relay "
             "build did: TVM fails on it. Each tensor's vdevice already names its target; pass the host target "
             "(\"llvm\") or none");
    } else if (t->kind == PyValue::Kind::Str) {
      p.target = t->text;
      checkTarget(p, vdevices, tnode, *regions_[m->region]);
    }
  }
  pipeline_ = p;
  auto e = std::make_shared<ExecutableObj>();
  e->module = m;
  return PyValue::ofObject(e);
}
void PipelineModel::checkTarget(const ProgramPipeline& p, const std::vector<std::shared_ptr<const VDevice>>& vdevices, TSNode at,
                                const Region& r) {
  if (vdevices.empty()) return;
  std::string kind = p.target.substr(0, p.target.find(' '));
  auto isCpuKind = [](const std::string& k) {
    const runtime::TargetKind* entry = runtime::findTargetKind(k);
    return entry && entry->isCpu();
  };
  bool cpuTarget = isCpuKind(kind);
  bool scheduled = std::count(p.passes.begin(), p.passes.end(), "DefaultGPUSchedule") > 0;
  for (auto& v : vdevices) {
    const std::string& vk = v->target.kind;
    bool gpu = !vk.empty() && !isCpuKind(vk);
    std::vector<diag::Related> rel;
    if (const ByteRange* at2 = r.map.find(v.get())) rel.push_back({*at2, "the '" + vk + "' vdevice"});
    if (cpuTarget && gpu && !scheduled) {
      report(diag::Code::TVS304, at,
             "relax.build(target=\"" + p.target + "\") compiles with the CPU pipeline: the kernels LegalizeOps binds to "
             "the '" + vk + "' vdevice get no GPU schedule there (TVM's dlight GPU pipeline runs only for a GPU target), "
             "so their build fails. Apply tvm.s_tir.transform.DefaultGPUSchedule() before relax.build, or pass target=\"" +
                 vk + "\"",
             rel);
      return;
    }
    if (!cpuTarget && gpu && vk != kind) {
      report(diag::Code::TVS304, at, "relax.build(target=\"" + p.target + "\") names a '" + kind + "' target, but the module's vdevices are on '" +
                               vk + "'", rel);
      return;
    }
  }
  if (!cpuTarget) {
    bool named = std::any_of(vdevices.begin(), vdevices.end(), [&](auto& v) { return v->target.kind == kind; });
    if (!named)
      report(diag::Code::TVS304, at, "relax.build(target=\"" + p.target + "\") names a '" + kind + "' target that no vdevice of the module is on");
  }
}

std::optional<PyValue> PipelineModel::passContext(TSNode call) {
  auto args = py_.arguments(field(call, "arguments"));
  auto context = std::make_shared<PassContextObj>();
  if (const PyValue* config = args.get(4, "config"); config && config->kind == PyValue::Kind::Dict && config->dict)
    for (auto& [key, value] : *config->dict)
      if (key.kind == PyValue::Kind::Str && key.text == "relax.backend.use_cuda_graph" && value.kind == PyValue::Kind::Bool)
        context->useCudaGraph = value.boolean;
  return PyValue::ofObject(context);
}

std::optional<PyValue> PipelineModel::virtualMachine(TSNode call) {
  auto args = py_.arguments(field(call, "arguments"));
  if (args.positional.empty()) return std::nullopt;
  auto* e = args.positional[0].as<ExecutableObj>();
  const PyValue* devs = args.get(1, "device");
  TSNode at = args.nodeOf(1, "device");
  if (!e || !devs) return PyValue::ofObject(std::make_shared<VMObj>());
  std::vector<DeviceHint> list;
  if (devs->kind == PyValue::Kind::Device) {
    list.push_back(devs->device);
  } else if (devs->isSequence()) {
    for (auto& d : *devs->items) {
      if (d.kind != PyValue::Kind::Device) return PyValue::ofObject(std::make_shared<VMObj>());
      list.push_back(d.device);
    }
  } else {
    return PyValue::ofObject(std::make_shared<VMObj>());
  }
  bool appended = list.empty() || list.back().deviceType != 1;
  if (appended) list.push_back({1, 0});  // TVM appends tvm.cpu() when the last device is not a CPU
  const Region& r = *regions_[e->module->region];
  auto vdevices = effectiveVDevices(*e->module);
  // As TVM's Python spells the device: its kind's constructor (the target-kind table), else by type.
  auto deviceText = [](const DeviceHint& d) {
    const runtime::TargetKind* k = runtime::targetKindOfDeviceType(d.deviceType);
    if (k && !k->deviceFunction.empty()) return "tvm." + k->deviceFunction + "(" + std::to_string(d.index) + ")";
    return "tvm.device(" + std::to_string(d.deviceType) + ", " + std::to_string(d.index) + ")";
  };
  for (size_t i = 0; i < vdevices.size(); ++i) {
    const VDevice& v = *vdevices[i];
    std::vector<diag::Related> rel;
    if (const ByteRange* made = r.map.find(&v)) rel.push_back({*made, "vdevice entry " + std::to_string(i)});
    if (i >= list.size()) {
      report(diag::Code::TVS301, at,
             "the VirtualMachine gets " + std::to_string(list.size()) + " device(s)" +
                 (appended ? " (with the tvm.cpu() TVM appends)" : "") + " but the module's vdevice list has " +
                 std::to_string(vdevices.size()) + " entries: a tensor on entry " + std::to_string(i) +
                 " fails at run time with \"The device index is out of VM physical devices list\". Pass one device "
                 "per vdevice entry, in the list's order",
             rel);
      break;
    }
    int type = deviceTypeOfKind(v.target.kind);
    if (type && (list[i].deviceType != type || list[i].index != v.vdeviceId)) {
      report(diag::Code::TVS302, at,
             "device " + std::to_string(i) + " of the VirtualMachine is " + deviceText(list[i]) +
                 " but vdevice entry " + std::to_string(i) + " is '" + v.target.kind + "' id " + std::to_string(v.vdeviceId) +
                 ": TVM allocates entry " + std::to_string(i) + "'s tensors on device " + std::to_string(i) +
                 ", while copies and hints use the vdevice's own device. Pass " +
                 deviceText({type, static_cast<int>(v.vdeviceId)}) + " there",
             rel);
      break;
    }
  }
  return PyValue::ofObject(std::make_shared<VMObj>());
}

}  // namespace tvms::frontend
