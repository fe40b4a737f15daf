#pragma once
// Options of cross-entropy and NLL losses, as LibTorch 1.13's torch::nn::CrossEntropyLossOptions and
// NLLLossOptions (https://pytorch.org/docs/1.13/generated/torch.nn.CrossEntropyLoss.html,
// .../torch.nn.NLLLoss.html); the functionals take the same structs.
#include <cstdint>

#include "nn/arg.h"
#include "nn/enums.h"
#include "tensor/tensor.h"

namespace ember::nn {

// CrossEntropyLoss: weight per class, targets equal to ignore_index left out (class-index targets),
// label smoothing in [0, 1].
struct CrossEntropyLossOptions {
  using reduction_t = LossReduction;
  EMBER_ARG(Tensor, weight) = Tensor();
  EMBER_ARG(int64_t, ignore_index) = -100;
  EMBER_ARG(reduction_t, reduction) = kMean;
  EMBER_ARG(double, label_smoothing) = 0.0;
};

// NLLLoss over log-probabilities.
struct NLLLossOptions {
  using reduction_t = LossReduction;
  EMBER_ARG(Tensor, weight) = Tensor();
  EMBER_ARG(int64_t, ignore_index) = -100;
  EMBER_ARG(reduction_t, reduction) = kMean;
};

namespace functional {
using CrossEntropyFuncOptions = CrossEntropyLossOptions;
using NLLLossFuncOptions = NLLLossOptions;
}  // namespace functional

}  // namespace ember::nn
