// The module's vdevice checks: every vdevice string and I.vdevice in the module, the declared list
// itself, and hints. Each fix is a real edit of the text.
#include <algorithm>
#include <functional>
#include <map>
#include <set>

#include "compiler/analysis/checks.h"
#include "compiler/analysis/relation.h"
#include "compiler/op/registry.h"
#include "runtime/target_kind.h"

namespace tvms::analysis {

using namespace ir;

namespace {

// "llvm" or "cuda": the kinds tvms runs, each with its own device constructor (not "c", llvm's twin).
std::string kindExamples() {
  std::string out;
  for (const runtime::TargetKind* k : runtime::targetKinds()) {
    if (!k->openDevice || k->deviceFunction.empty()) continue;
    out += (out.empty() ? "\"" : " or \"") + k->name + "\"";
  }
  return out;
}

// The vdevice strings, I.vdevice(...) values and hint_on_device calls of one function, in text order.
struct UseCollector {
  std::vector<const VDeviceRef*>& uses;
  std::vector<const Call*>& hints;

  void sinfo(const StructInfoPtr& s) {
    if (!s) return;
    if (s->vdevice) uses.push_back(s->vdevice.get());
    for (auto& f : s->fields) sinfo(f);
    if (s->params) for (auto& p : *s->params) sinfo(p);
    sinfo(s->ret);
  }
  void expr(const ExprPtr& e) {
    if (!e) return;
    if (auto* c = as<Call>(e)) {
      for (auto& a : c->args) expr(a);
      for (auto& a : c->attrs)
        if (a.value.kind == Value::Kind::VDevice && a.value.vdevice) uses.push_back(a.value.vdevice.get());
      for (auto& s : c->sinfoArgs) sinfo(s);
      if (c->def == &op::builtin::hintOnDevice()) hints.push_back(c);
    } else if (auto* t = as<Tuple>(e)) {
      for (auto& f : t->fields) expr(f);
    } else if (auto* g = as<TupleGetItem>(e)) {
      expr(g->tuple);
    } else if (auto* i = as<If>(e)) {
      expr(i->cond);
      seq(i->thenBranch.get());
      seq(i->elseBranch.get());
    }
  }
  void seq(const SeqExpr* s) {
    if (!s) return;
    for (auto& blk : s->blocks)
      for (auto& b : blk->bindings) {
        for (auto& v : b->vars) sinfo(v->annotation);
        sinfo(b->castSInfo);
        expr(b->value);
      }
    expr(s->body);
  }
  void collect(const Function& fn) {
    for (auto& p : fn.params) sinfo(p->annotation);
    sinfo(fn.retAnnotation);
    seq(fn.body.get());
  }
};

// Where TVM looks an inline I.vdevice up by identity. R.to_vdevice itself lowers to
// vm.builtin.to_device with the vdevice's device type and id (no lookup), so an inline dst_vdevice
// equal to a declared entry builds; but every op that consumes the moved value allocates its output
// on that vdevice (CallTIRRewrite -> GetDeviceIndex, pointer identity), and that fails with "The
// vdevice is not in the ir_module.". For each inline dst_vdevice of a to_vdevice: the first op call
// that consumes a value derived from it (the value itself, or the output of an op that consumed it).
struct InlineMoves {
  std::set<const VDeviceRef*> targets;                // inline dst_vdevices of R.to_vdevice
  std::map<const VDeviceRef*, const Call*> consumers;  // of those, the first op consuming what moved
};
void collectInlineMoves(const Function& fn, InlineMoves& out) {
  auto& consumers = out.consumers;
  std::map<const Var*, const VDeviceRef*> carries;  // variables whose struct info holds an inline vdevice
  std::function<const VDeviceRef*(const ExprPtr&)> carried = [&](const ExprPtr& e) -> const VDeviceRef* {
    if (auto* v = as<Var>(e)) {
      auto it = carries.find(v);
      return it == carries.end() ? nullptr : it->second;
    }
    if (auto* t = as<Tuple>(e))
      for (auto& f : t->fields) if (auto* r = carried(f)) return r;
    if (auto* g = as<TupleGetItem>(e)) return carried(g->tuple);
    return nullptr;
  };
  std::function<void(const SeqExpr*)> seq = [&](const SeqExpr* s) {
    if (!s) return;
    for (auto& blk : s->blocks)
      for (auto& b : blk->bindings) {
        const VDeviceRef* flows = nullptr;
        if (auto* c = as<Call>(b->value)) {
          if (c->def == &op::builtin::toVDevice()) {
            for (auto& a : c->attrs)
              if (a.value.kind == Value::Kind::VDevice && a.value.vdevice && a.value.vdevice->isInline) {
                flows = a.value.vdevice.get();
                out.targets.insert(flows);
              }
          } else if (c->def) {
            for (auto& a : c->args)
              if (auto* r = carried(a)) {
                consumers.emplace(r, c);
                flows = r;
              }
          }
        } else if (auto* i = as<If>(b->value)) {
          seq(i->thenBranch.get());
          seq(i->elseBranch.get());
        } else {
          flows = carried(b->value);
        }
        if (flows)
          for (auto& v : b->vars) carries[v.get()] = flows;
      }
  };
  seq(fn.body.get());
}

// A vdevice string or I.vdevice in the module; its source range is looked up only when a
// diagnostic or a fix needs it (most uses are fine, and the checks run on every keystroke).
struct Use {
  const VDeviceRef* ref;
};

class VDeviceChecker {
 public:
  VDeviceChecker(const DeduceContext& c, std::vector<diag::Diagnostic>& out) : ctx_(c), m_(c.module), out_(out) {}

