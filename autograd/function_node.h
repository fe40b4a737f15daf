#pragma once
// The node every differentiable op records: its backward is a closure over the op's non-tensor
// arguments (sizes, dims, scalars), and the tensors it needs are SavedVariables held by the node, so
// they are version-checked and freed after backward. Closures must never capture tensors.
#include <functional>
#include <string>
#include <vector>

#include "autograd/node.h"
#include "autograd/saved_variable.h"

namespace ember::autograd {

class FunctionNode : public Node {
 public:
  // Gets one gradient per forward output (zeros where none flowed, once any did, unless the node asked
  // for none) and returns one per forward input; an undefined result means no gradient.
  using Backward = std::function<tensor_list(FunctionNode& node, const tensor_list& grads)>;

  // `name` is a string literal (PyTorch's node name), kept without a copy.
  explicit FunctionNode(const char* name) : name_(name) {}
  std::string name() const override { return name_; }
  tensor_list apply(tensor_list&& grads) override;
  void release_variables() override;

  size_t save(const Tensor& t, bool is_output, uint32_t output_nr = 0);
  // Saved tensor `i`, in the order saved.
  Tensor saved(size_t i);
  void set_backward(Backward backward) { backward_ = std::move(backward); }
  // Off: outputs no gradient flowed to reach the backward undefined, as in PyTorch's generated nodes,
  // for formulas where a zero gradient is not the same as none (0 * inf would make NaN).
  void set_materialize_grads(bool value) { materialize_grads_ = value; }
  bool materialize_grads() const override { return materialize_grads_; }

 private:
  const char* name_;
  std::vector<SavedVariable> saved_;
  Backward backward_;
  bool materialize_grads_ = true;
};

// The node at a leaf that requires grad: adds arriving gradients into the leaf's grad().
class AccumulateGrad : public Node {
 public:
  explicit AccumulateGrad(Tensor variable);
  std::string name() const override { return "torch::autograd::AccumulateGrad"; }
  tensor_list apply(tensor_list&& grads) override;
  // A leaf's hooks live on the leaf, since its accumulator may be recreated.
  Tensor run_tensor_hooks(uint32_t slot, Tensor grad) override;
  bool has_tensor_hooks(uint32_t slot) const override;
  const Tensor& variable() const { return variable_; }

 private:
  Tensor variable_;
};

}  // namespace ember::autograd
