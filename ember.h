#pragma once
// ember: the one header users include. It holds what programs call: tensors and their ops, autograd, nn,
// devices, streams and futures. The kernel interface (runtime/kernels/) and the Vulkan interop API
// (ember/vulkan.h) are included on their own where they are wanted.
#include "autograd/autograd.h"
#include "nn/nn.h"
#include "runtime/device.h"
#include "runtime/dtype.h"
#include "runtime/error.h"
#include "runtime/future.h"
#include "runtime/scalar.h"
#include "runtime/stream.h"
#include "tensor/tensor_api.h"
