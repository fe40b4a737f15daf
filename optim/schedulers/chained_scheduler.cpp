#include "optim/schedulers/chained_scheduler.h"

#include "optim/schedulers/scheduler_support.h"

namespace ember::optim {

namespace {
Optimizer& common_optimizer(const std::vector<std::shared_ptr<LRScheduler>>& schedulers) {
  if (schedulers.empty()) throw Error("ChainedScheduler expects at least one scheduler");
  for (size_t i = 0; i < schedulers.size(); ++i) {
    if (!schedulers[i]) throw Error("ChainedScheduler: scheduler " + std::to_string(i) + " is null");
    if (&schedulers[i]->optimizer() != &schedulers[0]->optimizer()) {
      throw Error("ChainedScheduler expects all schedulers to belong to the same optimizer, but got schedulers at index 0 "
                  "and " + std::to_string(i) + " to be different");
    }
  }
  return schedulers[0]->optimizer();
}
}  // namespace

// The base records nothing new (the schedulers put initial_lr in every group) and takes no step.
ChainedScheduler::ChainedScheduler(std::vector<std::shared_ptr<LRScheduler>> schedulers)
    : LRScheduler(common_optimizer(schedulers), -1), schedulers_(std::move(schedulers)) {
  last_lr_ = group_lrs();
}

void ChainedScheduler::step() {
  for (const auto& scheduler : schedulers_) scheduler->step();
  last_lr_ = group_lrs();
}

void ChainedScheduler::step(int64_t) { throw Error("ChainedScheduler.step() takes no epoch"); }

std::string ChainedScheduler::state_dict() const {
  nlohmann::ordered_json json = nlohmann::ordered_json::object();
  json["_last_lr"] = last_lr_;
  json["_schedulers"] = detail::wrapped_states(schedulers_);
  return json.dump();
}

void ChainedScheduler::load_state_dict(const std::string& state) {
  const detail::SchedulerJson json = detail::parse_scheduler_state(state);
  const auto last_lr = json.get<std::vector<double>>("_last_lr");
  detail::load_wrapped_states(schedulers_, json.get<nlohmann::ordered_json>("_schedulers"), "ChainedScheduler");
  last_lr_ = last_lr;
}

}  // namespace ember::optim
