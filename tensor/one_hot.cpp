// one_hot: int64 class indices to an int64 tensor with one more dim, by scattering ones into zeros.
#include "tensor/indexing_support.h"

namespace ember {

Tensor one_hot(const Tensor& indices, int64_t num_classes) {
  if (indices.dtype() != DType::Int64) throw Error("one_hot is only applicable to index tensor.");
  if (num_classes == -1 && indices.numel() == 0) {
    throw Error("Can not infer total number of classes from empty tensor.");
  }
  if (indices.numel() > 0) {
    const std::optional<detail::IndexRange> range = detail::index_range(indices);  // one read-back, unless trusted
    if (!range) {
      if (num_classes == -1) throw Error("one_hot cannot infer num_classes under detail::TrustedIndices");
    } else if (range->min < 0) {
      throw Error("Class values must be non-negative.");
    } else if (num_classes == -1) {
      num_classes = range->max + 1;
    } else if (range->max >= num_classes) {
      throw Error("Class values must be smaller than num_classes.");
    }
  }
  std::vector<int64_t> shape = indices.sizes().vec();
  shape.push_back(num_classes);
  Tensor out = zeros(shape, TensorOptions().dtype(DType::Int64).device(indices.device()));
  if (out.numel() > 0) {
    detail::index_kernels(indices).scatter(detail::stream_of(indices), {ScatterMode::Assign, out.ref(), static_cast<int>(indices.dim()),
                                               indices.unsqueeze(-1).ref(), Operand(Scalar(int64_t{1}))});
  }
  return out;
}

}  // namespace ember
