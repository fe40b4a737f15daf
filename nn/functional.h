#pragma once
// Every nn::functional op (LibTorch's torch/nn/functional.h): `namespace F = ember::nn::functional;`.
#include "nn/functional/activation.h"
#include "nn/functional/batchnorm.h"
#include "nn/functional/conv.h"
#include "nn/functional/dropout.h"
#include "nn/functional/embedding.h"
#include "nn/functional/fold.h"
#include "nn/functional/instancenorm.h"
#include "nn/functional/linear.h"
#include "nn/functional/loss.h"
#include "nn/functional/normalization.h"
#include "nn/functional/padding.h"
#include "nn/functional/pooling.h"
