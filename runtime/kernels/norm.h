#pragma once
// The norm kernel family: batch norm (statistics, the normalise-and-affine apply, backward), group
// norm (forward and backward; layer norm is group norm with one group and one element per channel), and
// softmax and log-softmax along rows, which normalize by the row's sum of exponentials.
//
// Every tensor operand is contiguous. The input is seen as `outer` samples of `channels` channels of
// `inner` elements each (NormShape): batch norm's statistics are per channel over the outer and inner
// dims; group norm's are per (sample, group) over the group's channels and their inner elements. Float16
// and bfloat16 operands compute in float32, float64 ones in float64 (then every floating operand may be
// float64; otherwise none is). Statistics use Welford's update and Chan's merge.
#include <optional>

#include "runtime/kernels/kernels.h"

namespace ember {

struct NormShape {
  int64_t outer = 0;
  int64_t channels = 0;
  int64_t inner = 1;
  int64_t numel() const { return outer * channels * inner; }
};

// Per channel: mean[c] and invstd[c] = 1 / sqrt(var + eps) with the biased variance over the outer and
// inner dims. Running statistics, where given, are updated in place: r = (1 - momentum) r + momentum s,
// with the unbiased variance for running_var (as PyTorch's batch norm). At least one element per channel.
struct BatchNormStatsArgs {
  TensorRef in;  // [outer, channels, inner]
  NormShape shape;
  TensorRef mean;    // [channels], floating
  TensorRef invstd;  // [channels], mean's dtype
  std::optional<TensorRef> running_mean;  // [channels], floating, both or neither
  std::optional<TensorRef> running_var;
  double momentum = 0.1;
  double eps = 1e-5;
  void check() const;
};

// out = (in - mean[c]) * invstd[c] * weight[c] + bias[c] (weight 1 and bias 0 where absent). With
// `invstd_from_var` the invstd operand holds variances and the kernel takes 1 / sqrt(var + eps): eval
// mode on the running statistics.
struct BatchNormApplyArgs {
  TensorRef out;  // [outer, channels, inner], in's dtype; may be in itself
  TensorRef in;
  NormShape shape;
  TensorRef mean;    // [channels]
  TensorRef invstd;  // [channels], mean's dtype
  bool invstd_from_var = false;
  double eps = 1e-5;
  std::optional<TensorRef> weight;  // [channels]
  std::optional<TensorRef> bias;    // [channels], weight's dtype
  void check() const;
};

// Batch norm's gradients, from grad_out and the statistics the forward used (mean, invstd, or
// variances with invstd_from_var). `training`: the statistics are the batch's own, so their gradient
// flows into grad_in; otherwise they are constants (eval). With x̂ = (in - mean) invstd and M elements per
// channel: grad_weight = Σ grad_out x̂, grad_bias = Σ grad_out, and grad_in = weight invstd (grad_out -
// Σ grad_out / M - x̂ Σ grad_out x̂ / M) in training, weight invstd grad_out in eval.
struct BatchNormBackwardArgs {
  std::optional<TensorRef> grad_in;      // [outer, channels, inner], in's dtype
  std::optional<TensorRef> grad_weight;  // [channels]
  std::optional<TensorRef> grad_bias;    // [channels], grad_weight's dtype where both are given
  TensorRef grad_out;                    // in's dtype
  TensorRef in;
  NormShape shape;
  TensorRef mean;
  TensorRef invstd;
  bool invstd_from_var = false;
  double eps = 1e-5;
  std::optional<TensorRef> weight;
  bool training = true;
  void check() const;
};

// Group norm: the channels of each sample fall in `groups` groups of channels / groups consecutive
// channels; each (sample, group) row is normalised by its own mean and rstd = 1 / sqrt(var + eps)
// (biased variance), which are written, then scaled and shifted per channel.
struct GroupNormArgs {
  TensorRef out;  // [outer, channels, inner], in's dtype
  TensorRef in;
  NormShape shape;
  int64_t groups = 1;
  TensorRef mean;  // [outer * groups], floating
  TensorRef rstd;  // [outer * groups], mean's dtype
  std::optional<TensorRef> weight;  // [channels]
  std::optional<TensorRef> bias;    // [channels], weight's dtype
  double eps = 1e-5;
  void check() const;
};

// Group norm's gradients from the forward's mean and rstd, with x̂ = (in - mean) rstd and the N elements
// of a row: grad_in = rstd (g - mean_row(g) - x̂ mean_row(g x̂)) where g = grad_out weight[c];
// grad_weight[c] = Σ grad_out x̂ and grad_bias[c] = Σ grad_out over the samples and inner elements.
struct GroupNormBackwardArgs {
  std::optional<TensorRef> grad_in;
  std::optional<TensorRef> grad_weight;
  std::optional<TensorRef> grad_bias;
  TensorRef grad_out;
  TensorRef in;
  NormShape shape;
  int64_t groups = 1;
  TensorRef mean;
  TensorRef rstd;
  std::optional<TensorRef> weight;
  void check() const;
};

// Softmax (or, with `log`, log-softmax) of each of `rows` contiguous rows of `length` elements, the row's
// maximum subtracted first, as PyTorch's CPU kernels for the last dim: exp(x - max) / Σ exp(x - max), or
// x - max - log Σ exp(x - max). A NaN in a row makes the whole row NaN. Float16 and bfloat16 compute in
// float32 and round once.
struct SoftmaxArgs {
  // Rows longer than this compose from reductions (tensor/reductions.cpp): on lavapipe a row's lanes
  // would walk more elements than its loop guard allows.
  static constexpr int64_t kMaxLength = int64_t{1} << 22;
  TensorRef out;  // contiguous, in's dtype
  TensorRef in;   // contiguous, floating
  int64_t rows = 0;
  int64_t length = 0;
  bool log = false;
  void check() const;
};

// Their gradients, from the forward's output y: grad_in = y (grad_out - Σ grad_out y), or with `log`
// grad_out - exp(y) Σ grad_out, the sums over each row.
struct SoftmaxBackwardArgs {
  TensorRef grad_in;   // contiguous, out's dtype
  TensorRef grad_out;  // contiguous, out's dtype
  TensorRef out;       // contiguous, floating: the forward's result
  int64_t rows = 0;
  int64_t length = 0;
  bool log = false;
  void check() const;
};

class NormKernels : public KernelFamily {
 public:
  static constexpr std::string_view kName = "norm";
  virtual void batch_norm_stats(Stream& stream, const BatchNormStatsArgs& args) = 0;
  virtual void batch_norm_apply(Stream& stream, const BatchNormApplyArgs& args) = 0;
  virtual void batch_norm_backward(Stream& stream, const BatchNormBackwardArgs& args) = 0;
  virtual void group_norm(Stream& stream, const GroupNormArgs& args) = 0;
  virtual void group_norm_backward(Stream& stream, const GroupNormBackwardArgs& args) = 0;
  virtual void softmax(Stream& stream, const SoftmaxArgs& args) = 0;
  virtual void softmax_backward(Stream& stream, const SoftmaxBackwardArgs& args) = 0;
};

}  // namespace ember
