#pragma once
// The matmul kernel family: batched matrix products with an optional bias.
#include <optional>

#include "runtime/kernels/kernels.h"

namespace ember {

// What the store applies to each result, fused so that Linear→ReLU is one launch: relu, or gelu exact or
// with tanh (PyTorch's formulas). Floating operands only.
enum class MatmulActivation : uint8_t { None, Relu, Gelu, GeluTanh };

// out = act(alpha * a @ b + beta * bias) over a batch: a is batch×M×K, b is batch×K×N, out is batch×M×N.
// Each carries one batch dim (stride 0 broadcasts); bias (optional) has out's sizes with any strides.
// float16 and bfloat16 accumulate in float32.
//
// a_row_sums (optional, batch×M×1, contiguous, a's dtype): a_row_sums[b, m] = Σ over k of a[b, m, k],
// unscaled. A Linear's weight gradient is grad_outputᵀ @ input, so these are its bias gradient, which a
// kernel can sum as it reads A instead of a reduction launch of its own.
struct MatmulArgs {
  TensorRef out, a, b;
  std::optional<TensorRef> bias;
  double alpha = 1.0;
  double beta = 0.0;
  MatmulActivation activation = MatmulActivation::None;
  std::optional<TensorRef> a_row_sums;
};

class ReduceKernels;
// Writes args.a_row_sums, when asked, with the reduce family: for the kernels that do not sum A's rows as
// they read them.
void matmul_row_sums_by_reduction(ReduceKernels& reduce, Stream& stream, const MatmulArgs& args);

class MatmulKernels : public KernelFamily {
 public:
  static constexpr std::string_view kName = "matmul";
  virtual void matmul(Stream& stream, const MatmulArgs& args) = 0;
};

}  // namespace ember
