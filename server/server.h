#pragma once
// `tvms lsp`: a language server over stdio. Only server/ knows JSON and LSP types.
namespace tvms::server {

// Serves stdin/stdout until `exit` or EOF; returns the process exit code (0 after shutdown + exit).
int runLanguageServer();

}  // namespace tvms::server
