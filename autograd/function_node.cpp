#include "autograd/function_node.h"

#include "autograd/autograd_meta.h"
#include "autograd/grad_mode.h"
#include "runtime/error.h"

namespace ember::autograd {

tensor_list FunctionNode::apply(tensor_list&& grads) { return backward_(*this, grads); }

void FunctionNode::release_variables() {
  for (SavedVariable& saved : saved_) saved.reset_data();
}

size_t FunctionNode::save(const Tensor& t, bool is_output, uint32_t output_nr) {
  saved_.emplace_back(t, is_output, output_nr);
  return saved_.size() - 1;
}

Tensor FunctionNode::saved(size_t i) { return saved_.at(i).unpack(shared_from_this()); }

AccumulateGrad::AccumulateGrad(Tensor variable) : Node(UINT64_MAX), variable_(std::move(variable)) {
  add_input_metadata(variable_);
}

namespace {

// Whether nothing but `t` can reach its memory: no other handle to it, and no other tensor on its
// storage except the base it views when only `t` holds that base (a gradient computed transposed and
// transposed back, as Linear's weight gradient is).
bool sole_owner(const Tensor& t) {
  if (t.impl_ptr().use_count() != 1) return false;
  const std::shared_ptr<TensorImpl>& base = t.impl().view_base;
  const bool base_is_private = base && base.use_count() == 1 && base->storage == t.storage();
  return t.storage().use_count() == (base_is_private ? 2 : 1);
}

}  // namespace

tensor_list AccumulateGrad::apply(tensor_list&& grads) {
  Tensor& incoming = grads.at(0);
  if (!incoming.defined()) return {};
  AutogradMeta& meta = meta_of(variable_);
  if (!meta.grad.defined()) {
    // Keep the gradient itself when nothing else can see its memory and it is dense; otherwise a
    // later in-place accumulation would write through someone else's tensor. A kept view lets go of its
    // base (detach), which frees the base's handle.
    if (!GradMode::is_enabled() && incoming.is_contiguous() && sole_owner(incoming)) {
      meta.grad = incoming.impl().view_base ? incoming.detach() : std::move(incoming);
    } else {
      meta.grad = incoming.clone();
    }
  } else if (GradMode::is_enabled()) {
    meta.grad = meta.grad + incoming;  // create_graph: the sum stays differentiable
  } else {
    meta.grad.add_(incoming);
  }
  return {};
}

Tensor AccumulateGrad::run_tensor_hooks(uint32_t, Tensor grad) {
  const auto hooks = meta_of(variable_).leaf_hooks.entries;
  for (const auto& [id, hook] : hooks) {
    Tensor replaced = hook(grad);
    if (replaced.defined()) grad = std::move(replaced);
  }
  return grad;
}

bool AccumulateGrad::has_tensor_hooks(uint32_t) const {
  const AutogradMeta* meta = meta_if(variable_);
  return meta && !meta->leaf_hooks.entries.empty();
}

}  // namespace ember::autograd
