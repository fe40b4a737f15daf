#pragma once
// The optimizers and learning-rate schedulers, as LibTorch's torch::optim.
#include "optim/adagrad.h"
#include "optim/adam.h"
#include "optim/adamw.h"
#include "optim/optimizer.h"
#include "optim/rmsprop.h"
#include "optim/schedulers/schedulers.h"
#include "optim/sgd.h"
