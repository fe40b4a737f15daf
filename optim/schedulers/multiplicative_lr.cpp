#include "optim/schedulers/multiplicative_lr.h"

namespace ember::optim {

MultiplicativeLR::MultiplicativeLR(Optimizer& optimizer, Lambda lr_lambda, int64_t last_epoch)
    : MultiplicativeLR(optimizer, std::vector<Lambda>(optimizer.param_groups().size(), lr_lambda), last_epoch) {}

MultiplicativeLR::MultiplicativeLR(Optimizer& optimizer, std::vector<Lambda> lr_lambdas, int64_t last_epoch)
    : LambdaLR(optimizer, std::move(lr_lambdas), last_epoch, WithoutInitialStep{}) {
  initial_step();
}

std::vector<double> MultiplicativeLR::get_lr() {
  std::vector<double> lrs = group_lrs();
  if (last_epoch_ > 0) {
    for (size_t i = 0; i < lrs.size(); ++i) lrs[i] *= lr_lambdas_[i](last_epoch_);
  }
  return lrs;
}

}  // namespace ember::optim
