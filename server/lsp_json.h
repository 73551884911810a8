#pragma once
// Conversions between the compiler's types (byte ranges, diagnostics) and LSP's JSON shapes.
#include <nlohmann/json.hpp>
#include <string>

#include "compiler/diagnostics/diagnostic.h"
#include "compiler/syntax/line_index.h"

namespace tvms::server {

// JSON-RPC's and LSP's error codes.
enum ErrorCode { ParseError = -32700, InvalidRequest = -32600, MethodNotFound = -32601, InvalidParams = -32602,
                 ServerNotInitialized = -32002, RequestFailed = -32803, ContentModified = -32801,
                 RequestCancelled = -32800 };


using nlohmann::json;

json lspPosition(uint32_t offset, const syntax::LineIndex& lines, syntax::Encoding enc);
json lspRange(syntax::ByteRange r, const syntax::LineIndex& lines, syntax::Encoding enc);
// A position's byte offset (clamped to the text, as LineIndex::toOffset clamps).
uint32_t byteOffset(const json& position, const syntax::LineIndex& lines, syntax::Encoding enc);
syntax::ByteRange byteRange(const json& range, const syntax::LineIndex& lines, syntax::Encoding enc);

// A diagnostic as LSP's Diagnostic: code, codeDescription (when `rulesDoc` names the rules page),
// related information, the "unnecessary" tag for TVS900.
json lspDiagnostic(const diag::Diagnostic& d, const syntax::LineIndex& lines, syntax::Encoding enc,
                   const std::string& uri, const std::string& rulesDoc);

// A message as it goes on the wire. Text from the user's file may hold invalid UTF-8 (a byte the
// editor shows as U+FFFD): it is written as U+FFFD, never an exception that would end the server.
inline std::string wireText(const json& message) { return message.dump(-1, ' ', false, json::error_handler_t::replace); }

// Whether `body`'s arrays and objects nest deeper than `limit` (strings skipped). Checked before
// parsing: nlohmann's parser recurses, and 70,000 nested arrays overflowed the server's stack.
bool nestsDeeperThan(std::string_view body, int limit);

// file:///a%20b/c.py -> /a b/c.py; other schemes give "".
std::string pathOfUri(const std::string& uri);

// The anchor of a rule's section in docs/rules.md ("tvs201-undeclared-vdevice").
std::string ruleAnchor(std::string_view code);

}  // namespace tvms::server
