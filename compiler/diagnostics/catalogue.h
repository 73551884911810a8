#pragma once
// The diagnostic catalogue: every code declared once with its default severity, a title and a
// one-paragraph explanation (`tvms explain CODE`, hover on `# noqa: CODE`, SARIF rule metadata).
#include <string_view>
#include <vector>

#include "compiler/diagnostics/diagnostic.h"

namespace tvms::diag {

struct Rule {
  std::string_view code;  // its name, diag::Code::TVS201
  Code id;
  Severity severity;
  std::string_view title;        // short name, e.g. "undeclared-vdevice"
  std::string_view explanation;  // one paragraph
  bool enabledByDefault = true;
};

const Rule* findRule(std::string_view code);
const Rule& ruleOf(Code code);
const std::vector<Rule>& allRules();

}  // namespace tvms::diag
