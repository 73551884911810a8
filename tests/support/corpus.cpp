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
  for (auto& d : file.all()) out.emplace_back(diag::codeName(d.code));
  return out;
}

Lowered lower(const std::string& text) {
  Lowered l;
  l.doc = std::make_unique<syntax::Document>(text);
  l.file = frontend::lowerDocument(*l.doc);
  return l;
}

bool cleanForCPython(const syntax::Document& doc) {
  TSNode root = doc.root();
  if (ts_node_has_error(root)) return false;
  for (uint32_t k = 0; k < ts_node_named_child_count(root); ++k) {
    TSNode top = ts_node_named_child(root, k);
    TSNode cls = std::string(ts_node_type(top)) == "decorated_definition" ? ts_node_child_by_field_name(top, "definition", 10) : top;
    if (std::string(ts_node_type(cls)) != "class_definition") continue;
    auto statements = doc.statementsOf(ts_node_child_by_field_name(cls, "body", 4));
    for (TSNode s : statements)
      if (ts_node_start_point(s).column != ts_node_start_point(statements.front()).column) return false;
  }
  return true;
}

}  // namespace tvms::test
