// tvms explain CODE: the catalogue's explanation of a diagnostic code.
#include <iostream>

#include "compiler/diagnostics/catalogue.h"
#include "tools/tvms/commands.h"

namespace tvms::cli {

int runExplain(const Args& args) {
  if (args.size() != 1) {
    std::cerr << "usage: tvms explain CODE   (e.g. tvms explain TVS201)\n";
    return 2;
  }
  std::string code = args[0];
  for (auto& c : code) c = static_cast<char>(std::toupper(static_cast<unsigned char>(c)));
  const diag::Rule* r = diag::findRule(code);
  if (!r) {
    std::cerr << "tvms explain: unknown code '" << args[0] << "'\n";
    return 2;
  }
  std::cout << r->code << " (" << r->title << "), " << diag::severityName(r->severity)
            << (r->enabledByDefault ? "" : ", off unless selected") << "\n\n"
            << r->explanation << "\n";
  return 0;
}

}  // namespace tvms::cli
