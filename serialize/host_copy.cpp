#include "serialize/detail/host_copy.h"

#include "runtime/stream.h"

namespace ember::detail {

Future<std::vector<std::byte>> read_back_async(const Tensor& tensor) {
  const Tensor contiguous = tensor.contiguous();
  const uint64_t bytes = contiguous.nbytes();
  if (bytes == 0) return Future<std::vector<std::byte>>::ready_value({});
  const uint64_t offset = static_cast<uint64_t>(contiguous.storage_offset()) * contiguous.element_size();
  return contiguous.device()->default_stream()->copy_to_host(contiguous.storage()->allocation, offset, bytes);
}

Future<std::vector<std::byte>> read_storage_async(const Tensor& tensor) {
  const Storage& storage = *tensor.storage();
  if (storage.nbytes == 0) return Future<std::vector<std::byte>>::ready_value({});
  return tensor.device()->default_stream()->copy_to_host(storage.allocation, 0, storage.nbytes);
}

}  // namespace ember::detail
