#pragma once
// The momentum that OneCycleLR and CyclicLR cycle: a group's `momentum` (SGD, RMSprop), or the first of
// its `betas` (Adam, AdamW), whichever the optimizer's defaults have.
#include <string>

#include "optim/optimizer.h"

namespace ember::optim::detail {

// Whether the optimizer's momentum is beta1; throws Python's error where it has neither momentum nor betas.
bool momentum_is_beta1(const Optimizer& optimizer);

void set_group_momentum(OptimizerParamGroup& group, double momentum, bool use_beta1);
double group_momentum(const OptimizerParamGroup& group, bool use_beta1);

}  // namespace ember::optim::detail
