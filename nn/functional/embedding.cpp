#include "nn/functional/embedding.h"

#include "autograd/record.h"
#include "runtime/error.h"
#include "tensor/ops_support.h"

namespace ember::nn::functional {

namespace {

using autograd::FunctionNode;
using autograd::tensor_list;

void check_indices(const Tensor& input, const char* op) {
  if (input.dtype() != kInt64 && input.dtype() != kInt32) {
    throw Error("Expected tensor for argument #1 'indices' to have one of the following scalar types: Long, Int; but "
                "got " + std::string(dtype_name(input.dtype())) + " instead (while checking arguments for " + op + ")");
  }
}

std::optional<int64_t> normalized_padding_idx(std::optional<int64_t> padding_idx, const Tensor& weight) {
  if (!padding_idx) return std::nullopt;
  if (*padding_idx >= weight.size(0)) throw Error("Padding_idx must be within num_embeddings");
  if (*padding_idx < -weight.size(0)) throw Error("Padding_idx must be within num_embeddings");
  return *padding_idx < 0 ? *padding_idx + weight.size(0) : *padding_idx;
}

// Scales the rows of `weight` that `input` picks down to norm max_norm where they exceed it, as
// torch.embedding_renorm_ does (no gradient flows through it).
void renorm_rows(const Tensor& weight, const Tensor& input, double max_norm, double norm_type) {
  NoGradGuard no_grad;
  const Tensor rows = input.flatten().to(kInt64);
  const Tensor picked = weight.index_select(0, rows);
  const Tensor norms = picked.norm(norm_type, {1}, true);
  const Tensor scale = where(norms > max_norm, max_norm / (norms + 1e-7), ones_like(norms));
  Tensor mutable_weight = weight;
  mutable_weight.index_copy_(0, rows, picked * scale);
}

// The gradient of weight: each output row's gradient added into the row it came from.
Tensor embedding_weight_grad(const Tensor& grad, const Tensor& indices, int64_t num_weights,
                             std::optional<int64_t> padding_idx, bool scale_grad_by_freq) {
  const int64_t dim = grad.size(-1);
  const Tensor rows = indices.flatten().to(kInt64);
  Tensor grad_rows = grad.reshape({-1, dim});
  if (scale_grad_by_freq) {
    const Tensor counts = zeros({num_weights}, TensorOptions().dtype(grad.dtype()).device(grad.device()))
                              .index_add(0, rows, ones({rows.numel()}, TensorOptions().dtype(grad.dtype()).device(grad.device())));
    grad_rows = grad_rows / counts.index_select(0, rows).unsqueeze(1);
  }
  if (padding_idx) grad_rows = grad_rows.masked_fill(rows.eq(*padding_idx).unsqueeze(1), 0);
  return zeros({num_weights, dim}, TensorOptions().dtype(grad.dtype()).device(grad.device())).index_add(0, rows, grad_rows);
}

// PyTorch's CPU kernel checks the first and the last offset; reading them back makes the host wait here.
void check_offset_ends(const Tensor& offsets, int64_t indices) {
  const int64_t n = offsets.numel();
  if (n == 0) return;
  const Tensor as_int64 = offsets.to(kInt64);
  const std::vector<int64_t> ends = cat({as_int64.narrow(0, 0, 1), as_int64.narrow(0, n - 1, 1)}).to_vector<int64_t>();
  if (ends[0] != 0) {
    throw Error("offsets[0] has to be 0, i.e., the first sequence in the mini-batch has to start from position 0. "
                "However, got " + std::to_string(ends[0]));
  }
  if (ends[1] > indices) {
    throw Error("offsets[-1] can not be greater than input's length " + std::to_string(indices) +
                " but got offsets[-1] of " + std::to_string(ends[1]));
  }
}

}  // namespace

Tensor embedding(const Tensor& input, const Tensor& weight, const EmbeddingFuncOptions& options) {
  check_indices(input, "embedding");
  if (weight.dim() != 2) throw Error("'weight' must be 2-D");
  if (options.sparse()) throw UnsupportedError("embedding: sparse gradients are not supported by ember");
  const std::optional<int64_t> padding_idx = normalized_padding_idx(options.padding_idx(), weight);
  if (options.max_norm()) renorm_rows(weight, input, *options.max_norm(), options.norm_type());
  autograd::Record rec("EmbeddingBackward0", {&weight});
  std::vector<int64_t> out_shape = input.sizes().vec();
  out_shape.push_back(weight.size(1));
  Tensor out = weight.index_select(0, input.flatten()).view(out_shape);
  if (!rec) return out;
  rec.save(input);
  const int64_t num_weights = weight.size(0);
  const bool scale_grad_by_freq = options.scale_grad_by_freq();
  return rec.finish(out, [num_weights, padding_idx, scale_grad_by_freq](FunctionNode& node, const tensor_list& g) {
    ember::detail::TrustedIndices trusted;  // the forward checked them: reading them back would wait
    return tensor_list{embedding_weight_grad(g[0], node.saved(0), num_weights, padding_idx, scale_grad_by_freq)};
  });
}

Tensor embedding_bag(const Tensor& input, const Tensor& weight, const EmbeddingBagFuncOptions& options) {
  check_indices(input, "embedding_bag");
  if (weight.dim() != 2) throw Error("'weight' must be 2-D");
  const Tensor& per_sample_weights = options.per_sample_weights();
  if (per_sample_weights.defined() && !std::holds_alternative<enumtype::kSum>(options.mode())) {
    throw Error("embedding_bag: per_sample_weights was not None. per_sample_weights is only supported for mode='sum' "
                "(got mode='" + std::string(enum_name(options.mode())) + "'). Please open a feature request on GitHub.");
  }
  Tensor indices = input, offsets = options.offsets();
  if (input.dim() == 2) {
    if (offsets.defined()) throw Error("if input is 2D, then offsets has to be None, as input is treated is a mini-batch "
                                       "of fixed length sequences. However, found offsets of type Tensor");
    offsets = arange(0, input.numel(), input.size(1), TensorOptions().dtype(input.dtype()).device(input.device()));
    indices = input.reshape({-1});
  } else if (input.dim() == 1) {
    if (!offsets.defined()) throw Error("offsets has to be a 1D Tensor but got None");
    if (offsets.dim() != 1) throw Error("offsets has to be a 1D Tensor");
    check_offset_ends(offsets, input.size(0));
  } else {
    throw Error("input has to be 1D or 2D Tensor, but got Tensor of dimension " + std::to_string(input.dim()));
  }
  const std::optional<int64_t> padding_idx = normalized_padding_idx(options.padding_idx(), weight);
  const int64_t bags = options.include_last_offset() ? offsets.size(0) - 1 : offsets.size(0);
  const int64_t dim = weight.size(1);
  const auto like_weight = TensorOptions().dtype(weight.dtype()).device(weight.device());
  const Tensor flat = indices.to(kInt64);
  if (options.max_norm()) renorm_rows(weight, flat, *options.max_norm(), options.norm_type());
  // Each index's bag: how many offsets are at or before its position, less one. Indices past the last
  // bag (include_last_offset) and padding indices go to a spare bag `bags`, dropped at the end.
  const Tensor positions = arange(flat.numel(), TensorOptions().dtype(kInt64).device(weight.device()));
  Tensor bag_of = positions.unsqueeze(1).ge(offsets.to(kInt64).unsqueeze(0)).sum({1}) - 1;
  bag_of = bag_of.clamp_max(bags);
  if (padding_idx) bag_of = bag_of.masked_fill(flat.eq(*padding_idx), bags);
  const Tensor in_bag = bag_of.lt(bags).to(weight.dtype());

  autograd::Record rec("EmbeddingBagBackward0", {&weight, &per_sample_weights});
  const Tensor rows = weight.index_select(0, flat);
  Tensor result, row_scale, winners;
  if (std::holds_alternative<enumtype::kMax>(options.mode())) {
    const Tensor spread = bag_of.unsqueeze(1).expand(rows.sizes());
    const Tensor maxima = zeros({bags + 1, dim}, like_weight).scatter_reduce(0, spread, rows, "amax", false);
    result = maxima.narrow(0, 0, bags);
    // The rows that gave each maximum get its gradient.
    winners = rows.eq(maxima.gather(0, spread)).to(weight.dtype()) * in_bag.unsqueeze(1);
  } else {
    row_scale = per_sample_weights.defined() ? per_sample_weights * in_bag : in_bag;
    if (std::holds_alternative<enumtype::kMean>(options.mode())) {
      const Tensor counts = zeros({bags + 1}, like_weight).index_add(0, bag_of, in_bag);
      row_scale = row_scale / counts.clamp_min(1).index_select(0, bag_of);
    }
    result = zeros({bags + 1, dim}, like_weight).index_add(0, bag_of, rows * row_scale.unsqueeze(1)).narrow(0, 0, bags);
  }
  if (!rec) return result;
  rec.save(flat);
  rec.save(bag_of);
  rec.save(winners.defined() ? winners : row_scale);
  rec.save(weight);
  rec.save(per_sample_weights);
  rec.save(in_bag);
  const bool max_mode = winners.defined();
  const int64_t num_weights = weight.size(0);
  const bool scale_grad_by_freq = options.scale_grad_by_freq();
  return rec.finish(result, [max_mode, num_weights, scale_grad_by_freq](FunctionNode& node, const tensor_list& g) {
    const Tensor flat = node.saved(0), bag_of = node.saved(1), scale = node.saved(2);
    // The spare bag's gradient is zero: padding and out-of-range rows get none.
    const Tensor grad_bags = cat({g[0], zeros({1, g[0].size(1)}, TensorOptions().dtype(g[0].dtype()).device(g[0].device()))});
    const Tensor per_row = grad_bags.index_select(0, bag_of);
    tensor_list grads(2);
    if (node.needs_input_grad(0)) {
      const Tensor weighted = max_mode ? per_row * scale : per_row * scale.unsqueeze(1);
      grads[0] = embedding_weight_grad(weighted, flat, num_weights, std::nullopt, scale_grad_by_freq);
    }
    if (node.needs_input_grad(1)) {
      grads[1] = (per_row * node.saved(3).index_select(0, flat)).sum({1}) * node.saved(5);
    }
    return grads;
  });
}

}  // namespace ember::nn::functional
