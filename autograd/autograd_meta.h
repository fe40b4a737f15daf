#pragma once
// The autograd state a tensor carries once autograd has touched it. A leaf (no grad_fn) that requires
// grad accumulates into `grad` through its AccumulateGrad node, which the leaf holds only weakly so
// that the graph, not the tensor, keeps it alive.
#include <memory>

#include "autograd/node.h"

namespace ember {
struct AutogradMeta {
  Tensor grad;
  std::shared_ptr<autograd::Node> grad_fn;
  uint32_t output_nr = 0;
  std::weak_ptr<autograd::Node> grad_accumulator;
  autograd::HookList<autograd::TensorHook> leaf_hooks;  // a non-leaf's hooks live on its grad_fn
  bool retains_grad = false;
};
}  // namespace ember

namespace ember::autograd {

// The meta of `t`, created on first use.
AutogradMeta& meta_of(const Tensor& t);
// Null when autograd never touched `t`.
AutogradMeta* meta_if(const Tensor& t);
// Where the gradient of `t` goes: its grad_fn's slot, its AccumulateGrad, or nowhere.
Edge gradient_edge(const Tensor& t);
// Makes `t` the output `output_nr` of `fn` (a non-leaf).
void set_history(const Tensor& t, const std::shared_ptr<Node>& fn, uint32_t output_nr);

}  // namespace ember::autograd
