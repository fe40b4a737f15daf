#pragma once
// Every module and container (LibTorch's torch/nn/modules.h).
#include "nn/modules/activation.h"
#include "nn/modules/container/any_module.h"
#include "nn/modules/container/module_dict.h"
#include "nn/modules/container/module_list.h"
#include "nn/modules/container/parameter_list.h"
#include "nn/modules/container/sequential.h"
#include "nn/modules/embedding.h"
#include "nn/modules/functional.h"
#include "nn/modules/linear.h"
#include "nn/modules/loss.h"
