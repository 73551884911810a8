#pragma once
// The diagnostic codes as an enum generated from the catalogue (catalogue.def), as ruff's codes.rs
// generates its Rule: the code says `Code::TVS201`, so a misspelt code does not compile. Code strings
// exist only at the edges: output (text, JSON, SARIF, LSP), `# noqa:` comments, `[tool.tvms]`
// select/ignore, `tvms explain` (codeName / parseCode); the layering test keeps "TVSnnn" literals
// out of every other file of the product.
#include <cstdint>
#include <iosfwd>
#include <optional>
#include <string_view>

namespace tvms::diag {

enum class Code : uint16_t {
#define TVMS_RULE(code, ...) code,
#include "compiler/diagnostics/catalogue.def"
#undef TVMS_RULE
};

// diag::Code::TVS201.
std::string_view codeName(Code code);
// The code a name spells, or nullopt.
std::optional<Code> parseCode(std::string_view name);

// A code against its spelling (tests and edges read codes as text).
inline bool operator==(Code code, std::string_view name) { return codeName(code) == name; }
std::ostream& operator<<(std::ostream& out, Code code);

}  // namespace tvms::diag
