// inferCall: an op's shape/dtype rule (its registry entry's `infer`), then its vdevice rule
// (LANGUAGE.md §6.1), which is the same code for every op that shares a DeviceRule.
#include "compiler/op/infer.h"

#include "compiler/op/infer_util.h"
#include "compiler/op/registry.h"

namespace tvms::op {

using ir::StructInfo;
using ir::StructInfoPtr;
using ir::VDeviceRef;
using VRef = std::shared_ptr<const VDeviceRef>;

namespace {

// The reference of a placed tensor (see ir::placedOn), which results inherit.
VRef placed(const StructInfo* s) { return ir::placedOn(s) ? s->vdevice : nullptr; }

struct Operand {
  int index;
  VRef vdevice;
};

// The placed tensor operands, in order (a tuple operand contributes each field, under its index).
std::vector<Operand> placedOperands(const InferInput& in) {
  std::vector<Operand> out;
  for (size_t i = 0; i < in.args.size(); ++i) {
    const StructInfo* s = in.arg(i);
    if (!s) continue;
    if (s->kind == StructInfo::Kind::Tuple) {
      for (auto& f : s->fields)
        if (auto v = placed(f.get())) out.push_back({static_cast<int>(i), v});
    } else if (auto v = placed(s)) {
      out.push_back({static_cast<int>(i), v});
    }
  }
  return out;
}

std::string spell(const VRef& v) { return "'" + v->spelling + "'"; }

}  // namespace

InferResult inferCall(const InferInput& in) {
  const OpDef& def = in.def;
  switch (def.deviceRule) {
    case DeviceRule::Unmodelled: return {};
    case DeviceRule::Written: {
      if (in.call.sinfoArgs.empty()) return {ir::objectSInfo(), {}, {}};
      // One struct info is the result, written alone or as a list of one as TVM prints sinfo_args
      // (`sinfo_args=(R.Tensor(...),)`: TVM's packed calls and closures return sinfo_args[0]). Only
      // out_sinfo keeps a written list of one a tuple.
      bool listOfOne = in.call.sinfoArgsAsList && in.call.sinfoKey == ir::Call::SInfoArgsKey::OutSInfo;
      if (in.call.sinfoArgs.size() == 1 && !listOfOne) return {ir::placedOnly(in.call.sinfoArgs[0]), {}, {}};
      auto t = std::make_shared<StructInfo>();
      t->kind = StructInfo::Kind::Tuple;
      for (auto& s : in.call.sinfoArgs) t->fields.push_back(ir::placedOnly(s));
      return {t, {}, {}};
    }
    case DeviceRule::HintOnDevice: {
      InferResult r;
      if (infer::tensorOperand(in, 0, r)) r.sinfo = in.args[0];
      return r;
    }
    case DeviceRule::ToVDevice: {
      InferResult r;
      const StructInfo* x = infer::tensorOperand(in, 0, r);
      if (!x) return r;
      const ir::Value* dst = in.attr("dst_vdevice");
      VRef v = dst && dst->kind == ir::Value::Kind::VDevice ? dst->vdevice : nullptr;
      if (v && (!v->device || v->isInline)) v = nullptr;
      r.sinfo = ir::withVDevice(in.args[0], v);
      return r;
    }
    default: break;
  }
  InferResult r = def.infer ? def.infer(in) : InferResult{};
  VRef out;
  auto ops = placedOperands(in);
  switch (def.deviceRule) {
    case DeviceRule::Strict: {
      for (auto& o : ops) {
        if (!out) { out = o.vdevice; continue; }
        if (o.vdevice->device != out->device) {
          int first = ops.front().index;
          r.issues.push_back({diag::Code::TVS203,
                              def.scriptName() + ": operands are on different vdevices, " + spell(ops.front().vdevice) +
                                  " and " + spell(o.vdevice) + "; TVM rejects this (\"Binary operators with Tensor "
                                  "arguments must have the same VDevice\")",
                              o.index, {first, o.index}});
          out = nullptr;
          break;
        }
      }
      break;
    }
    case DeviceRule::Lenient: {
      for (auto& o : ops) {
        if (!out) { out = o.vdevice; continue; }
        if (o.vdevice->device != out->device) {
          r.issues.push_back({diag::Code::TVS214,
                              def.scriptName() + ": operands are on different vdevices, " + spell(ops.front().vdevice) +
                                  " and " + spell(o.vdevice) + "; TVM gives the result no vdevice (no error), so it "
                                  "lands on the default device",
                              o.index, {ops.front().index, o.index}});
          out = nullptr;
          break;
        }
      }
      break;
    }
    case DeviceRule::PrimaryInput: out = placed(in.arg(0)); break;
    case DeviceRule::FillValue: {
      int fill = -1;
      for (size_t i = 0; i < def.params.size(); ++i) if (def.params[i].name == "fill_value") fill = static_cast<int>(i);
      if (fill >= 0) out = placed(in.arg(fill));
      break;
    }
    default: break;
  }
  r.sinfo = ir::withVDevice(r.sinfo, out);
  return r;
}

}  // namespace tvms::op
