#pragma once
// Options of the losses (LibTorch's names and defaults; each <Name>FuncOptions is the same struct).
// CrossEntropyLoss and NLLLoss have theirs in nn/options/cross_entropy.h.
#include <variant>

#include "nn/arg.h"
#include "nn/enums.h"
#include "tensor/tensor_api.h"

namespace ember::nn {

// A reduction converts to the options directly (`nn::MSELoss(ember::kSum)`), as in LibTorch.
#define EMBER_REDUCTION_CONSTRUCTORS(Name, Reduction)                \
  Name() = default;                                                  \
  template <class Tag>                                               \
    requires std::is_constructible_v<Reduction, Tag>                 \
  Name(Tag reduction) : reduction_(reduction) {}

#define EMBER_REDUCTION_ONLY_OPTIONS(Name)                                   \
  struct Name##Options {                                                     \
    EMBER_REDUCTION_CONSTRUCTORS(Name##Options, LossReduction)               \
    EMBER_ARG(LossReduction, reduction) = kMean;                             \
  };                                                                         \
  namespace functional {                                                     \
  using Name##FuncOptions = Name##Options;                                   \
  }

EMBER_REDUCTION_ONLY_OPTIONS(L1Loss)
EMBER_REDUCTION_ONLY_OPTIONS(MSELoss)
EMBER_REDUCTION_ONLY_OPTIONS(SoftMarginLoss)
EMBER_REDUCTION_ONLY_OPTIONS(MultiLabelMarginLoss)
#undef EMBER_REDUCTION_ONLY_OPTIONS

struct SmoothL1LossOptions {
  EMBER_REDUCTION_CONSTRUCTORS(SmoothL1LossOptions, LossReduction)
  EMBER_ARG(LossReduction, reduction) = kMean;
  EMBER_ARG(double, beta) = 1.0;
};

struct HuberLossOptions {
  EMBER_REDUCTION_CONSTRUCTORS(HuberLossOptions, LossReduction)
  EMBER_ARG(LossReduction, reduction) = kMean;
  EMBER_ARG(double, delta) = 1.0;
};

struct BCELossOptions {
  EMBER_ARG(Tensor, weight);
  EMBER_ARG(LossReduction, reduction) = kMean;
};

struct BCEWithLogitsLossOptions {
  EMBER_ARG(Tensor, weight);
  EMBER_ARG(LossReduction, reduction) = kMean;
  EMBER_ARG(Tensor, pos_weight);
};

struct KLDivLossOptions {
  using reduction_t = std::variant<enumtype::kNone, enumtype::kBatchMean, enumtype::kSum, enumtype::kMean>;
  EMBER_REDUCTION_CONSTRUCTORS(KLDivLossOptions, reduction_t)
  EMBER_ARG(reduction_t, reduction) = kMean;
  EMBER_ARG(bool, log_target) = false;
};

struct MarginRankingLossOptions {
  EMBER_ARG(double, margin) = 0;
  EMBER_ARG(LossReduction, reduction) = kMean;
};

struct HingeEmbeddingLossOptions {
  EMBER_ARG(double, margin) = 1.0;
  EMBER_ARG(LossReduction, reduction) = kMean;
};

struct CosineEmbeddingLossOptions {
  EMBER_ARG(double, margin) = 0;
  EMBER_ARG(LossReduction, reduction) = kMean;
};

struct TripletMarginLossOptions {
  EMBER_ARG(double, margin) = 1.0;
  EMBER_ARG(double, p) = 2.0;
  EMBER_ARG(double, eps) = 1e-6;
  EMBER_ARG(bool, swap) = false;
  EMBER_ARG(LossReduction, reduction) = kMean;
};

struct MultiMarginLossOptions {
  EMBER_ARG(int64_t, p) = 1;
  EMBER_ARG(double, margin) = 1.0;
  EMBER_ARG(Tensor, weight);
  EMBER_ARG(LossReduction, reduction) = kMean;
};

struct PoissonNLLLossOptions {
  EMBER_ARG(bool, log_input) = true;
  EMBER_ARG(bool, full) = false;
  EMBER_ARG(double, eps) = 1e-8;
  EMBER_ARG(LossReduction, reduction) = kMean;
};

struct GaussianNLLLossOptions {
  EMBER_ARG(bool, full) = false;
  EMBER_ARG(double, eps) = 1e-6;
  EMBER_ARG(LossReduction, reduction) = kMean;
};

namespace functional {
using SmoothL1LossFuncOptions = SmoothL1LossOptions;
using HuberLossFuncOptions = HuberLossOptions;
using BinaryCrossEntropyFuncOptions = BCELossOptions;
using BinaryCrossEntropyWithLogitsFuncOptions = BCEWithLogitsLossOptions;
using KLDivFuncOptions = KLDivLossOptions;
using MarginRankingLossFuncOptions = MarginRankingLossOptions;
using HingeEmbeddingLossFuncOptions = HingeEmbeddingLossOptions;
using CosineEmbeddingLossFuncOptions = CosineEmbeddingLossOptions;
using TripletMarginLossFuncOptions = TripletMarginLossOptions;
using MultiMarginLossFuncOptions = MultiMarginLossOptions;
using PoissonNLLLossFuncOptions = PoissonNLLLossOptions;
using GaussianNLLLossFuncOptions = GaussianNLLLossOptions;
}  // namespace functional

}  // namespace ember::nn
