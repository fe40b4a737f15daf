#pragma once
// Tensor exchange with other frameworks through DLPack (Debian's libdlpack-dev, <dlpack/dlpack.h>, 0.6),
// without copies where the memory allows. Not part of the umbrella header, so that programs that do not
// exchange tensors need no DLPack headers.
//
// Export, to_dlpack(tensor):
//  - First waits, on the host, for the device work recorded so far on the tensor's memory, because
//    DLPack has no way to hand over a semaphore or stream.
//  - Vulkan memory that is host-visible and mapped (lavapipe, integrated GPUs) goes out as kDLCPU, with
//    `data` = the mapped address of the first element and byte_offset 0 (as PyTorch exports, and as
//    PyTorch 1.13's fromDLPack, which ignores byte_offset, needs). CPU libraries such as LibTorch then
//    read and write ember's memory in place.
//  - Other Vulkan memory goes out as kDLVulkan, device_id = the ember Vulkan device index, `data` = the
//    VkBuffer handle cast to a pointer and byte_offset = the byte offset of the first element within
//    that buffer. Consumers must know this convention (DLPack leaves kDLVulkan's meaning open) and use
//    the buffer on the same VkDevice.
//  - CUDA tensors go out as kDLCUDA with the device address of the first element and byte_offset 0.
//  - Strides are always given, in elements. bool goes out as kDLUInt with 8 bits: DLPack 0.6 has no
//    bool code (PyTorch 1.13 refuses to export bool at all).
//  The capsule keeps the tensor's storage alive until its deleter runs.
//
// Import, from_dlpack(capsule), takes ownership of the capsule: its deleter runs exactly once, either
// before from_dlpack returns (copies and ember's own capsules) or when the last tensor using its memory
// dies (zero-copy wraps). On an error the capsule is left untouched and still belongs to the caller.
//  - A capsule that ember exported: a zero-copy alias of the original storage, with its dtype (bool too).
//  - kDLCPU (and kDLCUDAHost, pinned host memory): COPIED into a new tensor on the default device.
//  - kDLCUDA: wrapped without a copy as a tensor on that CUDA device, when ember was built with CUDA.
//  - kDLVulkan from another producer: `data` is taken as a VkBuffer of ember's Vulkan device device_id,
//    under the convention above, and wrapped without a copy.
//  Negative strides, vector lanes and dtypes ember lacks (complex, kDLOpaqueHandle, uint16/32/64) are
//  refused with UnsupportedError. kDLUInt 8 becomes uint8; DLPack 0.8's kDLBool (code 6) becomes bool.
#include <dlpack/dlpack.h>

#include "tensor/tensor.h"

namespace ember {

DLManagedTensor* to_dlpack(const Tensor& tensor);
Tensor from_dlpack(DLManagedTensor* capsule);

// The dtype mapping used by both directions.
DLDataType to_dlpack_dtype(DType dtype);
DType from_dlpack_dtype(DLDataType dtype);  // throws UnsupportedError for what ember lacks

}  // namespace ember
