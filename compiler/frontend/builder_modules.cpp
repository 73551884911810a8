// Modules as builder programs assemble them (builder_modules.h).
#include "compiler/frontend/builder_modules.h"

#include "compiler/frontend/builder_pipeline.h"
#include "compiler/frontend/python_eval.h"

namespace tvms::frontend::builder {

using namespace ir;

// tvm.IRModule({"main": f, ...}, global_infos={"vdevice": [...]}): the functions' builder region
// becomes the module.
std::optional<PyValue> ModuleAssembly::assemble(TSNode call, const std::string& single) {
  auto args = py_.arguments(field(call, "arguments"));
  std::vector<std::pair<std::string, PyValue>> functions;
  if (!single.empty()) {
    if (args.positional.empty()) return std::nullopt;
    functions.emplace_back(single, args.positional[0]);
  } else if (const PyValue* fs = args.get(0, "functions"); fs && fs->kind == PyValue::Kind::Dict) {
    for (auto& [k, v] : *fs->dict) {
      if (k.kind != PyValue::Kind::Str) return PyValue::unknown("a module keyed by values not known statically");
      functions.emplace_back(k.text, v);
    }
  } else {
    return PyValue::unknown("a module whose functions are not known statically");
  }
  std::optional<size_t> region;
  for (auto& [name, v] : functions) {
    auto* f = v.as<FunctionObj>();
    if (!f) {
      py_.notFollowed(call, "a module of functions not known statically");
      return PyValue::unknown("a module of functions not known statically");
    }
    if (region && *region != f->region) {
      py_.notFollowed(call, "a module of functions built by different builders");
      return PyValue::unknown("a module of functions from different builders");
    }
    region = f->region;
  }
  if (!region) return PyValue::unknown("an empty module");
  Region& r = *regions_[*region];
  if (!r.builtByProgram) return PyValue::unknown("a module of TVMScript functions");
  r.module->functions.clear();
  for (auto& [name, v] : functions) {
    auto* f = v.as<FunctionObj>();
    if (f->relax) f->relax->name = name;
    r.module->functions.push_back({name, f->relax, f->tir});
  }
  extendToStatement(r, call);
  if (const PyValue* infos = args.get(1, "global_infos"))
    setGlobalInfos(*region, *infos, args.nodeOf(1, "global_infos"));
  auto m = std::make_shared<ModuleObj>();
  m->region = *region;
  return PyValue::ofObject(m);
}
std::vector<BuilderState*> ModuleAssembly::statesOf(size_t region) {
  std::vector<BuilderState*> out;
  for (auto& s : states_) if (s->region == region) out.push_back(s.get());
  return out;
}
void ModuleAssembly::setGlobalInfos(size_t region, const PyValue& infos, TSNode node) {
  if (infos.kind != PyValue::Kind::Dict) return;
  for (auto& [k, v] : *infos.dict) {
    if (k.kind != PyValue::Kind::Str || k.text != "vdevice") continue;
    // the value's own node, when written inline in the dict: `{"vdevice": vdevice}`
    TSNode valueNode = node;
    if (isType(node, "dictionary"))
      for (TSNode p : namedChildren(node))
        if (isType(p, "pair")) valueNode = field(p, "value");
    setVDevices(region, v, valueNode);
  }
}
// The module's vdevice list is the program's list object: its entries, by identity, are what the
// functions' vdevice uses must be (TVM's GetDeviceIndex).
void ModuleAssembly::setVDevices(size_t region, const PyValue& list, TSNode node) {
  Region& r = *regions_[region];
  if (!list.isSequence()) return;
  IRModule& m = *r.module;
  m.hasGlobalInfos = m.hasVDeviceKey = true;
  m.vdevices.clear();
  std::string listName = py_.spellingOf(list);
  if (listName.empty() && isType(node, "identifier")) listName = py_.text(node);
  for (size_t i = 0; i < list.items->size(); ++i) {
    const PyValue& item = (*list.items)[i];
    if (item.kind != PyValue::Kind::VDevice) continue;
    m.vdevices.push_back(item.vdevice);
    ByteRange made = item.origin.end > item.origin.begin ? item.origin : rangeOf(node);
    r.map.ranges.set(item.vdevice.get(), made);
    r.map.names.push_back({NameRef::Kind::VDevice, made, item.vdevice->target.kind, true, item.vdevice.get()});
    if (!listName.empty()) r.map.pythonSpellings[item.vdevice.get()] = listName + "[" + std::to_string(i) + "]";
  }
  r.map.ranges.set(&m.vdevices, rangeOf(statementOf(node)));
  // Vdevice uses made from the program's objects: the entry when it is that very object.
  for (auto* st : statesOf(region))
    for (auto& ref : st->lowerer->pythonVDeviceRefs()) {
      if (!ref->device) continue;
      int k = m.kindIndexOf(ref->device.get());
      ref->isInline = k < 0;
      if (k >= 0) ref->spelling = ref->device->target.kind + ":" + std::to_string(k);
    }
}

}  // namespace tvms::frontend::builder
