#pragma once
// ember::optim::Optimizer: LibTorch 1.13's torch::optim::Optimizer (param groups with their own options,
// add_param_group, zero_grad, step with an optional closure), with Python's state_dict layout, and a
// step that is one fused kernel launch per (device, dtype) of each param group (runtime/kernels/optim.h).
//
//   ember::optim::Adam opt(model->parameters(), ember::optim::AdamOptions(1e-3));
//   opt.zero_grad();
//   loss.backward();
//   opt.step();
//
// The state of each parameter (PyTorch's names: step, exp_avg, momentum_buffer, ...) is a view into one
// allocation per state buffer and (device, dtype) of a group, so that the kernel reaches a whole group
// through a few bindings. The step count stays on the device (as a float32 tensor, as PyTorch's `step`),
// so step() never waits on the host.
//
// Where ember deviates from LibTorch 1.13: zero_grad(set_to_none = true) drops gradients by default (as
// PyTorch 2.0; 1.13's Python default is false and LibTorch zeroes); options have Python's `maximize`;
// state_dict() is Python's layout (OptimizerStateDict) instead of LibTorch's archives, and the `step` it
// holds is a 0-dim float32 tensor for every optimizer that counts steps (Python 1.13 keeps an int for
// RMSprop); `step` views read the count as of state_dict() (a later step writes the other slot).
#include <functional>
#include <map>
#include <memory>
#include <optional>
#include <string>
#include <utility>
#include <variant>
#include <vector>

#include "nn/ordered_dict.h"
#include "runtime/kernels/optim.h"
#include "tensor/tensor_api.h"

namespace ember::optim {

// An option's value as Python's param group holds it: None, a bool, an int, a float, a string, or a tuple
// of floats.
using OptionValue = std::variant<std::monostate, bool, int64_t, double, std::string, std::vector<double>>;
using OptionItems = std::vector<std::pair<std::string, OptionValue>>;

class OptimizerOptions {
 public:
  virtual ~OptimizerOptions() = default;
  virtual std::unique_ptr<OptimizerOptions> clone() const = 0;
  virtual double get_lr() const = 0;
  virtual void set_lr(double lr) = 0;
  double lr() const { return get_lr(); }
  // Python's entries of a param group for these options, in Python's order (state_dict's JSON).
  virtual OptionItems items() const = 0;
  // Sets the option Python names `key`. False when these options have no such key (Python's foreach,
  // capturable, ... are accepted and ignored); throws Error when the value has the wrong type.
  virtual bool set_item(const std::string& key, const OptionValue& value) = 0;
};

// Clone and the learning rate for options that declare `lr` with EMBER_ARG, as every optimizer's do.
template <class Derived>
class OptimizerCloneableOptions : public OptimizerOptions {
 public:
  std::unique_ptr<OptimizerOptions> clone() const override {
    return std::make_unique<Derived>(static_cast<const Derived&>(*this));
  }
  double get_lr() const override { return static_cast<const Derived&>(*this).lr(); }
  void set_lr(double lr) override { static_cast<Derived&>(*this).lr(lr); }
};

// Parameters with their own options (or the optimizer's defaults, when it has none).
class OptimizerParamGroup {
 public:
  OptimizerParamGroup(const OptimizerParamGroup& other);
  OptimizerParamGroup& operator=(const OptimizerParamGroup& other);
  OptimizerParamGroup(OptimizerParamGroup&&) = default;
  OptimizerParamGroup& operator=(OptimizerParamGroup&&) = default;
  OptimizerParamGroup(std::vector<Tensor> params) : params_(std::move(params)) {}
  OptimizerParamGroup(std::vector<Tensor> params, std::unique_ptr<OptimizerOptions> options)
      : params_(std::move(params)), options_(std::move(options)) {}

  bool has_options() const { return options_ != nullptr; }
  OptimizerOptions& options();
  const OptimizerOptions& options() const;
  void set_options(std::unique_ptr<OptimizerOptions> options) { options_ = std::move(options); }
  std::vector<Tensor>& params() { return params_; }
  const std::vector<Tensor>& params() const { return params_; }

  // Numbers Python's param group holds besides the options, as schedulers add them (initial_lr, max_lr,
  // min_lr, max_momentum, base_momentum), in the order they were added. They travel in state_dict.
  std::optional<double> extra(const std::string& key) const;
  void set_extra(const std::string& key, double value);
  const std::vector<std::pair<std::string, double>>& extras() const { return extras_; }

