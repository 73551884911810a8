// Bytes in as a .tvmx artifact given to `tvms run`: loaded (and, when it loads, disassembled).
#include <unistd.h>

#include <cstdint>
#include <cstdio>
#include <stdexcept>
#include <string>

#include "runtime/executable.h"

extern "C" int LLVMFuzzerTestOneInput(const uint8_t* data, size_t size) {
  static const std::string path = "/tmp/tvms-fuzz-" + std::to_string(getpid()) + ".tvmx";
  FILE* f = std::fopen(path.c_str(), "wb");
  std::fwrite(data, 1, size, f);
  std::fclose(f);
  try {
    auto exe = tvms::runtime::loadExecutable(path);
    (void)tvms::runtime::disassemble(exe);
  } catch (const std::runtime_error&) {
    // refused with a message: what a damaged artifact must get
  }
  return 0;
}