  // `functions`: the module's function analyses, whose collected uses are reused (null entries and
  // missing ones are walked here).
  void run(const std::vector<std::shared_ptr<const FunctionAnalysis>>& functions) {
    std::vector<const VDeviceRef*> refs;
    for (size_t i = 0; i < m_.functions.size(); ++i) {
      const auto& f = m_.functions[i];
      if (!f.relax) continue;
      const FunctionAnalysis* fa = i < functions.size() ? functions[i].get() : nullptr;
      if (fa && fa->analyzes(f.relax)) {
        refs.insert(refs.end(), fa->vdeviceUses.begin(), fa->vdeviceUses.end());
        hints_.insert(hints_.end(), fa->hints.begin(), fa->hints.end());
      } else {
        UseCollector{refs, hints_}.collect(*f.relax);
      }
    }
    for (auto* r : refs) uses_.push_back({r});
    for (auto& u : uses_) checkUse(u);
    for (auto& v : m_.vdevices) checkDecl(*v, range(v.get()));
    for (auto& h : hints_) checkHint(*h);
    duplicatesAndUnused();
  }

 private:
  // The to_vdevice calls' inline targets and the ops that consume what they move (computed on the
  // first inline vdevice: most modules have none).
  const InlineMoves& inlineMoves() {
    if (!movesReady_) {
      movesReady_ = true;
      for (auto& f : m_.functions)
        if (f.relax) collectInlineMoves(*f.relax, moves_);
    }
    return moves_;
  }
  bool movesReady_ = false;
  InlineMoves moves_;

  ByteRange range(const void* n) const {
    const ByteRange* r = ctx_.map.find(n);
    return r ? *r : ByteRange{};
  }
  std::string text(ByteRange r) const { return std::string(ctx_.text.substr(r.begin, r.end - r.begin)); }

  const VDevice* equalEntry(const VDevice& v) const {
    for (auto& d : m_.vdevices) if (sameValue(*d, v)) return d.get();
    return nullptr;
  }
  int kindCount(const std::string& kind) const {
    int n = 0;
    for (auto& d : m_.vdevices) n += d->target.kind == kind;
    return n;
  }
  // An edit appending one I.vdevice(...) to the declared list, or declaring the list.
  std::optional<diag::TextEdit> declare(const std::string& decl) const {
    if (m_.standalone) return std::nullopt;
    if (!m_.vdevices.empty()) {
      ByteRange last = range(m_.vdevices.back().get());
      if (last.end <= last.begin) return std::nullopt;
      return diag::TextEdit{{last.end, last.end}, ", " + decl};
    }
    if (m_.hasGlobalInfos || m_.functions.empty()) return std::nullopt;
    const void* first = m_.functions[0].relax ? static_cast<const void*>(m_.functions[0].relax.get())
                                              : static_cast<const void*>(m_.functions[0].tir.get());
    ByteRange fr = range(first);
    if (fr.end <= fr.begin) return std::nullopt;
    uint32_t lineStart = fr.begin;
    while (lineStart > 0 && ctx_.text[lineStart - 1] != '\n') --lineStart;
    std::string indent(ctx_.text.substr(lineStart, fr.begin - lineStart));
    return diag::TextEdit{{lineStart, lineStart},
                          indent + "I.module_global_infos({\"vdevice\": [" + decl + "]})\n\n"};
  }
  std::string declText(const std::string& kind, int64_t id) const {
    return "I.vdevice(\"" + kind + "\"" + (id ? ", " + std::to_string(id) : "") + ")";
  }

