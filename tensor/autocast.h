#pragma once
// Automatic mixed precision, as torch.autocast: while an AutocastGuard is alive on a thread, some ops cast
// their floating inputs before they run, so that a float32 model computes its products in float16 or
// bfloat16 and its numerically delicate ops in float32:
//
//   ember::autocast::AutocastGuard autocast(ember::kFloat16);
//   ember::Tensor loss = ember::nn::functional::cross_entropy(model->forward(x), y);  // linear in float16,
//                                                                                     // the loss in float32
//
// The lists follow PyTorch's CUDA lists (https://pytorch.org/docs/stable/amp.html#cuda-op-specific-behavior),
// whatever the backend, since ember's Vulkan and CUDA kernels compute float16 and bfloat16 the same way:
//
// - Lower precision (floating inputs cast to the autocast dtype; float64 inputs left alone): matmul, mm,
//   bmm, mv, addmm, baddbmm, prelu, nn::functional::linear (and Sequential's fused Linear→activation),
//   conv1d/2d/3d, conv_transpose1d/2d/3d, scaled_dot_product_attention (PyTorch 2.x lists it). Multi-head
//   attention is covered through its parts (linear, the products, attention).
// - Float32 (float16 and bfloat16 inputs cast to float32): exp, expm1, log, log2, log10, log1p, pow (all
//   three forms), reciprocal, rsqrt, tan, asin, acos, sinh, cosh, softplus, layer_norm, group_norm,
//   cross_entropy, nll_loss, mse_loss, l1_loss, smooth_l1_loss, soft_margin_loss, kl_div,
//   poisson_nll_loss, binary_cross_entropy_with_logits, cosine_similarity, cdist; and, by the dtype
//   argument rather than a cast (PyTorch's fp32_set_opt_dtype: an explicit dtype is kept), sum, prod,
//   cumsum, cumprod, softmax, log_softmax, norm.
// - Refused: binary_cross_entropy (PyTorch's CUDA autocast refuses it too; use
//   binary_cross_entropy_with_logits).
// - Everything else runs in the dtype of its inputs; ops of two inputs promote as usual (float16 + float32
//   is float32), which covers PyTorch's "promote" list where ember's ops promote.
//
// As in PyTorch:
// - The state is per thread; guards nest and restore what they found.
// - A cast is recorded by autograd (ToCopyBackward0), so float32 parameters receive float32 gradients.
// - An op's own parts are not cast again: a listed op runs with autocast suspended (PyTorch redispatches
//   below its autocast key), so attention's composed softmax stays in the lower precision, and
//   log_softmax's parts stay in float32.
// - In-place ops (exp_, pow_, ...) are not autocast; they keep their tensor's dtype.
// - Backward runs with autocast suspended: a gradient is computed in the dtype its forward op chose, even
//   when backward() is called inside the guard.
// - Casts of float32 leaves that require grad (parameters) are cached until the outermost guard ends, so
//   a weight used by several ops is cast once per region; a cached cast is redone when the parameter
//   changed in place (ember also checks its version, which PyTorch does not) and not cached in no_grad.
#include <optional>

#include "tensor/tensor.h"

namespace ember::autocast {

// ---- the thread's state (torch.is_autocast_enabled, torch.get_autocast_gpu_dtype, ...) ----
bool is_enabled();
void set_enabled(bool enabled);
DType get_autocast_dtype();  // float16 unless set
// Throws Error unless `dtype` is float16 or bfloat16.
void set_autocast_dtype(DType dtype);
bool is_autocast_cache_enabled();
void set_autocast_cache_enabled(bool enabled);
void clear_cache();

// torch.autocast as a scope: sets the state for its lifetime and restores the previous state after. The
// outermost guard clears the cast cache when it ends. enabled = false turns autocast off for a region
// inside another guard.
class AutocastGuard {
 public:
  explicit AutocastGuard(DType dtype = DType::Float16, bool enabled = true, bool cache_enabled = true);
  ~AutocastGuard();
  AutocastGuard(const AutocastGuard&) = delete;
  AutocastGuard& operator=(const AutocastGuard&) = delete;

 private:
  bool previous_enabled_;
  DType previous_dtype_;
  bool previous_cache_enabled_;
};

// ---- for op implementations ----
// Suspends autocast on this thread for a scope: inside an op autocast already handled, in in-place ops
// and in backward.
class SuspendGuard {
 public:
  SuspendGuard();
  ~SuspendGuard();
  SuspendGuard(const SuspendGuard&) = delete;
  SuspendGuard& operator=(const SuspendGuard&) = delete;
};

// Whether a listed op entry point must cast now: autocast is enabled and not suspended.
bool is_active();

// `t` in the autocast dtype when it is floating and not float64 (through the cache for parameters);
// otherwise `t` itself. Undefined stays undefined.
Tensor to_lower_precision(const Tensor& t);
// `t` in float32 when it is float16 or bfloat16; otherwise `t` itself.
Tensor to_float32(const Tensor& t);
// The dtype argument PyTorch's fp32_set_opt_dtype passes: `dtype` when given, float32 for a floating
// input that is not float64, else none.
std::optional<DType> float32_dtype(const Tensor& input, std::optional<DType> dtype);

// Runs `op` on `inputs` cast to the autocast dtype, with autocast suspended inside. Call it at the top
// of a lower-precision op, when is_active():
//   if (autocast::is_active()) {
//     return autocast::in_lower_precision([](const Tensor& a, const Tensor& b) { return a.mm(b); }, *this, mat2);
//   }
template <class Op, class... Tensors>
decltype(auto) in_lower_precision(const Op& op, const Tensors&... inputs) {
  SuspendGuard suspended;
  return op(to_lower_precision(inputs)...);
}

// The same for a float32 op.
template <class Op, class... Tensors>
decltype(auto) in_float32(const Op& op, const Tensors&... inputs) {
  SuspendGuard suspended;
  return op(to_float32(inputs)...);
}

// Runs `op` with autocast suspended, for the ops that take float32 as their dtype argument.
template <class Op>
decltype(auto) suspended(const Op& op) {
  SuspendGuard suspended;
  return op();
}

}  // namespace ember::autocast
