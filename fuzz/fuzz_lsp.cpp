// Bytes in as the client's side of the language server's stdin: JSON-RPC framing, JSON parsing and
// dispatch to every handler, with the analysis worker running. The run command starts /bin/false
// (never this binary).
#include <fcntl.h>
#include <unistd.h>

#include <cstdint>
#include <cstdlib>

#include "server/server.h"

extern "C" int LLVMFuzzerTestOneInput(const uint8_t* data, size_t size) {
  if (size > 60000) return 0;  // what one pipe buffer holds: written before the server reads
  int in[2];
  if (pipe(in) != 0) std::abort();
  if (write(in[1], data, size) != static_cast<ssize_t>(size)) std::abort();
  close(in[1]);
  int out = open("/dev/null", O_WRONLY);
  tvms::server::runLanguageServer(in[0], out, "/bin/false");
  close(in[0]);
  close(out);
  return 0;
}
