#pragma once
// ember::nn: modules, functional ops, init and utils, as LibTorch's torch/nn.h.
#include "nn/cloneable.h"
#include "nn/enums.h"
#include "nn/expanding_array.h"
#include "nn/functional.h"
#include "nn/init.h"
#include "nn/module.h"
#include "nn/module_holder.h"
#include "nn/modules.h"
#include "nn/ordered_dict.h"
#include "nn/utils.h"
