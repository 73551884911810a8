// Bytes in as a Python file: parse, lower, lint and format. Checks beyond "no crash": formatting is
// idempotent, and (formatSource's own safety check) the reprint lowers to the same IR with the same
// comments, or the region is left as written.
#include <cstdint>
#include <cstdlib>
#include <fstream>
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
  if (twice.text != once.text) {  // fmt is not idempotent on this input
    if (const char* dir = std::getenv("TVMS_FUZZ_DUMP")) {  // both outputs, to see how they differ
      std::ofstream(std::string(dir) + "/once.py", std::ios::binary) << once.text;
      std::ofstream(std::string(dir) + "/twice.py", std::ios::binary) << twice.text;
    }
    std::abort();
  }
  return 0;
}