 private:
  std::vector<Tensor> params_;
  std::unique_ptr<OptimizerOptions> options_;
  std::vector<std::pair<std::string, double>> extras_;
};

// Python's optimizer.state_dict(): `tensors` holds state["state"], keyed "state.<param index>.<name>"
// (indices count the parameters of all groups in order), and `param_groups_json` state["param_groups"]
// (each group's options and its parameters' indices) as JSON text.
struct OptimizerStateDict {
  OrderedDict<std::string, Tensor> tensors{"Key"};
  std::string param_groups_json;
};

class Optimizer {
 public:
  Optimizer(const Optimizer&) = delete;
  Optimizer& operator=(const Optimizer&) = delete;
  Optimizer(std::vector<OptimizerParamGroup> param_groups, std::unique_ptr<OptimizerOptions> defaults);
  Optimizer(std::vector<Tensor> parameters, std::unique_ptr<OptimizerOptions> defaults);
  virtual ~Optimizer();

  // Throws LibTorch's errors for a non-leaf tensor or a parameter already in a group, and one for a
  // parameter listed twice (Python warns and steps it twice; see optimizer.cpp).
  void add_param_group(const OptimizerParamGroup& param_group);
  // Adds to the first group, with add_param_group's checks.
  void add_parameters(const std::vector<Tensor>& parameters);

  using LossClosure = std::function<Tensor()>;
  // Runs `closure` (with grad mode on) when given, then steps every parameter that has a gradient:
  // one kernel launch per (device, dtype) of each group, no host wait. Returns the closure's loss.
  // Optimizers that are not elementwise (LBFGS) override it, with state(), step_unless() and the
  // load_state_dict hooks below.
  virtual Tensor step(LossClosure closure = nullptr);
  // step(), skipped where `found_inf` (a float32 tensor of one element, GradScaler's flag) is nonzero:
  // the kernel reads the flag and leaves parameters, state and step counts as they were, so nothing waits
  // on the host. The flag is copied to the device of parameters on another one.
  virtual void step_unless(const Tensor& found_inf);
  // set_to_none drops each gradient; otherwise it is detached and zeroed.
  void zero_grad(bool set_to_none = true);

  // The first group's parameters, as LibTorch's.
  const std::vector<Tensor>& parameters() const noexcept;
  std::vector<Tensor>& parameters() noexcept;
  size_t size() const noexcept;  // parameters in all groups
  OptimizerOptions& defaults() noexcept { return *defaults_; }
  const OptimizerOptions& defaults() const noexcept { return *defaults_; }
  std::vector<OptimizerParamGroup>& param_groups() noexcept { return param_groups_; }
  const std::vector<OptimizerParamGroup>& param_groups() const noexcept { return param_groups_; }

  // The state of `param` by PyTorch's names, in Python's order (views of the optimizer's memory); empty
  // before its first step.
  virtual OrderedDict<std::string, Tensor> state(const Tensor& param) const;

  OptimizerStateDict state_dict() const;
  // Python's load_state_dict: the groups' options and each parameter's state from `state_dict`. Checks
  // the number of groups and of parameters per group (Python's errors), the JSON, the options' types and
  // each state tensor's size and presence before it changes anything.
  void load_state_dict(const OptimizerStateDict& state_dict);

 protected:
  // The fused elementwise step's algorithm and options. An optimizer that overrides step() and the state
  // hooks needs neither; the defaults throw.
  virtual OptimAlgorithm algorithm() const;
  virtual OptimHyperparameters hyperparameters(const OptimizerOptions& options) const;
  // Adagrad makes its state when parameters join (sum = this value, step 0); the others on their first step.
  virtual std::optional<double> eager_state_value(const OptimizerOptions& /*options*/) const { return std::nullopt; }
  // For subclass constructors: makes the eager state of every group (see eager_state_value).
  void make_eager_state();

  // load_state_dict's state tensors by (group, parameter of the group) and name (the key's part after
  // "state.<index>.").
  using LoadedState = std::map<std::pair<size_t, size_t>, std::map<std::string, Tensor>>;
  // Throws Error unless `loaded` is state this optimizer can take, each group with `options[g]`; changes
  // nothing.
  virtual void check_loaded_state(const LoadedState& loaded,
                                  const std::vector<std::unique_ptr<OptimizerOptions>>& options) const;
  // Replaces the state with `loaded` (checked already), after the groups took their new options.
  virtual void restore_state(const LoadedState& loaded);

 private:
  struct GroupState;
  // The state of group `g`, laid out for its current parameters (rebuilt, state carried over, when they
  // changed).
  GroupState& group_state(size_t g) const;
  void step_group(size_t g, const Tensor& skip_if);

  std::vector<OptimizerParamGroup> param_groups_;
  std::unique_ptr<OptimizerOptions> defaults_;
  mutable std::vector<std::unique_ptr<GroupState>> group_states_;
};

}  // namespace ember::optim
