// Counting values: torch.bincount and torch.histc.
//
// Both size their result from the data (bincount from the largest value, histc from the range when
// none is given), so each reads a reduction back, as PyTorch does. The counting is one index_add of
// ones (or weights) into the bins; histc sends the elements outside its range (and NaN) to one extra
// bin that is cut off, so that nothing is read back to drop them. bincount with weights that require
// grad records PyTorch's NotImplemented node; histc records nothing, as in PyTorch.
#include <cmath>
#include <tuple>
#include <utility>

#include "autograd/record.h"
#include "tensor/functions.h"
#include "tensor/number_text.h"
#include "tensor/ops_support.h"

namespace ember {

namespace {

// The smallest and largest elements, read back in one wait for the device.
template <class T>
std::pair<T, T> extremes(const Tensor& x) {
  const auto [low, high] = x.aminmax();
  const std::vector<T> both = stack({low, high}).to_vector<T>();
  return {both[0], both[1]};
}

// The counts of `bins` positions (all in [0, bins)) given by `positions`, each adding its weight.
Tensor count_into(int64_t bins, const Tensor& positions, const Tensor& weights) {
  Tensor counts = zeros({bins}, TensorOptions().dtype(weights.dtype()).device(weights.device()));
  detail::TrustedIndices trusted;  // callers size the bins to hold every position
  return counts.index_add_(0, positions.flatten(), weights.flatten());
}

}  // namespace

Tensor Tensor::bincount(const std::optional<Tensor>& weights, int64_t minlength) const {
  // PyTorch's checks in its order: an empty input returns before the rank and the weights are checked.
  if (!is_integral(dtype())) {
    throw Error("\"bincount_cpu\" not implemented for '" + scalar_type_name(dtype()) + "'");
  }
  if (minlength < 0) throw Error("minlength should be >= 0");
  if (dim() == 1 && numel() == 0) return zeros({minlength}, TensorOptions().dtype(DType::Int64).device(device()));
  const char* refused = "bincount only supports 1-d non-negative integral inputs.";
  if (dim() != 1) throw Error(refused);
  const Tensor positions = to(DType::Int64);
  const auto [low, high] = extremes<int64_t>(positions);
  if (low < 0) throw Error(refused);
  if (weights && (weights->dim() != 1 || weights->size(0) != size(0))) {
    throw Error("weights should be 1-d and have the same length as input");
  }
  if (weights) detail::check_same_device({this, &*weights});
  const int64_t bins = std::max(minlength, high + 1);
  // PyTorch counts float32 weights in float32 and every other weight in double.
  const DType counted = !weights ? DType::Int64 : weights->dtype() == DType::Float32 ? DType::Float32 : DType::Float64;
  autograd::Record rec("torch::autograd::NotImplemented", {weights ? &*weights : nullptr});
  const Tensor ones_or_weights = weights ? weights->to(counted) : ones_like(positions);
  Tensor counts = count_into(bins, positions, ones_or_weights);
  return rec ? rec.finish(counts, autograd::not_implemented_backward("bincount")) : counts;
}

Tensor Tensor::histc(int64_t bins, Scalar min, Scalar max) const {
  if (dtype() == DType::Bool) throw Error("\"linspace_cpu\" not implemented for 'Bool'");
  if (!is_floating_point()) {
    throw Error("\"histogram_cpu\" not implemented for '" + scalar_type_name(dtype()) + "'");
  }
  if (bins <= 0) {
    throw Error("torch.histogram(): bins must be > 0, but got " + std::to_string(bins) + " for dimension 0");
  }
  double low = min.to_double(), high = max.to_double();
  if (low == high && numel() > 0) {
    std::tie(low, high) = extremes<double>(*this);
  }
  if (low == high) {
    low -= 1;
    high += 1;
  }
  if (!std::isfinite(low) || !std::isfinite(high)) {
    throw Error("torch.histc: range of [" + detail::number_text(low) + ", " + detail::number_text(high) + "] is not finite");
  }
  if (low > high) throw Error("torch.histc: max must be larger than min");
  const autograd::NoGradGuard no_history;  // as PyTorch's histc, whose result never requires grad
  // Half and bfloat16 are binned and counted in float32, as ember computes them elsewhere (PyTorch's CPU
  // rounds each bfloat16 step and lacks half), and the counts cast at the end.
  const DType counted = dtype() == DType::Float64 ? DType::Float64 : DType::Float32;
  const Tensor x = to(counted).flatten();
  const TensorOptions options = TensorOptions().dtype(counted).device(device());
  const Tensor left = full({}, low, options), right = full({}, high, options);
  // PyTorch's CPU binning: the fraction of the range times the bins, truncated; the top edge belongs to
  // the last bin. It skips only what compares outside the range, and puts NaN in the first bin; the rest
  // outside go to an extra bin, cut off below.
  const Tensor bin = ((x - left) / (right - left) * bins).trunc().nan_to_num(0).to(DType::Int64).clamp_max(bins - 1);
  const Tensor outside = x.lt(left).logical_or(x.gt(right));
  Tensor counts = count_into(bins + 1, ember::where(outside, bins, bin), ones_like(x)).narrow(0, 0, bins);
  return dtype() == counted ? counts.clone() : counts.to(dtype());  // not a view of the extra bin's buffer
}

Tensor bincount(const Tensor& x, const std::optional<Tensor>& weights, int64_t minlength) {
  return x.bincount(weights, minlength);
}

Tensor histc(const Tensor& x, int64_t bins, Scalar min, Scalar max) { return x.histc(bins, min, max); }

}  // namespace ember
