#pragma once
// The loss kernel family: cross-entropy over class indices, log-softmax and NLL fused, forward in one
// pass over the scores (one more dispatch merges a reduction over several workgroups) and backward in
// one. With log_softmax off it is nll_loss over log-probabilities. And the CTC loss's recursions (below).
//
// The scores are contiguous, [outer, classes, inner] (inner: the product of the spatial dims), one row
// of `classes` scores `inner` apart per target. For a row with target t (not ignore_index), weights w
// (all one when absent), ε = label_smoothing and C classes, with logp = in - logsumexp(in) (or in itself
// without log_softmax):
//   loss = (1 - ε) (-w[t] logp[t]) + ε / C (-Σc w[c] logp[c]),   and a weight of w[t]
// An ignored row has loss 0 and weight 0. Reduction None writes each row's loss; Sum their sum; Mean
// their sum over the sum of the weights (PyTorch's: NaN when every row is ignored).
#include <optional>

#include "runtime/kernels/kernels.h"

namespace ember {


struct ClassShape {
  int64_t outer = 0;
  int64_t classes = 0;
  int64_t inner = 1;
  int64_t rows() const { return outer * inner; }
};

enum class ReductionKind : uint8_t { None, Mean, Sum };

struct CrossEntropyArgs {
  TensorRef out;     // reduction None: [rows], else one element; the scores' dtype
  TensorRef in;      // [outer, classes, inner], floating, contiguous
  TensorRef target;  // [rows], int64, contiguous
  std::optional<TensorRef> weight;  // [classes], contiguous
  ClassShape shape;
  int64_t ignore_index = -100;
  double label_smoothing = 0;
  bool log_softmax = true;
  ReductionKind reduction = ReductionKind::Mean;
  TensorRef total_weight;  // one element, float32 (float64 for float64 scores): Σ w[t] over rows not ignored
  std::optional<TensorRef> logsumexp;  // [rows], total_weight's dtype: written for the backward (log_softmax)
  // Three int32 words, zero before the call: an out-of-range target t (not ignore_index) sets them to
  // (1, low word of t, high word of t), one such target if there are several. Its row counts as ignored.
  TensorRef status;
  void check() const;
};

// The gradient of CrossEntropyArgs's loss with respect to the scores, from the forward's logsumexp and
// total weight: per row, with g its share of grad_out (grad_out[row]; Sum: grad_out; Mean: grad_out /
// total_weight) and p = exp(logp),
//   grad_in[c] = g ((1 - ε) w[t] (p[c] - [c = t]) + ε / C (p[c] Σk w[k] - w[c]))     (log_softmax)
//   grad_in[c] = -g w[t] [c = t]                                                   (nll_loss)
// and zero for an ignored row.
struct CrossEntropyBackwardArgs {
  TensorRef grad_in;   // like in
  TensorRef grad_out;  // like the forward's out
  TensorRef in;
  TensorRef target;
  std::optional<TensorRef> weight;
  ClassShape shape;
  int64_t ignore_index = -100;
  double label_smoothing = 0;
  bool log_softmax = true;
  ReductionKind reduction = ReductionKind::Mean;
  TensorRef total_weight;
  std::optional<TensorRef> logsumexp;  // required with log_softmax
  void check() const;
};

enum class CtcDirection : uint8_t { Forward, Backward };

// One recursion of the CTC loss (nn/functional/ctc_loss.cpp) over frames [first_frame, end_frame) of a
// table of log-probabilities of alignment prefixes (Forward, alpha, frames ascending) or suffixes
// (Backward, beta, frames descending). For N sequences of P extended positions, with every row of the
// table padded by two -inf columns (in front Forward, behind Backward) that the kernel never writes,
// and e = emissions[t][n][s]:
//   Forward:  table[t][n][s + 2] = logsumexp over k < 3 of (table[t - 1][n][s + k] + moves[n][s][k]) + e
//   Backward: table[t][n][s]     = logsumexp over k < 3 of (table[t + 1][n][s + k] + moves[n][s][k]) + e
// Frame t needs frame t - 1 (t + 1) finished, so a sequence's frames run one after another; sequences
// and positions run side by side. The logsumexp of values that are all -inf is -inf, with an infinite
// maximum it is that maximum, and with a NaN it is NaN.
struct CtcRecursionArgs {
  TensorRef table;      // [rows, N, P + 2], float32 or float64, contiguous; rows >= end_frame (+ 1 Backward)
  TensorRef emissions;  // [frames >= end_frame, N, P], the table's dtype, contiguous
  TensorRef moves;      // [N, P, 3], the table's dtype, contiguous: 0 for a move allowed, -inf for one not
  int64_t batch = 0;      // N
  int64_t positions = 0;  // P
  int64_t first_frame = 0;  // Forward: at least 1
  int64_t end_frame = 0;
  CtcDirection direction = CtcDirection::Forward;
  void check() const;
};

// The gradient of each sequence's CTC loss by its log-probabilities, as PyTorch's _ctc_loss_backward
// gives it for a unit gradient, from the recursions' tables. For frame t of sequence n (a row) and class c:
//   grad[t][n][c] = exp(lp) - exp(log(occupancy) + shift + nll[n] - lp),   lp = log_probs[t][n][c]
// where occupancy = Σ over positions s labelled c of exp(alpha[t][n][s + 2] + beta[t][n][s] - shift) and
// shift = max over s of alpha + beta (0 where that is -inf): the share of the alignments through c at t.
// (alpha + beta counts lp twice, hence the "- lp".) A row at or past the sequence's input length is zero,
// and so is every row of a sequence with an infinite loss under zero_infinity.
struct CtcGradientArgs {
  TensorRef grad;       // [T, N, C], float32 or float64, contiguous; written whole
  TensorRef log_probs;  // [T, N, C], grad's dtype, contiguous
  TensorRef alpha;      // [T, N, P + 2], grad's dtype, contiguous: CtcRecursionArgs's Forward table
  TensorRef beta;       // [at least T, N, P + 2], grad's dtype, contiguous: its Backward table
  TensorRef labels;     // [N, P], int32, contiguous: the class of each extended position, below C
  TensorRef nll;        // [N], grad's dtype: each sequence's loss
  TensorRef input_lengths;  // [N], int32
  bool zero_infinity = false;
  void check() const;
};

class LossKernels : public KernelFamily {
 public:
  static constexpr std::string_view kName = "loss";
  virtual void cross_entropy(Stream& stream, const CrossEntropyArgs& args) = 0;
  virtual void cross_entropy_backward(Stream& stream, const CrossEntropyBackwardArgs& args) = 0;
  virtual void ctc_recursion(Stream& stream, const CtcRecursionArgs& args) = 0;
  virtual void ctc_gradient(Stream& stream, const CtcGradientArgs& args) = 0;
};

}  // namespace ember
