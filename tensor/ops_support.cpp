#include "tensor/ops_support.h"

#include <algorithm>
#include <cmath>
#include <cstdint>
#include <limits>
#include <numeric>
#include <utility>

#include "runtime/integer_range.h"

namespace ember::detail {

std::shared_ptr<Stream> stream_for(const Device& device) {
  return const_cast<Device&>(device).default_stream();
}


int64_t wrap_dim(int64_t dim, int64_t ndim, int64_t extra) {
  const int64_t range = std::max<int64_t>(ndim + extra, 1);  // a 0-dim tensor takes dims -1 and 0
  if (dim < -range || dim >= range) {
    throw IndexError("Dimension out of range (expected to be in range of [" + std::to_string(-range) +
                     ", " + std::to_string(range - 1) + "], but got " + std::to_string(dim) + ")");
  }
  return dim < 0 ? dim + range : dim;
}

std::vector<int64_t> wrap_distinct_dims(IntArrayRef dims, int64_t ndim) {
  std::vector<int64_t> wrapped;
  std::vector<bool> seen(std::max<int64_t>(ndim, 1), false);
  for (int64_t d : dims) {
    const int64_t w = wrap_dim(d, ndim);
    if (seen[w]) throw Error("dim " + std::to_string(w) + " appears multiple times in the list of dims");
    seen[w] = true;
    wrapped.push_back(w);
  }
  return wrapped;
}

void check_same_device(std::initializer_list<const Tensor*> tensors) {
  const Device* first = nullptr;
  for (const Tensor* t : tensors) {
    if (!t->defined()) continue;
    const Device* d = t->device().get();
    if (!first) {
      first = d;
    } else if (d != first) {
      throw Error("Expected all tensors to be on the same device, but found at least two devices, " +
                  first->spec() + " and " + d->spec() + "!");
    }
  }
}

void check_dtype_supported(const Device& device, DType dtype) {
  if (device.supports(dtype)) return;
  throw UnsupportedError(device.info().name + " (" + device.spec() + ") has no " +
                         std::string(dtype_name(dtype)) +
                         (dtype == DType::Float64 ? ": the device lacks shaderFloat64" : ""));
}

std::vector<int64_t> contiguous_strides(IntArrayRef sizes) {
  std::vector<int64_t> strides(sizes.size());
  // Unsigned, so that the strides of an empty tensor whose other sizes are huge wrap instead of
  // overflowing: such a tensor has no element to reach.
  uint64_t stride = 1;
  for (size_t i = sizes.size(); i-- > 0;) {
    strides[i] = static_cast<int64_t>(stride);
    stride *= static_cast<uint64_t>(std::max<int64_t>(sizes[i], 1));
  }
  return strides;
}

namespace {

// The product of `sizes` left to right in uint64, as c10::safe_multiplies_u64 takes it: an overflow
// sticks even when a later size is 0, so [2^32, 2^32, 0] overflows where [2^32, 0, 2^32] does not.
bool multiply_overflows(IntArrayRef sizes, uint64_t& product) {
  product = 1;
  bool overflowed = false;
  for (int64_t s : sizes) overflowed |= __builtin_mul_overflow(product, static_cast<uint64_t>(s), &product);
  return overflowed;
}

}  // namespace

int64_t product(IntArrayRef sizes) {
  uint64_t n = 0;
  if (multiply_overflows(sizes, n) || n > static_cast<uint64_t>(std::numeric_limits<int64_t>::max())) {
    throw Error("numel: integer multiplication overflow");
  }
  return static_cast<int64_t>(n);
}

uint64_t contiguous_nbytes(IntArrayRef sizes, DType dtype) {
  // As PyTorch's computeStorageNbytesContiguous: the element count, then the bytes, at most INT64_MAX.
  uint64_t bytes = 0;
  bool overflowed = multiply_overflows(sizes, bytes);
  overflowed |= __builtin_mul_overflow(bytes, static_cast<uint64_t>(element_size(dtype)), &bytes);
  if (overflowed || bytes > static_cast<uint64_t>(std::numeric_limits<int64_t>::max())) {
    throw Error("Storage size calculation overflowed with sizes=" + to_string(sizes));
  }
  return bytes;
}

uint64_t strided_nbytes(IntArrayRef sizes, IntArrayRef strides, DType dtype) {
  if (std::find(sizes.begin(), sizes.end(), 0) != sizes.end()) return 0;
  int64_t elements = 1;
  bool overflowed = false;
  for (size_t i = 0; i < sizes.size(); ++i) {
    int64_t reach = 0;
    overflowed |= __builtin_mul_overflow(sizes[i] - 1, strides[i], &reach);
    overflowed |= __builtin_add_overflow(elements, reach, &elements);
  }
  int64_t bytes = 0;
  overflowed |= __builtin_mul_overflow(elements, static_cast<int64_t>(element_size(dtype)), &bytes);
  if (overflowed) {
    throw Error("Storage size calculation overflowed with sizes=" + to_string(sizes) + " and strides=" +
                to_string(strides));
  }
  return static_cast<uint64_t>(bytes);
}

std::optional<std::vector<int64_t>> view_strides(IntArrayRef old_sizes, IntArrayRef old_strides,
                                                 IntArrayRef new_sizes) {
  if (old_sizes.empty() || product(old_sizes) == 0) return contiguous_strides(new_sizes);
  std::vector<int64_t> new_strides(new_sizes.size());
  int64_t view_d = static_cast<int64_t>(new_sizes.size()) - 1;
  // Walk chunks of old dims that are contiguous with each other; each must map onto whole new dims.
  int64_t chunk_base_stride = old_strides[old_strides.size() - 1];
  int64_t tensor_numel = 1, view_numel = 1;
  for (int64_t d = static_cast<int64_t>(old_sizes.size()) - 1; d >= 0; --d) {
    tensor_numel *= old_sizes[d];
    if (d == 0 || (old_sizes[d - 1] != 1 && old_strides[d - 1] != tensor_numel * chunk_base_stride)) {
      while (view_d >= 0 && (view_numel < tensor_numel || new_sizes[view_d] == 1)) {
        new_strides[view_d] = view_numel * chunk_base_stride;
        view_numel *= new_sizes[view_d];
        --view_d;
      }
      if (view_numel != tensor_numel) return std::nullopt;
      if (d > 0) {
        chunk_base_stride = old_strides[d - 1];
        tensor_numel = 1;
        view_numel = 1;
      }
    }
  }
  if (view_d != -1) return std::nullopt;
  return new_strides;
}

std::vector<int64_t> infer_size(IntArrayRef shape, int64_t numel) {
  std::vector<int64_t> result = shape.vec();
  int64_t known = 1;
  bool overflows = false;
  std::optional<size_t> infer;
  for (size_t i = 0; i < shape.size(); ++i) {
    if (shape[i] == -1) {
      if (infer) throw Error("only one dimension can be inferred");
      infer = i;
    } else if (shape[i] < 0) {
      throw Error("invalid shape dimension " + std::to_string(shape[i]));
    } else if (__builtin_mul_overflow(known, shape[i], &known)) {
      overflows = true;
    }
  }
  const auto invalid = [&] {
    return Error("shape '" + to_string(shape) + "' is invalid for input of size " + std::to_string(numel));
  };
  // A shape whose sizes overflow int64 is invalid, unless a 0 among them makes it empty.
  if (overflows && std::find(shape.begin(), shape.end(), 0) == shape.end()) throw invalid();
  if (overflows) known = 0;
  if (infer) {
    if (known == 0) {
      throw Error("cannot reshape tensor of 0 elements into shape " + to_string(shape) +
                  " because the unspecified dimension size -1 can be any value and is ambiguous");
    }
    if (numel % known != 0) throw invalid();
    result[*infer] = numel / known;
  } else if (known != numel) {
    throw invalid();
  }
  return result;
}

Tensor empty_on(IntArrayRef sizes, DType dtype, const std::shared_ptr<Device>& device) {
  check_dtype_supported(*device, dtype);
  for (int64_t s : sizes) {
    if (s < 0) throw Error("Trying to create tensor with negative dimension " + std::to_string(s) + ": " +
                           to_string(sizes));
  }
  if (sizes.size() > static_cast<size_t>(kMaxDims)) {
    throw Error("ember tensors have at most " + std::to_string(kMaxDims) + " dims, got " +
                std::to_string(sizes.size()));
  }
  auto storage = std::make_shared<Storage>();
  storage->device = device;
  storage->nbytes = contiguous_nbytes(sizes, dtype);
  // Zero-byte tensors still get an allocation, so every tensor can be bound.
  storage->allocation = device->allocate(std::max<uint64_t>(storage->nbytes, 4), stream_for(*device));
  auto impl = std::make_shared<TensorImpl>();
  impl->storage = std::move(storage);
  impl->sizes = sizes.vec();
  impl->strides = contiguous_strides(sizes);
  impl->dtype = dtype;
  return Tensor(std::move(impl));
}

Tensor tensor_over(const std::shared_ptr<Device>& device, MemoryBlock block, std::function<void()> release,
                   uint64_t storage_bytes, DType dtype, std::vector<int64_t> sizes,
                   std::vector<int64_t> strides, int64_t storage_offset) {
  check_dtype_supported(*device, dtype);
  block.size = std::max<uint64_t>(storage_bytes, 1);
  auto storage = std::make_shared<Storage>();
  storage->device = device;
  storage->nbytes = storage_bytes;
  storage->allocation = device->allocator().adopt(block, std::move(release), stream_for(*device));
  auto impl = std::make_shared<TensorImpl>();
  impl->storage = std::move(storage);
  impl->sizes = std::move(sizes);
  impl->strides = std::move(strides);
  impl->storage_offset = storage_offset;
  impl->dtype = dtype;
  return Tensor(std::move(impl));
}

Tensor zeros_as(const Tensor& like, IntArrayRef sizes) {
  return zeros(sizes, TensorOptions().dtype(like.dtype()).device(like.device()));
}

Tensor make_view(const Tensor& base, std::vector<int64_t> sizes, std::vector<int64_t> strides,
                 int64_t storage_offset) {
  auto impl = std::make_shared<TensorImpl>();
  impl->storage = base.storage();
  impl->sizes = std::move(sizes);
  impl->strides = std::move(strides);
  impl->storage_offset = storage_offset;
  impl->dtype = base.dtype();
  impl->view_base = base.impl().view_base ? base.impl().view_base : base.impl_ptr();
  return Tensor(std::move(impl));
}


void bump_version(const Tensor& tensor) { ++tensor.storage()->version; }

namespace {

// How PyTorch's error names the C++ type of a dtype.
const char* cpp_type_name(DType dtype) {
  switch (dtype) {
    case DType::Float32: return "float";
    case DType::Float64: return "double";
    case DType::Float16: return "at::Half";
    case DType::BFloat16: return "at::BFloat16";
    case DType::Int8: return "int8_t";
    case DType::UInt8: return "uint8_t";
    case DType::Int16: return "int16_t";
    case DType::Int32: return "int";
    case DType::Int64: return "int64_t";
    case DType::Bool: return "bool";
  }
  return "unknown";
}

// The finite range of a dtype, as doubles (float64's and int64's ends are exact in double).
std::pair<double, double> finite_range(DType dtype) {
  switch (dtype) {
    case DType::Float32: return {-std::numeric_limits<float>::max(), std::numeric_limits<float>::max()};
    case DType::Float64: return {std::numeric_limits<double>::lowest(), std::numeric_limits<double>::max()};
    case DType::Float16: return {-65504.0, 65504.0};
    case DType::BFloat16: return {-3.3895313892515355e38, 3.3895313892515355e38};
    default: {
      // int64's highest, 2^63 - 1, rounds to 2^63 as a double.
      const auto [lowest, highest] = integer_range(dtype);
      return {static_cast<double>(lowest), static_cast<double>(highest)};
    }
  }
}

bool overflows(Scalar value, DType dtype) {
  if (dtype == DType::Bool || value.is_bool()) return false;
  if (value.is_integral()) {
    const int64_t v = value.to_int64();
    if (dtype == DType::UInt8) return v > 255 || v < -255;  // negative integers wrap, as two's complement
    if (is_integral(dtype)) {
      const auto [lowest, highest] = integer_range(dtype);
      return v < lowest || v > highest;
    }
    // floating: compared as a double below
  }
  const double v = value.to_double();
  if (std::isinf(v)) return !is_floating_point(dtype);
  if (std::isnan(v)) return !is_floating_point(dtype);
  const auto [lowest, highest] = finite_range(dtype);
  // int64's highest is 2^63 - 1, which a double cannot hold: 2^63 itself overflows.
  if (dtype == DType::Int64) return v < lowest || v >= highest;
  return v < lowest || v > highest;
}

}  // namespace

void check_scalar_fits(Scalar value, DType dtype) {
  if (overflows(value, dtype)) {
    throw Error(std::string("value cannot be converted to type ") + cpp_type_name(dtype) + " without overflow");
  }
}

void check_no_internal_overlap(const Tensor& out) {
  if (out.numel() == 0) return;  // no element, no overlap: PyTorch counts an empty tensor as contiguous
  for (int64_t d = 0; d < out.dim(); ++d) {
    if (out.size(d) > 1 && out.stride(d) == 0) {
      throw Error("unsupported operation: more than one element of the written-to tensor refers to a "
                  "single memory location. Please clone() the tensor before performing the operation.");
    }
  }
}

std::string c_type_name(DType dtype) {
  switch (dtype) {
    case DType::Bool: return "bool";
    case DType::UInt8: return "unsigned char";
    case DType::Int8: return "signed char";
    case DType::Int16: return "short int";
    case DType::Int32: return "int";
    case DType::Int64: return "long";
    case DType::Float32: return "float";
    case DType::Float64: return "double";
    case DType::Float16: return "c10::Half";
    case DType::BFloat16: return "c10::BFloat16";
  }
  return "unknown";
}

}  // namespace ember::detail
