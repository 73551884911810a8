#pragma once
// Test helpers: the corpus files shipped in tests/corpus, and reading / lowering them.
#include <memory>
#include <string>
#include <vector>

#include "compiler/frontend/frontend.h"

namespace tvms::test {

// Every .py file under tests/corpus/<sub> (all of them when sub is empty), sorted.
std::vector<std::string> corpusFiles(const std::string& sub = "");
std::string readFile(const std::string& path);

// A document and its lowered regions, kept together (the result refers to nothing in the document,
// but tests often want both).
struct Lowered {
  std::unique_ptr<syntax::Document> doc;
  frontend::FileResult file;
  const ir::IRModule& module(size_t i = 0) const { return *file.regions.at(i).module; }
  std::vector<std::string> codes() const;  // diagnostic codes, in order
};
Lowered lower(const std::string& text);

// Whether CPython would parse the text as tree-sitter did: no error node, and every column-0 class's
// body at one column (tree-sitter also reads a body line dedented part way as more class statements,
// CPython's IndentationError). Where it would not, an incrementally edited Document keeps the error
// inside the edited function and legitimately differs from a fresh parse of the whole file.
bool cleanForCPython(const syntax::Document& doc);

}  // namespace tvms::test
