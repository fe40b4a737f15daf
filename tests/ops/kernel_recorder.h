#pragma once
// Records which kernels a device runs, for the coverage test: while a KernelRecorder lives, every kernel
// family of the device is wrapped by a decorator that notes the entry point and op (e.g. "unary.exp",
// "scatter.amax", "memory.fill") and forwards the call.
#include <memory>
#include <set>
#include <string>
#include <vector>

#include "ember.h"

namespace ember::test {

class KernelRecorder {
 public:
  explicit KernelRecorder(Device& device);
  ~KernelRecorder();
  KernelRecorder(const KernelRecorder&) = delete;
  KernelRecorder& operator=(const KernelRecorder&) = delete;

  const std::set<std::string>& reached() const { return reached_; }

  // Every name the decorators can record: each entry point, and each value of each op list.
  static std::vector<std::string> every_kernel_op();

 private:
  Device& device_;
  std::set<std::string> reached_;
  std::vector<std::function<void()>> restore_;
};

}  // namespace ember::test
