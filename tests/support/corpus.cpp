#include "tests/support/corpus.h"

#include <algorithm>
#include <filesystem>
#include <fstream>
#include <iterator>

namespace tvms::test {

std::vector<std::string> corpusFiles(const std::string& sub) {
  std::vector<std::string> out;
  std::filesystem::path root = std::filesystem::path(TVMS_CORPUS_DIR) / sub;
  for (auto& e : std::filesystem::recursive_directory_iterator(root))
    if (e.is_regular_file() && e.path().extension() == ".py") out.push_back(e.path().string());
  std::sort(out.begin(), out.end());
  return out;
}

std::string readFile(const std::string& path) {
  std::ifstream in(path, std::ios::binary);
  return {std::istreambuf_iterator<char>(in), std::istreambuf_iterator<char>()};
}

std::vector<std::string> Lowered::codes() const {
  std::vector<std::string> out;
  for (auto& d : file.all()) out.push_back(d.code);
  return out;
}

Lowered lower(const std::string& text) {
  Lowered l;
  l.doc = std::make_unique<syntax::Document>(text);
  l.file = frontend::lowerDocument(*l.doc);
  return l;
}

}  // namespace tvms::test
