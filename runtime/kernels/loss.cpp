// The checks of the loss kernels' arguments that every backend makes before it launches.
#include "runtime/kernels/loss.h"

#include <string>

#include "runtime/error.h"

namespace ember {

namespace {

void require(bool condition, const char* op, const std::string& what) {
  if (!condition) throw Error(std::string(op) + ": " + what);
}

bool contiguous_with(const TensorRef& ref, int64_t numel) {
  return ref.numel() == numel && (numel == 0 || ref.is_contiguous());
}

DType stat_dtype(DType in) { return in == DType::Float64 ? DType::Float64 : DType::Float32; }

// What the forward and the backward share.
void check_common(const TensorRef& in, const TensorRef& target, const std::optional<TensorRef>& weight,
                  const ClassShape& shape, const TensorRef& total_weight, const char* op) {
  require(shape.outer >= 0 && shape.classes >= 0 && shape.inner >= 0, op, "negative sizes");
  require(is_floating_point(in.dtype), op, "the scores must be floating");
  require(contiguous_with(in, shape.rows() * shape.classes), op, "the scores must be contiguous [outer, classes, inner]");
  require(target.dtype == DType::Int64 && contiguous_with(target, shape.rows()), op,
          "the target must be " + std::to_string(shape.rows()) + " contiguous int64 class indices");
  if (weight) {
    require(is_floating_point(weight->dtype) && contiguous_with(*weight, shape.classes), op,
            "the weight must hold one floating value per class");
    require(weight->dtype != DType::Float64 || in.dtype == DType::Float64, op,
            "a float64 weight needs float64 scores");
  }
  require(total_weight.dtype == stat_dtype(in.dtype) && total_weight.numel() == 1, op,
          "total_weight must be one " + std::string(dtype_name(stat_dtype(in.dtype))) + " element");
}

}  // namespace

void CrossEntropyArgs::check() const {
  const char* op = "cross_entropy";
  check_common(in, target, weight, shape, total_weight, op);
  require(out.dtype == in.dtype, op, "out must have the scores' dtype");
  require(contiguous_with(out, reduction == ReductionKind::None ? shape.rows() : 1), op,
          "out must hold one loss per row (reduction none) or one");
  if (logsumexp) {
    require(logsumexp->dtype == total_weight.dtype && contiguous_with(*logsumexp, shape.rows()), op,
            "logsumexp must hold one value per row in total_weight's dtype");
  }
  require(status.dtype == DType::Int32 && contiguous_with(status, 3), op, "status must be three int32 words");
}

void CrossEntropyBackwardArgs::check() const {
  const char* op = "cross_entropy_backward";
  check_common(in, target, weight, shape, total_weight, op);
  require(grad_in.dtype == in.dtype && contiguous_with(grad_in, shape.rows() * shape.classes), op,
          "grad_in must be like the scores");
  require(grad_out.dtype == in.dtype && contiguous_with(grad_out, reduction == ReductionKind::None ? shape.rows() : 1),
          op, "grad_out must be like the forward's out");
  require(!log_softmax || (logsumexp && logsumexp->dtype == total_weight.dtype &&
                           contiguous_with(*logsumexp, shape.rows())),
          op, "the backward of log_softmax needs the forward's logsumexp");
}

void CtcRecursionArgs::check() const {
  const char* op = "ctc_recursion";
  require(batch >= 0 && positions >= 0 && first_frame >= 0 && end_frame >= first_frame, op,
          "negative sizes, or frames that end before they start");
  require(direction == CtcDirection::Backward || first_frame >= 1, op, "the forward recursion starts at frame 1");
  require(table.dtype == DType::Float32 || table.dtype == DType::Float64, op, "the table must be float32 or float64");
  require(emissions.dtype == table.dtype && moves.dtype == table.dtype, op,
          "the emissions and moves must have the table's dtype");
  const int64_t rows = end_frame + (direction == CtcDirection::Backward ? 1 : 0);
  require(table.ndim == 3 && table.sizes[0] >= rows && table.sizes[1] == batch && table.sizes[2] == positions + 2 &&
              contiguous_with(table, table.numel()),
          op, "the table must be contiguous [at least " + std::to_string(rows) + ", " + std::to_string(batch) + ", " +
                  std::to_string(positions + 2) + "]");
  require(emissions.ndim == 3 && emissions.sizes[0] >= end_frame && emissions.sizes[1] == batch &&
              emissions.sizes[2] == positions && contiguous_with(emissions, emissions.numel()),
          op, "the emissions must be contiguous [at least " + std::to_string(end_frame) + ", " + std::to_string(batch) +
                  ", " + std::to_string(positions) + "]");
  require(moves.ndim == 3 && moves.sizes[0] == batch && moves.sizes[1] == positions && moves.sizes[2] == 3 &&
              contiguous_with(moves, moves.numel()),
          op, "the moves must be contiguous [" + std::to_string(batch) + ", " + std::to_string(positions) + ", 3]");
}

void CtcGradientArgs::check() const {
  const char* op = "ctc_gradient";
  require(grad.dtype == DType::Float32 || grad.dtype == DType::Float64, op, "the gradient must be float32 or float64");
  require(log_probs.dtype == grad.dtype && alpha.dtype == grad.dtype && beta.dtype == grad.dtype &&
              nll.dtype == grad.dtype,
          op, "log_probs, alpha, beta and nll must have the gradient's dtype");
  require(labels.dtype == DType::Int32 && input_lengths.dtype == DType::Int32, op,
          "the labels and input lengths must be int32");
  require(grad.ndim == 3, op, "the gradient must be [T, N, C]");
  const int64_t frames = grad.sizes[0], batch = grad.sizes[1], classes = grad.sizes[2];
  require(labels.ndim == 2 && labels.sizes[0] == batch && contiguous_with(labels, labels.numel()), op,
          "the labels must be contiguous [N, P]");
  const int64_t positions = labels.sizes[1];
  const auto is = [&](const TensorRef& ref, int64_t rows) {
    return ref.ndim == 3 && ref.sizes[0] >= rows && ref.sizes[1] == batch && contiguous_with(ref, ref.numel());
  };
  require(is(grad, frames) && is(log_probs, frames) && log_probs.sizes[0] == frames && log_probs.sizes[2] == classes,
          op, "the gradient and log_probs must be contiguous [T, N, C]");
  require(is(alpha, frames) && alpha.sizes[0] == frames && alpha.sizes[2] == positions + 2 && is(beta, frames) &&
              beta.sizes[2] == positions + 2,
          op, "alpha and beta must be contiguous [T, N, P + 2] (beta: at least T rows)");
  require(contiguous_with(nll, batch) && contiguous_with(input_lengths, batch), op,
          "nll and the input lengths must hold one value per sequence");
}

}  // namespace ember
