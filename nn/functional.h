#pragma once
// Every nn::functional op (LibTorch's torch/nn/functional.h): `namespace F = ember::nn::functional;`.
#include "nn/functional/embedding.h"
#include "nn/functional/linear.h"
#include "nn/functional/loss.h"
