#pragma once
// Diagnostics for people: "file:line:col: error[TVS201]: message", the source line and carets,
// then the related notes.
#include <string>
#include <vector>

#include "compiler/diagnostics/diagnostic.h"
#include "compiler/syntax/line_index.h"

namespace tvms::diag {

struct TextSource {
  std::string path;
  std::string_view text;
  const syntax::LineIndex* lines;
};

std::string renderText(const Diagnostic& d, const TextSource& src, bool color);

}  // namespace tvms::diag
