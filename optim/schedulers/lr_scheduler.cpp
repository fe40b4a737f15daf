#include "optim/schedulers/lr_scheduler.h"

#include "optim/schedulers/scheduler_support.h"
#include "runtime/json_nesting.h"

namespace ember::optim {

namespace detail {
SchedulerJson parse_scheduler_state(const std::string& text) {
  SchedulerJson json;
  if (const size_t depth = json_nesting_depth(text); depth > kMaxStateNesting) {
    throw Error("load_state_dict: the scheduler state nests " + std::to_string(depth) + " levels deep, more than the " +
                std::to_string(kMaxStateNesting) + " any scheduler's state needs");
  }
  try {
    json.value = nlohmann::ordered_json::parse(text);
  } catch (const nlohmann::json::exception& e) {
    throw Error(std::string("load_state_dict: the scheduler state is not valid JSON: ") + e.what());
  }
  if (!json.value.is_object()) throw Error("load_state_dict: the scheduler state must be a JSON object");
  return json;
}

nlohmann::ordered_json wrapped_states(const std::vector<std::shared_ptr<LRScheduler>>& schedulers) {
  nlohmann::ordered_json states = nlohmann::ordered_json::array();
  for (const auto& scheduler : schedulers) states.push_back(nlohmann::ordered_json::parse(scheduler->state_dict()));
  return states;
}

void load_wrapped_states(const std::vector<std::shared_ptr<LRScheduler>>& schedulers, const nlohmann::ordered_json& states,
                         const std::string& wrapper) {
  if (!states.is_array() || states.size() != schedulers.size()) {
    throw Error("load_state_dict: the scheduler state has " + std::to_string(states.size()) + " schedulers, this " +
                wrapper + " " + std::to_string(schedulers.size()));
  }
  for (size_t i = 0; i < schedulers.size(); ++i) schedulers[i]->load_state_dict(states[i].dump());
}
}  // namespace detail

LRScheduler::LRScheduler(Optimizer& optimizer, int64_t last_epoch) : optimizer_(optimizer), last_epoch_(last_epoch) {
  std::vector<OptimizerParamGroup>& param_groups = optimizer.param_groups();
  for (size_t i = 0; i < param_groups.size(); ++i) {
    OptimizerParamGroup& group = param_groups[i];
    if (last_epoch == -1) {
      if (!group.extra("initial_lr")) group.set_extra("initial_lr", group.options().get_lr());
    } else if (!group.extra("initial_lr")) {
      throw Error("param 'initial_lr' is not specified in param_groups[" + std::to_string(i) +
                  "] when resuming an optimizer");
    }
    base_lrs_.push_back(*group.extra("initial_lr"));
  }
}

void LRScheduler::initial_step() {
  step_count_ = 0;
  step();
}

std::vector<double> LRScheduler::group_lrs() const {
  std::vector<double> lrs;
  for (const OptimizerParamGroup& group : optimizer_.param_groups()) lrs.push_back(group.options().get_lr());
  return lrs;
}

void LRScheduler::set_group_lrs(const std::vector<double>& lrs) {
  std::vector<OptimizerParamGroup>& param_groups = optimizer_.param_groups();
  for (size_t i = 0; i < param_groups.size() && i < lrs.size(); ++i) param_groups[i].options().set_lr(lrs[i]);
  last_lr_ = group_lrs();
}

void LRScheduler::step() {
  step_count_ += 1;
  last_epoch_ += 1;
  set_group_lrs(get_lr());
}

void LRScheduler::step(int64_t epoch) {
  step_count_ += 1;
  last_epoch_ = epoch;
  std::optional<std::vector<double>> closed = closed_form_lr();
  set_group_lrs(closed ? *closed : get_lr());
}

void LRScheduler::save_fields(detail::SchedulerJson&) const {}
void LRScheduler::load_fields(const detail::SchedulerJson&) {}

std::string LRScheduler::state_dict() const {
  detail::SchedulerJson json;
  save_fields(json);
  json.value["base_lrs"] = base_lrs_;
  json.value["last_epoch"] = last_epoch_;
  json.value["verbose"] = false;
  json.value["_step_count"] = step_count_;
  json.value["_get_lr_called_within_step"] = false;
  json.value["_last_lr"] = last_lr_;
  return json.value.dump();
}

void LRScheduler::load_state_dict(const std::string& state) {
  const detail::SchedulerJson json = detail::parse_scheduler_state(state);
  // Read everything before changing anything.
  auto base_lrs = json.get<std::vector<double>>("base_lrs");
  auto last_epoch = json.get<int64_t>("last_epoch");
  auto step_count = json.get<int64_t>("_step_count");
  auto last_lr = json.get<std::vector<double>>("_last_lr");
  if (base_lrs.size() != groups() || last_lr.size() != groups()) {
    throw Error("load_state_dict: the scheduler state has " + std::to_string(base_lrs.size()) +
                " learning rates for an optimizer with " + std::to_string(groups()) + " param groups");
  }
  load_fields(json);
  base_lrs_ = std::move(base_lrs);
  last_epoch_ = last_epoch;
  step_count_ = step_count;
  last_lr_ = std::move(last_lr);
}

}  // namespace ember::optim
