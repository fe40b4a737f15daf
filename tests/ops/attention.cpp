// Rows for scaled_dot_product_attention against PyTorch's math path composed from ATen ops (LibTorch 1.13
// has no scaled_dot_product_attention): the plain, causal and masked forms over the registry's layouts,
// with the gradients of q, k and v. Shapes, dtypes, statistics and errors are in tests/nn/attention_test.cpp.
#include "tests/nn/attention_reference.h"
#include "tests/ops/nn_row.h"

namespace ember::test {
namespace {

namespace F = ember::nn::functional;

// q, k and v of the row's dtype, and a bool mask (L, S) in which every query keeps its first key.
std::vector<at::Tensor> with_mask(DType dtype, const Shapes& shapes, at::Generator& gen) {
  std::vector<at::Tensor> inputs;
  for (size_t i = 0; i < 3; ++i) inputs.push_back(random_torch(shapes[i], dtype, gen, ValueRange{-1, 1}));
  at::Tensor mask = random_torch(shapes[3], DType::Bool, gen);
  mask.select(-1, 0).fill_(true);
  inputs.push_back(mask);
  return inputs;
}

// The node of PyTorch's fused kernels; the math path on LibTorch's side records its parts.
const char* const kNode = "ScaledDotProductFlashAttentionBackward0";

const std::vector<Shapes> kAttentionCases = {{{2, 3, 5, 4}, {2, 3, 7, 4}, {2, 3, 7, 6}},
                                             {{9, 8}, {9, 8}, {9, 3}},
                                             {{1, 2, 1, 5}, {1, 2, 4, 5}, {1, 2, 4, 5}}};

EMBER_OP_ROWS(attention_rows) {
  return {
      EMBER_NN_OP_PAIR("scaled_dot_product_attention", 3, F::scaled_dot_product_attention(x[0], x[1], x[2]),
                       math_attention(x[0], x[1], x[2], {}, false))
          .with_dtypes(kFloating)
          .with_cases(kAttentionCases)
          .in_range(-1, 1)
          .recorded_as(kNode)
          .grad(),
      EMBER_NN_OP_PAIR("scaled_dot_product_attention causal", 3,
                       F::scaled_dot_product_attention(x[0], x[1], x[2], {}, 0.0, true),
                       math_attention(x[0], x[1], x[2], {}, true))
          .with_dtypes(kFloating)
          .with_cases({{{2, 6, 4}, {2, 6, 4}, {2, 6, 3}}, {{3, 5, 8}, {3, 7, 8}, {3, 7, 8}}})
          .in_range(-1, 1)
          .recorded_as(kNode)
          .grad(),
      EMBER_NN_OP_PAIR("scaled_dot_product_attention bool mask", 4,
                       F::scaled_dot_product_attention(x[0], x[1], x[2], x[3]),
                       math_attention(x[0], x[1], x[2], x[3], false))
          .with_dtypes({DType::Float32, DType::Float64})
          .with_cases({{{2, 5, 4}, {2, 6, 4}, {2, 6, 3}, {5, 6}}})
          .with_inputs(with_mask)
          .constant_inputs({3})
          .recorded_as(kNode)
          .grad(),
  };
}

}  // namespace
}  // namespace ember::test
