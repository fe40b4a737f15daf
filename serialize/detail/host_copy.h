#pragma once
// Moving checkpoint bytes between device tensors and the host, shared by the safetensors and PyTorch
// formats. Internal to serialize/.
#include <cstddef>
#include <vector>

#include "runtime/future.h"
#include "tensor/tensor.h"

namespace ember::detail {

// Starts reading `tensor`'s elements back in row-major order (a strided tensor is first made contiguous
// on the device). Nothing waits: callers start every read before they wait on the first, so that the
// device streams them back while the host writes.
Future<std::vector<std::byte>> read_back_async(const Tensor& tensor);

// Starts reading the whole storage under `tensor` (its every byte, whatever part the tensor views), as
// PyTorch's format saves storages rather than tensors.
Future<std::vector<std::byte>> read_storage_async(const Tensor& tensor);

}  // namespace ember::detail
