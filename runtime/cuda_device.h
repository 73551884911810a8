#pragma once
// The CUDA device (runtime/cuda_device.cpp), registered as the "cuda" kind of the device registry.
#include <memory>

#include "runtime/device_api.h"

namespace tvms::runtime {

// A device on GPU `index`; throws std::runtime_error saying why when there is no driver or no such GPU.
std::unique_ptr<DeviceAPI> makeCudaDevice(int index);

// The stream of a CUDA device slot, its GPU's context made current; null when `device` is not one.
void* cudaStreamOf(DeviceAPI& device);

}  // namespace tvms::runtime
