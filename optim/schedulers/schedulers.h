#pragma once
// The learning-rate schedulers.
#include "optim/schedulers/cosine_annealing_lr.h"
#include "optim/schedulers/exponential_lr.h"
#include "optim/schedulers/lambda_lr.h"
#include "optim/schedulers/linear_lr.h"
#include "optim/schedulers/lr_scheduler.h"
#include "optim/schedulers/multi_step_lr.h"
#include "optim/schedulers/one_cycle_lr.h"
#include "optim/schedulers/reduce_lr_on_plateau.h"
#include "optim/schedulers/sequential_lr.h"
#include "optim/schedulers/step_lr.h"
