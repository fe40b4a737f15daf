#pragma once
// nn::utils (LibTorch's torch/nn/utils.h): gradient clipping, parameter vectors, sequence padding.
#include "nn/utils/clip_grad.h"
#include "nn/utils/convert_parameters.h"
#include "nn/utils/rnn.h"
