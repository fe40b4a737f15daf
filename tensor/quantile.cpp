// Quantiles: torch.quantile and torch.nanquantile.
//
// PyTorch's composition, step for step, so that values and gradients match its own: sort each slice,
// turn q into a rank within the slice (q times the last index, or times the count of non-NaN values less
// one for nanquantile), adjust the rank for the interpolation, gather the elements at the ranks below and
// above, and lerp between them. The gradient flows back through the gathers and the sort to the input,
// and through the lerp's weight to q, as in PyTorch. A slice with a NaN gives NaN (quantile), or the
// quantile of its other values (nanquantile; NaN when all are NaN).

#include "tensor/functions.h"
#include "tensor/number_text.h"
#include "tensor/ops_support.h"

namespace ember {

namespace {

enum class Interpolation { Linear, Lower, Higher, Midpoint, Nearest };

Interpolation interpolation_named(std::string_view name) {
  if (name == "linear") return Interpolation::Linear;
  if (name == "lower") return Interpolation::Lower;
  if (name == "higher") return Interpolation::Higher;
  if (name == "midpoint") return Interpolation::Midpoint;
  if (name == "nearest") return Interpolation::Nearest;
  throw Error("quantile() interpolation must be one of linear, lower, higher, midpoint or nearest, but got " +
              std::string(name));
}

// The result's sizes: the reduced sizes (all of them without a dim), after q's count when q is 1-D.
std::vector<int64_t> output_sizes(const Tensor& x, const Tensor& q, std::optional<int64_t> dim, bool keepdim,
                                  int64_t wrapped_dim) {
  std::vector<int64_t> sizes;
  if (dim && x.dim() > 0) {
    sizes = x.sizes().vec();
    if (keepdim) {
      sizes[wrapped_dim] = 1;
    } else {
      sizes.erase(sizes.begin() + wrapped_dim);
    }
  } else if (keepdim) {
    sizes.assign(x.dim(), 1);
  }
  if (q.dim() > 0) sizes.insert(sizes.begin(), q.numel());
  return sizes;
}

// `q_in_range`: q's values were checked on the host (a number), so they need no read-back.
Tensor quantile_of(const Tensor& x, const Tensor& q, std::optional<int64_t> dim, bool keepdim,
                   std::string_view interpolation_name, bool ignore_nan, bool q_in_range = false) {
  // PyTorch's checks, in its order.
  const Interpolation interpolation = interpolation_named(interpolation_name);
  if (x.numel() == 0) throw Error("quantile() input tensor must be non-empty");
  if (q.dim() > 1) throw Error("quantile() q must be a scalar or 1D tensor");
  if (x.dtype() != DType::Float32 && x.dtype() != DType::Float64) {
    throw Error("quantile() input tensor must be either float or double dtype");
  }
  if (x.dtype() != q.dtype()) throw Error("quantile() q tensor must be same dtype as the input tensor");
  if (x.device() != q.device()) {
    throw Error("quantile() q tensor must be on the same device as the input tensor");
  }
  const int64_t wrapped_dim = detail::wrap_dim(dim.value_or(0), x.dim());
  if (!q_in_range && !q.ge(0).logical_and(q.le(1)).all().item<bool>()) {
    throw Error("quantile() q values must be in the range [0, 1]");
  }
  const int64_t slice_length = !dim ? x.numel() : x.dim() == 0 ? 1 : x.size(wrapped_dim);
  // Ranks are computed in x's dtype: float32 holds every integer up to 2^24 exactly.
  if (slice_length > (int64_t{1} << 24)) throw Error("quantile() input tensor is too large");

  // Each slice sorted along the last dim, with the other dims laid out as the result's (q's dim last).
  std::vector<int64_t> sizes = output_sizes(x, q, dim, keepdim, wrapped_dim);
  Tensor sorted;
  if (!dim) {
    sorted = std::get<0>(x.flatten().sort());
  } else {
    sorted = std::get<0>(x.unsqueeze(-1).transpose(wrapped_dim, -1).sort());
  }
  if (q.dim() == 0) sizes.insert(sizes.begin(), 1);
  std::vector<int64_t> slices(sizes.begin() + 1, sizes.end());
  slices.push_back(sorted.size(-1));
  sorted = sorted.reshape(slices);

  Tensor ranks;
  if (ignore_nan) {
    ranks = q * (sorted.isnan().logical_not().sum({-1}, /*keepdim=*/true) - 1);
    ranks = ranks.masked_fill(ranks.lt(0), 0);  // an all-NaN slice takes its first NaN
  } else {
    const int64_t last = sorted.size(-1) - 1;
    const Tensor has_nan = sorted.isnan().any(-1, /*keepdim=*/true);
    const Tensor scaled = q * last;
    // A slice with NaN takes its last element, NaN.
    ranks = broadcast_to(scaled, broadcast_shapes(scaled.sizes(), has_nan.sizes())).masked_fill(has_nan, last);
  }
  if (interpolation == Interpolation::Lower) ranks = ranks.floor();
  if (interpolation == Interpolation::Higher) ranks = ranks.ceil();
  if (interpolation == Interpolation::Nearest) ranks = ranks.round();

  detail::TrustedIndices trusted;  // ranks lie within each slice by construction
  const Tensor ranks_below = ranks.to(DType::Int64);
  Tensor result = sorted.gather(-1, ranks_below);
  if (interpolation == Interpolation::Linear || interpolation == Interpolation::Midpoint) {
    const Tensor weights = interpolation == Interpolation::Midpoint ? full_like(ranks, 0.5) : ranks - ranks_below;
    result = result.lerp(sorted.gather(-1, ranks.ceil().to(DType::Int64)), weights);
  }
  // In place, as PyTorch's, so that the result's node is its SqueezeBackward.
  if (q.dim() == 0) return result.squeeze_(-1);
  return result.unsqueeze_(0).transpose_(0, -1).squeeze_(-1);
}

Tensor scalar_quantile_of(const Tensor& x, double q, std::optional<int64_t> dim, bool keepdim,
                          std::string_view interpolation, bool ignore_nan) {
  if (!(q >= 0 && q <= 1)) throw Error("quantile() q must be in the range [0, 1] but got " + detail::number_text(q));
  return quantile_of(x, full({}, q, TensorOptions().dtype(x.dtype()).device(x.device())), dim, keepdim,
                     interpolation, ignore_nan, /*q_in_range=*/true);
}

}  // namespace

Tensor Tensor::quantile(const Tensor& q, std::optional<int64_t> dim, bool keepdim,
                        std::string_view interpolation) const {
  return quantile_of(*this, q, dim, keepdim, interpolation, false);
}

Tensor Tensor::quantile(double q, std::optional<int64_t> dim, bool keepdim, std::string_view interpolation) const {
  return scalar_quantile_of(*this, q, dim, keepdim, interpolation, false);
}

Tensor Tensor::nanquantile(const Tensor& q, std::optional<int64_t> dim, bool keepdim,
                           std::string_view interpolation) const {
  return quantile_of(*this, q, dim, keepdim, interpolation, true);
}

Tensor Tensor::nanquantile(double q, std::optional<int64_t> dim, bool keepdim,
                           std::string_view interpolation) const {
  return scalar_quantile_of(*this, q, dim, keepdim, interpolation, true);
}

Tensor quantile(const Tensor& x, const Tensor& q, std::optional<int64_t> dim, bool keepdim,
                std::string_view interpolation) {
  return x.quantile(q, dim, keepdim, interpolation);
}

Tensor quantile(const Tensor& x, double q, std::optional<int64_t> dim, bool keepdim, std::string_view interpolation) {
  return x.quantile(q, dim, keepdim, interpolation);
}

Tensor nanquantile(const Tensor& x, const Tensor& q, std::optional<int64_t> dim, bool keepdim,
                   std::string_view interpolation) {
  return x.nanquantile(q, dim, keepdim, interpolation);
}

Tensor nanquantile(const Tensor& x, double q, std::optional<int64_t> dim, bool keepdim,
                   std::string_view interpolation) {
  return x.nanquantile(q, dim, keepdim, interpolation);
}

}  // namespace ember
