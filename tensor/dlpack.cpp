// DLPack export and import; the conventions are in tensor/dlpack.h.
#include "tensor/dlpack.h"

#include <cstdint>
#include <cstring>

#include "tensor/known_values.h"
#include "tensor/ops_support.h"

#ifdef EMBER_HAVE_CUDA
#include "runtime/cuda/cuda_stream.h"
#endif

namespace ember {

namespace {

// DLPack 0.8 added a bool code; 0.6's header lacks the name, so importers spell it out.
constexpr uint8_t kDLBoolCode = 6;

// What an exported capsule owns: the tensor (so its storage stays alive) and the arrays the DLTensor
// points into.
struct ExportContext {
  Tensor tensor;
  std::vector<int64_t> shape;
  std::vector<int64_t> strides;
  DLManagedTensor managed{};
};

// Also how from_dlpack recognises ember's own capsules.
void delete_export(DLManagedTensor* self) {
  delete static_cast<ExportContext*>(self->manager_ctx);
}

std::string describe(DLDataType dtype) {
  return "(code " + std::to_string(dtype.code) + ", bits " + std::to_string(dtype.bits) + ", lanes " +
         std::to_string(dtype.lanes) + ")";
}

// Bytes from the base address that the elements span: 0 for an empty tensor.
uint64_t extent_bytes(IntArrayRef sizes, IntArrayRef strides, size_t element_size) {
  int64_t last = 0;
  for (size_t d = 0; d < sizes.size(); ++d) {
    if (sizes[d] == 0) return 0;
    last += (sizes[d] - 1) * strides[d];
  }
  return static_cast<uint64_t>(last + 1) * element_size;
}

// Host elements at any strides, gathered into row-major order.
std::vector<std::byte> gather_host(const std::byte* base, IntArrayRef sizes, IntArrayRef strides,
                                   size_t element_size) {
  const int64_t count = detail::product(sizes);
  std::vector<std::byte> out(static_cast<size_t>(count) * element_size);
  if (count == 0) return out;
  if (IntArrayRef(detail::contiguous_strides(sizes)) == strides) {
    std::memcpy(out.data(), base, out.size());
    return out;
  }
  std::vector<int64_t> index(sizes.size(), 0);
  for (int64_t i = 0; i < count; ++i) {
    int64_t offset = 0;
    for (size_t d = 0; d < sizes.size(); ++d) offset += index[d] * strides[d];
    std::memcpy(out.data() + i * element_size, base + offset * static_cast<int64_t>(element_size),
                element_size);
    for (size_t d = sizes.size(); d-- > 0 && ++index[d] == sizes[d];) index[d] = 0;
  }
  return out;
}


}  // namespace

DLDataType to_dlpack_dtype(DType dtype) {
  const auto bits = static_cast<uint8_t>(element_size(dtype) * 8);
  switch (dtype) {
    case DType::Float32:
    case DType::Float16:
    case DType::Float64: return {kDLFloat, bits, 1};
    case DType::BFloat16: return {kDLBfloat, bits, 1};
    case DType::Int8:
    case DType::Int16:
    case DType::Int32:
    case DType::Int64: return {kDLInt, bits, 1};
    case DType::UInt8:
    case DType::Bool: return {kDLUInt, bits, 1};
  }
  throw Error("unknown dtype");
}

DType from_dlpack_dtype(DLDataType dtype) {
  const auto unsupported = [&] {
    return UnsupportedError("ember has no dtype for the DLPack type " + describe(dtype) +
                            "; it takes float 16/32/64, bfloat 16, int 8/16/32/64, uint 8 and bool, "
                            "with one lane");
  };
  if (dtype.lanes != 1) throw unsupported();
  switch (dtype.code) {
    case kDLFloat:
      if (dtype.bits == 16) return DType::Float16;
      if (dtype.bits == 32) return DType::Float32;
      if (dtype.bits == 64) return DType::Float64;
      break;
    case kDLBfloat:
      if (dtype.bits == 16) return DType::BFloat16;
      break;
    case kDLInt:
      if (dtype.bits == 8) return DType::Int8;
      if (dtype.bits == 16) return DType::Int16;
      if (dtype.bits == 32) return DType::Int32;
      if (dtype.bits == 64) return DType::Int64;
      break;
    case kDLUInt:
      if (dtype.bits == 8) return DType::UInt8;
      break;
    case kDLBoolCode:
      if (dtype.bits == 8) return DType::Bool;
      break;
  }
  throw unsupported();
}

DLManagedTensor* to_dlpack(const Tensor& tensor) {
  const Allocation& allocation = *tensor.storage()->allocation;
  detail::forget_known_values(tensor);  // the consumer may write the memory in place
  // DLPack carries no semaphore or stream, so the consumer must find the device work finished.
  allocation.wait_idle();

  auto context = std::make_unique<ExportContext>();
  context->tensor = tensor;
  context->shape = tensor.sizes().vec();
  context->strides = tensor.strides().vec();
  DLTensor& dl = context->managed.dl_tensor;
  dl.ndim = static_cast<int>(tensor.dim());
  dl.shape = context->shape.data();
  dl.strides = context->strides.data();
  dl.dtype = to_dlpack_dtype(tensor.dtype());
  const uint64_t first_byte = static_cast<uint64_t>(tensor.storage_offset()) * tensor.element_size();
  const Device& device = *tensor.device();
  const int index = device.info().index;
  if (device.backend() == Backend::CUDA) {
#ifdef EMBER_HAVE_CUDA
    dl.device = {kDLCUDA, index};
    dl.data = cuda::device_pointer(allocation, first_byte);
    dl.byte_offset = 0;
#else
    throw Error("a CUDA tensor in a build without the CUDA backend");
#endif
  } else if (void* mapped = allocation.mapped()) {
    dl.device = {kDLCPU, 0};
    dl.data = static_cast<std::byte*>(mapped) + first_byte;
    dl.byte_offset = 0;
  } else {
    dl.device = {kDLVulkan, index};
    dl.data = reinterpret_cast<void*>(static_cast<uintptr_t>(allocation.handle()));
    dl.byte_offset = allocation.offset() + first_byte;
  }
  context->managed.manager_ctx = context.get();
  context->managed.deleter = delete_export;
  return &context.release()->managed;
}

Tensor from_dlpack(DLManagedTensor* capsule) {
  if (!capsule) throw Error("from_dlpack: the capsule is null");

  if (capsule->deleter == delete_export) {
    // One of ember's own: alias the storage it keeps alive, then let the capsule go.
    const Tensor alias = static_cast<ExportContext*>(capsule->manager_ctx)->tensor.alias();
    capsule->deleter(capsule);
    return alias;
  }

  const DLTensor& dl = capsule->dl_tensor;
  const DType dtype = from_dlpack_dtype(dl.dtype);
  if (dl.ndim < 0 || dl.ndim > kMaxDims) {
    throw UnsupportedError("from_dlpack: ember tensors have 0 to " + std::to_string(kMaxDims) +
                           " dims, the capsule has " + std::to_string(dl.ndim));
  }
  const std::vector<int64_t> sizes(dl.shape, dl.shape + dl.ndim);
  const std::vector<int64_t> strides =
      dl.strides ? std::vector<int64_t>(dl.strides, dl.strides + dl.ndim) : detail::contiguous_strides(sizes);
  bool negative_strides = false;
  for (int64_t d = 0; d < dl.ndim; ++d) {
    if (sizes[d] < 0) throw Error("from_dlpack: negative size " + std::to_string(sizes[d]));
    negative_strides |= strides[d] < 0 && sizes[d] > 1;
  }
  const size_t element = element_size(dtype);
  // Device memory is used in place, and ember's views take no negative strides. Host memory is
  // gathered element by element, so any strides do there.
  const auto in_place_extent = [&] {
    if (negative_strides) {
      throw UnsupportedError("from_dlpack: ember views take no negative strides, got " + to_string(strides));
    }
    return extent_bytes(sizes, strides, element);
  };

  // The producer gets its memory back once the last ember tensor over it dies.
  const auto release_capsule = [capsule] {
    if (capsule->deleter) capsule->deleter(capsule);
  };
  switch (dl.device.device_type) {
    case kDLCPU:
    case kDLCUDAHost: {
      // Host memory cannot be used in place by a device: this is a copy, and the capsule goes at once.
      const auto* base = static_cast<const std::byte*>(dl.data) + dl.byte_offset;
      const std::vector<std::byte> bytes = gather_host(base, sizes, strides, element);
      Tensor out = from_blob(bytes.data(), sizes, TensorOptions().dtype(dtype));
      if (capsule->deleter) capsule->deleter(capsule);
      return out;
    }
    case kDLCUDA: {
#ifdef EMBER_HAVE_CUDA
      MemoryBlock block;
      block.handle = reinterpret_cast<uintptr_t>(dl.data) + dl.byte_offset;
      return detail::tensor_over(get_device("cuda:" + std::to_string(dl.device.device_id)), block,
                                 release_capsule, in_place_extent(), dtype, sizes, strides, 0);
#else
      throw DeviceUnavailableError("from_dlpack: a kDLCUDA capsule, but ember was built without CUDA");
#endif
    }
    case kDLVulkan: {
      // A VkBuffer handle in `data`, and the first element's byte offset within it.
      if (dl.byte_offset % element != 0) {
        throw UnsupportedError("from_dlpack: a kDLVulkan byte_offset of " + std::to_string(dl.byte_offset) +
                               " is not a multiple of the element size " + std::to_string(element));
      }
      const uint64_t extent = in_place_extent();
      MemoryBlock block;
      block.handle = reinterpret_cast<uintptr_t>(dl.data);
      const auto offset = static_cast<int64_t>(dl.byte_offset / element);
      return detail::tensor_over(get_device("vulkan:" + std::to_string(dl.device.device_id)), block,
                                 release_capsule, dl.byte_offset + extent, dtype, sizes, strides, offset);
    }
    default:
      throw UnsupportedError("from_dlpack: ember cannot use memory of DLPack device type " +
                             std::to_string(static_cast<int>(dl.device.device_type)));
  }
}

}  // namespace ember
