#pragma once
// What every tensor op shares: the stream it records on, checks with PyTorch's messages, output
// allocation and the shape arithmetic. Internal to tensor/.
#include <functional>
#include <memory>
#include <string>
#include <string_view>
#include <vector>

#include "runtime/error.h"
#include "runtime/stream.h"
#include "tensor/functions.h"

namespace ember::detail {

// The stream ops on `device` record on.
std::shared_ptr<Stream> stream_for(const Device& device);
// The `Family` kernels of `device` (runtime/kernels/<family>.h).
template <class Family>
Family& kernels_for(const Device& device) {
  return const_cast<Device&>(device).kernels().get<Family>();
}

// dim in [-ndim, ndim) (or [-(ndim+1), ndim] with `extra` = 1 for unsqueeze-like positions).
int64_t wrap_dim(int64_t dim, int64_t ndim, int64_t extra = 0);
// Each of `dims` wrapped, in order, with PyTorch's error for a dim listed twice (flip, tensordot).
std::vector<int64_t> wrap_distinct_dims(IntArrayRef dims, int64_t ndim);
// Throws PyTorch's "Expected all tensors to be on the same device" error when devices differ.
void check_same_device(std::initializer_list<const Tensor*> tensors);
// Throws UnsupportedError when `device` cannot hold `dtype` (float64 without shaderFloat64).
void check_dtype_supported(const Device& device, DType dtype);

std::vector<int64_t> contiguous_strides(IntArrayRef sizes);
// The product of `sizes`. Throws PyTorch's "numel: integer multiplication overflow" where it would not
// fit int64: every size product in tensor/ goes through here, so no element or byte count wraps.
int64_t product(IntArrayRef sizes);
// The bytes of a new contiguous tensor; throws "Storage size calculation overflowed with sizes=[...]".
uint64_t contiguous_nbytes(IntArrayRef sizes, DType dtype);
// The bytes a strided view reaches from its first element, (1 + sum((size - 1) * stride)) elements, or 0
// when it has none; throws "Storage size calculation overflowed with sizes=[...] and strides=[...]".
uint64_t strided_nbytes(IntArrayRef sizes, IntArrayRef strides, DType dtype);
// Row-major dims merged where possible; used to decide whether view() can express a reshape.
std::optional<std::vector<int64_t>> view_strides(IntArrayRef old_sizes, IntArrayRef old_strides,
                                                 IntArrayRef new_sizes);
// Resolves one -1 in `shape` against numel, with PyTorch's errors.
std::vector<int64_t> infer_size(IntArrayRef shape, int64_t numel);

// A new contiguous tensor on `device`.
Tensor empty_on(IntArrayRef sizes, DType dtype, const std::shared_ptr<Device>& device);
// A tensor over memory that ember does not own (DLPack, Vulkan and CUDA interop): `release` runs once,
// after the GPU work recorded on it, when the last tensor over it dies. `storage_bytes` is what views
// of it may reach.
Tensor tensor_over(const std::shared_ptr<Device>& device, MemoryBlock block, std::function<void()> release,
                   uint64_t storage_bytes, DType dtype, std::vector<int64_t> sizes,
                   std::vector<int64_t> strides, int64_t storage_offset);
// Zeros of `sizes` with `like`'s dtype and device.
Tensor zeros_as(const Tensor& like, IntArrayRef sizes);
// A tensor that shares `base`'s storage with new geometry.
Tensor make_view(const Tensor& base, std::vector<int64_t> sizes, std::vector<int64_t> strides,
                 int64_t storage_offset);
// Counts an in-place write (version counters, for autograd/).
void bump_version(const Tensor& tensor);
// PyTorch's "value cannot be converted to type int8_t without overflow" when `value` is stored as `dtype`
// (fill_, full, masked_fill, index_fill_, scatter's value, where's scalars, clamp's bounds): integers
// must fit (negative ones may wrap into unsigned types), floats must be finite within range (infinities
// fit floating types), bools always fit.
void check_scalar_fits(Scalar value, DType dtype);
// The C++ type name of `dtype` ("float", "c10::Half"), as PyTorch's messages print a TypeMeta.
std::string c_type_name(DType dtype);
// PyTorch's error for an in-place write into a tensor with overlapping elements (expanded views).
void check_no_internal_overlap(const Tensor& out);

// While one is alive on this thread, index ops trust their indices to be in range and skip the bounds
// check, which reads the indices' min and max back to the host. For backward formulas, whose indices
// the forward already checked: the engine must not wait on the device. Defined in indexing_support.cpp.
class TrustedIndices {
 public:
  TrustedIndices();
  ~TrustedIndices();
  TrustedIndices(const TrustedIndices&) = delete;
  TrustedIndices& operator=(const TrustedIndices&) = delete;
  static bool active();
};

}  // namespace ember::detail
