#include "nn/modules/multihead_attention.h"

#include <cmath>
#include <limits>

#include "nn/functional/attention.h"
#include "nn/functional/dropout.h"
#include "nn/functional/linear.h"
#include "nn/init.h"

namespace ember::nn {

namespace {

// A mask as scores to add: a bool mask becomes -inf where true (hidden) and 0 elsewhere.
Tensor additive(const Tensor& mask, DType dtype) {
  if (!mask.defined() || mask.dtype() != DType::Bool) return mask;
  return zeros_like(mask, TensorOptions().dtype(dtype)).masked_fill(mask, -std::numeric_limits<double>::infinity());
}

// One more key position (a bias or zero key) that no mask hides.
Tensor with_open_column(const Tensor& mask) {
  if (!mask.defined()) return mask;
  std::vector<int64_t> sizes = mask.sizes().vec();
  sizes.back() = 1;
  return cat({mask, mask.new_zeros(sizes)}, -1);
}

void check_masks(const Tensor& attn_mask, const Tensor& key_padding_mask, int64_t batch, int64_t heads,
                 int64_t target, int64_t source) {
  if (attn_mask.defined()) {
    if (attn_mask.dtype() != DType::Bool && !is_floating_point(attn_mask.dtype())) {
      throw Error("Only float, byte, and bool types are supported for attn_mask, not " +
                  scalar_type_name(attn_mask.dtype()));
    }
    if (attn_mask.dim() == 2) {
      const std::vector<int64_t> expected{target, source};
      if (attn_mask.sizes().vec() != expected) {
        throw Error("The shape of the 2D attn_mask is " + to_string(attn_mask.sizes()) + ", but should be " +
                    to_string(expected) + ".");
      }
    } else if (attn_mask.dim() == 3) {
      const std::vector<int64_t> expected{batch * heads, target, source};
      if (attn_mask.sizes().vec() != expected) {
        throw Error("The shape of the 3D attn_mask is " + to_string(attn_mask.sizes()) + ", but should be " +
                    to_string(expected) + ".");
      }
    } else {
      throw Error("attn_mask's dimension " + std::to_string(attn_mask.dim()) + " is not supported");
    }
  }
  if (key_padding_mask.defined()) {
    const std::vector<int64_t> expected{batch, source};
    if (key_padding_mask.sizes().vec() != expected) {
      throw Error("expecting key_padding_mask shape of " + to_string(expected) + ", but got " +
                  to_string(key_padding_mask.sizes()));
    }
  }
}

}  // namespace

MultiheadAttentionImpl::MultiheadAttentionImpl(const MultiheadAttentionOptions& options) : options(options) {
  reset();
}

void MultiheadAttentionImpl::reset() {
  const int64_t E = options.embed_dim();
  if (E <= 0 || options.num_heads() <= 0) {
    throw Error("embed_dim and num_heads must be positive, got embed_dim=" + std::to_string(E) +
                " and num_heads=" + std::to_string(options.num_heads()));
  }
  head_dim = E / options.num_heads();
  if (head_dim * options.num_heads() != E) throw Error("embed_dim must be divisible by num_heads");
  qkv_same_embed_dim = options.kdim() == E && options.vdim() == E;
  if (qkv_same_embed_dim) {
    in_proj_weight = register_parameter("in_proj_weight", empty({3 * E, E}));
  } else {
    q_proj_weight = register_parameter("q_proj_weight", empty({E, E}));
    k_proj_weight = register_parameter("k_proj_weight", empty({E, options.kdim()}));
    v_proj_weight = register_parameter("v_proj_weight", empty({E, options.vdim()}));
  }
  in_proj_bias = register_parameter("in_proj_bias", options.bias() ? empty({3 * E}) : Tensor(), options.bias());
  out_proj = register_module("out_proj", Linear(LinearOptions(E, E).bias(options.bias())));
  if (options.add_bias_kv()) {
    bias_k = register_parameter("bias_k", empty({1, 1, E}));
    bias_v = register_parameter("bias_v", empty({1, 1, E}));
  } else {
    bias_k = bias_v = Tensor();
  }
  reset_parameters();
}

void MultiheadAttentionImpl::reset_parameters() {
  if (qkv_same_embed_dim) {
    init::xavier_uniform_(in_proj_weight);
  } else {
    init::xavier_uniform_(q_proj_weight);
    init::xavier_uniform_(k_proj_weight);
    init::xavier_uniform_(v_proj_weight);
  }
  if (in_proj_bias.defined()) {
    init::zeros_(in_proj_bias);
    init::zeros_(out_proj->bias);
  }
  if (bias_k.defined()) {
    init::xavier_normal_(bias_k);
    init::xavier_normal_(bias_v);
  }
}

std::tuple<Tensor, Tensor> MultiheadAttentionImpl::forward(const Tensor& query, const Tensor& key,
                                                           const Tensor& value, const Tensor& key_padding_mask,
                                                           bool need_weights, const Tensor& attn_mask,
                                                           bool average_attn_weights) {
  if (query.dim() != 2 && query.dim() != 3) {
    throw Error("query should be unbatched 2D or batched 3D tensor but received " + std::to_string(query.dim()) +
                "-D query tensor");
  }
  const bool batched = query.dim() == 3;
  if (key.dim() != query.dim() || value.dim() != query.dim()) {
    throw Error(std::string("For ") + (batched ? "batched (3-D)" : "unbatched (2-D)") +
                " `query`, expected `key` and `value` to be " + (batched ? "3-D" : "2-D") + " but found " +
                std::to_string(key.dim()) + "-D and " + std::to_string(value.dim()) + "-D tensors respectively");
  }
  // Everything below works on (L, N, E).
  auto to_sequence_first = [&](const Tensor& x) {
    if (!batched) return x.unsqueeze(1);
    return options.batch_first() ? x.transpose(0, 1) : x;
  };
  const Tensor q_in = to_sequence_first(query), k_in = to_sequence_first(key), v_in = to_sequence_first(value);
  const Tensor padding = batched || !key_padding_mask.defined() ? key_padding_mask : key_padding_mask.unsqueeze(0);
  const int64_t L = q_in.size(0), N = q_in.size(1), E = options.embed_dim(), H = options.num_heads();
  if (q_in.size(2) != E) {
    throw Error("was expecting embedding dimension of " + std::to_string(E) + ", but got " +
                std::to_string(q_in.size(2)));
  }
  if (k_in.size(0) != v_in.size(0) || k_in.size(1) != v_in.size(1)) {
    throw Error("key shape " + to_string(key.sizes()) + " does not match value shape " + to_string(value.sizes()));
  }
  if (k_in.size(1) != N) {
    throw Error("key's batch size " + std::to_string(k_in.size(1)) + " does not match query's " + std::to_string(N));
  }
  if (k_in.size(2) != options.kdim() || v_in.size(2) != options.vdim()) {
    throw Error("expected key and value feature sizes " + std::to_string(options.kdim()) + " and " +
                std::to_string(options.vdim()) + ", got " + std::to_string(k_in.size(2)) + " and " +
                std::to_string(v_in.size(2)));
  }
  check_masks(attn_mask, padding, N, H, L, k_in.size(0));

  std::vector<Tensor> biases(3);
  if (in_proj_bias.defined()) biases = in_proj_bias.chunk(3);
  const std::vector<Tensor> weights =
      qkv_same_embed_dim ? in_proj_weight.chunk(3) : std::vector<Tensor>{q_proj_weight, k_proj_weight, v_proj_weight};
  Tensor q = functional::linear(q_in, weights[0], biases[0]);
  Tensor k = functional::linear(k_in, weights[1], biases[1]);
  Tensor v = functional::linear(v_in, weights[2], biases[2]);
  Tensor mask = additive(attn_mask, q.dtype());
  Tensor pad_mask = additive(padding, q.dtype());
  if (bias_k.defined()) {
    k = cat({k, bias_k.expand({1, N, E})}, 0);
    v = cat({v, bias_v.expand({1, N, E})}, 0);
    mask = with_open_column(mask);
    pad_mask = with_open_column(pad_mask);
  }
  // Heads: (L, N, E) -> (N * H, L, head_dim).
  q = q.reshape({L, N * H, head_dim}).transpose(0, 1);
  k = k.reshape({k.size(0), N * H, head_dim}).transpose(0, 1);
  v = v.reshape({v.size(0), N * H, head_dim}).transpose(0, 1);
  if (options.add_zero_attn()) {
    k = cat({k, k.new_zeros({N * H, 1, head_dim})}, 1);
    v = cat({v, v.new_zeros({N * H, 1, head_dim})}, 1);
    mask = with_open_column(mask);
    pad_mask = with_open_column(pad_mask);
  }
  const int64_t S = k.size(1);
  if (pad_mask.defined()) {
    pad_mask = pad_mask.reshape({N, 1, 1, S}).expand({N, H, 1, S}).reshape({N * H, 1, S});
    mask = mask.defined() ? mask + pad_mask : pad_mask;
  }
  const double dropout_p = is_training() ? options.dropout() : 0.0;

  Tensor attention, attention_weights;
  if (need_weights) {
    attention_weights = functional::detail::attention_weights(q, k, mask, /*is_causal=*/false,
                                                              1.0 / std::sqrt(static_cast<double>(head_dim)));
    if (dropout_p > 0) attention_weights = functional::dropout(attention_weights, functional::DropoutFuncOptions().p(dropout_p));
    attention = attention_weights.bmm(v);
  } else {
    // The attention kernels take (N, H, L, head_dim) and a mask that broadcasts to (N, H, L, S).
    Tensor heads_mask = mask.defined() && mask.dim() == 3 && mask.size(0) == N * H ? mask.view({N, H, mask.size(1), S})
                                                                                     : mask;
    attention = functional::scaled_dot_product_attention(q.view({N, H, L, head_dim}), k.view({N, H, S, head_dim}),
                                                         v.view({N, H, S, head_dim}), heads_mask, dropout_p)
                    .view({N * H, L, head_dim});
  }
  Tensor out = out_proj(attention.transpose(0, 1).reshape({L * N, E})).view({L, N, E});
  if (attention_weights.defined()) {
    attention_weights = attention_weights.view({N, H, L, S});
    if (average_attn_weights) attention_weights = attention_weights.mean({1});
    if (!batched) attention_weights = attention_weights.squeeze(0);
  }
  if (!batched) return {out.squeeze(1), attention_weights};
  return {options.batch_first() ? out.transpose(0, 1) : out, attention_weights};
}

}  // namespace ember::nn
