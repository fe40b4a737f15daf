#pragma once
// ember: the one header users include.
#include "runtime/device.h"
#include "runtime/dtype.h"
#include "runtime/error.h"
#include "runtime/future.h"
#include "runtime/kernels.h"
#include "runtime/scalar.h"
#include "runtime/stream.h"
#include "runtime/vulkan/context.h"
#include "runtime/vulkan/vulkan_device.h"
#include "autograd/autograd.h"
#include "tensor/tensor_api.h"
