#pragma once
// `tvms lsp`: a language server over stdio. Only server/ knows JSON and LSP types.
#include <string>

namespace tvms::server {

// Serves stdin/stdout until `exit` or EOF; returns the process exit code (0 after shutdown + exit).
int runLanguageServer();
// The same over other descriptors, starting `runExecutable` for the run command (the fuzzer's way in).
int runLanguageServer(int inFd, int outFd, const std::string& runExecutable);

}  // namespace tvms::server
