#include "shaders/common/index_launch.h"

#include <algorithm>
#include <string>

#include "runtime/error.h"

namespace ember::vulkan {

TensorRef along_dim_view(const TensorRef& ref, const TensorRef& shape, int dim) {
  TensorRef view = ref;
  view.sizes = shape.sizes;
  view.strides[dim] = 0;
  return view;
}

uint64_t reach_bytes(int64_t count, int64_t stride, size_t element_bytes) {
  if (count <= 1) return 0;
  return static_cast<uint64_t>((count - 1) * stride) * element_bytes;
}

std::vector<DimSlice> dim_slices(const Context& context, int64_t count, int64_t stride, size_t element_bytes) {
  const uint64_t half = max_window_bytes(context) / 2;
  if (reach_bytes(count, stride, element_bytes) <= half) return {{0, count}};
  const int64_t per_slice = static_cast<int64_t>(half / (static_cast<uint64_t>(stride) * element_bytes)) + 1;
  std::vector<DimSlice> slices;
  for (int64_t first = 0; first < count; first += per_slice) slices.push_back({first, std::min(per_slice, count - first)});
  return slices;
}

uint64_t window_limit(const Context& context, uint64_t reach, std::string_view op) {
  const uint64_t limit = max_window_bytes(context);
  if (reach >= limit) {
    throw UnsupportedError(std::string(op) + ": one slice along the indexed dim is larger than a "
                           "buffer binding can reach");
  }
  return limit - reach;
}

Window widened_window(const Context& context, const LaunchShape& piece, int i, bool write,
                      int64_t count, int64_t stride) {
  if (count <= 1) return operand_window(context, piece, i, write);
  if (piece.ndim >= kMaxDims) throw Error("a widened launch piece has no dim left");
  // One more dim that only operand i steps through makes extent_bytes(i) cover the gathered reach.
  LaunchShape widened = piece;
  widened.sizes[piece.ndim] = count;
  for (int op = 0; op < piece.noperands; ++op) widened.operands[op].strides[piece.ndim] = 0;
  widened.operands[i].strides[piece.ndim] = stride;
  widened.ndim = piece.ndim + 1;
  return operand_window(context, widened, i, write);
}

TensorRef position_tracker(const TensorRef& ref) {
  TensorRef tracker;
  tracker.dtype = DType::UInt8;
  tracker.ndim = ref.ndim;
  int64_t stride = 1;
  for (int d = ref.ndim - 1; d >= 0; --d) {
    tracker.sizes[d] = ref.sizes[d];
    tracker.strides[d] = stride;
    stride *= ref.sizes[d];
  }
  return tracker;
}

bool takes_rows_runs(const LaunchShape& piece) {
  // divide_small's dividends, the run's first elements, stay below 2^24.
  return piece.ndim <= 2 && piece.sizes[piece.ndim - 1] >= kRunElements && piece.numel() < (int64_t{1} << 24);
}

TensorRef at_least_1d(const TensorRef& ref) {
  if (ref.ndim > 0) return ref;
  TensorRef one = ref;
  one.ndim = 1;
  one.sizes[0] = 1;
  one.strides[0] = 1;
  return one;
}

}  // namespace ember::vulkan
