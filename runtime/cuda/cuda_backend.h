#pragma once
// The CUDA backend's entry points for runtime/device.cpp. Plain C++ only: no CUDA header is included, so
// code built without nvcc's include paths can call it.
#include <memory>
#include <string>
#include <vector>

#include "runtime/device.h"

namespace ember::cuda {

// Every CUDA device, in the driver's order (fastest first unless CUDA_DEVICE_ORDER says otherwise).
// Empty when there is none. Creates no CUDA context.
std::vector<DeviceInfo> enumerate_devices();

// "" when a CUDA device exists; otherwise why not, with the driver's error text and name.
std::string unavailable_reason();

// Opens device `index` of enumerate_devices(). Throws DeviceUnavailableError with the reason.
std::shared_ptr<Device> open_device(int index);

}  // namespace ember::cuda
