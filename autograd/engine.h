#pragma once
// Runs backward through the recorded graph, as torch.autograd.backward and torch.autograd.grad do.
// Nodes run in dependency order (later-recorded first among the ready ones), gradients for a node's
// slot are summed before it runs, and saved tensors are freed after each node unless retain_graph.
// Every gradient is computed by device ops recorded on the streams: the engine itself never waits.
#include <optional>
#include <string>

#include "autograd/node.h"

namespace ember::autograd {

// Accumulates the gradients of `tensors` (weighted by `grad_tensors`; implicit ones for single-element
// outputs) into the .grad of the leaves they depend on. retain_graph defaults to create_graph.
void backward(const tensor_list& tensors, const tensor_list& grad_tensors = {},
              std::optional<bool> retain_graph = std::nullopt, bool create_graph = false);

// The gradients of `outputs` with respect to `inputs`, returned rather than accumulated. An input the
// outputs do not depend on is an error unless allow_unused, which gives an undefined tensor for it.
tensor_list grad(const tensor_list& outputs, const tensor_list& inputs, const tensor_list& grad_outputs = {},
                 std::optional<bool> retain_graph = std::nullopt, bool create_graph = false,
                 bool allow_unused = false);

// Sizes as PyTorch's messages print them: "torch.Size([2, 3])".
std::string torch_size(IntArrayRef sizes);

}  // namespace ember::autograd
