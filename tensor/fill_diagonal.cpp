// fill_diagonal_, as PyTorch's: the elements whose indices are all equal, reached as one strided view of
// self and filled. With `wrap`, a tall matrix's diagonal starts again every width + 1 rows. Being a fill
// through a view, autograd sees it as one (CopySlices, zero gradient on the diagonal).
#include "tensor/ops_support.h"

namespace ember {

Tensor& Tensor::fill_diagonal_(Scalar fill_value, bool wrap) {
  const int64_t ndim = dim();
  if (ndim < 2) throw Error("dimensions must larger than 1");
  const int64_t height = size(0), width = size(1);
  for (int64_t d = 1; ndim > 2 && d < ndim; ++d) {
    if (size(d) != height) throw Error("all dimensions of input must be of equal length");
  }
  int64_t step = 0;  // from one diagonal element to the next: one step along every dim
  for (int64_t d = 0; d < ndim; ++d) step += stride(d);
  const int64_t length = std::min(height, width);
  as_strided({length}, {step}, storage_offset()).fill_(fill_value);
  if (wrap && ndim == 2 && height > width + 1) {
    // The wrapped diagonal walks on through memory from row width + 1, as numpy's fill_diagonal does.
    const int64_t period = width + 1;
    const int64_t wrapped = (numel() + period - 1) / period - length;
    as_strided({wrapped}, {step}, storage_offset() + stride(0) * period).fill_(fill_value);
  }
  return *this;
}

}  // namespace ember
