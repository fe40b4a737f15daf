#include "runtime/cuda/cuda_backend.h"

#include <cuda_runtime.h>

#include "runtime/cuda/cuda_check.h"
#include "runtime/cuda/cuda_device.h"
#include "runtime/error.h"

namespace ember::cuda {

namespace {

struct DeviceCount {
  cudaError_t result = cudaSuccess;
  int count = 0;
};

DeviceCount device_count() {
  DeviceCount answer;
  answer.result = cudaGetDeviceCount(&answer.count);
  if (answer.result != cudaSuccess) {
    // No driver, or an old one, is an answer here rather than a failure; clear it from the thread's state.
    cudaGetLastError();
    answer.count = 0;
  }
  return answer;
}

}  // namespace

std::vector<DeviceInfo> enumerate_devices() {
  const DeviceCount devices = device_count();
  std::vector<DeviceInfo> infos;
  for (int index = 0; index < devices.count; ++index) infos.push_back(describe_device(index));
  return infos;
}

std::string unavailable_reason() {
  const DeviceCount devices = device_count();
  if (devices.result != cudaSuccess) return "no CUDA device: " + error_text(devices.result);
  if (devices.count == 0) return "no CUDA device: the driver reports none";
  return "";
}

std::shared_ptr<Device> open_device(int index) {
  const DeviceCount devices = device_count();
  if (devices.result != cudaSuccess) {
    throw DeviceUnavailableError("no CUDA device: " + error_text(devices.result));
  }
  if (devices.count == 0) throw DeviceUnavailableError("no CUDA device: the driver reports none");
  if (index < 0 || index >= devices.count) {
    throw DeviceUnavailableError("no CUDA device cuda:" + std::to_string(index) + "; there " +
                                 (devices.count == 1 ? "is 1" : "are " + std::to_string(devices.count)));
  }
  return std::make_shared<CudaDevice>(index);
}

}  // namespace ember::cuda
