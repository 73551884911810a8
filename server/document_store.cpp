#include "server/document_store.h"

#include <tuple>

namespace tvms::server {

OpenDocument& DocumentStore::open(const std::string& uri, std::string text, int64_t version) {
  auto d = std::make_unique<OpenDocument>();
  d->uri = uri;
  d->text = std::move(text);
  d->lines.reset(d->text);
  d->version = version;
  auto& slot = docs_[uri];
  slot = std::move(d);
  return *slot;
}

std::optional<DocumentStore::Changed> DocumentStore::change(const std::string& uri, const json& contentChanges, std::optional<int64_t> version,
                                                            syntax::Encoding enc) {
  OpenDocument* d = find(uri);
  if (!d) return std::nullopt;
  Changed out;
  for (auto& change : contentChanges) {
    std::string text = change.at("text");
    if (!change.contains("range")) {
      d->text = std::move(text);
      d->lines.reset(d->text);
      out.whole = true;
      out.edits.clear();
      continue;
    }
    auto pos = [&](const json& p) { return syntax::LineCol{p.at("line").get<uint32_t>(), p.at("character").get<uint32_t>()}; };
    syntax::LineCol a = pos(change["range"].at("start")), b = pos(change["range"].at("end"));
    if (a.line >= d->lines.lineCount() || b.line >= d->lines.lineCount() || std::tie(a.line, a.column) > std::tie(b.line, b.column)) {
      ++out.ignored;
      continue;
    }
    uint32_t begin = d->lines.toOffset(a, enc), end = d->lines.toOffset(b, enc);
    d->text.replace(begin, end - begin, text);
    d->lines.applyEdit(d->text, begin, end, text);
    out.edits.push_back({{begin, end}, std::move(text)});
  }
  d->version = version.value_or(d->version + 1);
  return out;
}

void DocumentStore::close(const std::string& uri) { docs_.erase(uri); }

OpenDocument* DocumentStore::find(const std::string& uri) {
  auto it = docs_.find(uri);
  return it == docs_.end() ? nullptr : it->second.get();
}

}  // namespace tvms::server
