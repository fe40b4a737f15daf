#pragma once
// MultiplicativeLR: each epoch multiplies each group's lr by lr_lambda(epoch), as Python 1.13's.
#include "optim/schedulers/lambda_lr.h"

namespace ember::optim {

class MultiplicativeLR : public LambdaLR {
 public:
  // One function for every group.
  MultiplicativeLR(Optimizer& optimizer, Lambda lr_lambda, int64_t last_epoch = -1);
  // One function per group; throws Python's error when the counts differ.
  MultiplicativeLR(Optimizer& optimizer, std::vector<Lambda> lr_lambdas, int64_t last_epoch = -1);

 protected:
  std::vector<double> get_lr() override;
};

}  // namespace ember::optim
