#pragma once
// torch.func (functorch in PyTorch 1.13): grad, grad_and_value, jacrev and hessian as transforms, which
// take a function and return the function that computes its derivative. They compose, grad(grad(f)) and
// jacrev(grad(f)) included, and with ordinary autograd outside them.
//
// They are built on the recorded graph, not on functorch's levels: a transform keeps the graph of its
// result (create_graph) while grad is enabled and either an argument requires grad or the call is nested
// inside another transform, so an inner derivative stays differentiable for the outer one. A function
// that captures a tensor requiring grad from outside every transform gets a result without a graph
// when no argument requires grad, where functorch keeps it.
#include <cstdint>
#include <functional>
#include <utility>
#include <vector>

#include "autograd/node.h"

namespace ember::func {

using autograd::tensor_list;

// A function of several tensors to one (grad wants a 0-dim one).
using Function = std::function<Tensor(const tensor_list& args)>;
// The same with auxiliary outputs, returned along and not differentiated (has_aux).
using FunctionWithAux = std::function<std::pair<Tensor, tensor_list>(const tensor_list& args)>;
using ListFunction = std::function<tensor_list(const tensor_list& args)>;
using TensorFunction = std::function<Tensor(const Tensor& arg)>;

// grad(f, argnums)(args): d f(args) / d args[k] for each k of argnums (negative ones count from the end).
// An argument f does not use gets zeros.
ListFunction grad(Function f, std::vector<int64_t> argnums = {0});
TensorFunction grad(TensorFunction f);
// (gradients, f(args)), from one evaluation of f.
std::function<std::pair<tensor_list, Tensor>(const tensor_list&)> grad_and_value(Function f,
                                                                               std::vector<int64_t> argnums = {0});
// has_aux: (gradients, aux) where f returns (value, aux).
std::function<std::pair<tensor_list, tensor_list>(const tensor_list&)> grad_with_aux(
    FunctionWithAux f, std::vector<int64_t> argnums = {0});

// jacrev(f, argnums)(args)[i][k] = d f(args)[i] / d args[argnums[k]], of shape
// f(args)[i].sizes() + args[argnums[k]].sizes(): reverse mode, one backward pass per output element.
std::function<std::vector<tensor_list>(const tensor_list&)> jacrev(ListFunction f,
                                                                   std::vector<int64_t> argnums = {0});
TensorFunction jacrev(TensorFunction f);

// hessian(f, argnums)(args)[j][k] = d² f(args) / d args[argnums[j]] d args[argnums[k]], of shape
// f(args).sizes() + the two arguments' sizes: jacrev of jacrev, as torch.func.hessian (which uses
// forward mode for the outer one; the values are the same).
std::function<std::vector<tensor_list>(const tensor_list&)> hessian(Function f,
                                                                    std::vector<int64_t> argnums = {0});
TensorFunction hessian(TensorFunction f);

}  // namespace ember::func
