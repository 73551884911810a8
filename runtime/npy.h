#pragma once
// numpy's .npy format (version 1.0/2.0, little-endian, C order): float16/32/64, int32/64, bool.
#include <cstdint>
#include <iosfwd>
#include <string>

#include "runtime/ndarray.h"

namespace tvms::runtime {

class DeviceAPI;

// Reads `path` into host memory owned by `host`; throws std::runtime_error naming the problem.
NDArray readNpy(const std::string& path, const std::shared_ptr<DeviceAPI>& host);
// The same from `in` holding `bytes` bytes of .npy (an entry of an .npz); `name` is for messages.
NDArray readNpy(std::istream& in, uint64_t bytes, const std::shared_ptr<DeviceAPI>& host, const std::string& name);
void writeNpy(const std::string& path, const NDArray& hostArray);

}  // namespace tvms::runtime
