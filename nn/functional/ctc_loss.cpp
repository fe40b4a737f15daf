// CTC loss as PyTorch 1.13's ctc_loss: its checks and messages in its order, then the forward (alpha)
// recursion for the loss and, when a gradient is wanted, the backward (beta) recursion for the gradient
// CtcLossBackward0 returns. Both run in log space on the device, each as one launch of the loss family's
// recursion kernel (a workgroup per sequence walks the frames, its invocations over the positions), and
// the gradient from their tables is the family's ctc_gradient kernel.
#include "nn/functional/ctc_loss.h"

#include <algorithm>
#include <cstdint>
#include <limits>
#include <string>
#include <vector>

#include "autograd/record.h"
#include "runtime/error.h"
#include "runtime/kernels/loss.h"
#include "tensor/ops_support.h"

namespace ember::nn::functional {

namespace {

constexpr double kInfinity = std::numeric_limits<double>::infinity();
const std::string kChecking = " (while checking arguments for ctc_loss_cpu)";

std::vector<int64_t> host_lengths(const Tensor& lengths, const char* name) {
  if (!is_integral(lengths.dtype())) throw Error(std::string(name) + " must be integral");
  return lengths.to_vector<int64_t>();
}

// Each sequence's labels with a blank before, between and after them (2L + 1 positions), padded with
// blanks to the longest: the states an alignment walks through, left to right.
struct Extended {
  int64_t positions = 0;              // P = 2 * (longest target) + 1
  std::vector<int64_t> labels;        // (N, P)
  // Whether position s may be entered from s - 2, skipping a blank: s holds a label unlike s - 2's.
  bool may_skip_to(int64_t n, int64_t s) const {
    const int64_t* row = labels.data() + n * positions;
    return s >= 2 && s < positions && s % 2 == 1 && row[s] != row[s - 2];
  }
};

Extended extend_targets(const Tensor& targets, const std::vector<int64_t>& target_lengths, int64_t classes,
                        int64_t blank) {
  const int64_t batch = static_cast<int64_t>(target_lengths.size());
  const std::vector<int64_t> values = targets.to_vector<int64_t>();
  Extended e;
  const int64_t longest = batch == 0 ? 0 : *std::max_element(target_lengths.begin(), target_lengths.end());
  e.positions = 2 * longest + 1;
  e.labels.assign(static_cast<size_t>(batch * e.positions), blank);
  int64_t concatenated_start = 0;
  for (int64_t n = 0; n < batch; ++n) {
    const int64_t start = targets.dim() == 1 ? concatenated_start : n * targets.size(1);
    for (int64_t k = 0; k < target_lengths[n]; ++k) {
      const int64_t label = values[static_cast<size_t>(start + k)];
      if (label < 0 || label >= classes) {
        throw IndexError("ctc_loss: target " + std::to_string(label) + " at position " + std::to_string(k) +
                         " of sequence " + std::to_string(n) + " is not a class index (log_probs has " +
                         std::to_string(classes) + " classes)");
      }
      e.labels[static_cast<size_t>(n * e.positions + 2 * k + 1)] = label;
    }
    concatenated_start += target_lengths[n];
  }
  return e;
}

// PyTorch's checks of ctc_loss_cpu, in its order, with its messages; then what it leaves unchecked
// (negative lengths, labels outside the classes), which here gets an error rather than a wrong result.
void check_arguments(const Tensor& log_probs, const Tensor& targets, const std::vector<int64_t>& input_lengths,
                     const std::vector<int64_t>& target_lengths, int64_t blank) {
  if (log_probs.dtype() != kFloat32 && log_probs.dtype() != kFloat64) {
    throw Error("\"ctc_loss_cpu\" not implemented for '" + scalar_type_name(log_probs.dtype()) + "'");
  }
  if (log_probs.dim() != 3) {
    throw Error("Expected 3-dimensional tensor, but got " + std::to_string(log_probs.dim()) +
                "-dimensional tensor for argument #1 'log_probs'" + kChecking);
  }
  if (targets.dim() < 1 || targets.dim() > 2) {
    throw Error("Expected 1 to 2 dimensions, but got " + std::to_string(targets.dim()) +
                "-dimensional tensor for argument #2 'targets'" + kChecking);
  }
  const int64_t batch = log_probs.size(1), classes = log_probs.size(2);
  if (blank < 0 || blank >= classes) throw Error("blank must be in label range");
  if (static_cast<int64_t>(input_lengths.size()) != batch) throw Error("input_lengths must be of size batch_size");
  if (static_cast<int64_t>(target_lengths.size()) != batch) throw Error("target_lengths must be of size batch_size");
  for (const int64_t length : target_lengths) {
    if (length < 0) throw Error("ctc_loss: target_lengths must be non-negative, but got " + std::to_string(length));
  }
  int64_t total = 0, longest = 0;
  for (const int64_t length : target_lengths) {
    total += length;
    longest = std::max(longest, length);
  }
  const auto size_message = [](int64_t expected, int64_t dim, int64_t got, const char* at_least) {
    return "Expected tensor to have size " + std::string(at_least) + std::to_string(expected) + " at dimension " +
           std::to_string(dim) + ", but got size " + std::to_string(got) + " for argument #2 'targets'" + kChecking;
  };
  if (targets.dim() == 1 && targets.size(0) != total) throw Error(size_message(total, 0, targets.size(0), ""));
  if (targets.dim() == 2) {
    if (targets.size(0) != batch) throw Error(size_message(batch, 0, targets.size(0), ""));
    if (targets.size(1) < longest) throw Error(size_message(longest, 1, targets.size(1), "at least "));
  }
  const int64_t frames = log_probs.size(0);
  for (const int64_t length : input_lengths) {
    if (length > frames) {
      throw Error("Expected input_lengths to have value at most " + std::to_string(frames) + ", but got value " +
                  std::to_string(length) + kChecking);
    }
    if (length < 0) throw Error("ctc_loss: input_lengths must be non-negative, but got " + std::to_string(length));
  }
}

TensorOptions options_of(const Tensor& t) { return TensorOptions().dtype(t.dtype()).device(t.device()); }

template <class T>
Tensor upload(const std::vector<T>& values, IntArrayRef sizes, DType dtype, const Tensor& like) {
  return from_blob(values.data(), sizes, TensorOptions().dtype(dtype).device(like.device()));
}

// Host values in `like`'s floating dtype (float32 or float64), converted on the host, not by a launch.
Tensor upload_floating(const std::vector<double>& values, IntArrayRef sizes, const Tensor& like) {
  if (like.dtype() == kFloat64) return upload(values, sizes, kFloat64, like);
  return upload(std::vector<float>(values.begin(), values.end()), sizes, kFloat32, like);
}

void run_recursion(const Tensor& table, const Tensor& emissions, const Tensor& moves, int64_t first_frame,
                   int64_t end_frame, CtcDirection direction) {
  const Tensor e = emissions.contiguous(), m = moves.contiguous();
  const CtcRecursionArgs args{.table = table.ref(), .emissions = e.ref(), .moves = m.ref(), .batch = e.size(1),
                              .positions = e.size(2), .first_frame = first_frame, .end_frame = end_frame,
                              .direction = direction};
  const auto& device = table.device();
  ember::detail::kernels_for<LossKernels>(*device).ctc_recursion(*ember::detail::stream_for(*device), args);
}

// The log-probability of every alignment prefix: alpha[t, n, s] over frames t, sequences n and extended
// positions s, kept with two -inf columns in front so that the three predecessors of s (s - 2, s - 1,
// s) sit side by side. `moves` (N, P, 3) is -inf for the skip from s - 2 where it is not allowed.
// Returns the padded (T, N, P + 2) buffer.
Tensor forward_variables(const Tensor& emissions, const Tensor& moves) {
  const int64_t frames = emissions.size(0), batch = emissions.size(1), positions = emissions.size(2);
  Tensor alpha = full({frames, batch, positions + 2}, -kInfinity, options_of(emissions));
  const int64_t first = std::min<int64_t>(2, positions);  // an alignment starts on the blank or the first label
  alpha.select(0, 0).narrow(1, 2, first).copy_(emissions.select(0, 0).narrow(1, 0, first));
  run_recursion(alpha, emissions, moves, 1, frames, CtcDirection::Forward);
  return alpha;
}

// The log-probability of every alignment suffix, beta[t, n, s], with two -inf columns behind; `moves`
// is -inf for the skip to s + 2 where it is not allowed. Frames at and past a sequence's end hold its
// seed (0 at its last blank) so that its recursion starts at its own last frame. Returns the padded
// (T + 1, N, P + 2) buffer.
Tensor backward_variables(const Tensor& emissions, const Tensor& moves, const Tensor& seed) {
  const int64_t frames = emissions.size(0), batch = emissions.size(1), positions = emissions.size(2);
  Tensor beta = full({frames + 1, batch, positions + 2}, -kInfinity, options_of(emissions));
  beta.select(0, frames).narrow(1, 0, positions).copy_(seed);
  run_recursion(beta, emissions, moves, 0, frames, CtcDirection::Backward);
  return beta;
}

// What PyTorch's _ctc_loss_backward returns for a unit gradient of each sequence's loss (CtcGradientArgs),
// from the padded alpha and beta tables.
Tensor loss_gradient(const Tensor& log_probs, const Tensor& alpha, const Tensor& beta, const Tensor& nll,
                     const Extended& extended, const std::vector<int64_t>& input_lengths, bool zero_infinity) {
  const int64_t batch = log_probs.size(1);
  const std::vector<int32_t> labels(extended.labels.begin(), extended.labels.end());
  const std::vector<int32_t> lengths(input_lengths.begin(), input_lengths.end());
  const Tensor labels_on_device = upload(labels, {batch, extended.positions}, kInt32, log_probs);
  const Tensor lengths_on_device = upload(lengths, {batch}, kInt32, log_probs);
  const Tensor lp = log_probs.contiguous(), losses = nll.contiguous();
  Tensor grad = empty_like(lp);
  const CtcGradientArgs args{.grad = grad.ref(), .log_probs = lp.ref(), .alpha = alpha.ref(), .beta = beta.ref(),
                             .labels = labels_on_device.ref(), .nll = losses.ref(),
                             .input_lengths = lengths_on_device.ref(), .zero_infinity = zero_infinity};
  const auto& device = lp.device();
  ember::detail::kernels_for<LossKernels>(*device).ctc_gradient(*ember::detail::stream_for(*device), args);
  return grad;
}

Tensor reduce(const Tensor& losses, const std::vector<int64_t>& target_lengths, LossReduction reduction,
              bool batched) {
  if (std::holds_alternative<enumtype::kSum>(reduction)) return losses.sum();
  if (std::holds_alternative<enumtype::kMean>(reduction)) {
    std::vector<double> divisors;
    for (const int64_t length : target_lengths) divisors.push_back(static_cast<double>(std::max<int64_t>(length, 1)));
    const int64_t count = static_cast<int64_t>(divisors.size());
    return (losses / upload_floating(divisors, {count}, losses)).mean();
  }
  return batched ? losses : losses.squeeze(0);
}

}  // namespace

Tensor ctc_loss(const Tensor& log_probs, const Tensor& targets, const Tensor& input_lengths,
                const Tensor& target_lengths, const CTCLossFuncOptions& options) {
  const std::vector<int64_t> inputs = host_lengths(input_lengths, "input_lengths");
  const std::vector<int64_t> labels = host_lengths(target_lengths, "target_lengths");
  return ctc_loss(log_probs, targets, IntArrayRef(inputs), IntArrayRef(labels), options);
}

Tensor ctc_loss(const Tensor& log_probs, const Tensor& targets, IntArrayRef input_lengths_ref,
                IntArrayRef target_lengths_ref, const CTCLossFuncOptions& options) {
  const std::vector<int64_t> input_lengths = input_lengths_ref.vec(), target_lengths = target_lengths_ref.vec();
  const bool batched = log_probs.dim() == 3;
  const Tensor lp = batched ? log_probs : log_probs.unsqueeze(1);
  check_arguments(lp, targets, input_lengths, target_lengths, options.blank());
  const int64_t frames = lp.size(0), batch = lp.size(1), classes = lp.size(2);
  const Extended extended = extend_targets(targets, target_lengths, classes, options.blank());
  const int64_t positions = extended.positions;

  autograd::Record rec("CtcLossBackward0", {&log_probs});
  Tensor nll;
  Tensor gradient;
  if (frames == 0 || batch == 0) {
    // No frames: the empty target has probability one, any other none.
    std::vector<double> losses;
    for (const int64_t length : target_lengths) losses.push_back(length == 0 ? -0.0 : kInfinity);
    nll = upload_floating(losses, {batch}, lp);
    gradient = zeros_like(lp);
  } else {
    // Host-built tables: -inf marks what an alignment may not do, 0 what it may.
    std::vector<double> skip_back(static_cast<size_t>(batch * positions * 3), 0.0), skip_ahead = skip_back;
    std::vector<double> seed(static_cast<size_t>(batch * positions), -kInfinity);
    std::vector<uint8_t> within(static_cast<size_t>(frames * batch), 0);
    std::vector<int64_t> last_states(static_cast<size_t>(batch * 2));
    std::vector<uint8_t> empty_rows(static_cast<size_t>(batch), 0);
    for (int64_t n = 0; n < batch; ++n) {
      for (int64_t s = 0; s < positions; ++s) {
        const size_t cell = static_cast<size_t>((n * positions + s) * 3);
        if (!extended.may_skip_to(n, s)) skip_back[cell] = -kInfinity;
        if (!extended.may_skip_to(n, s + 2)) skip_ahead[cell + 2] = -kInfinity;
      }
      const int64_t last_blank = 2 * target_lengths[n];
      seed[static_cast<size_t>(n * positions + last_blank)] = 0.0;
      for (int64_t t = 0; t < input_lengths[n]; ++t) within[static_cast<size_t>(t * batch + n)] = 1;
      // The loss reads alpha at the last frame, on the last blank and the last label; a sequence without
      // frames reads a -inf padding cell, and one without labels reads it in place of the last label.
      const int64_t frame = std::max<int64_t>(input_lengths[n] - 1, 0);
      const int64_t row = (frame * batch + n) * (positions + 2);
      last_states[static_cast<size_t>(2 * n)] = input_lengths[n] == 0 ? row : row + 2 + last_blank;
      last_states[static_cast<size_t>(2 * n + 1)] =
          input_lengths[n] == 0 || last_blank == 0 ? row : row + 2 + last_blank - 1;
      if (input_lengths[n] == 0 && target_lengths[n] == 0) empty_rows[static_cast<size_t>(n)] = 1;
    }
    const Tensor extended_labels = upload(extended.labels, {batch, positions}, kInt64, lp);
    const Tensor emissions = lp.gather(2, extended_labels.unsqueeze(0).expand({frames, batch, positions}));
    const Tensor alpha = forward_variables(emissions, upload_floating(skip_back, {batch, positions, 3}, lp));
    nll = -alpha.reshape({-1}).index_select(0, upload(last_states, {batch * 2}, kInt64, lp)).reshape({batch, 2})
               .logsumexp({1});
    const bool empty_alignment = std::ranges::any_of(empty_rows, [](uint8_t empty) { return empty != 0; });
    if (empty_alignment) nll = where(upload(empty_rows, {batch}, kBool, lp), -0.0, nll);
    if (rec) {
      const Tensor within_input = upload(within, {frames, batch, 1}, kBool, lp);
      const Tensor seed_row = upload_floating(seed, {batch, positions}, lp);
      // Past a sequence's last frame its beta holds the seed, which starts the recursion at that frame.
      const Tensor beta = backward_variables(where(within_input, emissions, seed_row),
                                             upload_floating(skip_ahead, {batch, positions, 3}, lp), seed_row);
      gradient = loss_gradient(lp, alpha, beta, nll, extended, input_lengths, options.zero_infinity());
    }
  }
  Tensor losses = nll;
  if (rec) {
    rec.save(gradient.reshape(log_probs.sizes()));
    rec.save(log_probs);
    losses = rec.finish(nll, [](autograd::FunctionNode& node, const autograd::tensor_list& g) {
      const Tensor& unit_gradient = node.saved(0);
      const Tensor per_sequence = unit_gradient.dim() == 3 ? g[0].reshape({1, -1, 1}) : g[0].reshape({1, 1});
      // PyTorch's _ctc_loss_backward has no derivative of its own: under create_graph, reaching it fails.
      const Tensor saved_log_probs = node.saved(1);
      autograd::Record second("torch::autograd::NotImplemented", {&g[0], &saved_log_probs});
      Tensor grad = unit_gradient * per_sequence;
      if (second) grad = second.finish(grad, autograd::not_implemented_backward("_ctc_loss_backward"));
      return autograd::tensor_list{grad};
    });
  }
  if (options.zero_infinity()) losses = where(losses == kInfinity, 0.0, losses);
  return reduce(losses, target_lengths, options.reduction(), batched);
}

}  // namespace ember::nn::functional
