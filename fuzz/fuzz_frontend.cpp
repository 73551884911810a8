// Bytes in as a Python file: parse, lower, lint and format (layout, and --canonical). Checks beyond
// "no crash": both formatters are idempotent, and (formatSource's own safety check) the layout keeps
// every token, the canonical reprint lowers to the same IR, both keep the comments, or the region is
// left as written; the one-shot lint of the file read by function (its skeleton, a parse helper that
// frees the trees, the deduction on the helper's core too) says what the lint of the whole file says.
#include <cstdint>
#include <cstdlib>
#include <fstream>
#include <sstream>
#include <string>

#include "compiler/analysis/lint.h"
#include "compiler/format/formatter.h"
#include "compiler/syntax/document.h"

namespace {

std::string describe(const std::vector<tvms::diag::Diagnostic>& ds) {
  std::ostringstream out;
  for (auto& d : ds) out << static_cast<int>(d.code) << "@" << d.range.begin << "-" << d.range.end << " " << d.message << "\n";
  return out.str();
}

}  // namespace

extern "C" int LLVMFuzzerTestOneInput(const uint8_t* data, size_t size) {
  if (size > (64u << 10)) return 0;  // large inputs only slow the search down
  std::string text(reinterpret_cast<const char*>(data), size);
  tvms::syntax::Document doc(text);
  auto lint = tvms::analysis::lintDocument(doc);
  (void)lint;
  {
    tvms::syntax::Document whole(text);
    tvms::syntax::Document split(text, tvms::syntax::Parsing::ByFunction, 1);
    std::string a = describe(tvms::analysis::lintDocumentOnce(whole).diagnostics);
    std::string b = describe(tvms::analysis::lintDocumentOnce(split, {}, 1).diagnostics);
    if (a != b) {
      if (const char* dir = std::getenv("TVMS_FUZZ_DUMP")) {
        std::ofstream(std::string(dir) + "/whole.txt", std::ios::binary) << a;
        std::ofstream(std::string(dir) + "/by_function.txt", std::ios::binary) << b;
      }
      std::abort();
    }
  }
  for (bool canonical : {false, true}) {
    tvms::format::FormatOptions opts;
    opts.canonical = canonical;
    auto once = tvms::format::formatSource(text, opts);
    auto twice = tvms::format::formatSource(once.text, opts);
    if (twice.text != once.text) {  // fmt is not idempotent on this input
      if (const char* dir = std::getenv("TVMS_FUZZ_DUMP")) {  // both outputs, to see how they differ
        std::ofstream(std::string(dir) + "/once.py", std::ios::binary) << once.text;
        std::ofstream(std::string(dir) + "/twice.py", std::ios::binary) << twice.text;
      }
      std::abort();
    }
  }
  return 0;
}
