#pragma once
// Which random draws need a floating out: the continuous ones. Bernoulli, RandInt, Randperm and
// Geometric fill integral outs too. Each backend's launcher refuses the rest before it launches.
#include "runtime/kernels/random.h"

namespace ember {

constexpr bool draws_floats_only(RandomOp op) {
  return op == RandomOp::Uniform || op == RandomOp::Normal || op == RandomOp::Exponential ||
         op == RandomOp::LogNormal || op == RandomOp::Cauchy;
}

}  // namespace ember
