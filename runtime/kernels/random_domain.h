#pragma once
// Which random draws need a floating out, and which compute in double. Each backend's launcher decides
// both with these.
#include "runtime/kernels/random.h"

namespace ember {

// The continuous draws. Bernoulli, RandInt, Randperm and Geometric fill integral outs too; the
// launchers refuse the rest before they launch.
constexpr bool draws_floats_only(RandomOp op) {
  return op == RandomOp::Uniform || op == RandomOp::Normal || op == RandomOp::Exponential ||
         op == RandomOp::LogNormal || op == RandomOp::Cauchy;
}

// Draws compute in double into a float64 out or from float64 probabilities, and a geometric count into
// int64 does too: its counts pass float's 2^24, and PyTorch computes them in double. The rest compute
// in float. `probabilities` is out's dtype when there is no probability tensor.
constexpr bool draws_in_double(RandomOp op, DType out, DType probabilities) {
  return out == DType::Float64 || probabilities == DType::Float64 ||
         (op == RandomOp::Geometric && out == DType::Int64);
}

}  // namespace ember
