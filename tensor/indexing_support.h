#pragma once
// What the index ops share (internal to tensor/): their kernels and stream, the bounds check that reads
// the indices' min and max back to the host (skipped under detail::TrustedIndices), and the shape helpers
// of indices laid along one dim. The TensorIndex engine's entry points for masking.cpp live here too.
#include <optional>
#include <string>
#include <vector>

#include "runtime/kernels/index.h"
#include "tensor/indexing.h"
#include "tensor/ops_support.h"

namespace ember::detail {

IndexKernels& index_kernels(const Tensor& t);
Stream& stream_of(const Tensor& t);

struct IndexRange {
  int64_t min = 0, max = 0;
};

// The min and max of each index tensor (nullopt for undefined and empty ones), read back in one
// synchronisation; all nullopt, without reading, under detail::TrustedIndices.
std::vector<std::optional<IndexRange>> index_ranges(const std::vector<Tensor>& indices);
std::optional<IndexRange> index_range(const Tensor& index);
// Whether an index range breaks a bound. Negative indices count from the end where allowed.
bool breaks_bounds(const std::optional<IndexRange>& range, int64_t size, bool negative);
// The index PyTorch names when `index` (whose range is `range`) breaks a bound: the first out of bounds in
// row-major order, read back only when the range shows one.
std::optional<int64_t> out_of_bounds(const Tensor& index, const std::optional<IndexRange>& range, int64_t size,
                                     bool negative);
// PyTorch's "index 5 is out of bounds for dimension 0 with size 2".
std::string bounds_message(int64_t index, int64_t dim, int64_t size);
// Indices in [-size, size) made non-negative: one remainder launch, only when some index is negative.
Tensor wrap_negative(const Tensor& index, const std::optional<IndexRange>& range, int64_t size);
// A 1-D index (or any index, flattened) with every dim of size 1 except `dim`, which holds its n
// elements: its ref(shape) reads the index along one dim of `shape`. It may be a copy: keep it alive
// until the kernel call that reads it has been recorded.
Tensor along_dim(const Tensor& index, int64_t dim, size_t ndim);
// "2 3 4", as PyTorch's index_copy_ message lists sizes.
std::string join_sizes(IntArrayRef sizes);
// A tensor with at least one dim (0-dim tensors gather and scatter as one element).
Tensor at_least_1d(const Tensor& t);
// A fill value for the index kernels, as `dtype` stores it: any nonzero value is true in a bool tensor
// (the kernels would keep only an integer's low bits).
Scalar stored_as(Scalar value, DType dtype);

// scatter's checks of dtypes and shapes, with PyTorch's messages; `dim` is already wrapped, src optional.
void check_scatter_args(const Tensor& self, int64_t dim, const Tensor& index, const Tensor* src);
// self (mode)= src, or the scalar value, at `index` along `dim` (gather_scatter.cpp): the checks above,
// the bounds check (one read-back of the indices, skipped under TrustedIndices), one scatter kernel
// call, and the version bump. Records nothing.
Tensor& scatter_checked(Tensor& self, ScatterMode mode, int64_t dim, const Tensor& index, const Tensor* src,
                        std::optional<Scalar> value);

// Tensor::index with the node named `name` (indexing.cpp): masked_select shares it.
Tensor index_recorded(const Tensor& self, const std::vector<TensorIndex>& indices, const char* name);
// The coordinates of x's nonzero elements, n × x.dim() (masking.cpp); reads the count back.
Tensor nonzero_of(const Tensor& x);

}  // namespace ember::detail
