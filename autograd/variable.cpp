// The autograd side of Tensor: requires_grad, grad, grad_fn, hooks and backward.
#include "autograd/autograd_meta.h"
#include "autograd/engine.h"
#include "autograd/function_node.h"
#include "autograd/grad_mode.h"
#include "runtime/error.h"
#include "tensor/functions.h"

namespace ember {

namespace autograd {

AutogradMeta& meta_of(const Tensor& t) {
  auto& meta = t.impl().autograd;
  if (!meta) meta = std::make_shared<AutogradMeta>();
  return *meta;
}

AutogradMeta* meta_if(const Tensor& t) { return t.impl().autograd.get(); }

Edge gradient_edge(const Tensor& t) {
  AutogradMeta* meta = meta_if(t);
  if (meta && meta->grad_fn) return {meta->grad_fn, meta->output_nr};
  if (!t.impl().requires_grad) return {};
  AutogradMeta& leaf = meta_of(t);
  auto accumulator = leaf.grad_accumulator.lock();
  if (!accumulator) {
    accumulator = std::make_shared<AccumulateGrad>(t);
    leaf.grad_accumulator = accumulator;
  }
  return {accumulator, 0};
}

void set_history(const Tensor& t, const std::shared_ptr<Node>& fn, uint32_t output_nr) {
  AutogradMeta& meta = meta_of(t);
  meta.grad_fn = fn;
  meta.output_nr = output_nr;
  t.impl().requires_grad = false;  // a non-leaf requires grad through its grad_fn
}

}  // namespace autograd

namespace {
const Tensor undefined_tensor;
}  // namespace

bool Tensor::requires_grad() const {
  return impl().requires_grad || (impl().autograd && impl().autograd->grad_fn);
}

Tensor& Tensor::requires_grad_(bool requires_grad) {
  if (!is_leaf()) {
    if (requires_grad) return *this;
    throw Error("you can only change requires_grad flags of leaf variables. If you want to use a computed variable "
                "in a subgraph that doesn't require differentiation use var_no_grad = var.detach().");
  }
  if (requires_grad && !is_floating_point()) throw Error("only Tensors of floating point dtype can require gradients");
  if (requires_grad && is_inference() && !autograd::InferenceMode::is_enabled()) {
    throw Error("Setting requires_grad=True on inference tensor outside InferenceMode is not allowed.");
  }
  impl().requires_grad = requires_grad;
  return *this;
}

const Tensor& Tensor::grad() const {
  const AutogradMeta* meta = autograd::meta_if(*this);
  return meta ? meta->grad : undefined_tensor;
}

Tensor& Tensor::mutable_grad() { return autograd::meta_of(*this).grad; }

std::shared_ptr<autograd::Node> Tensor::grad_fn() const {
  const AutogradMeta* meta = autograd::meta_if(*this);
  return meta ? meta->grad_fn : nullptr;
}

bool Tensor::is_leaf() const { return grad_fn() == nullptr; }

int64_t Tensor::output_nr() const {
  const AutogradMeta* meta = autograd::meta_if(*this);
  return meta ? meta->output_nr : 0;
}

void Tensor::retain_grad() const {
  if (!requires_grad()) throw Error("can't retain_grad on Tensor that has requires_grad=False");
  if (is_leaf()) return;  // leaves keep their gradient anyway
  AutogradMeta& meta = autograd::meta_of(*this);
  if (meta.retains_grad) return;
  meta.retains_grad = true;
  // An ordinary hook, so it sees the gradient as the hooks registered before it left it (PyTorch 1.13).
  meta.grad_fn->add_tensor_hook(meta.output_nr, [weak = std::weak_ptr<TensorImpl>(impl_ptr())](const Tensor& grad) {
    if (auto impl = weak.lock()) {
      AutogradMeta& kept = autograd::meta_of(Tensor(impl));
      kept.grad = kept.grad.defined() ? kept.grad + grad : grad.clone();
    }
    return Tensor();
  });
}

bool Tensor::retains_grad() const {
  const AutogradMeta* meta = autograd::meta_if(*this);
  return meta && meta->retains_grad;
}

// A new handle on the same memory and geometry, with no history and not a view autograd tracks.
Tensor Tensor::detach() const {
  auto impl = std::make_shared<TensorImpl>();
  impl->storage = storage();
  impl->sizes = sizes().vec();
  impl->strides = strides().vec();
  impl->storage_offset = storage_offset();
  impl->dtype = dtype();
  return Tensor(std::move(impl));
}

void Tensor::set_data(const Tensor& new_data) const {
  if (!new_data.defined()) throw Error("set_data: new_data is an undefined tensor");
  if (requires_grad() && !new_data.is_floating_point()) {
    throw Error("data set to a tensor that requires gradients must be floating point or complex dtype");
  }
  TensorImpl& self = impl();
  self.storage = new_data.storage();
  self.sizes = new_data.sizes().vec();
  self.strides = new_data.strides().vec();
  self.storage_offset = new_data.storage_offset();
  self.dtype = new_data.dtype();
  self.view_base = nullptr;
}

Tensor& Tensor::detach_() {
  if (impl().view_base && impl().view_base->autograd && impl().view_base->autograd->grad_fn) {
    throw Error("Can't detach views in-place. Use detach() instead. If you are using DistributedDataParallel "
                "(DDP) for training, and gradient_as_bucket_view is set as True, gradients are views of DDP "
                "buckets, and hence detach_() cannot be called on these gradients. To fix this error, please "
                "refer to the Optimizer.zero_grad() function in torch/optim/optimizer.py as the solution.");
  }
  if (AutogradMeta* meta = autograd::meta_if(*this)) {
    meta->grad_fn = nullptr;
    meta->output_nr = 0;
  }
  impl().requires_grad = false;
  return *this;
}

void Tensor::backward(const Tensor& gradient, std::optional<bool> retain_graph, bool create_graph) const {
  autograd::backward({*this}, {gradient}, retain_graph, create_graph);
}

autograd::RemovableHandle Tensor::register_hook(std::function<Tensor(const Tensor&)> hook) const {
  if (!requires_grad()) throw Error("cannot register a hook on a tensor that doesn't require gradient");
  AutogradMeta& meta = autograd::meta_of(*this);
  if (meta.grad_fn) return meta.grad_fn->add_tensor_hook(meta.output_nr, std::move(hook));
  const uint64_t id = meta.leaf_hooks.add(std::move(hook));
  return autograd::RemovableHandle([weak = std::weak_ptr<AutogradMeta>(impl().autograd), id] {
    if (auto alive = weak.lock()) alive->leaf_hooks.remove(id);
  });
}

}  // namespace ember
