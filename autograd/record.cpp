#include "autograd/record.h"

#include <algorithm>

#include "autograd/autograd_meta.h"
#include "runtime/error.h"
#include "tensor/functions.h"

namespace ember::autograd {

namespace {

bool any_requires_grad(std::initializer_list<const Tensor*> tensors) {
  return std::any_of(tensors.begin(), tensors.end(),
                     [](const Tensor* t) { return t && t->defined() && t->requires_grad(); });
}

bool differentiable(DType dtype) { return is_floating_point(dtype); }

// The base whose memory `t` views, or an undefined tensor.
Tensor view_base(const Tensor& t) { return t.impl().view_base ? Tensor(t.impl().view_base) : Tensor(); }

}  // namespace

Record::Record(const char* name, std::initializer_list<const Tensor*> inputs) {
  if (!GradMode::is_enabled() || !any_requires_grad(inputs)) return;
  start(name);
  for (const Tensor* t : inputs) connect(t);
}

Record::Record(const char* name, const std::vector<Tensor>& inputs) {
  if (!GradMode::is_enabled() ||
      std::none_of(inputs.begin(), inputs.end(), [](const Tensor& t) { return t.defined() && t.requires_grad(); })) {
    return;
  }
  start(name);
  for (const Tensor& t : inputs) connect(&t);
}

void Record::connect(const Tensor* input) {
  const bool present = input && input->defined();
  node_->add_next_edge(present ? gradient_edge(*input) : Edge{});
  input_impls_.push_back(present ? &input->impl() : nullptr);
}

void Record::start(const char* name) {
  node_ = std::make_shared<FunctionNode>(name);
  below_.emplace(false);
}

size_t Record::save(const Tensor& t) { return node_->save(t, false); }

size_t Record::save_output(const Tensor& t, uint32_t output_nr) { return node_->save(t, true, output_nr); }

Tensor Record::finish(Tensor output, FunctionNode::Backward backward) {
  return std::move(finish(tensor_list{std::move(output)}, std::move(backward))[0]);
}

tensor_list Record::finish(tensor_list outputs, FunctionNode::Backward backward) {
  below_.reset();
  if (!node_) return outputs;
  node_->set_backward(std::move(backward));
  for (Tensor& out : outputs) {
    if (!out.defined()) continue;
    const bool is_input = std::find(input_impls_.begin(), input_impls_.end(), &out.impl()) != input_impls_.end();
    // The slot is taken even for outputs left alone, so gradient indices match output indices.
    const uint32_t slot = node_->add_input_metadata(out);
    if (is_input || !differentiable(out.dtype())) continue;
    set_history(out, node_, slot);
  }
  return outputs;
}

bool inplace_needs_record(const Tensor& self, std::initializer_list<const Tensor*> others) {
  if (!GradMode::is_enabled()) return false;
  const Tensor base = view_base(self);
  if (self.requires_grad() && self.is_leaf()) {
    throw Error("a leaf Variable that requires grad is being used in an in-place operation.");
  }
  if (base.defined() && base.requires_grad() && base.is_leaf()) {
    throw Error("a view of a leaf Variable that requires grad is being used in an in-place operation.");
  }
  return self.requires_grad() || (base.defined() && base.requires_grad()) || any_requires_grad(others);
}

namespace {

// The base's gradient after `view` (of `base`) was overwritten by `written`: the view's region of the
// base's gradient goes to `written`, the rest to the base's earlier history.
void rebase_view(const Tensor& base, const Tensor& view, const Tensor& written) {
  if (!base.is_contiguous()) {
    throw UnsupportedError("in-place write to a view of a non-contiguous tensor that requires grad is not supported; "
                           "clone() the base first");
  }
  const std::vector<int64_t> sizes = view.sizes().vec();
  const std::vector<int64_t> strides = view.strides().vec();
  const int64_t offset = view.storage_offset() - base.storage_offset();
  auto node = std::make_shared<FunctionNode>("torch::autograd::CopySlices");
  node->add_next_edge(gradient_edge(base));
  node->add_next_edge(gradient_edge(written));
  node->set_backward([sizes, strides, offset](FunctionNode& fn, const tensor_list& grads) {
    Tensor rest = grads[0].contiguous().clone();
    Tensor region = rest.as_strided(sizes, strides, rest.storage_offset() + offset);
    Tensor to_written = fn.needs_input_grad(1) ? region.clone() : Tensor();
    region.zero_();  // recorded only under create_graph, where rest has history
    return tensor_list{rest, to_written};
  });
  set_history(base, node, node->add_input_metadata(base));
  // The view now reads the base's new history.
  const Tensor fresh = base.as_strided(view.sizes(), view.strides(), view.storage_offset());
  set_history(view, fresh.grad_fn(), static_cast<uint32_t>(fresh.output_nr()));
}

}  // namespace

Tensor& record_inplace(Tensor& self, const std::function<Tensor(const Tensor&)>& out_of_place) {
  // The old value is a copy, so what the formula saves is not overwritten below.
  const Tensor written = out_of_place(self.clone());
  check_can_cast(written.dtype(), self.dtype());  // as the unrecorded in-place kernels require
  {
    AutoGradMode plain(false);
    self.copy_(written);
  }
  const Tensor base = view_base(self);
  if (base.defined()) {
    rebase_view(base, self, written);
  } else if (written.grad_fn()) {
    set_history(self, written.grad_fn(), static_cast<uint32_t>(written.output_nr()));
  } else {
    AutogradMeta& meta = meta_of(self);
    meta.grad_fn = nullptr;
    meta.output_nr = 0;
  }
  return self;
}

Tensor sum_to(const Tensor& grad, IntArrayRef sizes) {
  if (grad.sizes() == sizes) return grad;
  if (grad.dim() < static_cast<int64_t>(sizes.size())) return grad.reshape(sizes);  // a 0-dim grad for a [1] input
  const int64_t lead = grad.dim() - static_cast<int64_t>(sizes.size());
  std::vector<int64_t> dims;
  for (int64_t d = 0; d < grad.dim(); ++d) {
    if (d < lead || (sizes[d - lead] == 1 && grad.size(d) != 1)) dims.push_back(d);
  }
  Tensor reduced = dims.empty() ? grad : grad.sum(dims, /*keepdim=*/true);
  return lead > 0 || !dims.empty() ? reduced.view(sizes) : reduced;
}

FunctionNode::Backward not_implemented_backward(const char* op) {
  return [op](FunctionNode&, const tensor_list&) -> tensor_list {
    throw Error("derivative for aten::" + std::string(op) + " is not implemented");
  };
}

FunctionNode::Backward missing_formula_backward(const char* op) {
  return [op](FunctionNode&, const tensor_list&) -> tensor_list {
    throw Error("the derivative for '" + std::string(op) + "' is not implemented.");
  };
}

}  // namespace ember::autograd
