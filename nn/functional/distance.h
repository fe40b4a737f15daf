#pragma once
// Distances as LibTorch 1.13 has them: cosine_similarity and pairwise_distance (torch::nn::functional)
// and cdist (torch::cdist, here beside them). cosine_similarity and pairwise_distance are PyTorch's
// compositions (their nodes are SumBackward1 and NormBackward1); cdist records PyTorch's CdistBackward0,
// or for p = 2 over more than 25 rows (or compute_mode 1) computes through a matrix product as PyTorch
// does (EuclideanDistBackward0, then ViewBackward0).
// https://pytorch.org/docs/1.13/generated/torch.cdist.html
//
//   Tensor d = F::cdist(queries, keys);                 // [..., R1, R2] of 2-norms
//   Tensor s = F::cosine_similarity(a, b, F::CosineSimilarityFuncOptions().dim(-1));
#include <optional>

#include "nn/options/distance.h"
#include "tensor/tensor.h"

namespace ember::nn::functional {

Tensor cosine_similarity(const Tensor& x1, const Tensor& x2, const CosineSimilarityFuncOptions& options = {});
Tensor pairwise_distance(const Tensor& x1, const Tensor& x2, const PairwiseDistanceFuncOptions& options = {});

// The p-norm distance between each row of x1 [..., R1, M] and each row of x2 [..., R2, M]; the leading
// dims broadcast. compute_mode: 0 (or none) uses the matrix product for p = 2 past 25 rows, 1 always,
// 2 never (PyTorch's "use_mm_for_euclid_dist_if_necessary", "use_mm_for_euclid_dist",
// "donot_use_mm_for_euclid_dist").
Tensor cdist(const Tensor& x1, const Tensor& x2, double p = 2.0, std::optional<int64_t> compute_mode = std::nullopt);

}  // namespace ember::nn::functional