  void checkUse(const Use& u) {
    // The common case first: a declared entry named with the right index needs no range at all.
    if (u.ref->device && !u.ref->isInline) {
      auto pos = u.ref->spelling.find(':');
      if (pos == std::string::npos || u.ref->spelling.compare(0, pos, "vdevice") == 0) return;
      if (std::atoll(u.ref->spelling.c_str() + pos + 1) == u.ref->device->vdeviceId) return;
    }
    const ByteRange urange = range(u.ref);
    if (urange.end <= urange.begin) return;
    if (u.ref->isInline) {
      if (!u.ref->device) return;
      checkDecl(*u.ref->device, urange);
      const Call* consumer = nullptr;
      if (inlineMoves().targets.count(u.ref)) {
        // TVM moves the value without looking the vdevice up; only an op consuming it fails.
        auto it = inlineMoves().consumers.find(u.ref);
        if (it == inlineMoves().consumers.end()) return;
        consumer = it->second;
      }
      std::string written = text(urange);
      written = written.substr(0, written.find('('));  // I.vdevice, tvm.ir.VDevice, VDevice
      if (written.empty() || written.size() > 40) written = "I.vdevice";
      auto d = diag::make(diag::Code::TVS202, urange,
                          "a " + written + "(...) written in a function body is a new object, not the declared entry: TVM "
                          "fails at build with \"The vdevice is not in the ir_module.\"");
      if (consumer)
        d.related.push_back({range(consumer), "this op allocates its output on that vdevice, which TVM looks up by "
                                              "identity (GetDeviceIndex)"});
      if (const VDevice* e = equalEntry(*u.ref->device)) {
        if (auto py = ctx_.map.pythonSpellings.find(e); py != ctx_.map.pythonSpellings.end()) {
          // The list came from the program's Python: name its entry the way the program can.
          d.message += " Use the list's entry `" + py->second + "` instead.";
          d.related.push_back({range(e), "the equal entry `" + py->second + "` of the module's vdevice list"});
          d.fixes.push_back({"Use the list's entry `" + py->second + "`", {{urange, py->second}}, true, true});
          out_.push_back(std::move(d));
          return;
        }
        std::string spell = spellingOf(m_, e);
        d.message += " Name the declared entry \"" + spell + "\" instead.";
        d.related.push_back({range(e), "the equal declared entry \"" + spell + "\""});
        d.fixes.push_back({"Use the declared entry \"" + spell + "\"", {{urange, "\"" + spell + "\""}}, true});
      } else if (auto edit = declare(text(urange))) {
        std::string kind = u.ref->device->target.kind;
        std::string spell = kind + ":" + std::to_string(kindCount(kind));
        d.fixes.push_back({"Declare it in global_infos and use \"" + spell + "\"", {*edit, {urange, "\"" + spell + "\""}}, false});
      }
      out_.push_back(std::move(d));
      return;
    }
    if (u.ref->device) {
      auto pos = u.ref->spelling.find(':');
      if (pos != std::string::npos && u.ref->spelling.compare(0, pos, "vdevice") != 0) {
        int64_t i = std::atoll(u.ref->spelling.c_str() + pos + 1);
        if (i != u.ref->device->vdeviceId) {
          auto d = diag::make(diag::Code::TVS208, urange, "\"" + u.ref->spelling + "\" counts the '" + u.ref->device->target.kind +
                                                     "' entries of the list (index " + std::to_string(i) +
                                                     "); it is not a device id: this entry's vdevice_id is " +
                                                     std::to_string(u.ref->device->vdeviceId));
          d.related.push_back({range(u.ref->device.get()), "the entry"});
          out_.push_back(std::move(d));
        }
      }
      return;
    }
    // An unresolved string.
    const std::string& s = u.ref->spelling;
    std::string kind = s.substr(0, s.find(':'));
    int64_t index = s.find(':') == std::string::npos ? 0 : std::atoll(s.c_str() + s.find(':') + 1);
    std::string msg;
    if (m_.standalone) msg = "\"" + s + "\" names a vdevice, but a standalone @R.function has no module to declare vdevices in (TVM: \"IRModule frame not find\")";
    else if (!m_.hasGlobalInfos) msg = "\"" + s + "\" names a vdevice, but the module declares none: add I.module_global_infos({\"vdevice\": [...]}) (TVM: \"The GlobalInfos in the IRModule is not defined.\")";
    else if (!m_.hasVDeviceKey) msg = "\"" + s + "\" names a vdevice, but global_infos has no \"vdevice\" key";
    else if (kind == "vdevice") msg = "\"" + s + "\" is past the vdevice list, which has " + std::to_string(m_.vdevices.size()) + " entries";
    else {
      int n = kindCount(kind);
      msg = "\"" + s + "\" names no declared vdevice: the module declares " + std::to_string(n) + " '" + kind + "' entr" +
            (n == 1 ? "y" : "ies") + (n ? " (\"" + kind + ":0\"" + (n > 1 ? " to \"" + kind + ":" + std::to_string(n - 1) + "\"" : "") + ")" : "") +
            "; TVM silently drops the vdevice";
    }
    auto d = diag::make(diag::Code::TVS201, urange, msg);
    for (auto& v : m_.vdevices) d.related.push_back({range(v.get()), "declared: \"" + spellingOf(m_, v.get()) + "\""});
    if (kind != "vdevice" && isKnownTargetKind(kind) && index == kindCount(kind)) {
      int64_t id = 0;
      for (auto& v : m_.vdevices) if (v->target.kind == kind) id = std::max(id, v->vdeviceId + 1);
      if (auto edit = declare(declText(kind, id))) d.fixes.push_back({"Declare " + declText(kind, id), {*edit}, false});
    }
    if (kind != "vdevice" && kindCount(kind) > 0) {
      std::string near = kind + ":" + std::to_string(kindCount(kind) - 1);
      d.fixes.push_back({"Use \"" + near + "\"", {{urange, "\"" + near + "\""}}, false});
    }
    out_.push_back(std::move(d));
  }

