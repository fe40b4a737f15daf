// Rows for gather, scatter, index_* ops, masks, triangles and one_hot. Their inputs are made per case:
// indices in range (and without repeats where a repeated write would be unordered).
#include "tests/op_registry.h"

namespace ember::test {
namespace {

// Index values in [0, bound) of `shape`.
at::Tensor indices(at::IntArrayRef shape, int64_t bound, at::Generator& gen) {
  return at::randint(0, std::max<int64_t>(bound, 1), shape, gen, at::kLong);
}

// Along dim 1 of each row, `count` distinct positions of [0, bound): writes to them never collide.
at::Tensor distinct_indices(int64_t rows, int64_t bound, int64_t count, at::Generator& gen) {
  return at::rand({rows, bound}, gen).argsort(1, false).narrow(1, 0, count).contiguous();
}

// self (shapes[0]) and an index for dim `dim` of shapes[1]'s shape into it.
InputMaker self_and_index(int64_t dim) {
  return [dim](DType dtype, const Shapes& shapes, at::Generator& gen) {
    const at::Tensor self = random_torch(shapes[0], dtype, gen);
    return std::vector<at::Tensor>{self, indices(shapes[1], self.size(dim), gen)};
  };
}

// self {rows, bound}, distinct indices {rows, count} along dim 1, and src of the index's shape.
std::vector<at::Tensor> scatter_inputs(DType dtype, const Shapes& shapes, at::Generator& gen) {
  const at::Tensor self = random_torch(shapes[0], dtype, gen);
  const at::Tensor index = distinct_indices(shapes[1][0], shapes[0][1], shapes[1][1], gen);
  return {self, index, random_torch(shapes[1], dtype, gen)};
}

// self {n, ...}, an index of `count` into dim 0 (distinct when `distinct`), and a source {count, ...}.
InputMaker index_dim0_inputs(bool distinct) {
  return [distinct](DType dtype, const Shapes& shapes, at::Generator& gen) {
    const at::Tensor self = random_torch(shapes[0], dtype, gen);
    const int64_t count = shapes[1][0];
    const at::Tensor index = distinct ? at::randperm(self.size(0), gen, at::kLong).narrow(0, 0, count)
                                      : indices({count}, self.size(0), gen);
    return std::vector<at::Tensor>{self, index, random_torch(shapes[1], dtype, gen)};
  };
}

Tensor index_put_accumulate(Tensor self, const Tensor& index, const Tensor& values) {
  return self.index_put_({index}, values, true);
}
at::Tensor index_put_accumulate(at::Tensor self, const at::Tensor& index, const at::Tensor& values) {
  c10::List<c10::optional<at::Tensor>> indices;
  indices.push_back(index);
  return self.index_put_(indices, values, true);
}

std::vector<at::Tensor> self_and_mask(DType dtype, const Shapes& shapes, at::Generator& gen) {
  return {random_torch(shapes[0], dtype, gen), random_torch(shapes[1], DType::Bool, gen)};
}

const std::vector<DType> kIndexed = {DType::Float32, DType::Float16, DType::Float64, DType::Int32,
                                     DType::Int64,   DType::UInt8,   DType::Bool};

EMBER_OP_ROWS(gather_rows) {
  return {
      op("gather", 2, [](const auto& x) { return x[0].gather(1, x[1]); })
          .with_dtypes(kIndexed)
          .with_cases({{{5, 7}, {5, 3}}, {{4, 6}, {2, 9}}, {{3, 0}, {3, 0}}, {{33, 17}, {33, 17}}})
          .with_inputs(self_and_index(1))
          .grad2(),
      op("gather dim 0", 2, [](const auto& x) { return x[0].gather(0, x[1]); })
          .with_dtypes(kIndexed)
          .with_cases({{{5, 7}, {3, 7}}, {{6}, {10}}, {{2, 3, 4}, {5, 3, 4}}})
          .with_inputs(self_and_index(0))
          .grad(),
      op("index_select", 2, [](const auto& x) { return x[0].index_select(0, x[1]); })
          .with_dtypes(kIndexed)
          .with_cases({{{6, 4}, {5}}, {{6}, {9}}, {{3, 5, 2}, {0}}, {{33, 17}, {40}}})
          .with_inputs(self_and_index(0))
          .grad2(),
      op("take", 2, [](const auto& x) { return x[0].take(x[1]); })
          .with_dtypes(kIndexed)
          .with_cases({{{5, 7}, {3, 4}}, {{6}, {6}}})
          .with_inputs([](DType dtype, const Shapes& shapes, at::Generator& gen) {
            const at::Tensor self = random_torch(shapes[0], dtype, gen);
            return std::vector<at::Tensor>{self, indices(shapes[1], self.numel(), gen)};
          })
          .grad(),
      op("index with a tensor", 2, [](const auto& x) { return x[0].index({x[1]}); })
          .with_dtypes(kIndexed)
          .with_cases({{{6, 4}, {3, 2}}, {{7}, {7}}})
          .with_inputs(self_and_index(0))
          .grad(),
  };
}

EMBER_OP_ROWS(scatter_rows) {
  const std::vector<Shapes> cases = {{{5, 7}, {5, 3}}, {{4, 6}, {4, 6}}, {{3, 4}, {3, 0}}, {{17, 33}, {17, 20}}};
  return {
      op("scatter", 3, [](const auto& x) { return x[0].scatter(1, x[1], x[2]); })
          .with_dtypes(kIndexed)
          .with_cases(cases)
          .with_inputs(scatter_inputs)
          .grad(),
      op("scatter value", 2, [](const auto& x) { return x[0].scatter(1, x[1], 2.5); })
          .with_dtypes(kFloating)
          .with_cases(cases)
          .with_inputs(scatter_inputs)
          .grad(),
      op("scatter_ in place", 3, [](const auto& x) { return x[0].clone().scatter_(1, x[1], x[2]); })
          .with_dtypes(kIndexed)
          .with_cases(cases)
          .with_inputs(scatter_inputs),
      op("scatter_add", 3, [](const auto& x) { return x[0].scatter_add(1, x[1].remainder(2), x[2]); })
          .with_dtypes({DType::Float32, DType::Float64, DType::Int32, DType::Int64})
          .with_cases(cases)
          .with_inputs(scatter_inputs)
          .grad(),
      op("index_add", 3, [](const auto& x) { return x[0].index_add(0, x[1], x[2], 2); })
          .with_dtypes({DType::Float32, DType::Float64, DType::Int32, DType::Int64})
          .with_cases({{{6, 4}, {9, 4}}, {{5}, {3}}, {{4, 3}, {0, 3}}})
          .with_inputs(index_dim0_inputs(false))
          .grad(),
      op("index_copy", 3, [](const auto& x) { return x[0].index_copy(0, x[1], x[2]); })
          .with_dtypes(kIndexed)
          .with_cases({{{6, 4}, {3, 4}}, {{5}, {5}}})
          .with_inputs(index_dim0_inputs(true))
          .without_broadcast_layout()
          .grad(),
      op("index_fill", 2, [](const auto& x) { return x[0].index_fill(0, x[1], -1); })
          .with_dtypes(kIndexed)
          .with_cases({{{6, 4}, {3}}, {{5}, {2}}})
          .with_inputs(self_and_index(0))
          .grad(),
      op("put", 3, [](const auto& x) { return x[0].put(x[1], x[2], true); })
          .with_dtypes({DType::Float32, DType::Float64, DType::Int64})
          .with_cases({{{5, 7}, {6}}, {{4}, {4}}})
          .with_inputs(index_dim0_inputs(false))
          .grad(),
      op("index_put accumulate", 3, [](const auto& x) { return index_put_accumulate(x[0].clone(), x[1], x[2]); })
          .with_dtypes({DType::Float32, DType::Float64, DType::Int64})
          .with_cases({{{6, 4}, {9, 4}}, {{5}, {8}}})
          .with_inputs(index_dim0_inputs(false)),
  };
}

EMBER_OP_ROWS(scatter_reduce_rows) {
  const std::vector<Shapes> cases = {{{5, 7}, {5, 3}}, {{4, 6}, {4, 6}}, {{3, 4}, {3, 0}}, {{17, 33}, {17, 20}}};
  // Repeated indices (remainder 3): the reductions combine several sources per position.
  const auto reducing = [&](std::string name, auto f) {
    return op(std::move(name), 3, f).with_cases(cases).with_inputs(scatter_inputs);
  };
  const std::vector<DType> numeric = {DType::Float32, DType::Float16, DType::Float64, DType::Int32, DType::Int64};
  std::vector<OpRow> rows;
  for (const char* reduce : {"sum", "prod", "mean", "amax", "amin"}) {
    for (bool include_self : {true, false}) {
      rows.push_back(reducing(std::string("scatter_reduce ") + reduce + (include_self ? "" : " excluding self"),
                              [reduce, include_self](const auto& x) {
                                return x[0].scatter_reduce(1, x[1].remainder(3), x[2], reduce, include_self);
                              })
                         .with_dtypes(numeric)
                         .grad());
    }
  }
  // index_reduce over dim 0 with repeated indices, sources whose slices broadcast included.
  for (const char* reduce : {"prod", "mean", "amax", "amin"}) {
    for (bool include_self : {true, false}) {
      rows.push_back(op(std::string("index_reduce ") + reduce + (include_self ? "" : " excluding self"), 3,
                        [reduce, include_self](const auto& x) {
                          return x[0].index_reduce(0, x[1], x[2], reduce, include_self);
                        })
                         .with_dtypes(numeric)
                         .with_cases({{{6, 4}, {9, 4}}, {{5}, {3}}, {{6, 4}, {9, 1}}, {{4, 3}, {0, 3}}})
                         .with_inputs(index_dim0_inputs(false))
                         .grad());
    }
  }
  rows.push_back(op("index_reduce_ amax", 3,
                    [](const auto& x) { return x[0].clone().index_reduce_(0, x[1], x[2], "amax", false); })
                     .with_dtypes(numeric)
                     .with_cases({{{6, 4}, {9, 4}}})
                     .with_inputs(index_dim0_inputs(false))
                     .grad());
  rows.push_back(reducing("scatter_ reduce multiply",
                          [](const auto& x) { return x[0].clone().scatter_(1, x[1].remainder(3), x[2], "multiply"); })
                     .with_dtypes(numeric));
  rows.push_back(reducing("scatter reduce add", [](const auto& x) { return x[0].scatter(1, x[1], x[2], "add"); })
                     .with_dtypes(numeric));
  return rows;
}

EMBER_OP_ROWS(mask_rows) {
  const std::vector<Shapes> cases = {{{5, 7}, {5, 7}}, {{3, 4}, {4}}, {{}, {}}, {{0, 3}, {3}}, {{33, 17}, {33, 17}}};
  return {
      op("masked_select", 2, [](const auto& x) { return x[0].masked_select(x[1]); })
          .with_dtypes(kIndexed)
          .with_cases(cases)
          .with_inputs(self_and_mask)
          .grad(),
      op("nonzero", [](const auto& x) { return x[0].nonzero(); }).with_dtypes(kAllTypes).in_range(-1, 2),
      op("nonzero_numpy last dim", [](const auto& x) { return x[0].nonzero_numpy().back(); })
          .with_dtypes(kAllTypes)
          .in_range(-1, 2)
          .with_cases({{{5, 7}}, {{2, 3, 4}}, {{6}}, {{0, 3}}}),
      op("masked_scatter", 3, [](const auto& x) { return x[0].masked_scatter(x[1], x[2]); })
          .with_dtypes(kIndexed)
          .with_cases({{{5, 7}, {5, 7}, {40}}, {{3, 4}, {4}, {3, 5}}, {{}, {}, {1}}, {{0, 3}, {3}, {0}}})
          .with_inputs([](DType dtype, const Shapes& shapes, at::Generator& gen) {
            return std::vector<at::Tensor>{random_torch(shapes[0], dtype, gen),
                                           random_torch(shapes[1], DType::Bool, gen),
                                           random_torch(shapes[2], dtype, gen)};
          })
          .grad(),
      op("argwhere", [](const auto& x) { return x[0].argwhere(); }).with_dtypes(kAllTypes).in_range(-1, 2),
  };
}

EMBER_OP_ROWS(triangle_rows) {
  return {
      op("tril", [](const auto& x) { return x[0].tril(); })
          .with_dtypes(kAllTypes)
          .with_cases({{{5, 7}}, {{2, 3, 4}}, {{0, 3}}, {{33, 17}}})
          .grad(),
      op("triu diagonal 2", [](const auto& x) { return x[0].triu(2); })
          .with_dtypes(kAllTypes)
          .with_cases({{{5, 7}}, {{2, 3, 4}}, {{7, 3}}})
          .grad(),
      op("fill_diagonal_", [](const auto& x) { return x[0].clone().fill_diagonal_(-1); })
          .with_dtypes(kAllTypes)
          .with_cases({{{5, 7}}, {{7, 3}}, {{4, 4, 4}}}),
      op("fill_diagonal_ wrap", [](const auto& x) { return (x[0] * 1).fill_diagonal_(2, true); })
          .with_cases({{{9, 3}}, {{2, 2}}})
          .grad(),
      op("tril_ negative diagonal", [](const auto& x) { return x[0].clone().tril_(-1); })
          .with_dtypes(kNumeric)
          .with_cases({{{5, 7}}, {{4, 4}}}),
  };
}

EMBER_OP_ROWS(one_hot_rows) {
  return {
      op("one_hot", [](const auto& x) { return one_hot(x[0], 6); })
          .with_dtypes({DType::Int64})
          .in_range(0, 6),
  };
}

}  // namespace
}  // namespace ember::test
