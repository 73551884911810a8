#include "compiler/diagnostics/catalogue.h"

#include <ostream>

namespace tvms::diag {

namespace {
const std::vector<Rule> kRules = {
#define TVMS_RULE(code, severity, title, explanation, enabled) {#code, Code::code, Severity::severity, title, explanation, enabled},
#include "compiler/diagnostics/catalogue.def"
#undef TVMS_RULE
};
}  // namespace

const std::vector<Rule>& allRules() { return kRules; }

const Rule* findRule(std::string_view code) {
  for (auto& r : kRules) if (r.code == code) return &r;
  return nullptr;
}

const Rule& ruleOf(Code code) { return kRules[static_cast<size_t>(code)]; }  // the enum and the table share the .def's order

std::string_view codeName(Code code) { return ruleOf(code).code; }

std::optional<Code> parseCode(std::string_view name) {
  const Rule* r = findRule(name);
  return r ? std::optional<Code>(r->id) : std::nullopt;
}

std::ostream& operator<<(std::ostream& out, Code code) { return out << codeName(code); }

std::string_view severityName(Severity s) {
  switch (s) {
    case Severity::Error: return "error";
    case Severity::Warning: return "warning";
    case Severity::Info: return "info";
  }
  return "error";
}

Diagnostic make(Code code, ByteRange range, std::string message) {
  Diagnostic d;
  d.code = code;
  d.severity = ruleOf(code).severity;
  d.range = range;
  d.message = std::move(message);
  return d;
}

}  // namespace tvms::diag
