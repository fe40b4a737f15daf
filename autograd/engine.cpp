#include "autograd/engine.h"

#include <queue>
#include <unordered_map>
#include <unordered_set>

#include "autograd/autograd_meta.h"
#include "autograd/grad_mode.h"
#include "autograd/record.h"
#include "runtime/error.h"
#include "runtime/record_function.h"
#include "tensor/autocast.h"
#include "tensor/functions.h"

namespace ember::autograd {

namespace {

// Hands the root gradients to the outputs' nodes, so the roots are ordinary edges of the graph.
class GraphRoot : public Node {
 public:
  GraphRoot(const std::vector<Edge>& edges, tensor_list grads) : grads_(std::move(grads)) {
    for (const Edge& edge : edges) add_next_edge(edge);
  }
  std::string name() const override { return "torch::autograd::GraphRoot"; }  // PyTorch's name
  tensor_list apply(tensor_list&&) override { return grads_; }

 private:
  tensor_list grads_;
};

struct GraphTask {
  bool keep_graph = false;
  std::unordered_map<Node*, int> dependencies;
  std::unordered_map<Node*, tensor_list> buffers;
  // autograd::grad(): gradients are captured at the inputs' slots, and only the nodes that lead to an
  // input run.
  bool capturing = false;
  std::unordered_map<Node*, std::vector<std::pair<uint32_t, size_t>>> captures;
  std::unordered_set<Node*> needed;
  std::vector<Edge> input_edges;  // keeps the inputs' nodes alive (and their addresses unique)
  tensor_list captured;
};

void count_dependencies(GraphTask& task, Node* root) {
  std::vector<Node*> stack{root};
  std::unordered_set<Node*> seen{root};
  while (!stack.empty()) {
    Node* node = stack.back();
    stack.pop_back();
    for (const Edge& edge : node->next_edges()) {
      if (!edge.valid()) continue;
      Node* next = edge.function.get();
      ++task.dependencies[next];
      if (seen.insert(next).second) stack.push_back(next);
    }
  }
}

// Marks the nodes from which a captured slot can be reached.
void mark_needed(GraphTask& task, Node* root) {
  // Post-order without recursion: a node is needed when one of its edges reaches a capture or a
  // needed node.
  std::unordered_set<Node*> done;
  std::vector<std::pair<Node*, size_t>> stack{{root, 0}};
  std::unordered_set<Node*> on_stack{root};
  while (!stack.empty()) {
    auto& [node, next_index] = stack.back();
    if (next_index < node->num_outputs()) {
      const Edge& edge = node->next_edge(next_index++);
      Node* next = edge.function.get();
      if (next && !done.count(next) && on_stack.insert(next).second) stack.emplace_back(next, 0);
      continue;
    }
    for (const Edge& edge : node->next_edges()) {
      Node* next = edge.function.get();
      if (next && (task.captures.count(next) || task.needed.count(next))) {
        task.needed.insert(node);
        break;
      }
    }
    done.insert(node);
    stack.pop_back();
  }
}

bool expandable_to(IntArrayRef from, IntArrayRef to) {
  if (from.size() > to.size()) {
    // Extra leading dims of `from` may be summed away.
    return expandable_to(IntArrayRef(from.data() + (from.size() - to.size()), to.size()), to);
  }
  for (size_t i = 0; i < from.size(); ++i) {
    const int64_t f = from[from.size() - 1 - i];
    const int64_t t = to[to.size() - 1 - i];
    if (f != t && t != 1) return false;
  }
  return true;
}

// Brings a gradient a node returned to the shape, dtype and device its edge's slot expects.
Tensor validate(Tensor grad, const InputMetadata& meta, const Node& producer, size_t index) {
  if (!(grad.sizes() == IntArrayRef(meta.sizes))) {
    if (!expandable_to(grad.sizes(), meta.sizes)) {
      throw Error("Function " + producer.name() + " returned an invalid gradient at index " + std::to_string(index) +
                  " - got " + to_string(grad.sizes()) + " but expected shape compatible with " +
                  to_string(meta.sizes));
    }
    grad = sum_to(grad, meta.sizes);
  }
  if (grad.dtype() != meta.dtype) grad = grad.to(meta.dtype);
  if (grad.device() != meta.device) grad = grad.to(meta.device);
  return grad;
}

struct LaterFirst {
  bool operator()(const std::shared_ptr<Node>& a, const std::shared_ptr<Node>& b) const {
    return a->sequence_nr() < b->sequence_nr();
  }
};

void run_node(GraphTask& task, const std::shared_ptr<Node>& node,
              std::priority_queue<std::shared_ptr<Node>, std::vector<std::shared_ptr<Node>>, LaterFirst>& ready) {
  tensor_list grads;
  if (auto it = task.buffers.find(node.get()); it != task.buffers.end()) {
    grads = std::move(it->second);
    task.buffers.erase(it);
  }
  grads.resize(node->num_inputs());
  for (uint32_t slot = 0; slot < grads.size(); ++slot) {
    if (grads[slot].defined() && node->has_tensor_hooks(slot)) grads[slot] = node->run_tensor_hooks(slot, grads[slot]);
  }
  if (auto it = task.captures.find(node.get()); it != task.captures.end()) {
    for (const auto& [slot, index] : it->second) task.captured[index] = grads[slot];
  }
  if (task.capturing && !task.needed.count(node.get())) return;

  // PyTorch's name for a node's region, so that a profile of backward reads as PyTorch's. PyTorch runs
  // no root node for a single root edge, so that root has no region.
  std::string region_name;
  if (profiler::recording() && !(dynamic_cast<const GraphRoot*>(node.get()) && node->num_outputs() == 1)) {
    region_name = "autograd::engine::evaluate_function: " + node->name();
  }
  const profiler::RecordFunction region(region_name);
  grads = node->run_pre_hooks(std::move(grads));
  tensor_list outputs(node->num_outputs());
  const bool any_grad = std::any_of(grads.begin(), grads.end(), [](const Tensor& g) { return g.defined(); });
  // Post hooks see the gradients the node was given, so only then does the engine keep a copy: a
  // gradient nobody else holds can become a leaf's .grad without a clone (AccumulateGrad).
  const bool keep_grads = node->has_post_hooks();
  if (any_grad || node->num_inputs() == 0) {
    tensor_list inputs = keep_grads ? grads : std::move(grads);
    for (size_t slot = 0; slot < inputs.size(); ++slot) {
      if (inputs[slot].defined() || !node->materialize_grads()) continue;
      const InputMetadata& meta = node->input_metadata(slot);
      inputs[slot] = zeros(meta.sizes, TensorOptions().dtype(meta.dtype).device(meta.device));
    }
    outputs = node->apply(std::move(inputs));
  }
  outputs = node->run_post_hooks(std::move(outputs), grads);
  if (!task.keep_graph) node->release_variables();
  if (outputs.size() != node->num_outputs()) {
    throw Error("function " + node->name() + " returned an incorrect number of gradients (expected " +
                std::to_string(node->num_outputs()) + ", got " + std::to_string(outputs.size()) + ")");
  }
  for (size_t i = 0; i < outputs.size(); ++i) {
    const Edge& edge = node->next_edge(i);
    if (!edge.valid()) continue;
    Node* next = edge.function.get();
    if (task.capturing && !task.needed.count(next) && !task.captures.count(next)) continue;
    if (outputs[i].defined()) {
      Tensor g = validate(std::move(outputs[i]), next->input_metadata(edge.input_nr), *node, i);
      tensor_list& buffer = task.buffers[next];
      buffer.resize(next->num_inputs());
      Tensor& slot = buffer[edge.input_nr];
      slot = slot.defined() ? slot + g : std::move(g);
    }
    if (--task.dependencies[next] == 0) ready.push(edge.function);
  }
}

void execute(GraphTask& task, const std::shared_ptr<Node>& root, bool create_graph) {
  AutoGradMode mode(create_graph);
  // Gradients are computed in the dtypes the forward ops chose, even when backward() runs under autocast.
  autocast::SuspendGuard no_autocast;
  count_dependencies(task, root.get());
  if (task.capturing) mark_needed(task, root.get());
  std::priority_queue<std::shared_ptr<Node>, std::vector<std::shared_ptr<Node>>, LaterFirst> ready;
  ready.push(root);
  while (!ready.empty()) {
    std::shared_ptr<Node> node = ready.top();
    ready.pop();
    run_node(task, node, ready);
  }
}

// The root edges and their gradients, with PyTorch's checks.
std::shared_ptr<GraphRoot> make_root(const tensor_list& outputs, const tensor_list& grad_outputs) {
  if (!grad_outputs.empty() && grad_outputs.size() != outputs.size()) {
    throw Error("grad requires one gradient per output: got " + std::to_string(grad_outputs.size()) +
                " gradients for " + std::to_string(outputs.size()) + " outputs");
  }
  std::vector<Edge> edges;
  tensor_list grads;
  for (size_t i = 0; i < outputs.size(); ++i) {
    const Tensor& out = outputs[i];
    Edge edge = out.defined() ? gradient_edge(out) : Edge{};
    if (!edge.valid()) {
      throw Error("element " + std::to_string(i) + " of tensors does not require grad and does not have a grad_fn");
    }
    Tensor g = i < grad_outputs.size() ? grad_outputs[i] : Tensor();
    if (!g.defined()) {
      if (out.numel() != 1) throw Error("grad can be implicitly created only for scalar outputs");
      g = ones_like(out);
    } else if (!(g.sizes() == out.sizes())) {
      throw Error("Mismatch in shape: grad_output[" + std::to_string(i) + "] has a shape of " + torch_size(g.sizes()) +
                  " and output[" + std::to_string(i) + "] has a shape of " + torch_size(out.sizes()) + ".");
    }
    edges.push_back(std::move(edge));
    grads.push_back(std::move(g));
  }
  return std::make_shared<GraphRoot>(edges, std::move(grads));
}

}  // namespace

std::string torch_size(IntArrayRef sizes) { return "torch.Size(" + to_string(sizes) + ")"; }

void backward(const tensor_list& tensors, const tensor_list& grad_tensors, std::optional<bool> retain_graph,
              bool create_graph) {
  GraphTask task;
  task.keep_graph = retain_graph.value_or(create_graph);
  execute(task, make_root(tensors, grad_tensors), create_graph);
}

tensor_list grad(const tensor_list& outputs, const tensor_list& inputs, const tensor_list& grad_outputs,
                 std::optional<bool> retain_graph, bool create_graph, bool allow_unused) {
  GraphTask task;
  task.keep_graph = retain_graph.value_or(create_graph);
  task.capturing = true;
  task.captured.resize(inputs.size());
  std::shared_ptr<GraphRoot> root = make_root(outputs, grad_outputs);
  for (size_t i = 0; i < inputs.size(); ++i) {
    if (!inputs[i].defined() || !inputs[i].requires_grad()) {
      throw Error("One of the differentiated Tensors does not require grad");
    }
    const Edge& edge = task.input_edges.emplace_back(gradient_edge(inputs[i]));
    task.captures[edge.function.get()].emplace_back(edge.input_nr, i);
  }
  execute(task, root, create_graph);
  for (size_t i = 0; i < inputs.size(); ++i) {
    if (!task.captured[i].defined() && !allow_unused) {
      throw Error("One of the differentiated Tensors appears to not have been used in the graph. Set "
                  "allow_unused=True if this is the desired behavior.");
    }
  }
  return task.captured;
}

}  // namespace ember::autograd
