#pragma once
// The attention kernel family: scaled dot-product attention, forward and backward, flash-style. Keys and
// values stream past each query row while a running maximum and sum keep the softmax exact (the online
// softmax), so no batch × L × S matrix of scores or weights exists in memory; the forward saves only each
// row's log-sum-exp, from which the backward recomputes the weights.
//
// Operands are contiguous [batch, rows, features]: q is [B, L, E], k [B, S, E], v [B, S, Ev], out
// [B, L, Ev]; batch folds PyTorch's leading (batch and head) dims. For query row i and key j the score is
//   s_ij = scale q_i·k_j + mask_ij,   with s_ij = -inf where is_causal and j > i (top-left aligned),
// the weights p_ij = exp(s_ij - lse_i) with lse_i = log Σ_j exp(s_ij), and out_i = Σ_j p_ij v_j. A row
// whose scores are all -inf gets NaN, as PyTorch's softmax gives it. Float16 and bfloat16 operands
// compute in float32, float64 ones in float64; every floating operand has q's dtype.
#include <optional>

#include "runtime/kernels/kernels.h"

namespace ember {

struct AttentionShape {
  int64_t batch = 0;
  int64_t queries = 0;       // L
  int64_t keys = 0;          // S
  int64_t head_dim = 0;      // E
  int64_t value_dim = 0;     // Ev
};

// The most features (E and Ev) a kernel takes; past it the caller composes attention from other ops.
inline constexpr int64_t kAttentionMaxHeadDim = 256;

struct AttentionArgs {
  TensorRef out;  // [B, L, Ev]
  TensorRef q;    // [B, L, E]
  TensorRef k;    // [B, S, E]
  TensorRef v;    // [B, S, Ev]
  // Additive, q's dtype, [B, L, S] with any non-negative strides (0 broadcasts): PyTorch's float mask,
  // or a bool mask turned into 0 and -inf by the caller.
  std::optional<TensorRef> mask;
  TensorRef lse;  // [B, L], float32 (float64 for float64 operands): written
  AttentionShape shape;
  double scale = 1.0;
  bool causal = false;
  void check() const;
};

// The gradients of AttentionArgs's out, from the forward's out and lse. With dO = grad_out and
// D_i = dO_i·out_i: dv_j = Σ_i p_ij dO_i, ds_ij = p_ij (dO_i·v_j - D_i), dq_i = scale Σ_j ds_ij k_j and
// dk_j = scale Σ_i ds_ij q_i.
struct AttentionBackwardArgs {
  TensorRef grad_q;    // like q
  TensorRef grad_k;    // like k
  TensorRef grad_v;    // like v
  TensorRef grad_out;  // like out
  TensorRef q, k, v, out;
  std::optional<TensorRef> mask;
  TensorRef lse;
  TensorRef delta;  // [B, L], lse's dtype: scratch for D, written by the backward
  AttentionShape shape;
  double scale = 1.0;
  bool causal = false;
  void check() const;
};

class AttentionKernels : public KernelFamily {
 public:
  static constexpr std::string_view kName = "attention";
  virtual void attention(Stream& stream, const AttentionArgs& args) = 0;
  virtual void attention_backward(Stream& stream, const AttentionBackwardArgs& args) = 0;
};

}  // namespace ember
