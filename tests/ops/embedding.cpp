// Rows of nn::functional::embedding and embedding_bag against LibTorch's torch::nn::functional.
#include "tests/ops/nn_row.h"

namespace ember::test {
namespace {

// A table (rows x dim) and int64 indices of the second shape into it (the table's first dim).
// With offsets: sorted bag starts, the first 0, empty bags allowed; with a last offset, it is the number
// of indices (what include_last_offset requires: LibTorch reads out of bounds otherwise).
InputMaker table_and_indices(bool with_offsets = false, bool last_offset = false) {
  return [with_offsets, last_offset](DType dtype, const Shapes& shapes, at::Generator& gen) {
    const int64_t rows = shapes[0][0];
    std::vector<at::Tensor> inputs{random_torch(shapes[0], dtype, gen),
                                   at::randint(0, rows, shapes[1], gen, at::TensorOptions().dtype(at::kLong))};
    if (with_offsets) {
      const int64_t n = shapes[1][0];
      at::Tensor offsets = std::get<0>(at::randint(0, n + 1, shapes[2], gen, at::TensorOptions().dtype(at::kLong)).sort());
      offsets[0] = 0;
      if (last_offset) offsets[-1] = n;
      inputs.push_back(offsets);
    }
    return inputs;
  };
}

}  // namespace

EMBER_OP_ROWS(embedding_rows) {
  return {
      EMBER_NN_OP("embedding", 2, F::embedding(x[1], x[0]))
          .with_dtypes(kFloating)
          .with_cases({{{10, 3}, {2, 4}}, {{7, 5}, {9}}, {{4, 2}, {}}, {{5, 3}, {0}}})
          .with_inputs(table_and_indices())
          .grad2(),
      EMBER_NN_OP("embedding padding_idx", 2, F::embedding(x[1], x[0], F::EmbeddingFuncOptions().padding_idx(-2)))
          .with_cases({{{6, 3}, {4, 5}}})
          .with_inputs(table_and_indices())
          .grad(),
      EMBER_NN_OP("embedding scale_grad_by_freq", 2,
                  F::embedding(x[1], x[0], F::EmbeddingFuncOptions().scale_grad_by_freq(true).padding_idx(1)))
          .with_cases({{{4, 3}, {6, 5}}})
          .with_inputs(table_and_indices())
          .grad(),
      EMBER_NN_OP("embedding_bag 2d mean", 2, F::embedding_bag(x[1], x[0]))
          .with_cases({{{10, 3}, {4, 5}}, {{6, 2}, {1, 7}}})
          .with_inputs(table_and_indices())
          .grad(),
      EMBER_NN_OP("embedding_bag offsets sum", 3,
                  F::embedding_bag(x[1], x[0], F::EmbeddingBagFuncOptions().offsets(x[2]).mode(kSum)))
          .with_cases({{{10, 3}, {12}, {4}}, {{5, 4}, {6}, {6}}})
          .with_inputs(table_and_indices(true))
          .grad(),
      EMBER_NN_OP("embedding_bag offsets max", 3,
                  F::embedding_bag(x[1], x[0], F::EmbeddingBagFuncOptions().offsets(x[2]).mode(kMax)))
          .with_cases({{{10, 3}, {12}, {4}}})
          .with_inputs(table_and_indices(true))
          .grad(),
      EMBER_NN_OP("embedding_bag padding_idx", 3,
                  F::embedding_bag(x[1], x[0],
                                   F::EmbeddingBagFuncOptions().offsets(x[2]).padding_idx(2).include_last_offset(true)))
          .with_cases({{{5, 3}, {9}, {4}}})
          .with_inputs(table_and_indices(true, true))
          .without_broadcast_layout()  // a broadcast last offset would not be the number of indices
          .grad(),
  };
}

}  // namespace ember::test
