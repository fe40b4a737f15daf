#include "nn/functional/attention.h"

#include <cmath>
#include <cstdio>
#include <limits>
#include <mutex>
#include <set>
#include <string>

#include "autograd/record.h"
#include "nn/functional/dropout.h"
#include "runtime/kernels/attention.h"
#include "tensor/autocast.h"
#include "tensor/ops_support.h"

namespace ember::nn::functional {

namespace {

std::vector<int64_t> leading(const Tensor& t) { return {t.sizes().begin(), t.sizes().end() - 2}; }

std::vector<int64_t> with_matrix(std::vector<int64_t> batch, int64_t rows, int64_t cols) {
  batch.push_back(rows);
  batch.push_back(cols);
  return batch;
}

// PyTorch's checks of the arguments, before any work.
void check_arguments(const Tensor& q, const Tensor& k, const Tensor& v, const Tensor& mask, double dropout_p,
                     bool is_causal) {
  if (q.dtype() != k.dtype() || q.dtype() != v.dtype()) {
    throw Error("Expected query, key, and value to have the same dtype, but got query.dtype: " +
                ember::detail::c_type_name(q.dtype()) + " key.dtype: " + ember::detail::c_type_name(k.dtype()) +
                " and value.dtype: " + ember::detail::c_type_name(v.dtype()) + " instead.");
  }
  ember::detail::check_same_device({&q, &k, &v, &mask});
  if (!is_floating_point(q.dtype())) {
    throw Error("scaled_dot_product_attention: query must be floating, not " + scalar_type_name(q.dtype()));
  }
  if (q.dim() < 2 || k.dim() < 2 || v.dim() < 2) {
    throw Error("scaled_dot_product_attention: query, key and value need at least 2 dims, got " +
                std::to_string(q.dim()) + ", " + std::to_string(k.dim()) + " and " + std::to_string(v.dim()));
  }
  if (q.size(-1) != k.size(-1)) {
    throw Error("scaled_dot_product_attention: query and key must have the same embedding dim, got " +
                std::to_string(q.size(-1)) + " and " + std::to_string(k.size(-1)));
  }
  if (k.size(-2) != v.size(-2)) {
    throw Error("scaled_dot_product_attention: key and value must have the same sequence length, got " +
                std::to_string(k.size(-2)) + " and " + std::to_string(v.size(-2)));
  }
  if (is_causal && mask.defined()) {
    throw Error("_scaled_dot_product_attention: Explicit attn_mask should not be set when is_causal=True");
  }
  if (mask.defined() && mask.dtype() != DType::Bool && mask.dtype() != q.dtype()) {
    throw Error("Expected attn_mask dtype to be bool or to match query dtype, but got attn_mask.dtype: " +
                ember::detail::c_type_name(mask.dtype()) + " and  query.dtype: " +
                ember::detail::c_type_name(q.dtype()) + " instead.");
  }
  if (dropout_p < 0 || dropout_p > 1) {
    throw Error("dropout probability has to be between 0 and 1, but got " + std::to_string(dropout_p));
  }
}

// The mask as scores to add: a bool mask's false becomes -inf.
Tensor additive(const Tensor& mask, DType dtype) {
  if (mask.dtype() != DType::Bool) return mask;
  return zeros(mask.sizes(), TensorOptions().dtype(dtype).device(mask.device()))
      .masked_fill(mask.logical_not(), -std::numeric_limits<double>::infinity());
}

// Says once per reason why attention took the composed path.
void note_composed(const std::string& why) {
  static std::mutex mutex;
  static std::set<std::string> said;
  std::lock_guard lock(mutex);
  if (said.insert(why).second) {
    std::fprintf(stderr, "ember: scaled_dot_product_attention composed from other ops: %s\n", why.c_str());
  }
}

// Why the kernels cannot take these arguments; empty when they can.
std::string composed_because(const Tensor& q, const Tensor& v, const Tensor& mask, double dropout_p) {
  if (dropout_p > 0) return "the kernels have no dropout";
  if (q.size(-1) > kAttentionMaxHeadDim || v.size(-1) > kAttentionMaxHeadDim) {
    return "more than " + std::to_string(kAttentionMaxHeadDim) + " features per head";
  }
  if (mask.defined() && mask.requires_grad() && autograd::GradMode::is_enabled()) {
    return "the mask requires grad";
  }
  try {
    q.device()->kernels().get<AttentionKernels>();
  } catch (const UnsupportedError& error) {
    return error.what();
  }
  return {};
}

// t expanded to `shape` and seen as [B, rows, cols], contiguous (a copy where the batch was broadcast).
Tensor as_batched(const Tensor& t, const std::vector<int64_t>& shape, int64_t batch) {
  return t.expand(shape).reshape({batch, t.size(-2), t.size(-1)}).contiguous();
}

// The gradients of the kernel's attention written with differentiable ops (for create_graph), from
// the weights recomputed in full; in the broadcast batch shape.
autograd::tensor_list composed_gradients(const Tensor& grad, const Tensor& q, const Tensor& k, const Tensor& v,
                                         const Tensor& mask, bool is_causal, double scale) {
  const Tensor weights = detail::attention_weights(q, k, mask, is_causal, scale);
  const Tensor grad_weights = grad.matmul(v.transpose(-2, -1));
  const Tensor grad_scores = weights * (grad_weights - (grad_weights * weights).sum({-1}, true));
  return {grad_scores.matmul(k) * scale, grad_scores.transpose(-2, -1).matmul(q) * scale,
          weights.transpose(-2, -1).matmul(grad)};
}

}  // namespace

Tensor scaled_dot_product_attention(const Tensor& query, const Tensor& key, const Tensor& value,
                                    const Tensor& attn_mask, double dropout_p, bool is_causal,
                                    std::optional<double> scale) {
  if (autocast::is_active()) {
    return autocast::in_lower_precision([&](const Tensor& q, const Tensor& k, const Tensor& v, const Tensor& mask) {
      return scaled_dot_product_attention(q, k, v, mask, dropout_p, is_causal, scale);
    }, query, key, value, attn_mask);
  }
  check_arguments(query, key, value, attn_mask, dropout_p, is_causal);
  const double factor = scale.value_or(1 / std::sqrt(static_cast<double>(query.size(-1))));
  // No keys: the composed path's product over an empty dim gives zeros, where the online softmax would
  // divide 0 by 0.
  if (key.size(-2) == 0) return detail::composed_attention(query, key, value, attn_mask, dropout_p, is_causal, factor);
  if (const std::string why = composed_because(query, value, attn_mask, dropout_p); !why.empty()) {
    note_composed(why);
    return detail::composed_attention(query, key, value, attn_mask, dropout_p, is_causal, factor);
  }

  const int64_t L = query.size(-2), S = key.size(-2), E = query.size(-1), Ev = value.size(-1);
  const std::vector<int64_t> batch_shape =
      broadcast_shapes(broadcast_shapes(leading(query), leading(key)), leading(value));
  const int64_t batch = ember::detail::product(batch_shape);
  const Tensor q = as_batched(query, with_matrix(batch_shape, L, E), batch);
  const Tensor k = as_batched(key, with_matrix(batch_shape, S, E), batch);
  const Tensor v = as_batched(value, with_matrix(batch_shape, S, Ev), batch);
  Tensor mask;
  if (attn_mask.defined()) {
    mask = additive(attn_mask.detach(), query.dtype()).expand(with_matrix(batch_shape, L, S)).reshape({batch, L, S});
  }
  // Optional, so that a kernel that refuses the shape can drop it before the composed ops record.
  std::optional<autograd::Record> rec;
  rec.emplace("ScaledDotProductFlashAttentionBackward0", std::initializer_list<const Tensor*>{&query, &key, &value});
  const DType statistics = query.dtype() == DType::Float64 ? DType::Float64 : DType::Float32;
  Tensor out = ember::detail::empty_on({batch, L, Ev}, query.dtype(), query.device());
  Tensor lse = ember::detail::empty_on({batch, L}, statistics, query.device());
  AttentionArgs args{.out = out.ref(), .q = q.ref(), .k = k.ref(), .v = v.ref(), .lse = lse.ref()};
  if (mask.defined()) args.mask = mask.ref();
  args.shape = {batch, L, S, E, Ev};
  args.scale = factor;
  args.causal = is_causal;
  try {
    ember::detail::kernels_for<AttentionKernels>(*query.device()).attention(*ember::detail::stream_for(*query.device()),
                                                                          args);
  } catch (const UnsupportedError& error) {
    rec.reset();
    note_composed(error.what());
    return detail::composed_attention(query, key, value, attn_mask, dropout_p, is_causal, factor);
  }
  out = out.reshape(with_matrix(batch_shape, L, Ev));
  if (!*rec) return out;
  // The inputs themselves, not their batched copies: under create_graph the gradients are ops of them.
  rec->save(query);
  rec->save(key);
  rec->save(value);
  rec->save(lse);
  if (mask.defined()) rec->save(mask);
  rec->save_output(out);
  const std::vector<int64_t> q_sizes = query.sizes().vec(), k_sizes = key.sizes().vec(), v_sizes = value.sizes().vec();
  const bool has_mask = mask.defined();
  return rec->finish(out, [=](autograd::FunctionNode& node, const autograd::tensor_list& g) {
    const Tensor sq = node.saved(0), sk = node.saved(1), sv = node.saved(2), slse = node.saved(3);
    const Tensor smask = has_mask ? node.saved(4) : Tensor();
    autograd::tensor_list grads;
    if (autograd::GradMode::is_enabled()) {
      grads = composed_gradients(g[0], sq, sk, sv, has_mask ? smask.reshape(with_matrix(batch_shape, L, S)) : Tensor(),
                                 is_causal, factor);
    } else {
      const Tensor q = as_batched(sq, with_matrix(batch_shape, L, E), batch);
      const Tensor k = as_batched(sk, with_matrix(batch_shape, S, E), batch);
      const Tensor v = as_batched(sv, with_matrix(batch_shape, S, Ev), batch);
      const Tensor out = node.saved(has_mask ? 5 : 4).reshape({batch, L, Ev}).contiguous();
      const Tensor grad = g[0].reshape({batch, L, Ev}).contiguous();
      const auto& device = sq.device();
      Tensor grad_q = ember::detail::empty_on({batch, L, E}, sq.dtype(), device);
      Tensor grad_k = ember::detail::empty_on({batch, S, E}, sq.dtype(), device);
      Tensor grad_v = ember::detail::empty_on({batch, S, Ev}, sq.dtype(), device);
      Tensor delta = ember::detail::empty_on({batch, L}, slse.dtype(), device);
      AttentionBackwardArgs b{.grad_q = grad_q.ref(), .grad_k = grad_k.ref(), .grad_v = grad_v.ref(),
                              .grad_out = grad.ref(), .q = q.ref(), .k = k.ref(), .v = v.ref(),
                              .out = out.ref(), .lse = slse.ref(), .delta = delta.ref()};
      if (has_mask) b.mask = smask.ref();
      b.shape = {batch, L, S, E, Ev};
      b.scale = factor;
      b.causal = is_causal;
      ember::detail::kernels_for<AttentionKernels>(*device).attention_backward(*ember::detail::stream_for(*device), b);
      grads = {grad_q, grad_k, grad_v};
    }
    return autograd::tensor_list{
        autograd::sum_to(grads[0].reshape(with_matrix(batch_shape, L, E)), q_sizes),
        autograd::sum_to(grads[1].reshape(with_matrix(batch_shape, S, E)), k_sizes),
        autograd::sum_to(grads[2].reshape(with_matrix(batch_shape, S, Ev)), v_sizes)};
  });
}

namespace detail {

Tensor attention_weights(const Tensor& q, const Tensor& k, const Tensor& mask, bool is_causal, double scale) {
  Tensor scores = q.matmul(k.transpose(-2, -1)) * scale;
  if (is_causal) {
    const Tensor keep = ones({q.size(-2), k.size(-2)}, TensorOptions().dtype(DType::Bool).device(q.device())).tril();
    scores = scores.masked_fill(keep.logical_not(), -std::numeric_limits<double>::infinity());
  }
  if (mask.defined()) scores = scores + mask;
  return scores.softmax(-1);
}

Tensor composed_attention(const Tensor& q, const Tensor& k, const Tensor& v, const Tensor& mask, double dropout_p,
                          bool is_causal, double scale) {
  Tensor weights = attention_weights(q, k, mask.defined() ? additive(mask, q.dtype()) : Tensor(), is_causal, scale);
  if (dropout_p > 0) weights = detail::dropout(weights, dropout_p, /*training=*/true, /*inplace=*/false);
  return weights.matmul(v);
}

}  // namespace detail

}  // namespace ember::nn::functional
