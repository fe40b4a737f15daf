#include "autograd/node.h"

#include <atomic>


namespace ember::autograd {

namespace {
std::atomic<uint64_t> next_sequence_nr{0};
}  // namespace

void RemovableHandle::remove() {
  if (remove_) std::exchange(remove_, nullptr)();
}

Node::Node() : sequence_nr_(next_sequence_nr++) {}

Node::~Node() {
  thread_local bool draining = false;
  thread_local std::vector<std::shared_ptr<Node>> pending;
  for (Edge& edge : next_edges_) {
    if (edge.function) pending.push_back(std::move(edge.function));
  }
  if (draining) return;  // an outer destructor's loop releases them
  draining = true;
  while (!pending.empty()) {
    std::shared_ptr<Node> last = std::move(pending.back());
    pending.pop_back();
    last.reset();  // may push that node's edges
  }
  draining = false;
}

uint32_t Node::add_input_metadata(const Tensor& output) {
  input_metadata_.push_back({output.sizes().vec(), output.dtype(), output.device()});
  tensor_hooks_.emplace_back();
  return static_cast<uint32_t>(input_metadata_.size() - 1);
}

RemovableHandle Node::register_prehook(PreHook hook) {
  const uint64_t id = pre_hooks_.add(std::move(hook));
  return RemovableHandle([weak = weak_from_this(), id] {
    if (auto node = weak.lock()) node->pre_hooks_.remove(id);
  });
}

RemovableHandle Node::register_hook(PostHook hook) {
  const uint64_t id = post_hooks_.add(std::move(hook));
  return RemovableHandle([weak = weak_from_this(), id] {
    if (auto node = weak.lock()) node->post_hooks_.remove(id);
  });
}

RemovableHandle Node::add_tensor_hook(uint32_t slot, TensorHook hook) {
  const uint64_t id = tensor_hooks_.at(slot).add(std::move(hook));
  return RemovableHandle([weak = weak_from_this(), slot, id] {
    if (auto node = weak.lock()) node->tensor_hooks_[slot].remove(id);
  });
}

bool Node::has_tensor_hooks(uint32_t slot) const {
  return slot < tensor_hooks_.size() && !tensor_hooks_[slot].entries.empty();
}

Tensor Node::run_tensor_hooks(uint32_t slot, Tensor grad) {
  if (slot >= tensor_hooks_.size()) return grad;
  // Copied: a hook may register or remove hooks.
  const auto hooks = tensor_hooks_[slot].entries;
  for (const auto& [id, hook] : hooks) {
    Tensor replaced = hook(grad);
    if (replaced.defined()) grad = std::move(replaced);
  }
  return grad;
}

tensor_list Node::run_pre_hooks(tensor_list grads) {
  const auto hooks = pre_hooks_.entries;
  for (const auto& [id, hook] : hooks) {
    if (auto replaced = hook(grads)) grads = std::move(*replaced);
  }
  return grads;
}

tensor_list Node::run_post_hooks(tensor_list grad_inputs, const tensor_list& grad_outputs) {
  const auto hooks = post_hooks_.entries;
  for (const auto& [id, hook] : hooks) {
    if (auto replaced = hook(grad_inputs, grad_outputs)) grad_inputs = std::move(*replaced);
  }
  return grad_inputs;
}

}  // namespace ember::autograd
