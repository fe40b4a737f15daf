// The checks of SortArgs that every backend makes before it launches.
#include "runtime/kernels/sort.h"

#include <algorithm>
#include <string>

#include "runtime/error.h"

namespace ember {

namespace {

std::string name_of(DType dtype) { return std::string(dtype_name(dtype)); }

}  // namespace

int64_t SortArgs::length() const { return in.ndim == 0 ? 1 : in.sizes[dim]; }

int64_t SortArgs::count() const { return indices.ndim == 0 ? 1 : indices.sizes[dim]; }

void SortArgs::check() const {
  if (in.ndim < 0 || in.ndim > kMaxDims) throw Error("sort: at most 16 dims");
  if (dim < 0 || dim >= std::max(in.ndim, 1)) {
    throw Error("sort: dim " + std::to_string(dim) + " is out of range for " + std::to_string(in.ndim) + " dims");
  }
  if (indices.dtype != DType::Int64) throw Error("sort writes int64 indices, not " + name_of(indices.dtype));
  if (values && values->dtype != in.dtype) {
    throw Error("sort needs values of the input's dtype " + name_of(in.dtype) + ", got " + name_of(values->dtype));
  }
  for (const TensorRef* out : {&indices, values ? &*values : static_cast<const TensorRef*>(nullptr)}) {
    if (!out) continue;
    bool same = out->ndim == in.ndim && (in.ndim == 0 || out->sizes[dim] == indices.sizes[dim]);
    for (int d = 0; same && d < in.ndim; ++d) same = d == dim || out->sizes[d] == in.sizes[d];
    if (!same) throw Error("sort: values and indices need the input's sizes except along dim");
  }
  if (first < 0 || first + count() > length()) {
    throw Error("sort: sorted positions [" + std::to_string(first) + ", " + std::to_string(first + count()) +
                ") are not all within a slice of " + std::to_string(length()));
  }
}

}  // namespace ember
