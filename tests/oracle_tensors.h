#pragma once
// LibTorch tensors on an ember device, for tests that use LibTorch as their oracle: a tensor's whole
// storage is uploaded, so every view of it (transposed, sliced with steps, expanded) becomes a TensorRef
// with the same sizes, strides and offset, and what a kernel wrote reads back as the same view.
#include <ATen/ATen.h>

#include <cstring>
#include <functional>
#include <memory>
#include <string>

#include "tests/torch_oracle.h"

namespace ember::test {

// A device copy of an at::Tensor's storage.
class DeviceStorage {
 public:
  DeviceStorage(Device& device, Stream& stream, const at::Tensor& tensor)
      : storage_(tensor.storage()), dtype_(ember_dtype(tensor.scalar_type())) {
    const size_t bytes = storage_.nbytes();
    allocation_ = device.allocate(std::max<size_t>(bytes, 1), stream.shared_from_this());
    stream.copy_from_host(*allocation_, 0, storage_.data_ptr().get(), bytes);
  }

  // `view` (a view of the uploaded storage) as a TensorRef of the device copy.
  TensorRef ref(const at::Tensor& view) const {
    TensorRef ref;
    ref.allocation = allocation_.get();
    ref.dtype = dtype_;
    ref.byte_offset = static_cast<uint64_t>(view.storage_offset()) * element_size(dtype_);
    ref.ndim = static_cast<int>(view.dim());
    for (int d = 0; d < ref.ndim; ++d) {
      ref.sizes[d] = view.size(d);
      ref.strides[d] = view.stride(d);
    }
    return ref;
  }

  // The device's values of `view`, as a contiguous tensor.
  at::Tensor read(Stream& stream, const at::Tensor& view) const {
    const size_t bytes = storage_.nbytes();
    at::Tensor host = at::empty({static_cast<int64_t>(bytes / element_size(dtype_))},
                                at::TensorOptions(torch_dtype(dtype_)));
    if (bytes > 0) {
      std::vector<std::byte> data = stream.copy_to_host(allocation_, 0, bytes).wait();
      std::memcpy(host.data_ptr(), data.data(), bytes);
    }
    return host.as_strided(view.sizes(), view.strides(), view.storage_offset()).clone();
  }

  const std::shared_ptr<Allocation>& allocation() const { return allocation_; }

 private:
  at::Storage storage_;
  DType dtype_;
  std::shared_ptr<Allocation> allocation_;
};

// Random values of `dtype` for tests: floats uniform in [low, high), integers in [low, high), bools
// half true.
inline at::Tensor random_tensor(at::IntArrayRef sizes, DType dtype, double low, double high) {
  if (dtype == DType::Bool) return at::rand(sizes, at::kFloat) < 0.5;
  if (is_floating_point(dtype)) return (at::rand(sizes, at::kDouble) * (high - low) + low).to(torch_dtype(dtype));
  return at::randint(static_cast<int64_t>(low), static_cast<int64_t>(high), sizes, at::kLong)
      .to(torch_dtype(dtype));
}

// True when the backend has the kernel that `probe` calls (with empty tensors); false, with the
// reason in `why`, when it throws UnsupportedError.
inline bool has_kernel(const std::function<void()>& probe, std::string& why) {
  try {
    probe();
    return true;
  } catch (const UnsupportedError& error) {
    why = error.what();
    return false;
  }
}

}  // namespace ember::test

// Skips the running test, printing why, when the backend lacks the kernel that `call` reaches.
#define REQUIRE_KERNEL(call)                                                  \
  do {                                                                        \
    std::string why_;                                                         \
    if (!::ember::test::has_kernel([&] { call; }, why_)) GTEST_SKIP() << why_; \
  } while (0)
