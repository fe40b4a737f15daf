#include "optim/schedulers/lambda_lr.h"

#include "optim/schedulers/scheduler_support.h"

namespace ember::optim {

namespace {
int64_t checked(const std::vector<LambdaLR::Lambda>& lambdas, const Optimizer& optimizer, int64_t last_epoch) {
  if (lambdas.size() != optimizer.param_groups().size()) {
    throw Error("Expected " + std::to_string(optimizer.param_groups().size()) + " lr_lambdas, but got " +
                std::to_string(lambdas.size()));
  }
  // Python fails at the first step, calling None; an empty std::function would throw bad_function_call.
  for (size_t i = 0; i < lambdas.size(); ++i) {
    if (!lambdas[i]) throw Error("the lr_lambda of param group " + std::to_string(i) + " is an empty function");
  }
  return last_epoch;
}
}  // namespace

LambdaLR::LambdaLR(Optimizer& optimizer, Lambda lr_lambda, int64_t last_epoch)
    : LambdaLR(optimizer, std::vector<Lambda>(optimizer.param_groups().size(), lr_lambda), last_epoch) {}

LambdaLR::LambdaLR(Optimizer& optimizer, std::vector<Lambda> lr_lambdas, int64_t last_epoch)
    : LambdaLR(optimizer, std::move(lr_lambdas), last_epoch, WithoutInitialStep{}) {
  initial_step();
}

LambdaLR::LambdaLR(Optimizer& optimizer, std::vector<Lambda> lr_lambdas, int64_t last_epoch, WithoutInitialStep)
    : LRScheduler(optimizer, checked(lr_lambdas, optimizer, last_epoch)), lr_lambdas_(std::move(lr_lambdas)) {}

std::vector<double> LambdaLR::get_lr() {
  std::vector<double> lrs;
  for (size_t i = 0; i < base_lrs_.size(); ++i) lrs.push_back(base_lrs_[i] * lr_lambdas_[i](last_epoch_));
  return lrs;
}

// Python saves None for each plain function: the functions themselves do not travel.
void LambdaLR::save_fields(detail::SchedulerJson& json) const {
  json.value["lr_lambdas"] = nlohmann::ordered_json(std::vector<std::nullptr_t>(lr_lambdas_.size(), nullptr));
}

}  // namespace ember::optim
