#pragma once
// The exceptions ember throws. Every failure is an exception; the process never aborts.
#include <cstdint>
#include <stdexcept>
#include <string>

namespace ember {

class Error : public std::runtime_error {
 public:
  using std::runtime_error::runtime_error;
};

// A request the device cannot satisfy even after the cache was returned to it.
class OutOfMemoryError : public Error {
 public:
  // `detail`, when given, says why the request cannot fit beyond the plain sizes.
  OutOfMemoryError(const std::string& device_name, uint64_t requested, uint64_t allocated,
                   uint64_t reserved, uint64_t total, const std::string& detail = "");
  uint64_t requested() const { return requested_; }

 private:
  uint64_t requested_;
};

// The driver reported VK_ERROR_DEVICE_LOST or a sticky CUDA error. The device stays marked lost.
class DeviceLostError : public Error {
 public:
  using Error::Error;
};

// No such backend or device here (no CUDA driver, EMBER_DEVICE names nothing), with the reason.
class DeviceUnavailableError : public Error {
 public:
  using Error::Error;
};

// The device or backend lacks a feature or kernel that the call needs.
class UnsupportedError : public Error {
 public:
  using Error::Error;
};

// An index or dim out of range (PyTorch's IndexError).
class IndexError : public Error {
 public:
  using Error::Error;
};

// A wrong dtype (PyTorch's TypeError), such as an in-place result that cannot be cast to the output.
class TypeError : public Error {
 public:
  using Error::Error;
};

std::string format_bytes(uint64_t bytes);

}  // namespace ember
