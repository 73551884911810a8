#pragma once
// The documents the client has open, kept in step with its edits (LSP text synchronisation): each
// one's text, line index and version. Positions in edits are read in the session's encoding. No
// analysis here: the server hands what changed to the worker.
#include <map>
#include <memory>
#include <optional>
#include <string>
#include <vector>

#include "compiler/syntax/line_index.h"
#include "server/lsp_json.h"
#include "server/worker.h"

namespace tvms::server {

struct OpenDocument {
  std::string uri;
  std::string text;
  syntax::LineIndex lines;  // views `text`
  int64_t version = 0;
};

class DocumentStore {
 public:
  // Opens (or opens again, replacing) a document.
  OpenDocument& open(const std::string& uri, std::string text, int64_t version);
  // What a didChange did to a document: the whole text replaced, or these edits in order (each range
  // in the text before it); edits whose range lies outside the document are left out and counted.
  struct Changed {
    bool whole = false;
    std::vector<ByteEdit> edits;
    size_t ignored = 0;
  };
  // Applies didChange's contentChanges; nullopt when the document is not open. The version becomes
  // `version`, or the last one plus one when the client sent none.
  std::optional<Changed> change(const std::string& uri, const json& contentChanges, std::optional<int64_t> version, syntax::Encoding enc);
  void close(const std::string& uri);
  OpenDocument* find(const std::string& uri);
  const std::map<std::string, std::unique_ptr<OpenDocument>>& all() const { return docs_; }

 private:
  std::map<std::string, std::unique_ptr<OpenDocument>> docs_;
};

}  // namespace tvms::server
