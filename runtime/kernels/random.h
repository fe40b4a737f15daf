#pragma once
// The random kernel family: counter-based (Philox) draws, so that what an element receives depends on
// (seed, offset, its index) only, not on how a launch is split. The draws come from random_ops.def.
#include <array>
#include <optional>

#include "runtime/kernels/kernels.h"
#include "runtime/kernels/op_list.h"

namespace ember {

enum class RandomOp : uint8_t {
#define EMBER_RANDOM_OP(Enum, name, parameters) Enum,
#include "runtime/kernels/random_ops.def"
#undef EMBER_RANDOM_OP
};
inline constexpr std::string_view kRandomOpNames[] = {
#define EMBER_RANDOM_OP(Enum, name, parameters) #name,
#include "runtime/kernels/random_ops.def"
#undef EMBER_RANDOM_OP
};
inline constexpr size_t kRandomOpCount = std::size(kRandomOpNames);
constexpr std::string_view random_op_name(RandomOp op) { return op_name(op, kRandomOpNames); }

// Where a counter-based generator stands.
struct PhiloxState {
  uint64_t seed = 0;
  uint64_t offset = 0;  // in 128-bit blocks already consumed
};

// Fills out with draws of `op`. Bernoulli, RandInt and Geometric fill integral outs too; the other draws
// need a floating out.
struct RandomArgs {
  RandomOp op = RandomOp::Uniform;
  TensorRef out;
  PhiloxState state;
  Scalar low = 0;             // Uniform, RandInt: draws in [low, high)
  Scalar high = 1;
  double mean = 0;            // Normal, LogNormal (of the underlying normal)
  double std = 1;
  double probability = 0.5;   // Bernoulli (unless `probabilities` is given), Geometric
  double lambda = 1;          // Exponential: the rate
  double median = 0;          // Cauchy
  double sigma = 1;
  std::optional<TensorRef> probabilities;  // Bernoulli: one p per element of out
  // The two parameters the kernels receive, in the order this draw reads them (parameters.cpp).
  std::array<Scalar, 2> parameters() const;
};

// Each row of out (rows × samples, int64) receives draws from the matching row of `cdf` (rows ×
// categories, float, inclusive cumulative weights, unnormalised), with replacement; tensor/ builds
// sampling without replacement from this and masking.
struct MultinomialArgs {
  TensorRef out;
  TensorRef cdf;
  PhiloxState state;
};

class RandomKernels : public KernelFamily {
 public:
  static constexpr std::string_view kName = "random";
  virtual void random(Stream& stream, const RandomArgs& args) = 0;
  virtual void multinomial(Stream& stream, const MultinomialArgs& args) = 0;
};

}  // namespace ember
