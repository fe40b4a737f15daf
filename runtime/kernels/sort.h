#pragma once
// The sort kernel family: every slice along one dim sorted, with the original position of each element.
//
// The order is total, so every backend and every sorting network gives the same result: elements compare
// by value, ties by original position (a stable sort, in both directions). Values compare as PyTorch's
// sort does: NaN above everything (last ascending, first descending), -0.0 equal to 0.0.
#include <optional>

#include "runtime/kernels/kernels.h"

namespace ember {

// Sorts each slice of `in` along `dim` (ascending, or descending) and writes the sorted positions
// [first, first + count) of each slice, where count is indices.sizes[dim]: values receives the elements
// themselves (their bits, so -0.0 and NaN payloads survive), indices their positions along dim in `in`.
// values and indices have in's sizes except along dim (any strides, no overlap with in or each other);
// values is optional (argsort). A 0-dim in is one slice of one element (dim 0, outputs 0-dim or 1-dim).
struct SortArgs {
  std::optional<TensorRef> values;  // in's dtype
  TensorRef indices;                // int64
  TensorRef in;
  int dim = 0;
  bool descending = false;
  int64_t first = 0;  // the first sorted position written: 0 for sort and topk, k - 1 for kthvalue

  // Elements per slice, and sorted positions written per slice (a 0-dim tensor has one).
  int64_t length() const;
  int64_t count() const;
  // Throws Error unless the fields are as described above. Both backends check with it.
  void check() const;
};

class SortKernels : public KernelFamily {
 public:
  static constexpr std::string_view kName = "sort";
  virtual void sort(Stream& stream, const SortArgs& args) = 0;
};

}  // namespace ember
