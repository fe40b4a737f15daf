#pragma once
// A scheduler option that Python takes as one number for every param group or as a list of one number
// per group: OneCycleLR's max_lr and momenta, ReduceLROnPlateau's min_lr. As in Python, a list must have
// exactly one value per group, a list of one included: `0.1` is a number, `{0.1}` a list.
#include <cstddef>
#include <initializer_list>
#include <string>
#include <utility>
#include <vector>

#include "runtime/error.h"

namespace ember::optim {

class GroupValues {
 public:
  /* implicit */ GroupValues(double every_group) : values_{every_group}, is_list_(false) {}
  /* implicit */ GroupValues(std::initializer_list<double> per_group) : values_(per_group), is_list_(true) {}
  /* implicit */ GroupValues(std::vector<double> per_group) : values_(std::move(per_group)), is_list_(true) {}

  // One value for each of `groups` groups. A list of another length throws Python's ValueError text,
  // "expected <groups> <what>, got <length>".
  std::vector<double> for_groups(size_t groups, const std::string& what) const {
    if (!is_list_) return std::vector<double>(groups, values_.front());
    if (values_.size() != groups) {
      throw Error("expected " + std::to_string(groups) + " " + what + ", got " + std::to_string(values_.size()));
    }
    return values_;
  }

 private:
  std::vector<double> values_;
  bool is_list_;
};

}  // namespace ember::optim
