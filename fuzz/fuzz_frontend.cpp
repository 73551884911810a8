// Bytes in as a Python file: parse, lower, lint and format. Checks beyond "no crash": formatting is
// idempotent, and (formatSource's own safety check) the reprint lowers to the same IR with the same
// comments, or the region is left as written.
#include <cstdint>
#include <cstdlib>
#include <string>

#include "compiler/analysis/lint.h"
#include "compiler/format/formatter.h"
#include "compiler/syntax/document.h"

extern "C" int LLVMFuzzerTestOneInput(const uint8_t* data, size_t size) {
  if (size > (64u << 10)) return 0;  // large inputs only slow the search down
  std::string text(reinterpret_cast<const char*>(data), size);
  tvms::syntax::Document doc(text);
  auto lint = tvms::analysis::lintDocument(doc);
  (void)lint;
  auto once = tvms::format::formatSource(text);
  auto twice = tvms::format::formatSource(once.text);
  if (twice.text != once.text) std::abort();  // fmt is not idempotent on this input
  return 0;
}
