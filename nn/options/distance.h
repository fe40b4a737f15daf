#pragma once
// Options of CosineSimilarity and PairwiseDistance and their functionals, with LibTorch 1.13's names,
// fields and defaults: `F::cosine_similarity(a, b, F::CosineSimilarityFuncOptions().dim(0))`.
#include <cstdint>

#include "nn/arg.h"

namespace ember::nn {

// CosineSimilarity: https://pytorch.org/docs/1.13/generated/torch.nn.CosineSimilarity.html
struct CosineSimilarityOptions {
  EMBER_ARG(int64_t, dim) = 1;
  EMBER_ARG(double, eps) = 1e-8;
};

// PairwiseDistance: https://pytorch.org/docs/1.13/generated/torch.nn.PairwiseDistance.html
struct PairwiseDistanceOptions {
  EMBER_ARG(double, p) = 2.0;
  EMBER_ARG(double, eps) = 1e-6;
  EMBER_ARG(bool, keepdim) = false;
};

namespace functional {
using CosineSimilarityFuncOptions = CosineSimilarityOptions;
using PairwiseDistanceFuncOptions = PairwiseDistanceOptions;
}  // namespace functional

}  // namespace ember::nn
