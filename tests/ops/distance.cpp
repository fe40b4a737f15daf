// Rows for cosine_similarity, pairwise_distance, cdist (each norm, both of PyTorch's p = 2 paths, batch
// broadcasting) and normalize. ember calls nn::functional with LibTorch's options; LibTorch's side calls
// the ATen ops its functionals forward to.
#include <limits>

#include "nn/functional/distance.h"
#include "nn/functional/normalize.h"
#include "tests/ops/nn_row.h"

namespace ember::test {
namespace {

namespace F = ember::nn::functional;

constexpr double kInf = std::numeric_limits<double>::infinity();

const std::vector<Shapes> kPairs = {{{4, 5}, {4, 5}}, {{4, 5}, {1, 5}}, {{2, 3, 4}, {3, 4}}, {{0, 3}, {0, 3}}, {{4, 5}, {3, 5}}};
const std::vector<Shapes> kCdist = {{{3, 5}, {4, 5}}, {{2, 3, 4}, {1, 5, 4}}, {{0, 3}, {2, 3}}, {{3, 0}, {2, 0}}, {{1, 1}, {1, 1}},
                                    {{3, 5}, {4, 6}}};

EMBER_OP_ROWS(distance_rows) {
  return {
      EMBER_NN_OP_PAIR("cosine_similarity", 2, F::cosine_similarity(x[0], x[1]), at::cosine_similarity(x[0], x[1]))
          .with_dtypes(kFloating)
          .with_cases(kPairs)
          .grad2(),
      EMBER_NN_OP_PAIR("cosine_similarity last dim", 2,
                   F::cosine_similarity(x[0], x[1], F::CosineSimilarityFuncOptions().dim(-1).eps(1e-3)),
                   at::cosine_similarity(x[0], x[1], -1, 1e-3))
          .with_dtypes({DType::Float32, DType::Float64})
          .with_mixed({{DType::Float32, DType::Int64}, {DType::Int32, DType::Float64}})
          .with_cases({{{4, 5}, {4, 5}}, {{5}, {5}}, {{2, 3, 4}, {3, 1}}})
          .grad(),
      EMBER_NN_OP_PAIR("pairwise_distance", 2, F::pairwise_distance(x[0], x[1]), at::pairwise_distance(x[0], x[1]))
          .with_dtypes(kFloating)
          .with_cases(kPairs)
          .grad2(),
      EMBER_NN_OP_PAIR("pairwise_distance p1 keepdim", 2,
                   F::pairwise_distance(x[0], x[1], F::PairwiseDistanceFuncOptions().p(1).keepdim(true)),
                   at::pairwise_distance(x[0], x[1], 1, 1e-6, true))
          .with_dtypes({DType::Float32, DType::Float64})
          .with_cases({{{4, 5}, {4, 5}}, {{5}, {5}}, {{}, {}}})
          .grad(),
      EMBER_NN_OP_PAIR("pairwise_distance pinf", 2,
                   F::pairwise_distance(x[0], x[1], F::PairwiseDistanceFuncOptions().p(kInf)),
                   at::pairwise_distance(x[0], x[1], kInf))
          .with_dtypes({DType::Float32, DType::Float64})
          .with_cases({{{4, 5}, {4, 5}}, {{2, 3, 4}, {3, 4}}})
          .grad(),
      EMBER_NN_OP_PAIR("cdist", 2, F::cdist(x[0], x[1]), at::cdist(x[0], x[1]))
          .with_dtypes(kFloating)
          .with_cases(kCdist)
          .grad(),
      EMBER_NN_OP_PAIR("cdist through mm", 2, F::cdist(x[0], x[1]), at::cdist(x[0], x[1]))
          .with_dtypes({DType::Float32, DType::Float64})
          .with_cases({{{30, 4}, {5, 4}}, {{2, 3, 4}, {2, 27, 4}}})
          .within(1e-4, 1e-4)
          .grad2(),
      EMBER_NN_OP_PAIR("cdist mode mm", 2, F::cdist(x[0], x[1], 2, 1), at::cdist(x[0], x[1], 2, 1))
          .with_dtypes({DType::Float32, DType::Float64})
          .with_cases({{{3, 4}, {5, 4}}})
          .within(1e-4, 1e-4)
          .grad(),
      EMBER_NN_OP_PAIR("cdist p1", 2, F::cdist(x[0], x[1], 1), at::cdist(x[0], x[1], 1))
          .with_dtypes({DType::Float32, DType::Float64})
          .with_cases(kCdist)
          .grad(),
      EMBER_NN_OP_PAIR("cdist p0", 2, F::cdist(x[0], x[1], 0), at::cdist(x[0], x[1], 0))
          .with_dtypes({DType::Float32, DType::Float64})
          .with_cases(kCdist)
          .grad(),
      EMBER_NN_OP_PAIR("cdist pinf", 2, F::cdist(x[0], x[1], kInf), at::cdist(x[0], x[1], kInf))
          .with_dtypes({DType::Float32, DType::Float64})
          .with_cases(kCdist)
          .grad(),
      EMBER_NN_OP_PAIR("cdist p3", 2, F::cdist(x[0], x[1], 3, 2), at::cdist(x[0], x[1], 3, 2))
          .with_dtypes({DType::Float32, DType::Float64})
          .with_cases(kCdist)
          .grad(),
      EMBER_NN_OP_PAIR("cdist p1.5", 2, F::cdist(x[0], x[1], 1.5), at::cdist(x[0], x[1], 1.5))
          .with_dtypes({DType::Float32, DType::Float64})
          .with_cases({{{3, 5}, {4, 5}}})
          .grad(),
      EMBER_NN_OP_PAIR("normalize", 1, F::normalize(x[0]), at::div(x[0], x[0].norm(2, {1}, true).clamp_min(1e-12).expand_as(x[0])))
          .with_dtypes(kFloating)
          .with_cases({{{4, 5}}, {{2, 3, 4}}, {{0, 3}}, {{5}}})
          .grad2(),
      EMBER_NN_OP_PAIR("normalize p1 last dim", 1, F::normalize(x[0], F::NormalizeFuncOptions().p(1).dim(-1)),
                   at::div(x[0], x[0].norm(1, {-1}, true).clamp_min(1e-12).expand_as(x[0])))
          .with_dtypes({DType::Float32, DType::Float64})
          .with_cases({{{4, 5}}, {{2, 3, 4}}, {{5}}})
          .grad(),
  };
}

}  // namespace
}  // namespace ember::test
