#pragma once
// torch.autograd.functional: the derivatives of a whole function at a point, built from reverse-mode
// backward passes. jvp and hvp use the double-backward trick (a backward of a backward) in place of
// forward-mode AD, as PyTorch's do. Every function evaluates `func` once, with grad enabled, on fresh
// tensors that stand for `inputs`; the results carry no graph unless create_graph.
//
// Each function has two forms, as PyTorch's accept a Tensor or a tuple: one over lists (`func` takes and
// returns a tensor_list) and one over single tensors. An empty `v` (or an undefined one) stands for
// Python's None, allowed where the tensor it pairs with has one element.
#include <functional>
#include <utility>
#include <vector>

#include "autograd/node.h"

namespace ember::autograd::functional {

using Function = std::function<tensor_list(const tensor_list& inputs)>;
using TensorFunction = std::function<Tensor(const Tensor& input)>;

// strict: an output that does not depend on some input is an error, instead of a zero derivative.
// create_graph: the results are differentiable with respect to the inputs (higher derivatives).

// (func(inputs), vᵀ·J): one gradient per input, v one tensor per output.
std::pair<tensor_list, tensor_list> vjp(const Function& func, const tensor_list& inputs, const tensor_list& v = {},
                                        bool create_graph = false, bool strict = false);
std::pair<Tensor, Tensor> vjp(const TensorFunction& func, const Tensor& input, const Tensor& v = {},
                              bool create_graph = false, bool strict = false);

// (func(inputs), J·v): one product per output, v one tensor per input.
std::pair<tensor_list, tensor_list> jvp(const Function& func, const tensor_list& inputs, const tensor_list& v = {},
                                        bool create_graph = false, bool strict = false);
std::pair<Tensor, Tensor> jvp(const TensorFunction& func, const Tensor& input, const Tensor& v = {},
                              bool create_graph = false, bool strict = false);

// jacobian[i][j] = d outputs[i] / d inputs[j], of shape outputs[i].sizes() + inputs[j].sizes(). One
// backward pass per output element.
std::vector<tensor_list> jacobian(const Function& func, const tensor_list& inputs, bool create_graph = false,
                                  bool strict = false);
Tensor jacobian(const TensorFunction& func, const Tensor& input, bool create_graph = false, bool strict = false);

// For a `func` that returns one single-element tensor: hessian[i][j] = d² func / d inputs[i] d inputs[j],
// of shape inputs[i].sizes() + inputs[j].sizes().
std::vector<tensor_list> hessian(const Function& func, const tensor_list& inputs, bool create_graph = false,
                                 bool strict = false);
Tensor hessian(const TensorFunction& func, const Tensor& input, bool create_graph = false, bool strict = false);

// For a `func` that returns one single-element tensor: (func(inputs), vᵀ·H) and (func(inputs), H·v), v one
// tensor per input. They are equal when the second derivatives are continuous; vhp takes one backward
// pass fewer.
std::pair<tensor_list, tensor_list> vhp(const Function& func, const tensor_list& inputs, const tensor_list& v = {},
                                        bool create_graph = false, bool strict = false);
std::pair<Tensor, Tensor> vhp(const TensorFunction& func, const Tensor& input, const Tensor& v = {},
                              bool create_graph = false, bool strict = false);
std::pair<tensor_list, tensor_list> hvp(const Function& func, const tensor_list& inputs, const tensor_list& v = {},
                                        bool create_graph = false, bool strict = false);
std::pair<Tensor, Tensor> hvp(const TensorFunction& func, const Tensor& input, const Tensor& v = {},
                              bool create_graph = false, bool strict = false);

// Shared with ember::func.
namespace detail {
// Fresh tensors that stand for `inputs`, so that derivatives are taken with respect to these and not to
// the tensors a function may capture. They stay connected to the caller's graph where create_graph and
// the input requires grad; otherwise they are new leaves that require grad when need_graph.
tensor_list stand_ins(const tensor_list& inputs, bool create_graph, bool need_graph);
// The tensors detached, undefined ones left undefined: results handed back without a graph.
tensor_list detached(tensor_list tensors);
}  // namespace detail

}  // namespace ember::autograd::functional
