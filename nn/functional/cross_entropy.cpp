// cross_entropy and nll_loss: PyTorch's checks and messages (ATen's cross_entropy_loss, nll_loss_nd,
// nll_loss and nll_loss2d), the fused loss kernel for class-index targets with its node, and PyTorch's
// composition for class-probability targets.
#include "nn/functional/cross_entropy.h"

#include <algorithm>
#include <cmath>
#include <limits>
#include <optional>
#include <sstream>
#include <string>
#include <variant>

#include "autograd/record.h"
#include "runtime/kernels/loss.h"
#include "tensor/autocast.h"
#include "tensor/known_values.h"
#include "tensor/ops_support.h"

namespace ember::nn::functional {

namespace {

ReductionKind kind_of(const LossReduction& reduction) {
  if (std::holds_alternative<enumtype::kNone>(reduction)) return ReductionKind::None;
  if (std::holds_alternative<enumtype::kSum>(reduction)) return ReductionKind::Sum;
  return ReductionKind::Mean;
}

DType stat_dtype(DType input) { return input == DType::Float64 ? DType::Float64 : DType::Float32; }

// How the kernel sees an input and target, and what PyTorch returns and names.
struct ClassView {
  ClassShape shape;
  std::vector<int64_t> loss_sizes;  // the unreduced loss, as PyTorch shapes it
  std::vector<int64_t> recorded;    // the recorded node's unreduced output (viewed to loss_sizes after)
  const char* node = "NllLossBackward0";
};

void check_weight(const Tensor& weight, int64_t classes, bool spatial) {
  if (!weight.defined()) return;
  if (spatial) {
    if (weight.numel() != classes) throw Error("weight tensor should be defined either for all or no classes");
  } else if (weight.dim() != 1 || weight.numel() != classes) {
    throw Error("weight tensor should be defined either for all " + std::to_string(classes) +
                " classes or no classes but got weight tensor of shape: " + to_string(weight.sizes()));
  }
}

// nll_loss_nd's checks and shapes (and nll_loss's and nll_loss2d's below it).
ClassView class_view(const Tensor& input, const Tensor& target, const Tensor& weight, bool smoothing,
                     ReductionKind reduction) {
  const int64_t dim = input.dim();
  if (dim < 1) throw Error("Expected 1 or more dimensions (got " + std::to_string(dim) + ")");
  if (dim != 1 && target.dim() > 0 && input.size(0) != target.size(0)) {
    throw Error("Expected input batch_size (" + std::to_string(input.size(0)) + ") to match target batch_size (" +
                std::to_string(target.size(0)) + ").");
  }
  ClassView v;
  if (dim <= 2) {
    if (target.dim() > 1) throw Error("0D or 1D target tensor expected, multi-target not supported");
    const bool unbatched = dim == 1 && target.dim() == 0;
    if (!unbatched && (dim == 1 || target.dim() == 0 || input.size(0) != target.size(0))) {
      throw Error("size mismatch (got input: " + to_string(input.sizes()) + ", target: " + to_string(target.sizes()) + ")");
    }
    check_weight(weight, input.size(-1), false);
    v.shape = {dim == 1 ? 1 : input.size(0), input.size(-1), 1};
    if (dim == 2) v.loss_sizes = {input.size(0)};
    v.recorded = v.loss_sizes;
  } else if (dim == 4) {
    if (target.dim() != 3) {
      throw Error("only batches of spatial targets supported (3D tensors) but got targets of dimension: " +
                  std::to_string(target.dim()));
    }
    check_weight(weight, input.size(1), true);
    if (input.size(0) != target.size(0) || input.size(2) != target.size(1) || input.size(3) != target.size(2)) {
      throw Error("size mismatch (got input: " + to_string(input.sizes()) + " , target: " + to_string(target.sizes()));
    }
    v.shape = {input.size(0), input.size(1), input.size(2) * input.size(3)};
    v.loss_sizes = {input.size(0), input.size(2), input.size(3)};
    v.recorded = v.loss_sizes;
    v.node = "NllLoss2DBackward0";
  } else {
    // 3-D and 5-D+: PyTorch views them as 4-D for nll_loss2d, and the unreduced loss back.
    std::vector<int64_t> loss_sizes = {input.size(0)};
    int64_t inner = 1;
    for (int64_t d = 2; d < dim; ++d) {
      loss_sizes.push_back(input.size(d));
      inner *= input.size(d);
    }
    std::vector<int64_t> rest(target.sizes().begin() + std::min<int64_t>(target.dim(), 1), target.sizes().end());
    if (!(IntArrayRef(rest) == IntArrayRef(loss_sizes.data() + 1, loss_sizes.size() - 1))) {
      throw Error("Expected target size " + to_string(loss_sizes) + ", got " + to_string(target.sizes()));
    }
    check_weight(weight, input.size(1), true);
    v.shape = {input.size(0), input.size(1), inner};
    v.loss_sizes = loss_sizes;
    v.recorded = smoothing ? loss_sizes : std::vector<int64_t>{input.size(0), 1, inner};
    v.node = "NllLoss2DBackward0";
  }
  if (smoothing) v.node = "AddBackward0";
  if (reduction != ReductionKind::None) v.recorded.clear();
  return v;
}

void check_input_dtype(const Tensor& input, bool log_softmax) {
  if (!input.is_floating_point()) {
    const bool class_dim_last = input.dim() <= 2;
    const std::string kernel = !log_softmax ? "nll_loss_out_frame"
                               : class_dim_last ? "log_softmax_lastdim_kernel_impl"
                                                : "softmax_kernel_impl";
    throw Error("\"" + kernel + "\" not implemented for '" + scalar_type_name(input.dtype()) + "'");
  }
}

void check_target_and_weight_dtypes(const Tensor& input, const Tensor& target, const Tensor& weight) {
  if (target.dtype() != DType::Int64) {
    throw Error("expected scalar type Long but found " + scalar_type_name(target.dtype()));
  }
  if (weight.defined() && weight.dtype() != input.dtype()) {
    throw Error("expected scalar type " + scalar_type_name(input.dtype()) + " but found " +
                scalar_type_name(weight.dtype()));
  }
  ember::detail::check_same_device({&input, &target, &weight});
}

struct Settings {
  ClassShape shape;
  int64_t ignore_index;
  double smoothing;
  bool log_softmax;
  ReductionKind reduction;
};

// The gradient through the kernel.
Tensor backward_kernel(const Tensor& input, const Tensor& target, const Tensor& weight, const Tensor& total,
                       const Tensor& lse, const Tensor& grad, const Settings& s) {
  const Tensor x = input.contiguous();
  const Tensor g = grad.contiguous();
  const Tensor grad_in = ember::detail::empty_on(x.sizes(), x.dtype(), x.device());
  if (x.numel() == 0) return grad_in;
  CrossEntropyBackwardArgs args{.grad_in = grad_in.ref(), .grad_out = g.ref(), .in = x.ref(), .target = target.ref(),
                                .shape = s.shape, .ignore_index = s.ignore_index, .label_smoothing = s.smoothing,
                                .log_softmax = s.log_softmax, .reduction = s.reduction, .total_weight = total.ref()};
  if (weight.defined()) args.weight = weight.ref();
  if (lse.defined()) args.logsumexp = lse.ref();
  ember::detail::kernels_for<LossKernels>(*x.device()).cross_entropy_backward(*ember::detail::stream_for(*x.device()),
                                                                              args);
  return grad_in;
}

// The same gradient from public ops, which record under create_graph (softmax's own gradient gives the
// second order).
Tensor backward_composed(const Tensor& input, const Tensor& target, const Tensor& weight, const Tensor& total,
                         const Tensor& grad, const Settings& s) {
  ember::detail::TrustedIndices trusted;  // the forward checked the targets
  const int64_t n = s.shape.outer, c = s.shape.classes, inner = s.shape.inner;
  const Tensor x = input.reshape({n, c, inner});
  const Tensor t = target.reshape({n, 1, inner});
  const Tensor valid = t.ne(s.ignore_index);
  const Tensor t_safe = t.masked_fill(valid.logical_not(), 0);
  const Tensor one_hot = zeros_like(x).scatter(1, t_safe, 1.0);
  const Tensor valid_f = valid.to(x.dtype());
  const Tensor w_t = weight.defined() ? weight.index_select(0, t_safe.reshape({-1})).reshape({n, 1, inner}) * valid_f
                                      : valid_f;
  Tensor g = s.reduction == ReductionKind::None ? grad.reshape({n, 1, inner}) : grad;
  if (s.reduction == ReductionKind::Mean) g = g / total.to(x.dtype());
  Tensor d;
  if (s.log_softmax) {
    const Tensor prob = x.softmax(1);
    d = w_t * (prob - one_hot) * (1 - s.smoothing);
    if (s.smoothing > 0) {
      const Tensor w_sum = weight.defined() ? weight.sum() : full({}, static_cast<double>(c), TensorOptions(x.dtype()).device(x.device()));
      const Tensor w_c = weight.defined() ? weight.reshape({1, c, 1}) : ones({}, TensorOptions(x.dtype()).device(x.device()));
      d = d + (prob * w_sum - w_c) * valid_f * (s.smoothing / static_cast<double>(c));
    }
  } else {
    d = -(w_t * one_hot);
  }
  return (g * d).reshape(input.sizes());
}

// The target PyTorch names when several are out of range: the first in row-major order that is neither a
// class nor ignore_index.
std::optional<int64_t> first_bad_target(const Tensor& target, int64_t classes, int64_t ignore_index) {
  for (int64_t t : target.to_vector<int64_t>()) {
    if (t != ignore_index && (t < 0 || t >= classes)) return t;
  }
  return std::nullopt;
}

[[noreturn]] void throw_target_out_of_bounds(int64_t target) {
  throw IndexError("Target " + std::to_string(target) + " is out of bounds.");
}

Tensor fused_loss(const Tensor& input, const Tensor& target, const Tensor& weight, int64_t ignore_index,
                  double smoothing, bool log_softmax, ReductionKind reduction) {
  // PyTorch's order: cross_entropy's log_softmax refuses an integer input, then nll_loss checks the shapes,
  // then the dtypes of its input, target and weight.
  if (log_softmax) check_input_dtype(input, true);
  const ClassView view = class_view(input, target, weight, smoothing > 0, reduction);
  if (!log_softmax) check_input_dtype(input, false);
  check_target_and_weight_dtypes(input, target, weight);
  const Settings settings{view.shape, ignore_index, smoothing, log_softmax, reduction};
  const auto& device = input.device();
  const DType stats = stat_dtype(input.dtype());
  const int64_t rows = view.shape.rows();
  if (view.shape.classes == 0 && rows > 0) {
    // No class at all: every target not ignored is out of range.
    if (const auto bad = first_bad_target(target, 0, ignore_index)) throw_target_out_of_bounds(*bad);
  }

  autograd::Record rec(view.node, {&input});
  const Tensor x = input.contiguous();
  const Tensor t = target.contiguous();
  const Tensor w = weight.defined() ? weight.contiguous() : Tensor();
  Tensor out = ember::detail::empty_on(reduction == ReductionKind::None ? view.recorded : std::vector<int64_t>{},
                                       x.dtype(), device);
  // The kernel writes the total weight for Mean and Sum; None's backward does not read it.
  Tensor total = ember::detail::empty_on({}, stats, device);
  const Tensor lse = log_softmax ? ember::detail::empty_on({rows}, stats, device) : Tensor();
  if (rows == 0 || view.shape.classes == 0) {
    // No rows, or only ignored ones: losses of zero, and a mean of no weight.
    if (reduction == ReductionKind::Mean) {
      out.fill_(std::numeric_limits<double>::quiet_NaN());
    } else {
      out.zero_();
    }
    total.zero_();
  } else {
    // PyTorch checks each target before it reads the scores; here the kernel flags a bad one in the
    // status words, which the host reads back (a wait), unless it already knows every target to be a
    // class. Then the kernel never writes them, and they need no clearing either.
    const bool known_classes = ember::detail::known_within(target, 0, view.shape.classes - 1);
    const TensorOptions status_options = TensorOptions(DType::Int32).device(device);
    const Tensor status = known_classes ? empty({3}, status_options) : zeros({3}, status_options);
    CrossEntropyArgs args{.out = out.ref(), .in = x.ref(), .target = t.ref(), .shape = view.shape,
                          .ignore_index = ignore_index, .label_smoothing = smoothing, .log_softmax = log_softmax,
                          .reduction = reduction, .total_weight = total.ref(), .status = status.ref()};
    if (w.defined()) args.weight = w.ref();
    if (lse.defined()) args.logsumexp = lse.ref();
    ember::detail::kernels_for<LossKernels>(*device).cross_entropy(*ember::detail::stream_for(*device), args);
    const std::vector<int32_t> flags = known_classes ? std::vector<int32_t>{0} : status.to_vector<int32_t>();
    if (flags[0] != 0) {
      // The flag holds whichever bad target's thread claimed it first, on a GPU rarely the first row's;
      // the host looks the first up, one more read-back on a path that throws anyway.
      const int64_t flagged = static_cast<int64_t>((static_cast<uint64_t>(static_cast<uint32_t>(flags[2])) << 32) |
                                                   static_cast<uint32_t>(flags[1]));
      throw_target_out_of_bounds(first_bad_target(t, view.shape.classes, ignore_index).value_or(flagged));
    }
  }
  if (rec) {
    rec.save(input);
    rec.save(t);
    rec.save(w);
    rec.save(total);
    rec.save(lse);
    out = rec.finish(out, [settings](autograd::FunctionNode& node, const autograd::tensor_list& grads) {
      const Tensor input = node.saved(0), target = node.saved(1), weight = node.saved(2), total = node.saved(3);
      if (autograd::GradMode::is_enabled()) {
        return autograd::tensor_list{backward_composed(input, target, weight, total, grads[0], settings)};
      }
      return autograd::tensor_list{backward_kernel(input, target, weight, total, node.saved(4), grads[0], settings)};
    });
  }
  if (reduction == ReductionKind::None && view.recorded != view.loss_sizes) return out.view(view.loss_sizes);
  return out;
}

// PyTorch's cross_entropy_loss_prob_target: -Σ target log_softmax(input) w over the class dim.
Tensor probability_targets(const Tensor& input, const Tensor& target, const Tensor& weight, ReductionKind reduction,
                           double smoothing) {
  const int64_t class_dim = input.dim() == 1 ? 0 : 1;
  const int64_t classes = input.size(class_dim);
  if (weight.defined() && (weight.dim() != 1 || weight.numel() != classes)) {
    throw Error("cross_entropy: weight tensor should be defined either for all " + std::to_string(classes) +
                " classes or no classes but got weight tensor of shape: " + to_string(weight.sizes()));
  }
  const Tensor logp = input.log_softmax(class_dim, input.dtype());
  Tensor q = target;
  if (smoothing > 0) q = target * (1 - smoothing) + smoothing / static_cast<double>(classes);
  Tensor terms = logp * q;
  if (weight.defined()) {
    std::vector<int64_t> shape(input.dim(), 1);
    shape[class_dim] = classes;
    terms = terms * (input.dim() > 1 ? weight.view(shape) : weight);
  }
  switch (reduction) {
    case ReductionKind::None: return -terms.sum({class_dim});
    case ReductionKind::Sum: return -terms.sum();
    case ReductionKind::Mean:
      if (input.numel() == 0) return -terms.sum().fill_(std::numeric_limits<double>::quiet_NaN());
      return -terms.sum() / static_cast<double>(input.numel() / classes);
  }
  return Tensor();
}

// PyTorch checks the upper bound only (where label_smoothing > 0).
void check_smoothing(double smoothing) {
  if (smoothing > 1.0) {
    std::ostringstream message;  // a double as PyTorch prints it
    message << "label_smoothing must be between 0.0 and 1.0. Got: " << smoothing;
    throw Error(message.str());
  }
}

}  // namespace

Tensor cross_entropy(const Tensor& input, const Tensor& target, const CrossEntropyFuncOptions& options) {
  if (autocast::is_active()) {
    return autocast::in_float32([&](const Tensor& x, const Tensor& y, const Tensor& w) {
      return cross_entropy(x, y, CrossEntropyFuncOptions(options).weight(w));
    }, input, target, options.weight());
  }
  const ReductionKind reduction = kind_of(options.reduction());
  const double smoothing = options.label_smoothing();
  if (input.sizes() == target.sizes()) {
    // Class probabilities when the target has the input's shape.
    if (!target.is_floating_point()) {
      throw Error("Expected floating point type for target with class probabilities, got " +
                  scalar_type_name(target.dtype()));
    }
    if (options.ignore_index() >= 0) throw Error("ignore_index is not supported for floating point target");
    check_smoothing(smoothing);
    return probability_targets(input, target, options.weight(), reduction, smoothing);
  }
  check_smoothing(smoothing);
  return fused_loss(input, target, options.weight(), options.ignore_index(), std::max(smoothing, 0.0), true,
                    reduction);
}

Tensor nll_loss(const Tensor& input, const Tensor& target, const NLLLossFuncOptions& options) {
  if (autocast::is_active()) {
    return autocast::in_float32([&](const Tensor& x, const Tensor& y, const Tensor& w) {
      return nll_loss(x, y, NLLLossFuncOptions(options).weight(w));
    }, input, target, options.weight());
  }
  return fused_loss(input, target, options.weight(), options.ignore_index(), 0.0, false,
                    kind_of(options.reduction()));
}

}  // namespace ember::nn::functional
