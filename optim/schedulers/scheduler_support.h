#pragma once
// The JSON of the schedulers' state_dict (nlohmann-json), internal to optim/schedulers/.
#include <memory>
#include <nlohmann/json.hpp>
#include <string>
#include <vector>

#include "runtime/error.h"

namespace ember::optim {
class LRScheduler;
}

namespace ember::optim::detail {

struct SchedulerJson {
  nlohmann::ordered_json value = nlohmann::ordered_json::object();

  // The entry `key`, or Error naming the scheduler and the key when it is missing or of another type.
  template <class T>
  T get(const std::string& key) const {
    if (!value.contains(key)) throw Error("load_state_dict: the scheduler state has no '" + key + "'");
    try {
      return value.at(key).get<T>();
    } catch (const nlohmann::json::exception&) {
      throw Error("load_state_dict: the scheduler state's '" + key + "' has the wrong type: " + value.at(key).dump());
    }
  }
};

// Parses scheduler state text, or throws Error.
SchedulerJson parse_scheduler_state(const std::string& text);

// The states of the schedulers that SequentialLR or ChainedScheduler (`wrapper`) steps, as a JSON array,
// and their load, which throws Error naming `wrapper` when the counts differ.
nlohmann::ordered_json wrapped_states(const std::vector<std::shared_ptr<LRScheduler>>& schedulers);
void load_wrapped_states(const std::vector<std::shared_ptr<LRScheduler>>& schedulers, const nlohmann::ordered_json& states,
                         const std::string& wrapper);

}  // namespace ember::optim::detail
