#include "nn/modules/distance.h"

#include "nn/functional/distance.h"

namespace ember::nn {

Tensor CosineSimilarityImpl::forward(const Tensor& x1, const Tensor& x2) {
  return functional::cosine_similarity(x1, x2, options);
}

Tensor PairwiseDistanceImpl::forward(const Tensor& x1, const Tensor& x2) {
  return functional::pairwise_distance(x1, x2, options);
}

}  // namespace ember::nn
