// The margin losses, composed as PyTorch 1.13 composes them; multi_margin_loss and multilabel_margin_loss
// are one node each, as in PyTorch, with their derivative saved by the forward (they have no second order
// in PyTorch either).
#include <cmath>

#include "autograd/record.h"
#include "nn/functional/loss.h"
#include "runtime/error.h"

namespace ember::nn::functional {

namespace {

// Finishes a loss recorded with one saved tensor: the derivative of each sample's loss by each input
// element, laid out as (samples, classes). Backward scales it by the reduced loss's gradient.
Tensor finish_with_saved_slope(autograd::Record& rec, const Tensor& out, LossReduction reduction,
                               std::vector<int64_t> sample_shape, std::vector<int64_t> input_shape) {
  return rec.finish(out, [reduction, sample_shape, input_shape](autograd::FunctionNode& node,
                                                                const autograd::tensor_list& g) {
    const Tensor d = node.saved(0);
    Tensor up = std::holds_alternative<enumtype::kNone>(reduction) ? g[0]
                : std::holds_alternative<enumtype::kMean>(reduction)
                    ? g[0].expand(sample_shape) / double(std::max<int64_t>(1, d.size(0)))
                    : g[0].expand(sample_shape);
    return autograd::tensor_list{(d * up.reshape({-1, 1})).reshape(input_shape)};
  });
}

}  // namespace

Tensor margin_ranking_loss(const Tensor& input1, const Tensor& input2, const Tensor& target,
                           const MarginRankingLossFuncOptions& options) {
  if (input1.dim() != input2.dim() || input1.dim() != target.dim()) {
    throw Error("margin_ranking_loss : All input tensors should have same dimension but got sizes: input1: " +
                to_string(input1.sizes()) + ", input2: " + to_string(input2.sizes()) +
                ", target: " + to_string(target.sizes()) + " ");
  }
  return apply_loss_reduction((-target * (input1 - input2) + options.margin()).clamp_min(0), options.reduction());
}

Tensor hinge_embedding_loss(const Tensor& input, const Tensor& target, const HingeEmbeddingLossFuncOptions& options) {
  const Tensor zeros = zeros_like(input);
  const Tensor margin_part = where(target != 1, (options.margin() - input).clamp_min(0), zeros);
  const Tensor self_part = where(target != -1, input, zeros);
  return apply_loss_reduction(margin_part + self_part, options.reduction());
}

Tensor cosine_embedding_loss(const Tensor& input1, const Tensor& input2, const Tensor& target,
                             const CosineEmbeddingLossFuncOptions& options) {
  const int64_t target_dim = target.dim();
  if (input1.dim() != input2.dim()) {
    throw Error("cosine_embedding_loss : All input tensors should have same dimension but got sizes: input1: " +
                to_string(input1.sizes()) + ", input2: " + to_string(input2.sizes()));
  }
  if (target_dim != input1.dim() - 1 || target_dim > 1) {
    throw Error(target_dim == 1 ? "1D target tensor expects 2D input tensors, but found inputs with sizes " +
                                      to_string(input1.sizes()) + " and " + to_string(input2.sizes()) + "."
                                : "0D target tensor expects 1D input tensors, but found inputs with sizes " +
                                      to_string(input1.sizes()) + " and " + to_string(input2.sizes()) + ".");
  }
  constexpr double kEpsilon = 1e-12;
  const Tensor products = (input1 * input2).sum({target_dim});
  const Tensor squares1 = (input1 * input1).sum({target_dim}) + kEpsilon;
  const Tensor squares2 = (input2 * input2).sum({target_dim}) + kEpsilon;
  const Tensor cosine = products / (squares1 * squares2).sqrt();
  const Tensor zeros = zeros_like(cosine);
  const Tensor positive = where(target == 1, 1 - cosine, zeros);
  const Tensor negative = where(target == -1, (cosine - options.margin()).clamp_min(0), zeros);
  return apply_loss_reduction(positive + negative, options.reduction());
}

Tensor triplet_margin_loss(const Tensor& anchor, const Tensor& positive, const Tensor& negative,
                           const TripletMarginLossFuncOptions& options) {
  const int64_t dims = anchor.dim();
  if (positive.dim() != dims || negative.dim() != dims) {
    throw Error("The anchor, positive, and negative tensors are expected to have the same number of dimensions, but "
                "got: anchor " + std::to_string(dims) + "D, positive " + std::to_string(positive.dim()) +
                "D, and negative " + std::to_string(negative.dim()) + "D inputs");
  }
  // ‖a - b + eps‖_p over the last dim, as pairwise_distance.
  auto distance = [&](const Tensor& a, const Tensor& b) {
    return (a - b + options.eps()).norm(options.p(), {dims - 1}, false);
  };
  Tensor to_negative = distance(anchor, negative);
  if (options.swap()) to_negative = minimum(to_negative, distance(positive, negative));
  const Tensor terms = (options.margin() + distance(anchor, positive) - to_negative).clamp_min(0);
  return apply_loss_reduction(terms, options.reduction());
}

Tensor multi_margin_loss(const Tensor& input, const Tensor& target, const MultiMarginLossFuncOptions& options) {
  if (options.p() != 1 && options.p() != 2) throw Error("only p == 1 and p == 2 supported");
  const bool batched = input.dim() == 2;
  if (!(input.dim() <= 1 && target.dim() <= 1 && target.numel() == 1) &&
      !(batched && target.dim() == 1 && target.size(0) == input.size(0))) {
    throw Error("inconsistent target size, expected " + std::to_string(batched ? input.size(0) : 1) + " but got " +
                to_string(target.sizes()));
  }
  const Tensor& weight = options.weight();
  check_not_differentiable(weight, "weight", "multi_margin_loss");
  autograd::Record rec("MultiMarginLossBackward0", {&input});
  const Tensor x = batched ? input : input.reshape({1, -1});
  const Tensor y = target.reshape({-1});
  const int64_t classes = x.size(1);
  // z_j = margin - x_y + x_j for every class j but the target's own, which adds nothing.
  const Tensor is_target = one_hot(y, classes).to(kBool);
  const Tensor hinge = (options.margin() - x.gather(1, y.unsqueeze(1)) + x).clamp_min(0).masked_fill(is_target, 0);
  const Tensor class_weight = weight.defined() ? weight.index_select(0, y).unsqueeze(1) : Tensor();
  Tensor terms = options.p() == 2 ? hinge.square() : hinge;
  if (class_weight.defined()) terms = terms * class_weight;
  Tensor per_sample = terms.sum({1}) / double(classes);
  if (!batched) per_sample = per_sample.reshape(target.sizes());
  Tensor out = apply_loss_reduction(per_sample, options.reduction());
  if (!rec) return out;
  // d/dx_j = p z_j^(p-1) [z_j > 0] w_y / C, and x_y gets minus their sum.
  Tensor slope = options.p() == 2 ? hinge * 2 : hinge.gt(0).to(x.dtype());
  if (class_weight.defined()) slope = slope * class_weight;
  slope = slope / double(classes);
  rec.save(slope - is_target.to(x.dtype()) * slope.sum({1}, true));
  const LossReduction reduction = options.reduction();
  return finish_with_saved_slope(rec, out, reduction, per_sample.sizes().vec(), input.sizes().vec());
}

Tensor multilabel_margin_loss(const Tensor& input, const Tensor& target, const MultiLabelMarginLossFuncOptions& options) {
  if (!(input.sizes() == target.sizes())) {
    throw Error("inconsistent target size: " + to_string(target.sizes()) + " for input of size: " +
                to_string(input.sizes()));
  }
  autograd::Record rec("MultilabelMarginLossBackward0", {&input});
  const bool batched = input.dim() == 2;
  const Tensor x = batched ? input : input.reshape({1, -1});
  const Tensor y = target.reshape(x.sizes());
  const int64_t classes = x.size(1);
  // The targets of a row are its entries before the first -1.
  const Tensor valid = (y != -1).to(kInt64).cumprod(1).to(kBool);
  // How often each class is listed: a class listed twice counts twice, as PyTorch's loop over the list.
  const Tensor listed = zeros(x.sizes(), TensorOptions().dtype(x.dtype()).device(x.device()))
                            .scatter(1, where(valid, y, zeros_like(y)), valid.to(x.dtype()), "add");
  // Every (listed j, unlisted k) pair: max(0, 1 - (x_j - x_k)), times j's count.
  const Tensor pairs = 1 - x.unsqueeze(2) + x.unsqueeze(1);
  const Tensor pair_count = listed.unsqueeze(2) * listed.eq(0).to(x.dtype()).unsqueeze(1);
  const Tensor pair_slope = pairs.gt(0).to(x.dtype()) * pair_count;
  Tensor per_sample = (pairs.clamp_min(0) * pair_count).sum({1, 2}) / double(classes);
  if (!batched) per_sample = per_sample.reshape({});
  Tensor out = apply_loss_reduction(per_sample, options.reduction());
  if (!rec) return out;
  // x_k gains and x_j loses 1/C for every active pair (j, k), as often as j is listed.
  rec.save((pair_slope.sum({1}) - pair_slope.sum({2})) / double(classes));
  const LossReduction reduction = options.reduction();
  return finish_with_saved_slope(rec, out, reduction, per_sample.sizes().vec(), input.sizes().vec());
}

}  // namespace ember::nn::functional
