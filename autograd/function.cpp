#include "autograd/function.h"

#include <cxxabi.h>

#include <algorithm>
#include <cstdlib>
#include <memory>

namespace ember::autograd {

std::string demangled_name(const char* mangled) {
  int status = 0;
  std::unique_ptr<char, void (*)(void*)> name(abi::__cxa_demangle(mangled, nullptr, nullptr, &status), std::free);
  return status == 0 && name ? name.get() : mangled;
}

tensor_list AutogradContext::get_saved_variables() const {
  auto node = node_.lock();
  tensor_list out;
  for (const SavedVariable& saved : saved_) out.push_back(saved.unpack(node));
  return out;
}

void AutogradContext::mark_non_differentiable(const tensor_list& outputs) {
  for (const Tensor& t : outputs) non_differentiable_.insert(&t.impl());
}

bool AutogradContext::needs_input_grad(size_t argument) const {
  auto node = node_.lock();
  if (!node || argument >= argument_input_.size() || argument_input_[argument] < 0) return false;
  return node->needs_input_grad(static_cast<size_t>(argument_input_[argument]));
}

void finish_custom_forward(AutogradContext& ctx, const std::shared_ptr<Node>& node, tensor_list& outputs,
                           const tensor_list& inputs) {
  for (uint32_t i = 0; i < outputs.size(); ++i) {
    Tensor& out = outputs[i];
    if (!out.defined()) continue;
    const bool is_input = std::any_of(inputs.begin(), inputs.end(), [&](const Tensor& t) { return t.is_same(out); });
    if (is_input) out = out.alias();  // an input returned as is becomes a new output, as in PyTorch
    const uint32_t slot = node->add_input_metadata(out);
    if (is_floating_point(out.dtype()) && !ctx.non_differentiable_.count(&out.impl())) set_history(out, node, slot);
  }
  for (const Tensor& t : ctx.to_save_) {
    auto it = std::find_if(outputs.begin(), outputs.end(), [&](const Tensor& out) { return out.is_same(t); });
    const bool is_output = it != outputs.end() && t.grad_fn() == node;
    ctx.saved_.emplace_back(t, is_output, is_output ? static_cast<uint32_t>(it - outputs.begin()) : 0);
  }
  ctx.to_save_.clear();
}

}  // namespace ember::autograd
