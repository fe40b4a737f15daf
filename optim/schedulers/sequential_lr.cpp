#include "optim/schedulers/sequential_lr.h"

#include <algorithm>

#include "optim/schedulers/scheduler_support.h"

namespace ember::optim {

namespace {
int64_t checked(const Optimizer& optimizer, const std::vector<std::shared_ptr<LRScheduler>>& schedulers,
                const std::vector<int64_t>& milestones, int64_t last_epoch) {
  for (size_t i = 0; i < schedulers.size(); ++i) {
    if (!schedulers[i]) throw Error("SequentialLR: scheduler " + std::to_string(i) + " is null");
    if (&schedulers[i]->optimizer() != &optimizer) {
      throw Error("Sequential Schedulers expects all schedulers to belong to the same optimizer, but got schedulers at index " +
                  std::to_string(i) + " to be different than the optimizer passed in.");
    }
  }
  if (milestones.size() + 1 != schedulers.size()) {
    throw Error("Sequential Schedulers expects number of schedulers provided to be one more than the number of milestone "
                "points, but got number of schedulers " + std::to_string(schedulers.size()) +
                " and the number of milestones to be equal to " + std::to_string(milestones.size()));
  }
  return last_epoch;
}
}  // namespace

SequentialLR::SequentialLR(Optimizer& optimizer, std::vector<std::shared_ptr<LRScheduler>> schedulers,
                           std::vector<int64_t> milestones, int64_t last_epoch)
    : LRScheduler(optimizer, (checked(optimizer, schedulers, milestones, last_epoch), -1)),
      schedulers_(std::move(schedulers)),
      milestones_(std::move(milestones)) {
  last_epoch_ = last_epoch + 1;
  std::vector<OptimizerParamGroup>& groups = optimizer.param_groups();
  for (OptimizerParamGroup& group : groups) group.options().set_lr(*group.extra("initial_lr"));
  for (const auto& scheduler : schedulers_) scheduler->last_epoch_ -= 1;
  schedulers_.front()->initial_step();
  last_lr_ = schedulers_.front()->get_last_lr();
}

void SequentialLR::step() {
  last_epoch_ += 1;
  const size_t index = static_cast<size_t>(std::upper_bound(milestones_.begin(), milestones_.end(), last_epoch_) -
                                           milestones_.begin());
  LRScheduler& scheduler = *schedulers_[index];
  if (index > 0 && milestones_[index - 1] == last_epoch_) {
    scheduler.step(int64_t{0});
  } else {
    scheduler.step();
  }
  last_lr_ = scheduler.get_last_lr();
}

void SequentialLR::step(int64_t) { throw Error("SequentialLR.step() takes no epoch"); }

std::string SequentialLR::state_dict() const {
  nlohmann::ordered_json json = nlohmann::ordered_json::object();
  json["_milestones"] = milestones_;
  json["last_epoch"] = last_epoch_;
  json["_last_lr"] = last_lr_;
  json["_schedulers"] = detail::wrapped_states(schedulers_);
  return json.dump();
}

void SequentialLR::load_state_dict(const std::string& state) {
  const detail::SchedulerJson json = detail::parse_scheduler_state(state);
  const auto milestones = json.get<std::vector<int64_t>>("_milestones");
  const auto last_epoch = json.get<int64_t>("last_epoch");
  const auto last_lr = json.get<std::vector<double>>("_last_lr");
  detail::load_wrapped_states(schedulers_, json.get<nlohmann::ordered_json>("_schedulers"), "SequentialLR");
  milestones_ = milestones;
  last_epoch_ = last_epoch;
  last_lr_ = last_lr;
}

}  // namespace ember::optim
