#pragma once
// Turning CUDA results into ember's exceptions.
//
// Some CUDA errors are sticky: after an illegal address or a failed launch the context is unusable for the
// rest of the process, and every later call returns the same error. Those mark the device lost and throw
// DeviceLostError; any other failure throws Error and leaves the device usable.
#include <cuda_runtime.h>

#include <atomic>
#include <string>
#include <utility>

#include "runtime/error.h"

namespace ember::cuda {

// "out of memory (cudaErrorMemoryAllocation)": the text users read, and the name they search for.
inline std::string error_text(cudaError_t result) {
  return std::string(cudaGetErrorString(result)) + " (" + cudaGetErrorName(result) + ")";
}

inline bool is_sticky(cudaError_t result) {
  switch (result) {
    case cudaErrorIllegalAddress:
    case cudaErrorLaunchTimeout:
    case cudaErrorLaunchFailure:
    case cudaErrorAssert:
    case cudaErrorHardwareStackError:
    case cudaErrorIllegalInstruction:
    case cudaErrorMisalignedAddress:
    case cudaErrorInvalidAddressSpace:
    case cudaErrorInvalidPc:
    case cudaErrorTensorMemoryLeak:
    case cudaErrorECCUncorrectable:
    case cudaErrorNvlinkUncorrectable:
    case cudaErrorContextIsDestroyed:
      return true;
    default:
      return false;
  }
}

// For calls made before a device is open (enumeration), where there is no device to mark lost.
inline void check(cudaError_t result, const char* what) {
  if (result == cudaSuccess) return;
  if (is_sticky(result)) throw DeviceLostError(std::string(what) + " failed: " + error_text(result));
  // The runtime also keeps a non-sticky error as the thread's last error; clear it so that the next
  // launch check does not report it a second time.
  cudaGetLastError();
  throw Error(std::string(what) + " failed: " + error_text(result));
}

// What a device shares with its streams, block source and kernels: its ordinal, and whether it was lost.
class DeviceContext {
 public:
  DeviceContext(int index, std::string name) : index_(index), name_(std::move(name)) {}

  int index() const { return index_; }
  const std::string& name() const { return name_; }
  bool lost() const { return lost_.load(); }

  void throw_if_lost() const {
    if (lost_) throw DeviceLostError("the CUDA device " + name_ + " was lost earlier");
  }

  // Throws unless `result` is cudaSuccess, marking the device lost when the error is sticky.
  void check(cudaError_t result, const char* what) {
    if (result == cudaSuccess) return;
    if (is_sticky(result)) {
      lost_ = true;
      throw DeviceLostError(std::string(what) + " failed on " + name_ + ": " + error_text(result) +
                            "; the device stays lost and its work is gone");
    }
    cudaGetLastError();
    throw Error(std::string(what) + " failed on " + name_ + ": " + error_text(result));
  }

 private:
  int index_;
  std::string name_;
  std::atomic<bool> lost_{false};
};

// Makes the context's device current on this thread for a scope. The runtime API allocates, creates
// events and launches on the thread's current device, which code using another device may have changed.
class ScopedDevice {
 public:
  explicit ScopedDevice(DeviceContext& context) {
    context.throw_if_lost();
    int current = 0;
    context.check(cudaGetDevice(&current), "cudaGetDevice");
    if (current != context.index()) {
      context.check(cudaSetDevice(context.index()), "cudaSetDevice");
      previous_ = current;
    }
  }
  ~ScopedDevice() {
    // Restoring is a courtesy to the caller's own CUDA code; a failure here must not throw.
    if (previous_ >= 0 && cudaSetDevice(previous_) != cudaSuccess) cudaGetLastError();
  }
  ScopedDevice(const ScopedDevice&) = delete;
  ScopedDevice& operator=(const ScopedDevice&) = delete;

 private:
  int previous_ = -1;
};

}  // namespace ember::cuda
