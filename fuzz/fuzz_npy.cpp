// Bytes in as a .npy file given to `tvms run --input`.
#include <unistd.h>

#include <cstdint>
#include <cstdio>
#include <memory>
#include <stdexcept>
#include <string>

#include "runtime/device_api.h"
#include "runtime/npy.h"

extern "C" int LLVMFuzzerTestOneInput(const uint8_t* data, size_t size) {
  static const std::string path = "/tmp/tvms-fuzz-" + std::to_string(getpid()) + ".npy";
  static std::shared_ptr<tvms::runtime::DeviceAPI> host = tvms::runtime::makeCpuDevice(-1);
  FILE* f = std::fopen(path.c_str(), "wb");
  std::fwrite(data, 1, size, f);
  std::fclose(f);
  try {
    tvms::runtime::readNpy(path, host);
  } catch (const std::runtime_error&) {
    // a clear error is the expected outcome for most inputs
  }
  return 0;
}
