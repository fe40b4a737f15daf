#pragma once
// Options of CTCLoss (LibTorch's names and defaults; CTCLossFuncOptions is the same struct).
#include "nn/arg.h"
#include "nn/enums.h"

namespace ember::nn {

struct CTCLossOptions {
  // The class index of the blank, which separates repeated labels and may fill any frame.
  EMBER_ARG(int64_t, blank) = 0;
  EMBER_ARG(LossReduction, reduction) = kMean;
  // Losses of inputs too short for their targets are infinite; this makes them (and their gradients) zero.
  EMBER_ARG(bool, zero_infinity) = false;
};

namespace functional {
using CTCLossFuncOptions = CTCLossOptions;
}  // namespace functional

}  // namespace ember::nn
