#pragma once
// nn::utils (LibTorch's torch/nn/utils.h): gradient clipping and parameter vectors.
#include "nn/utils/clip_grad.h"
#include "nn/utils/convert_parameters.h"
