#pragma once
// The optimizers and learning-rate schedulers, as LibTorch's torch::optim (with Python's Adamax, Adadelta,
// RAdam, Rprop, NAdam and ASGD, which LibTorch 1.13 lacks), and the GradScaler of mixed precision (ember::amp).
#include "optim/adadelta.h"
#include "optim/adagrad.h"
#include "optim/adam.h"
#include "optim/adamax.h"
#include "optim/adamw.h"
#include "optim/asgd.h"
#include "optim/grad_scaler.h"
#include "optim/lbfgs.h"
#include "optim/nadam.h"
#include "optim/optimizer.h"
#include "optim/radam.h"
#include "optim/rmsprop.h"
#include "optim/rprop.h"
#include "optim/schedulers/schedulers.h"
#include "optim/sgd.h"
