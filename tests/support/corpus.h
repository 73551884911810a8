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

}  // namespace tvms::test