  void checkDecl(const VDevice& v, ByteRange at) {
    if (at.end <= at.begin) return;
    if (v.target.kind.empty()) {
      out_.push_back(diag::make(diag::Code::TVS205, at, v.target.writtenAsDict() ? "the target config has no \"kind\" string"
                                                                       : "I.vdevice needs a target kind such as " + kindExamples()));
    } else if (!isKnownTargetKind(v.target.kind)) {
      std::string best;
      size_t bestScore = 99;
      for (const runtime::TargetKind* k : runtime::targetKinds()) {
        size_t score = op::editDistance(v.target.kind, k->name);
        if (score < bestScore) { bestScore = score; best = k->name; }
      }
      auto d = diag::make(diag::Code::TVS205, at, "unknown target kind '" + v.target.kind + "'" + (bestScore <= 2 ? "; did you mean '" + best + "'?" : ""));
      std::string t = text(at);
      auto p = t.find("\"" + v.target.kind + "\"");
      if (bestScore <= 2 && p != std::string::npos)
        d.fixes.push_back({"Use '" + best + "'", {{{at.begin + static_cast<uint32_t>(p), at.begin + static_cast<uint32_t>(p + v.target.kind.size() + 2)}, "\"" + best + "\""}}, false});
      out_.push_back(std::move(d));
    }
    if (v.vdeviceId < 0) out_.push_back(diag::make(diag::Code::TVS205, at, "vdevice_id is the physical device ordinal and cannot be negative"));
  }

  void checkHint(const Call& c) {
    ByteRange at = range(&c);
    if (!c.args.empty() && c.args[0] && c.args[0]->kind != Expr::Kind::Var)
      out_.push_back(diag::make(diag::Code::TVS213, ctx_.map.operand(&c, 0).end > ctx_.map.operand(&c, 0).begin ? ctx_.map.operand(&c, 0) : at,
                                "R.hint_on_device of a value that is not a variable: TVM records no placement for it"));
    const CallAttr* dev = c.attr("device");
    if (!dev || dev->value.kind != Value::Kind::Device || m_.standalone) return;
    const CallAttr* scopeAttr = c.attr("memory_scope");
    std::string scope = scopeAttr && scopeAttr->value.kind == Value::Kind::String ? scopeAttr->value.text : "global";
    DeviceHint h = dev->value.device;
    if (const VDevice* v = m_.hintedEntry(h, scope)) {
      hinted_.push_back(v);
      return;
    }
    const runtime::TargetKind* hintedKind = runtime::targetKindOfDeviceType(h.deviceType);
    std::string kind = hintedKind ? hintedKind->name : "";
    auto d = diag::make(diag::Code::TVS206, at, "no declared vdevice matches this hint (device type " + std::to_string(h.deviceType) +
                                          ", id " + std::to_string(h.index) + ", scope \"" + scope +
                                          "\"): RealizeVDevice will fail (\"Expected to find device with type ...\")");
    for (auto& v : m_.vdevices) d.related.push_back({range(v.get()), "declared: \"" + spellingOf(m_, v.get()) + "\""});
    if (!kind.empty() && scope == "global")
      if (auto edit = declare(declText(kind, h.index))) d.fixes.push_back({"Declare " + declText(kind, h.index), {*edit}, false});
    out_.push_back(std::move(d));
  }

