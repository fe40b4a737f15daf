#pragma once
// ember: the one header users include. It holds what programs call, as torch/torch.h does: tensors and
// their ops, autograd, nn, optimizers, data loading, checkpoints, devices, streams, futures and the
// profiler. The kernel interface (runtime/kernels/) and the Vulkan interop API (ember/vulkan.h) are
// included on their own where they are wanted.
#include "autograd/autograd.h"
#include "data/data.h"
#include "nn/nn.h"
#include "optim/optim.h"
#include "runtime/device.h"
#include "runtime/dtype.h"
#include "runtime/error.h"
#include "runtime/future.h"
#include "runtime/profiler.h"
#include "runtime/scalar.h"
#include "runtime/stream.h"
#include "serialize/serialize.h"
#include "tensor/tensor_api.h"
