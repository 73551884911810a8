#pragma once
// The layout-only formatter for one TVMScript region: black's whitespace, indentation, blank lines,
// line breaks and trailing commas over the region's syntax tree. Every other token (names, strings,
// numbers, keywords, parentheses) and every comment is kept exactly as written: `R.cpu()` stays
// `R.cpu()`. The canonical IR printer is a different thing (`tvms fmt --canonical`, `parse --dump-ir`).
#include <stdexcept>
#include <string>
#include <string_view>

#include <tree_sitter/api.h>

#include "compiler/syntax/document.h"

namespace tvms::format {

// Thrown for what the layout cannot place (a comment inside an expression that is not a bracketed
// list, a node tree-sitter marked as an error); the caller leaves the region as written.
struct LayoutRefused : std::runtime_error {
  using std::runtime_error::runtime_error;
};

// black's switches in a comment's text: the statements between an own-line `# fmt: off` and
// `# fmt: on` (or the end of their body), and a statement ending in `# fmt: skip`, keep their layout.
enum class FmtSwitch { None, Off, On, Skip };
FmtSwitch fmtSwitch(std::string_view comment);

// The region's whole lines (`lines`, from frontend::regionLines) laid out with the region at column
// `indent`, without the final line ending.
std::string layoutRegion(const syntax::Document& doc, TSNode region, syntax::ByteRange lines, int indent, int width);

}  // namespace tvms::format
