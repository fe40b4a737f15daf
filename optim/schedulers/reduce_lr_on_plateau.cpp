#include "optim/schedulers/reduce_lr_on_plateau.h"

#include <algorithm>
#include <limits>
#include <utility>
#include <vector>

#include "optim/schedulers/scheduler_support.h"

namespace ember::optim {

namespace {

constexpr double kInf = std::numeric_limits<double>::infinity();

nlohmann::ordered_json number(double value) {
  if (value == kInf) return "Infinity";
  if (value == -kInf) return "-Infinity";
  return value;
}

double number_from(const nlohmann::ordered_json& value, const std::string& key) {
  if (value.is_number()) return value.get<double>();
  if (value == "Infinity") return kInf;
  if (value == "-Infinity") return -kInf;
  throw Error("load_state_dict: the scheduler state's '" + key + "' is not a number");
}

// Checks the options as Python's constructor does, and returns the min_lr of each group.
std::vector<double> checked_min_lrs(const ReduceLROnPlateauOptions& o, const Optimizer& optimizer) {
  if (o.factor() >= 1.0) throw Error("Factor should be < 1.0.");
  std::vector<double> min_lrs = o.min_lr().for_groups(optimizer.param_groups().size(), "min_lrs");
  if (o.mode() != "min" && o.mode() != "max") throw Error("mode " + o.mode() + " is unknown!");
  if (o.threshold_mode() != "rel" && o.threshold_mode() != "abs") {
    throw Error("threshold mode " + o.threshold_mode() + " is unknown!");
  }
  return min_lrs;
}

}  // namespace

ReduceLROnPlateau::ReduceLROnPlateau(Optimizer& optimizer, const ReduceLROnPlateauOptions& options)
    : optimizer_(optimizer), options_(options), min_lrs_(checked_min_lrs(options, optimizer)) {
  mode_worse_ = options.mode() == "min" ? kInf : -kInf;
  best_ = mode_worse_;
  for (const OptimizerParamGroup& group : optimizer.param_groups()) last_lr_.push_back(group.options().get_lr());
}

bool ReduceLROnPlateau::is_better(double a, double best) const {
  const bool min = options_.mode() == "min";
  if (options_.threshold_mode() == "rel") {
    return min ? a < best * (1. - options_.threshold()) : a > best * (options_.threshold() + 1.);
  }
  return min ? a < best - options_.threshold() : a > best + options_.threshold();
}

void ReduceLROnPlateau::reduce_lr() {
  std::vector<OptimizerParamGroup>& groups = optimizer_.param_groups();
  for (size_t i = 0; i < groups.size(); ++i) {
    const double old_lr = groups[i].options().get_lr();
    const double new_lr = std::max(old_lr * options_.factor(), min_lrs_[i]);
    if (old_lr - new_lr > options_.eps()) groups[i].options().set_lr(new_lr);
  }
}

void ReduceLROnPlateau::step(double metric) {
  last_epoch_ += 1;
  if (is_better(metric, best_)) {
    best_ = metric;
    num_bad_epochs_ = 0;
  } else {
    num_bad_epochs_ += 1;
  }
  if (cooldown_counter_ > 0) {
    cooldown_counter_ -= 1;
    num_bad_epochs_ = 0;  // bad epochs in cooldown do not count
  }
  if (num_bad_epochs_ > options_.patience()) {
    reduce_lr();
    cooldown_counter_ = options_.cooldown();
    num_bad_epochs_ = 0;
  }
  last_lr_.clear();
  for (const OptimizerParamGroup& group : optimizer_.param_groups()) last_lr_.push_back(group.options().get_lr());
}

std::string ReduceLROnPlateau::state_dict() const {
  nlohmann::ordered_json json = nlohmann::ordered_json::object();
  json["factor"] = options_.factor();
  json["min_lrs"] = min_lrs_;
  json["patience"] = options_.patience();
  json["verbose"] = false;
  json["cooldown"] = options_.cooldown();
  json["cooldown_counter"] = cooldown_counter_;
  json["mode"] = options_.mode();
  json["threshold"] = options_.threshold();
  json["threshold_mode"] = options_.threshold_mode();
  json["best"] = number(best_);
  json["num_bad_epochs"] = num_bad_epochs_;
  json["mode_worse"] = number(mode_worse_);
  json["eps"] = options_.eps();
  json["last_epoch"] = last_epoch_;
  json["_last_lr"] = last_lr_;
  return json.dump();
}

void ReduceLROnPlateau::load_state_dict(const std::string& state) {
  const detail::SchedulerJson json = detail::parse_scheduler_state(state);
  ReduceLROnPlateauOptions options = options_;
  options.factor(json.get<double>("factor"));
  options.patience(json.get<int64_t>("patience"));
  options.cooldown(json.get<int64_t>("cooldown"));
  options.mode(json.get<std::string>("mode"));
  options.threshold(json.get<double>("threshold"));
  options.threshold_mode(json.get<std::string>("threshold_mode"));
  options.eps(json.get<double>("eps"));
  options.min_lr(json.get<std::vector<double>>("min_lrs"));
  std::vector<double> min_lrs = checked_min_lrs(options, optimizer_);
  const double best = number_from(json.value.at("best"), "best");
  const auto bad = json.get<int64_t>("num_bad_epochs");
  const auto cooldown_counter = json.get<int64_t>("cooldown_counter");
  const auto last_epoch = json.get<int64_t>("last_epoch");
  std::vector<double> last_lr = last_lr_;
  if (json.value.contains("_last_lr")) last_lr = json.get<std::vector<double>>("_last_lr");
  options_ = options;
  min_lrs_ = std::move(min_lrs);
  mode_worse_ = options.mode() == "min" ? kInf : -kInf;
  best_ = best;
  num_bad_epochs_ = bad;
  cooldown_counter_ = cooldown_counter;
  last_epoch_ = last_epoch;
  last_lr_ = last_lr;
}

}  // namespace ember::optim
