#include "autograd/saved_variable.h"

#include <vector>

#include "autograd/autograd_meta.h"
#include "autograd/grad_mode.h"
#include "runtime/error.h"

namespace ember::autograd {

namespace {

thread_local std::vector<std::shared_ptr<SavedTensorHooks>> hooks_stack;
thread_local std::optional<std::string> hooks_disabled_message;

// The tensor without autograd state, sharing storage and geometry.
Tensor without_autograd(const Tensor& t) {
  auto impl = std::make_shared<TensorImpl>(t.impl());
  impl->requires_grad = false;
  impl->autograd = nullptr;
  return Tensor(std::move(impl));
}

// "[torch.FloatTensor [2, 3]]", as PyTorch names a tensor in autograd errors.
std::string describe(const Tensor& t) {
  return "[torch." + scalar_type_name(t.dtype()) + "Tensor " + to_string(t.sizes()) + "]";
}

}  // namespace

SavedTensorHooksGuard::SavedTensorHooksGuard(std::function<std::any(const Tensor&)> pack,
                                             std::function<Tensor(const std::any&)> unpack) {
  if (hooks_disabled_message) throw Error(*hooks_disabled_message);
  hooks_stack.push_back(std::make_shared<SavedTensorHooks>(SavedTensorHooks{std::move(pack), std::move(unpack)}));
}

SavedTensorHooksGuard::~SavedTensorHooksGuard() { hooks_stack.pop_back(); }

DisableSavedTensorHooksGuard::DisableSavedTensorHooksGuard(std::string message)
    : previous_(std::exchange(hooks_disabled_message, std::move(message))) {}

DisableSavedTensorHooksGuard::~DisableSavedTensorHooksGuard() { hooks_disabled_message = previous_; }

SavedVariable::SavedVariable(const Tensor& t, bool is_output, uint32_t output_nr) {
  if (!t.defined()) return;
  if (t.is_inference() && !InferenceMode::is_enabled()) {
    throw Error("Inference tensors cannot be saved for backward. To work around you can make a clone to get a "
                "normal tensor and use it in autograd.");
  }
  defined_ = true;
  is_output_ = is_output;
  // An output is saved before the node becomes its grad_fn; it will be differentiable if floating.
  requires_grad_ = is_output ? t.is_floating_point() : t.requires_grad();
  saved_version_ = t._version();
  storage_ = t.storage();
  output_nr_ = is_output ? output_nr : static_cast<uint32_t>(t.output_nr());
  if (!hooks_stack.empty() && !hooks_disabled_message) {
    hooks_ = hooks_stack.back();
    AutoGradMode plain(false);  // pack hooks see data, not history
    packed_ = hooks_->pack(without_autograd(t));
    if (!is_output) {
      grad_fn_ = t.grad_fn();
      if (!grad_fn_ && requires_grad_) leaf_ = t.impl_ptr();
    }
    return;
  }
  data_ = is_output ? without_autograd(t) : t;
}

void SavedVariable::reset_data() {
  if (!defined_) return;
  released_ = true;
  data_ = Tensor();
  packed_.reset();
  hooks_.reset();
  grad_fn_.reset();
}

Tensor SavedVariable::unpack(const std::shared_ptr<Node>& owner) const {
  if (!defined_) return Tensor();
  if (released_) {
    throw Error("Trying to backward through the graph a second time (or directly access saved tensors after they "
                "have already been freed). Saved intermediate values of the graph are freed when you call "
                ".backward() or autograd.grad(). Specify retain_graph=True if you need to backward through the "
                "graph a second time or if you need to access saved tensors after calling backward.");
  }
  Tensor value;
  if (hooks_) {
    value = hooks_->unpack(packed_);
    if (!value.defined()) throw Error("the unpack hook of a saved tensor returned an undefined tensor");
  } else {
    value = data_;
  }
  const auto storage = hooks_ ? storage_.lock() : value.storage();
  if (storage && storage->version != saved_version_) {
    std::string message = "one of the variables needed for gradient computation has been modified by an inplace "
                          "operation: " + describe(value);
    std::shared_ptr<Node> fn = is_output_ ? owner : hooks_ ? grad_fn_ : data_.grad_fn();
    if (fn) message += ", which is output " + std::to_string(is_output_ || hooks_ ? output_nr_ : data_.output_nr()) +
                       " of " + fn->name() + ",";
    message += " is at version " + std::to_string(storage->version) + "; expected version " +
               std::to_string(saved_version_) +
               " instead. Hint: enable anomaly detection to find the operation that failed to compute its "
               "gradient, with torch.autograd.set_detect_anomaly(True).";
    throw Error(message);
  }
  if (!is_output_) {
    if (!hooks_) return data_;
    // The unpacked data in the saved tensor's place in the graph.
    if (auto leaf = leaf_.lock()) return Tensor(leaf);
    Tensor rebuilt = without_autograd(value);
    if (grad_fn_) set_history(rebuilt, grad_fn_, output_nr_);
    return rebuilt;
  }
  Tensor result = without_autograd(value);
  if (requires_grad_ && owner) set_history(result, owner, output_nr_);
  return result;
}

}  // namespace ember::autograd
