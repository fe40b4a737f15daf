// cosine_similarity, pairwise_distance and cdist: PyTorch's compositions and checks; cdist under one
// recorded node with PyTorch's backward formula.
#include "nn/functional/distance.h"

#include <cmath>
#include <limits>
#include <string>

#include "autograd/record.h"
#include "runtime/error.h"
#include "tensor/autocast.h"
#include "tensor/functions.h"

namespace ember::nn::functional {

namespace {

bool integral_or_bool(DType dtype) { return is_integral(dtype) || dtype == DType::Bool; }

// The gradient of d = ||x_i - y_j||_p (one distance per pair) with respect to x_i, times `grad`, summed
// over j: PyTorch's _cdist_backward. diff = x_i - y_j [..., R1, R2, M]; dist [..., R1, R2].
Tensor cdist_grad(const Tensor& grad, const Tensor& diff, const Tensor& dist, double p) {
  if (p == 0) return zeros_like(diff).sum(-2);
  const Tensor g = grad.unsqueeze(-1);
  const Tensor d = dist.unsqueeze(-1);
  Tensor term;
  if (p == 1) {
    term = diff.sign();
  } else if (std::isinf(p)) {
    term = diff.sign() * diff.abs().eq(d);
  } else if (p == 2) {
    term = (diff / d).masked_fill(d.eq(0), 0);
  } else if (p < 2) {
    term = (diff.sign() * diff.abs().pow(p - 1) / d.pow(p - 1)).masked_fill(d.eq(0), 0);
  } else {
    term = (diff * diff.abs().pow(p - 2) / d.pow(p - 1)).masked_fill(d.eq(0), 0);
  }
  return (g * term).sum(-2);
}

// ATen's _cdist_forward over inputs with equal batch dims: every pair's distance, recorded as
// CdistBackward0.
Tensor cdist_direct(const Tensor& x1, const Tensor& x2, double p) {
  autograd::Record rec("CdistBackward0", {&x1, &x2});
  const Tensor diff = x1.unsqueeze(-2) - x2.unsqueeze(-3);
  Tensor dist;
  if (p == 0) {
    dist = diff.ne(0).sum(-1).to(x1.dtype());
  } else if (std::isinf(p)) {
    // An empty row has distance 0, as PyTorch's.
    dist = x1.size(-1) == 0 ? diff.sum(-1) : diff.abs().amax({-1});
  } else {
    dist = diff.norm(p, {-1});
  }
  if (!rec) return dist;
  rec.save(x1);
  rec.save(x2);
  rec.save_output(dist);
  return rec.finish(dist, [p](autograd::FunctionNode& node, const autograd::tensor_list& g) {
    const Tensor a = node.saved(0), b = node.saved(1), d = node.saved(2);
    const Tensor diff = a.unsqueeze(-2) - b.unsqueeze(-3);
    return autograd::tensor_list{cdist_grad(g[0], diff, d, p),
                                 cdist_grad(g[0].mT(), -diff.transpose(-3, -2), d.mT(), p)};
  });
}

// ATen's _euclidean_dist: sqrt(max(|x1|^2 - 2 x1 x2^T + |x2|^2, 0)) through one matrix product, recorded
// as EuclideanDistBackward0 with PyTorch's formula.
Tensor euclidean_dist(const Tensor& x1, const Tensor& x2) {
  autograd::Record rec("EuclideanDistBackward0", {&x1, &x2});
  const Tensor x1_norm = x1.pow(2).sum({-1}, true);
  const Tensor x2_norm = x2.pow(2).sum({-1}, true);
  const Tensor a = cat({x1.mul(-2), x1_norm, ones_like(x1_norm)}, -1);
  const Tensor b = cat({x2, ones_like(x2_norm), x2_norm}, -1);
  const Tensor result = a.matmul(b.mT()).clamp_min(0).sqrt();
  if (!rec) return result;
  rec.save(x1);
  rec.save(x2);
  rec.save_output(result);
  return rec.finish(result, [](autograd::FunctionNode& node, const autograd::tensor_list& g) {
    const Tensor a = node.saved(0), b = node.saved(1), res = node.saved(2);
    const Tensor ratio = (g[0] / res).masked_fill(res.eq(0), 0);
    return autograd::tensor_list{a * ratio.sum({-1}, true) - ratio.matmul(b),
                                 b * ratio.sum({-2}, false).unsqueeze(-1) - ratio.mT().matmul(a)};
  });
}

}  // namespace

Tensor cosine_similarity(const Tensor& x1_in, const Tensor& x2_in, const CosineSimilarityFuncOptions& options) {
  if (autocast::is_active()) {
    return autocast::in_float32([&](const Tensor& a, const Tensor& b) { return cosine_similarity(a, b, options); },
                                x1_in, x2_in);
  }
  const DType common = result_type(x1_in, x2_in);
  if (!is_floating_point(common)) {
    throw Error("expected common dtype to be floating point, yet common dtype is " + scalar_type_name(common));
  }
  const Tensor x1_t = integral_or_bool(x1_in.dtype()) ? x1_in.to(common) : x1_in;
  const Tensor x2_t = integral_or_bool(x2_in.dtype()) ? x2_in.to(common) : x2_in;
  const std::vector<int64_t> shape = broadcast_shapes(x1_t.sizes(), x2_t.sizes());
  const Tensor x1 = x1_t.expand(shape), x2 = x2_t.expand(shape);
  const int64_t dim = options.dim();
  // Each side is divided by its norm first, as PyTorch 1.13 does: the square root of the sum of squares,
  // which PyTorch clamps to eps^2 in place without recording it, so that the value is clamped and the
  // gradient flows into the sum as if it were not.
  auto clamped_norm = [&](const Tensor& x) {
    const Tensor squares = x.pow(2).sum({dim}, true);
    const double floor = options.eps() * options.eps();
    return (squares + (squares.clamp_min(floor) - squares).detach()).sqrt();
  };
  return ((x1 / clamped_norm(x1)) * (x2 / clamped_norm(x2))).sum({dim});
}

Tensor pairwise_distance(const Tensor& x1, const Tensor& x2, const PairwiseDistanceFuncOptions& options) {
  const int64_t innermost = std::max(x1.dim(), x2.dim()) - 1;
  return (x1 - x2 + options.eps()).norm(options.p(), {innermost}, options.keepdim());
}

Tensor cdist(const Tensor& x1, const Tensor& x2, double p, std::optional<int64_t> compute_mode) {
  if (autocast::is_active()) {
    return autocast::in_float32([&](const Tensor& a, const Tensor& b) { return cdist(a, b, p, compute_mode); }, x1, x2);
  }
  if (x1.dim() < 2) throw Error("cdist only supports at least 2D tensors, X1 got: " + std::to_string(x1.dim()) + "D");
  if (x2.dim() < 2) throw Error("cdist only supports at least 2D tensors, X2 got: " + std::to_string(x2.dim()) + "D");
  if (x1.size(-1) != x2.size(-1)) {
    throw Error("X1 and X2 must have the same number of columns. X1: " + std::to_string(x1.size(-1)) +
                " X2: " + std::to_string(x2.size(-1)));
  }
  if (!is_floating_point(x1.dtype())) {
    throw Error("cdist only supports floating-point dtypes, X1 got: " + scalar_type_name(x1.dtype()));
  }
  if (!is_floating_point(x2.dtype())) {
    throw Error("cdist only supports floating-point dtypes, X2 got: " + scalar_type_name(x2.dtype()));
  }
  if (p < 0) throw Error("cdist only supports non-negative p values");
  if (x1.dtype() != x2.dtype()) {
    throw Error("expected scalar type " + scalar_type_name(x1.dtype()) + " but found " + scalar_type_name(x2.dtype()));
  }
  const int64_t mode = compute_mode.value_or(0);
  if (mode < 0 || mode > 2) throw Error("possible modes: 0, 1, 2, but was: " + std::to_string(mode));
  // The batch dims broadcast.
  const std::vector<int64_t> batch1(x1.sizes().begin(), x1.sizes().end() - 2);
  const std::vector<int64_t> batch2(x2.sizes().begin(), x2.sizes().end() - 2);
  const std::vector<int64_t> batch = broadcast_shapes(batch1, batch2);
  const int64_t r1 = x1.size(-2), r2 = x2.size(-2), columns = x1.size(-1);
  auto with_batch = [&](std::initializer_list<int64_t> tail) {
    std::vector<int64_t> sizes = batch;
    sizes.insert(sizes.end(), tail);
    return sizes;
  };
  const Tensor a = x1.expand(with_batch({r1, columns}));
  const Tensor b = x2.expand(with_batch({r2, columns}));
  const bool empty = x1.numel() == 0 || x2.numel() == 0;
  if (!empty && p == 2 && (mode == 1 || (mode == 0 && (r1 > 25 || r2 > 25)))) {
    // PyTorch flattens the batch for the matrix product and views the result back.
    int64_t flat = 1;
    for (int64_t size : batch) flat *= size;
    return euclidean_dist(a.reshape({flat, r1, columns}), b.reshape({flat, r2, columns})).view(with_batch({r1, r2}));
  }
  return cdist_direct(a, b, p);
}

}  // namespace ember::nn::functional
