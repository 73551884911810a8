#pragma once
// Weights from files, as TVM users keep them: safetensors (read here: an 8-byte little-endian header
// length, a JSON header naming each tensor's dtype, shape and byte range, then the raw data) and
// numpy's .npz (a zip of .npy files, stored or deflated). Each tensor is a host array: a safetensors
// file is memory-mapped and its tensors point into the map where their elements are aligned, so a
// weights file is read once, by the copy that places each tensor on its device.
#include <memory>
#include <string>
#include <vector>

#include "runtime/ndarray.h"

namespace tvms::runtime {

class DeviceAPI;

struct NamedTensor {
  std::string name;
  NDArray array;
};

// By the file's first bytes: a zip is an .npz, anything else is read as safetensors. Throws
// std::runtime_error naming the file and what is wrong with it (a damaged header, a tensor whose
// bytes run past the file, an unsupported dtype, a name given twice, ...).
std::vector<NamedTensor> readWeightsFile(const std::string& path, const std::shared_ptr<DeviceAPI>& host);
std::vector<NamedTensor> readSafetensors(const std::string& path, const std::shared_ptr<DeviceAPI>& host);
std::vector<NamedTensor> readNpz(const std::string& path, const std::shared_ptr<DeviceAPI>& host);

}  // namespace tvms::runtime
