#pragma once
#include <optional>

#include "compiler/frontend/aliases.h"
#include "compiler/frontend/frontend.h"

namespace tvms::frontend {

// The name after the first `def ` in the range ("" when there is none).
std::string functionNameInText(const syntax::Document& doc, ByteRange range);

// Re-lowers an @I.ir_module class holding a syntax error function by function (see recovery.cpp);
// nullopt when the text cannot be split that way.
std::optional<Region> recoverBrokenModule(const syntax::Document& doc, const Aliases& aliases, TSNode decorated);

}  // namespace tvms::frontend
