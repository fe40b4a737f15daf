#include "tensor/ops_support.h"

#include <numeric>

namespace ember::detail {

std::shared_ptr<Stream> stream_for(const Device& device) {
  return const_cast<Device&>(device).default_stream();
}

Kernels& kernels_for(const Device& device) { return const_cast<Device&>(device).kernels(); }

int64_t wrap_dim(int64_t dim, int64_t ndim, int64_t extra) {
  const int64_t range = std::max<int64_t>(ndim + extra, 1);  // a 0-dim tensor takes dims -1 and 0
  if (dim < -range || dim >= range) {
    throw IndexError("Dimension out of range (expected to be in range of [" + std::to_string(-range) +
                     ", " + std::to_string(range - 1) + "], but got " + std::to_string(dim) + ")");
  }
  return dim < 0 ? dim + range : dim;
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
  int64_t stride = 1;
  for (size_t i = sizes.size(); i-- > 0;) {
    strides[i] = stride;
    stride *= std::max<int64_t>(sizes[i], 1);
  }
  return strides;
}

int64_t product(IntArrayRef sizes) {
  return std::accumulate(sizes.begin(), sizes.end(), int64_t{1}, std::multiplies<>());
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
  std::optional<size_t> infer;
  for (size_t i = 0; i < shape.size(); ++i) {
    if (shape[i] == -1) {
      if (infer) throw Error("only one dimension can be inferred");
      infer = i;
    } else if (shape[i] < 0) {
      throw Error("invalid shape dimension " + std::to_string(shape[i]));
    } else {
      known *= shape[i];
    }
  }
  const auto invalid = [&] {
    return Error("shape '" + to_string(shape) + "' is invalid for input of size " + std::to_string(numel));
  };
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
  storage->nbytes = static_cast<uint64_t>(product(sizes)) * element_size(dtype);
  // Zero-byte tensors still get an allocation, so every tensor can be bound.
  storage->allocation = device->allocate(std::max<uint64_t>(storage->nbytes, 4), stream_for(*device));
  auto impl = std::make_shared<TensorImpl>();
  impl->storage = std::move(storage);
  impl->sizes = sizes.vec();
  impl->strides = contiguous_strides(sizes);
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

std::string type_name(DType dtype) {
  switch (dtype) {
    case DType::Float32: return "Float";
    case DType::Float64: return "Double";
    case DType::Float16: return "Half";
    case DType::BFloat16: return "BFloat16";
    case DType::Int8: return "Char";
    case DType::UInt8: return "Byte";
    case DType::Int16: return "Short";
    case DType::Int32: return "Int";
    case DType::Int64: return "Long";
    case DType::Bool: return "Bool";
  }
  return "Unknown";
}

void bump_version(const Tensor& tensor) { ++tensor.storage()->version; }

void check_castable(DType result, DType out) {
  if (!can_cast(result, out)) {
    throw Error("result type " + type_name(result) + " can't be cast to the desired output type " + type_name(out));
  }
}

void check_no_internal_overlap(const Tensor& out) {
  for (int64_t d = 0; d < out.dim(); ++d) {
    if (out.size(d) > 1 && out.stride(d) == 0) {
      throw Error("unsupported operation: more than one element of the written-to tensor refers to a "
                  "single memory location. Please clone() the tensor before performing the operation.");
    }
  }
}

}  // namespace ember::detail
