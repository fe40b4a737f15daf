#pragma once
// How a differentiable op records itself. An op makes a Record before its kernels run:
//
//   autograd::Record rec("ExpBackward0", {this});
//   Tensor out = ...kernels...;
//   if (rec) {
//     rec.save_output(out);
//     out = rec.finish(out, [](autograd::FunctionNode& node, const autograd::tensor_list& g) {
//       return autograd::tensor_list{g[0] * node.saved(0)};
//     });
//   }
//
// A Record is empty (false) unless grad mode is on and an input requires grad. While it is not empty,
// grad mode is off until finish(), so the ops the forward uses record nothing themselves. Backward
// formulas are written with the public ops, so under create_graph they record a graph of their own.
#include <functional>
#include <initializer_list>
#include <memory>
#include <optional>

#include "autograd/function_node.h"
#include "autograd/grad_mode.h"

namespace ember::autograd {

class Record {
 public:
  // `name` is a string literal (PyTorch's node name). `inputs` are the op's tensor inputs, in the order
  // its backward returns their gradients; null or undefined entries are allowed and get no gradient.
  Record(const char* name, std::initializer_list<const Tensor*> inputs);
  Record(const char* name, const std::vector<Tensor>& inputs);
  explicit operator bool() const { return node_ != nullptr; }

  // Saves an input or intermediate for backward; returns its index for FunctionNode::saved.
  size_t save(const Tensor& t);
  // Saves forward output `output_nr` (held without its autograd state, which points back here).
  size_t save_output(const Tensor& t, uint32_t output_nr = 0);
  // The backward gets undefined gradients for outputs none flowed to (FunctionNode::set_materialize_grads).
  void leave_missing_grads_undefined() { node_->set_materialize_grads(false); }

  // Makes the node the grad_fn of the outputs. Integral and bool outputs, and outputs that are one of
  // the inputs unchanged, are left alone.
  Tensor finish(Tensor output, FunctionNode::Backward backward);
  tensor_list finish(tensor_list outputs, FunctionNode::Backward backward);

 private:
  void start(const char* name);
  void connect(const Tensor* input);  // the next edge toward `input` (none when absent)
  std::shared_ptr<FunctionNode> node_;
  std::vector<const TensorImpl*> input_impls_;
  std::optional<AutoGradMode> below_;
};

// For an in-place op on `self` that also reads `others`: whether the write must be recorded. Throws
// PyTorch's error for an in-place write to a leaf (or a view of one) that requires grad.
bool inplace_needs_record(const Tensor& self, std::initializer_list<const Tensor*> others);
// Records `self.op_()` as `self = out_of_place(old self)`, writing the result into self's memory, so
// the op gets the out-of-place formula. The result must fit self's dtype (PyTorch's cast error
// otherwise). A view's base gets the new history too.
Tensor& record_inplace(Tensor& self, const std::function<Tensor(const Tensor&)>& out_of_place);

// `grad` summed over the dims broadcasting added, down to `sizes` (a no-op when they already match).
Tensor sum_to(const Tensor& grad, IntArrayRef sizes);

// The backward of an op that PyTorch records as torch::autograd::NotImplemented: it throws PyTorch's
// "derivative for aten::<op> is not implemented" when reached. `op` is a string literal.
FunctionNode::Backward not_implemented_backward(const char* op);
// The backward of an op whose PyTorch node has no formula (derivatives.yaml's not_implemented): it
// throws PyTorch's "the derivative for '<op>' is not implemented." when reached. `op` is a literal.
FunctionNode::Backward missing_formula_backward(const char* op);

}  // namespace ember::autograd