  void duplicatesAndUnused() {
    std::vector<const VDevice*> used = hinted_;
    for (auto& u : uses_) {
      if (!u.ref->device) continue;
      if (u.ref->isInline) { if (auto* e = equalEntry(*u.ref->device)) used.push_back(e); }
      else used.push_back(u.ref->device.get());
    }
    for (size_t i = 0; i < m_.vdevices.size(); ++i) {
      const VDevice& v = *m_.vdevices[i];
      for (size_t j = 0; j < i; ++j) {
        const VDevice& w = *m_.vdevices[j];
        if (sameValue(v, w)) {
          auto d = diag::make(diag::Code::TVS210, range(&v), "this vdevice equals entry " + std::to_string(j) +
                                                       " (target, id and scope): \"" + v.target.kind + "\" strings can only reach it by index");
          d.related.push_back({range(&w), "the first equal entry"});
          out_.push_back(std::move(d));
          break;
        }
      }
      // Entry 0 is the default device of every tensor without a vdevice: never unused.
      if (i == 0 || ctx_.incomplete || std::count(used.begin(), used.end(), &v)) continue;
      auto d = diag::make(diag::Code::TVS209, range(&v), "vdevice \"" + spellingOf(m_, &v) + "\" is declared but nothing uses it");
      if (auto fix = removal(i)) d.fixes.push_back(*fix);
      out_.push_back(std::move(d));
    }
    for (auto& f : m_.functions)
      if (f.relax)
        for (auto& p : f.relax->params)
          if (const VDevice* v = placedOn(p->annotation.get()); v && m_.indexOf(v) != 0) {
            out_.push_back(diag::make(diag::Code::TVS211, range(p.get()), "parameter '" + p->name + "' is on \"" + spellingOf(m_, v) +
                                                                   "\", but TVM's set_input copies every input to device slot 0"));
          }
  }

  // Removing entry i, and re-indexing the strings that name the entries after it.
  std::optional<diag::Fix> removal(size_t i) {
    const VDevice* v = m_.vdevices[i].get();
    ByteRange r = range(v);
    ByteRange prev = range(m_.vdevices[i - 1].get());
    if (r.end <= r.begin || prev.end <= prev.begin) return std::nullopt;
    diag::Fix fix{"Remove the unused vdevice", {{{prev.end, r.end}, ""}}, true};
    int removedKindIndex = m_.kindIndexOf(v);
    for (auto& u : uses_) {
      const ByteRange urange = range(u.ref);
      if (u.ref->isInline || !u.ref->device || urange.end <= urange.begin) continue;
      const std::string& s = u.ref->spelling;
      std::string kind = s.substr(0, s.find(':'));
      std::string rest = s.find(':') == std::string::npos ? "" : s.substr(s.find(':') + 1);
      std::string scope = rest.find(':') == std::string::npos ? "" : rest.substr(rest.find(':'));
      int target = m_.indexOf(u.ref->device.get());
      if (kind == "vdevice" && target > static_cast<int>(i))
        fix.edits.push_back({urange, "\"vdevice:" + std::to_string(target - 1) + scope + "\""});
      else if (kind == v->target.kind && m_.kindIndexOf(u.ref->device.get()) > removedKindIndex)
        fix.edits.push_back({urange, "\"" + kind + ":" + std::to_string(m_.kindIndexOf(u.ref->device.get()) - 1) + scope + "\""});
    }
    return fix;
  }

  const DeduceContext& ctx_;
  const IRModule& m_;
  std::vector<diag::Diagnostic>& out_;
  std::vector<Use> uses_;
  std::vector<const Call*> hints_;
  std::vector<const VDevice*> hinted_;
};

}  // namespace

void collectVDeviceUses(const Function& fn, std::vector<const VDeviceRef*>& uses, std::vector<const Call*>& hints) {
  UseCollector{uses, hints}.collect(fn);
}

void checkVDevices(const DeduceContext& ctx, const std::vector<std::shared_ptr<const FunctionAnalysis>>& functions,
                   std::vector<diag::Diagnostic>& out) {
  VDeviceChecker(ctx, out).run(functions);
}

}  // namespace tvms::analysis
