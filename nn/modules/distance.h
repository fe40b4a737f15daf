#pragma once
// Distance modules (https://pytorch.org/docs/1.13/nn.html#distance-functions) over F::cosine_similarity
// and F::pairwise_distance.
#include "nn/cloneable.h"
#include "nn/module_holder.h"
#include "nn/options/distance.h"

namespace ember::nn {

// x1·x2 / max(‖x1‖ ‖x2‖, eps) along dim (https://pytorch.org/docs/1.13/generated/torch.nn.CosineSimilarity.html).
//   nn::CosineSimilarity cos;  cos(a, b)  // (N, D), (N, D) -> (N)
class CosineSimilarityImpl : public Cloneable<CosineSimilarityImpl> {
 public:
  explicit CosineSimilarityImpl(const CosineSimilarityOptions& options = {}) : options(options) {}
  void reset() override {}
  Tensor forward(const Tensor& x1, const Tensor& x2);

  CosineSimilarityOptions options;
};
EMBER_MODULE(CosineSimilarity);

// ‖x1 - x2 + eps‖_p along the last dim (https://pytorch.org/docs/1.13/generated/torch.nn.PairwiseDistance.html).
//   nn::PairwiseDistance dist;  dist(a, b)  // (N, D), (N, D) -> (N)
class PairwiseDistanceImpl : public Cloneable<PairwiseDistanceImpl> {
 public:
  explicit PairwiseDistanceImpl(const PairwiseDistanceOptions& options = {}) : options(options) {}
  void reset() override {}
  Tensor forward(const Tensor& x1, const Tensor& x2);

  PairwiseDistanceOptions options;
};
EMBER_MODULE(PairwiseDistance);

}  // namespace ember::nn
