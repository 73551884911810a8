#pragma once
// `tvms fmt`: reprints the TVMScript regions of a Python file through the IR printer, keeping every
// comment, and leaves all other text byte-identical. A region is left as written when it holds a
// syntax error or an unsupported construct, or when the safety check fails (the reprinted region must
// lower to a structurally equal module with the same comments).
#include <string>
#include <vector>

namespace tvms::format {

struct FormatOptions {
  int lineWidth = 100;
};

struct FormatResult {
  std::string text;
  bool changed = false;
  std::vector<std::string> notes;  // regions left as written, and why ("line 12: has a syntax error")
};

FormatResult formatSource(const std::string& text, const FormatOptions& opts = {});

// A unified diff of two texts (3 lines of context), empty when they are equal.
std::string unifiedDiff(const std::string& before, const std::string& after, const std::string& path);

}  // namespace tvms::format
