#pragma once
// A node of the backward graph: it takes the gradients of a forward op's outputs and returns the
// gradients of its inputs, which flow along `next_edges` to the nodes that produced those inputs.
// Names follow PyTorch's ("MulBackward0"), as grad_fn()->name() reports them.
#include <cstdint>
#include <functional>
#include <memory>
#include <optional>
#include <string>
#include <vector>

#include "tensor/tensor.h"

namespace ember::autograd {

class Node;
using tensor_list = std::vector<Tensor>;

// Where a gradient goes: input slot `input_nr` of `function`. An edge without a function leads
// nowhere (the forward input did not require grad).
struct Edge {
  std::shared_ptr<Node> function;
  uint32_t input_nr = 0;
  bool valid() const { return function != nullptr; }
};

// What a gradient arriving at an input slot must look like.
struct InputMetadata {
  std::vector<int64_t> sizes;
  DType dtype = DType::Float32;
  std::shared_ptr<Device> device;
};

// Undoes a hook registration; removing twice, or after the owner is gone, does nothing.
class RemovableHandle {
 public:
  RemovableHandle() = default;
  explicit RemovableHandle(std::function<void()> remove) : remove_(std::move(remove)) {}
  void remove();

 private:
  std::function<void()> remove_;
};

}  // namespace ember::autograd

namespace ember {

// Defined here, where RemovableHandle is complete.
template <class Hook>
  requires std::is_void_v<std::invoke_result_t<Hook&, const Tensor&>>
autograd::RemovableHandle Tensor::register_hook(Hook hook) const {
  return register_hook(std::function<Tensor(const Tensor&)>([hook = std::move(hook)](const Tensor& grad) mutable {
    hook(grad);
    return Tensor();
  }));
}

}  // namespace ember

namespace ember::autograd {

// Gradient hook on one tensor: returns a replacement gradient, or an undefined tensor to keep it.
using TensorHook = std::function<Tensor(const Tensor& grad)>;

// Hooks kept in registration order; ids let a handle remove exactly its own.
template <class Fn>
struct HookList {
  std::vector<std::pair<uint64_t, Fn>> entries;
  uint64_t next_id = 0;
  uint64_t add(Fn fn) {
    entries.emplace_back(next_id, std::move(fn));
    return next_id++;
  }
  void remove(uint64_t id) {
    std::erase_if(entries, [id](const auto& entry) { return entry.first == id; });
  }
};

class Node : public std::enable_shared_from_this<Node> {
 public:
  // Pre-hook: sees the incoming gradients; may return replacements.
  using PreHook = std::function<std::optional<tensor_list>(const tensor_list& grad_outputs)>;
  // Post-hook: sees the computed input gradients and the incoming ones; may return replacements.
  using PostHook =
      std::function<std::optional<tensor_list>(const tensor_list& grad_inputs, const tensor_list& grad_outputs)>;

  Node();
  // Releases the graph behind this node iteratively: a long chain would otherwise recurse once per node.
  virtual ~Node();
  Node(const Node&) = delete;
  Node& operator=(const Node&) = delete;

  virtual std::string name() const = 0;
  // One gradient per forward output (undefined where none flowed); returns one per next edge.
  virtual tensor_list apply(tensor_list&& grads) = 0;
  // Drops what the node saved for backward (the engine calls it unless retain_graph).
  virtual void release_variables() {}
  // Whether apply() gets zeros (rather than undefined tensors) for outputs no gradient reached.
  virtual bool materialize_grads() const { return true; }

  const std::vector<Edge>& next_edges() const { return next_edges_; }
  const Edge& next_edge(size_t i) const { return next_edges_[i]; }
  size_t num_outputs() const { return next_edges_.size(); }
  void add_next_edge(Edge edge) { next_edges_.push_back(std::move(edge)); }
  // Whether input i of the forward op needs a gradient.
  bool needs_input_grad(size_t i) const { return i < next_edges_.size() && next_edges_[i].valid(); }

  // Forward outputs this node receives gradients for.
  size_t num_inputs() const { return input_metadata_.size(); }
  uint32_t add_input_metadata(const Tensor& output);
  const InputMetadata& input_metadata(size_t i) const { return input_metadata_[i]; }

  // Later nodes run first when several are ready, as in PyTorch.
  uint64_t sequence_nr() const { return sequence_nr_; }

  RemovableHandle register_prehook(PreHook hook);
  RemovableHandle register_hook(PostHook hook);

  // Hooks of the tensor that is forward output `slot` (retain_grad is one of them).
  RemovableHandle add_tensor_hook(uint32_t slot, TensorHook hook);

  // Run by the engine around apply().
  tensor_list run_pre_hooks(tensor_list grads);
  tensor_list run_post_hooks(tensor_list grad_inputs, const tensor_list& grad_outputs);
  bool has_post_hooks() const { return !post_hooks_.entries.empty(); }
  // The tensor hooks of output `slot`, in registration order.
  virtual Tensor run_tensor_hooks(uint32_t slot, Tensor grad);
  virtual bool has_tensor_hooks(uint32_t slot) const;

 protected:
  explicit Node(uint64_t sequence_nr) : sequence_nr_(sequence_nr) {}

 private:
  uint64_t sequence_nr_;
  std::vector<Edge> next_edges_;
  std::vector<InputMetadata> input_metadata_;
  HookList<PreHook> pre_hooks_;
  HookList<PostHook> post_hooks_;
  std::vector<HookList<TensorHook>> tensor_hooks_;  // per output slot
};

}  // namespace ember::autograd
