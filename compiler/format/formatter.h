#pragma once
// `tvms fmt`: lays out the TVMScript regions of a Python file (layout_printer.h: whitespace, line
// breaks, blank lines and trailing commas only; every token and comment as written) and leaves all other
// text byte-identical. With `canonical`, regions are reprinted through the IR printer instead (TVM's
// spellings: `R.device(device_type=1, index=0)` for `R.cpu()`). A region is left as written when it
// holds a syntax error, or when the safety check fails: the layout must keep the token sequence
// (token_check.h), the canonical printer a structurally equal module, both every comment in order.
#include <string>
#include <vector>

namespace tvms::format {

struct FormatOptions {
  int lineWidth = 100;
  bool canonical = false;  // reprint through the IR printer (TVM's canonical spellings), not layout only
  // Tests only: the reprint of the region with this index (in file order) gains a comment, so that its
  // check fails and the formatter's second attempt (the other regions alone) is exercised.
  int spoilRegionForTest = -1;
  // Threads that parse the reprint's functions ahead of its lowering (the caller's cores less one).
  unsigned parseHelpers = 0;
};

struct FormatResult {
  std::string text;
  std::string input;  // the text formatted, handed back: formatSource holds the only copy while it works
  bool changed = false;
  std::vector<std::string> notes;  // regions left as written, and why ("line 12: has a syntax error")
};

FormatResult formatSource(std::string text, const FormatOptions& opts = {});

// A unified diff of two texts (3 lines of context), empty when they are equal.
std::string unifiedDiff(const std::string& before, const std::string& after, const std::string& path);

}  // namespace tvms::format
