#pragma once
// Custom autograd functions in LibTorch's style:
//
//   struct MulConstant : autograd::Function<MulConstant> {
//     static Tensor forward(autograd::AutogradContext* ctx, const Tensor& x, double c) {
//       ctx->saved_data["c"] = c;
//       return x * c;
//     }
//     static autograd::tensor_list backward(autograd::AutogradContext* ctx, autograd::tensor_list g) {
//       return {g[0] * std::any_cast<double>(ctx->saved_data["c"]), Tensor()};
//     }
//   };
//   Tensor y = MulConstant::apply(x, 2.0);
//
// forward runs with grad mode off. backward returns one entry per forward argument, undefined for
// arguments that are not tensors or need no gradient.
#include <algorithm>
#include <any>
#include <string>
#include <type_traits>
#include <unordered_map>
#include <unordered_set>

#include "autograd/autograd_meta.h"
#include "runtime/error.h"
#include "autograd/grad_mode.h"
#include "autograd/saved_variable.h"

namespace ember::autograd {

class AutogradContext;
// Shared by every Function<T>: wires `outputs` to `node` and turns the context's tensors into
// SavedVariables.
void finish_custom_forward(AutogradContext& ctx, const std::shared_ptr<Node>& node, tensor_list& outputs,
                           const tensor_list& inputs);

class AutogradContext {
 public:
  std::unordered_map<std::string, std::any> saved_data;  // non-tensor values for backward

  void save_for_backward(tensor_list tensors) { to_save_ = std::move(tensors); }
  // The tensors saved in forward, version-checked; throws after a backward without retain_graph.
  tensor_list get_saved_variables() const;
  // Outputs that get no grad_fn (indices, masks).
  void mark_non_differentiable(const tensor_list& outputs);
  // When false, backward sees undefined tensors where no gradient flowed, instead of zeros.
  void set_materialize_grads(bool value) { materialize_grads_ = value; }
  bool needs_input_grad(size_t argument) const;

 private:
  template <class T> friend struct Function;
  template <class T> friend class CustomNode;
  friend void finish_custom_forward(AutogradContext&, const std::shared_ptr<Node>&, tensor_list&, const tensor_list&);
  tensor_list to_save_;
  std::vector<SavedVariable> saved_;
  std::unordered_set<const TensorImpl*> non_differentiable_;
  std::vector<int> argument_input_;  // per forward argument: its edge index, or -1 for non-tensors
  std::weak_ptr<Node> node_;
  bool materialize_grads_ = true;
};

std::string demangled_name(const char* mangled);

template <class T>
class CustomNode : public Node {
 public:
  std::string name() const override { return demangled_name(typeid(T).name()); }
  bool materialize_grads() const override { return ctx.materialize_grads_; }
  tensor_list apply(tensor_list&& grads) override {
    tensor_list per_argument = T::backward(&ctx, std::move(grads));
    const size_t arguments = ctx.argument_input_.size();
    if (per_argument.size() != arguments) {
      throw Error("function " + name() + " returned an incorrect number of gradients (expected " +
                  std::to_string(arguments) + ", got " + std::to_string(per_argument.size()) + ")");
    }
    tensor_list per_edge(num_outputs());
    for (size_t a = 0; a < arguments; ++a) {
      if (ctx.argument_input_[a] >= 0) {
        per_edge[ctx.argument_input_[a]] = std::move(per_argument[a]);
      } else if (per_argument[a].defined()) {
        throw Error("function " + name() + " returned a gradient different than None at position " +
                    std::to_string(a + 1) + ", but the corresponding forward input was not a Variable");
      }
    }
    return per_edge;
  }
  void release_variables() override {
    for (SavedVariable& saved : ctx.saved_) saved.reset_data();
  }
  AutogradContext ctx;
};

template <class T>
struct Function {
  template <class... Args>
  static auto apply(Args&&... args) {
    auto node = std::make_shared<CustomNode<T>>();
    AutogradContext& ctx = node->ctx;
    tensor_list inputs;
    auto collect = [&](const auto& arg) {
      if constexpr (std::is_same_v<std::decay_t<decltype(arg)>, Tensor>) {
        ctx.argument_input_.push_back(static_cast<int>(inputs.size()));
        inputs.push_back(arg);
      } else {
        ctx.argument_input_.push_back(-1);
      }
    };
    (collect(args), ...);
    const bool record = GradMode::is_enabled() &&
                        std::any_of(inputs.begin(), inputs.end(), [](const Tensor& t) {
                          return t.defined() && t.requires_grad();
                        });
    using Result = decltype(T::forward(&ctx, std::forward<Args>(args)...));
    Result result;
    {
      AutoGradMode below(false);
      result = T::forward(&ctx, std::forward<Args>(args)...);
    }
    if (!record) return result;
    for (const Tensor& input : inputs) node->add_next_edge(input.defined() ? gradient_edge(input) : Edge{});
    ctx.node_ = node;
    if constexpr (std::is_same_v<Result, Tensor>) {
      tensor_list outputs{result};
      finish_custom_forward(ctx, node, outputs, inputs);
      return outputs[0];
    } else {
      finish_custom_forward(ctx, node, result, inputs);
      return result;
    }
  }
};

}  // namespace ember::autograd
