#pragma once
// Every nn::functional op (LibTorch's torch/nn/functional.h): `namespace F = ember::nn::functional;`.
#include "nn/functional/activation.h"
#include "nn/functional/linear.h"
