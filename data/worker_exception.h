#pragma once
// WorkerException: what a DataLoader throws on the calling thread when making a batch on a worker thread
// threw, as LibTorch's: the message names the original, which original_exception holds. (Without
// workers the original exception propagates itself, as in LibTorch and Python.)
#include <exception>
#include <string>

#include "runtime/error.h"

namespace ember::data {

namespace detail {
inline std::string worker_message(const std::exception_ptr& original) {
  std::string message = "Caught exception in DataLoader worker thread.";
  try {
    std::rethrow_exception(original);
  } catch (const std::exception& e) {
    message += " Original message: ";
    message += e.what();
  } catch (...) {
  }
  return message;
}
}  // namespace detail

struct WorkerException : public Error {
  explicit WorkerException(std::exception_ptr original)
      : Error(detail::worker_message(original)), original_exception(std::move(original)) {}

  std::exception_ptr original_exception;
};

}  // namespace ember::data
