#include "autograd/functional.h"

#include <optional>
#include <string>

#include "autograd/engine.h"
#include "autograd/grad_mode.h"
#include "runtime/error.h"
#include "tensor/functions.h"

namespace ember::autograd::functional {

// The messages are PyTorch's, word for word, so that errors read the same in both.
namespace {

tensor_list without_graph(tensor_list tensors, bool create_graph) {
  return create_graph ? tensors : detail::detached(std::move(tensors));
}

// v pairs with `other` (the outputs for vjp, the inputs for the rest).
void check_v(const tensor_list& v, const tensor_list& other, bool other_is_list) {
  if (v.size() != other.size()) {
    if (other_is_list) {
      throw Error("v is a tuple of invalid length: should be " + std::to_string(other.size()) + " but got " +
                  std::to_string(v.size()) + ".");
    }
    throw Error("The given v should contain a single Tensor.");
  }
  for (size_t i = 0; i < v.size(); ++i) {
    if (!(v[i].sizes() == other[i].sizes())) {
      const std::string entry = other_is_list ? "Entry " + std::to_string(i) + " in " : "";
      throw Error(entry + "v has invalid size: should be " + torch_size(other[i].sizes()) + " but got " +
                  torch_size(v[i].sizes()) + ".");
    }
  }
}

enum class Checked { Outputs, GradInputs, Jacobian, Hessian };

void check_requires_grad(const tensor_list& tensors, Checked what, bool strict) {
  if (!strict) return;
  for (size_t i = 0; i < tensors.size(); ++i) {
    const std::string n = std::to_string(i);
    if (!tensors[i].defined()) {
      throw Error("The output of the user-provided function is independent of input " + n +
                  ". This is not allowed in strict mode.");
    }
    if (tensors[i].requires_grad()) continue;
    switch (what) {
      case Checked::Hessian:
        throw Error("The hessian of the user-provided function with respect to input " + n +
                    " is independent of the input. This is not allowed in strict mode. You should ensure that "
                    "your function is thrice differentiable and that the hessian depends on the inputs.");
      case Checked::Jacobian:
        throw Error("While computing the hessian, found that the jacobian of the user-provided function with "
                    "respect to input " + n + " is independent of the input. This is not allowed in strict "
                    "mode. You should ensure that your function is twice differentiable and that the jacobian "
                    "depends on the inputs (this would be violated by a linear function for example).");
      case Checked::GradInputs:
        throw Error("The gradient with respect to input " + n + " is independent of the inputs of the "
                    "user-provided function. This is not allowed in strict mode.");
      case Checked::Outputs:
        throw Error("Output " + n + " of the user-provided function does not require gradients. The outputs "
                    "must be computed in a differentiable manner from the input when running in strict mode.");
    }
  }
}

// autograd::grad over the outputs that have a graph: the others contribute nothing, and an input no
// output reaches gets an undefined gradient. `grad_outputs` is empty or pairs with `outputs`.
tensor_list grad_of_differentiable(const tensor_list& outputs, const tensor_list& inputs,
                                   const tensor_list& grad_outputs, bool create_graph,
                                   std::optional<bool> retain_graph = std::nullopt) {
  tensor_list kept_outputs, kept_grads;
  for (size_t i = 0; i < outputs.size(); ++i) {
    if (!outputs[i].defined() || !outputs[i].requires_grad()) continue;
    kept_outputs.push_back(outputs[i]);
    kept_grads.push_back(grad_outputs.empty() ? Tensor() : grad_outputs[i]);
  }
  if (kept_outputs.empty()) return tensor_list(inputs.size());
  return grad(kept_outputs, inputs, kept_grads, retain_graph, create_graph, /*allow_unused=*/true);
}

// Which backward pass produced the gradients, for the messages of strict mode.
enum class Stage { Back, BackTrick, DoubleBack, DoubleBackTrick };

// Undefined gradients become zeros shaped as `refs`, or errors in strict mode.
tensor_list zeros_for_unreached(tensor_list grads, const tensor_list& refs, bool strict, bool create_graph,
                                Stage stage) {
  for (size_t i = 0; i < grads.size(); ++i) {
    const std::string n = std::to_string(i);
    if (!grads[i].defined()) {
      if (strict) {
        switch (stage) {
          case Stage::Back:
            throw Error("The output of the user-provided function is independent of input " + n +
                        ". This is not allowed in strict mode.");
          case Stage::BackTrick:
            throw Error("The gradient with respect to the input is independent of entry " + n +
                        " in the grad_outputs when using the double backward trick to compute forward mode "
                        "gradients. This is not allowed in strict mode.");
          case Stage::DoubleBack:
            throw Error("The jacobian of the user-provided function is independent of input " + n +
                        ". This is not allowed in strict mode.");
          case Stage::DoubleBackTrick:
            throw Error("The hessian of the user-provided function is independent of entry " + n +
                        " in the grad_jacobian. This is not allowed in strict mode as it prevents from using the "
                        "double backward trick to replace forward mode AD.");
        }
      }
      grads[i] = zeros_like(refs[i]);
    } else if (strict && create_graph && !grads[i].requires_grad()) {
      const bool second = stage == Stage::DoubleBack || stage == Stage::DoubleBackTrick;
      throw Error(std::string(second ? "The hessian" : "The jacobian") +
                  " of the user-provided function is independent of input " + n +
                  ". This is not allowed in strict mode when create_graph=True.");
    }
  }
  return grads;
}

// Whether the list form or the single-tensor form was called: it changes a few of PyTorch's messages.
enum class Form { List, Single };

tensor_list requires_grad_zeros_like(const tensor_list& tensors) {
  tensor_list zeros;
  for (const Tensor& t : tensors) {
    Tensor zero = zeros_like(t);
    zero.requires_grad_(true);
    zeros.push_back(std::move(zero));
  }
  return zeros;
}

std::pair<tensor_list, tensor_list> vjp_impl(const Function& func, const tensor_list& inputs_given,
                                             const tensor_list& v_given, bool create_graph, bool strict, Form form) {
  tensor_list inputs, outputs, v;
  {
    EnableGradGuard enable_grad;
    inputs = detail::stand_ins(inputs_given, create_graph, true);
    outputs = func(inputs);
    check_requires_grad(outputs, Checked::Outputs, strict);
    if (!v_given.empty()) {
      v = detail::stand_ins(v_given, create_graph, false);
      check_v(v, outputs, form == Form::List);
    } else if (outputs.size() != 1 || outputs[0].numel() != 1) {
      throw Error("The vector v can only be None if the user-provided function returns a single Tensor with a "
                  "single element.");
    }
  }
  AutoGradMode mode(create_graph || GradMode::is_enabled());
  tensor_list products = zeros_for_unreached(grad_of_differentiable(outputs, inputs, v, create_graph), inputs,
                                             strict, create_graph, Stage::Back);
  return {without_graph(outputs, create_graph), without_graph(products, create_graph)};
}

std::pair<tensor_list, tensor_list> jvp_impl(const Function& func, const tensor_list& inputs_given,
                                             const tensor_list& v_given, bool create_graph, bool strict, Form form) {
  tensor_list inputs, outputs, v, grad_outputs, grad_inputs;
  {
    EnableGradGuard enable_grad;
    inputs = detail::stand_ins(inputs_given, create_graph, true);
    if (!v_given.empty()) {
      v = detail::stand_ins(v_given, create_graph, false);
      check_v(v, inputs, form == Form::List);
    } else if (inputs.size() != 1 || inputs[0].numel() != 1) {
      throw Error("The vector v can only be None if the input to the user-provided function is a single Tensor "
                  "with a single element.");
    }
    outputs = func(inputs);
    check_requires_grad(outputs, Checked::Outputs, strict);
    // The backward pass is linear in its output gradients, so their value never reaches J·v: zeros do,
    // as long as they are finite.
    grad_outputs = requires_grad_zeros_like(outputs);
    grad_inputs = grad_of_differentiable(outputs, inputs, grad_outputs, /*create_graph=*/true);
    check_requires_grad(grad_inputs, Checked::GradInputs, strict);
  }
  std::optional<EnableGradGuard> enable_grad;
  if (create_graph) enable_grad.emplace();
  tensor_list products = zeros_for_unreached(grad_of_differentiable(grad_inputs, grad_outputs, v, create_graph),
                                             outputs, strict, create_graph, Stage::BackTrick);
  return {without_graph(outputs, create_graph), without_graph(products, create_graph)};
}

std::vector<tensor_list> jacobian_impl(const Function& func, const tensor_list& inputs_given, bool create_graph,
                                       bool strict) {
  EnableGradGuard enable_grad;
  const tensor_list inputs = detail::stand_ins(inputs_given, create_graph, true);
  const tensor_list outputs = func(inputs);
  check_requires_grad(outputs, Checked::Outputs, strict);
  std::vector<tensor_list> jacobian;
  for (size_t i = 0; i < outputs.size(); ++i) {
    const Tensor flat = outputs[i].reshape({-1});
    std::vector<tensor_list> rows(inputs.size());  // rows[j][k] = d outputs[i][k] / d inputs[j]
    for (int64_t k = 0; k < flat.numel(); ++k) {
      const tensor_list row = grad_of_differentiable({flat[k]}, inputs, {}, create_graph, /*retain_graph=*/true);
      for (size_t j = 0; j < inputs.size(); ++j) {
        if (row[j].defined()) {
          if (strict && create_graph && !row[j].requires_grad()) {
            throw Error("The jacobian of the user-provided function is independent of input " + std::to_string(i) +
                        ". This is not allowed in strict mode when create_graph=True.");
          }
          rows[j].push_back(row[j]);
        } else {
          if (strict) {
            throw Error("Output " + std::to_string(i) + " of the user-provided function is independent of input " +
                        std::to_string(j) + ". This is not allowed in strict mode.");
          }
          rows[j].push_back(zeros_like(inputs[j]));
        }
      }
    }
    tensor_list per_input;
    for (size_t j = 0; j < inputs.size(); ++j) {
      std::vector<int64_t> shape(outputs[i].sizes().begin(), outputs[i].sizes().end());
      shape.insert(shape.end(), inputs[j].sizes().begin(), inputs[j].sizes().end());
      // An output with no elements has an empty Jacobian, which stack cannot build from no rows.
      per_input.push_back(rows[j].empty() ? zeros(shape, TensorOptions().dtype(inputs[j].dtype()).device(
                                                             inputs[j].device()))
                                          : stack(rows[j]).view(shape));
    }
    jacobian.push_back(without_graph(std::move(per_input), create_graph));
  }
  return jacobian;
}

// `func`'s one output, checked as hessian, vhp and hvp need it.
Tensor single_element_output(const tensor_list& outputs, const char* caller) {
  if (outputs.size() != 1) {
    throw Error(std::string("The function given to ") + caller + " should return a single Tensor");
  }
  if (outputs[0].numel() != 1) {
    throw Error(std::string("The Tensor returned by the function given to ") + caller +
                " should contain a single element");
  }
  return outputs[0];
}

std::vector<tensor_list> hessian_impl(const Function& func, const tensor_list& inputs, bool create_graph,
                                      bool strict) {
  const Function scalar = [&](const tensor_list& in) {
    const tensor_list out = func(in);
    check_requires_grad(out, Checked::Outputs, strict);
    return tensor_list{single_element_output(out, "hessian").squeeze()};
  };
  const Function gradient = [&](const tensor_list& in) {
    tensor_list first = jacobian_impl(scalar, in, /*create_graph=*/true, /*strict=*/false).at(0);
    check_requires_grad(first, Checked::Jacobian, strict);
    return first;
  };
  return jacobian_impl(gradient, inputs, create_graph, strict);
}

// The parts vhp and hvp share: the stand-ins, v, func's output and its gradient, with a graph.
struct SecondOrderStart {
  tensor_list inputs, v, outputs, gradient;
};

SecondOrderStart second_order_start(const Function& func, const tensor_list& inputs_given,
                                    const tensor_list& v_given, bool create_graph, bool strict, Form form,
                                    const char* caller) {
  SecondOrderStart s;
  s.inputs = detail::stand_ins(inputs_given, create_graph, true);
  if (!v_given.empty()) {
    s.v = detail::stand_ins(v_given, create_graph, false);
    check_v(s.v, s.inputs, form == Form::List);
  } else if (s.inputs.size() != 1 || s.inputs[0].numel() != 1) {
    throw Error("The vector v can only be None if the input to the user-provided function is a single Tensor "
                "with a single element.");
  }
  s.outputs = func(s.inputs);
  check_requires_grad(s.outputs, Checked::Outputs, strict);
  single_element_output(s.outputs, caller);
  s.gradient = grad_of_differentiable(s.outputs, s.inputs, {}, /*create_graph=*/true);
  check_requires_grad(s.gradient, Checked::Jacobian, strict);
  return s;
}

std::pair<tensor_list, tensor_list> vhp_impl(const Function& func, const tensor_list& inputs, const tensor_list& v,
                                             bool create_graph, bool strict, Form form) {
  SecondOrderStart s;
  {
    EnableGradGuard enable_grad;
    s = second_order_start(func, inputs, v, create_graph, strict, form, "vhp");
  }
  AutoGradMode mode(create_graph || GradMode::is_enabled());
  tensor_list products = zeros_for_unreached(grad_of_differentiable(s.gradient, s.inputs, s.v, create_graph),
                                             s.inputs, strict, create_graph, Stage::DoubleBack);
  return {without_graph(s.outputs, create_graph), without_graph(products, create_graph)};
}

std::pair<tensor_list, tensor_list> hvp_impl(const Function& func, const tensor_list& inputs, const tensor_list& v,
                                             bool create_graph, bool strict, Form form) {
  SecondOrderStart s;
  tensor_list grad_gradient, double_back;
  {
    EnableGradGuard enable_grad;
    s = second_order_start(func, inputs, v, create_graph, strict, form, "hvp");
    grad_gradient = requires_grad_zeros_like(s.inputs);
    double_back = grad_of_differentiable(s.gradient, s.inputs, grad_gradient, /*create_graph=*/true);
    // PyTorch checks the gradient here, again, and not double_back; so does this, to raise as it does.
    check_requires_grad(s.gradient, Checked::Hessian, strict);
  }
  AutoGradMode mode(create_graph || GradMode::is_enabled());
  tensor_list products = zeros_for_unreached(grad_of_differentiable(double_back, grad_gradient, s.v, create_graph),
                                             s.inputs, strict, create_graph, Stage::DoubleBackTrick);
  return {without_graph(s.outputs, create_graph), without_graph(products, create_graph)};
}

Function over_lists(const TensorFunction& func) {
  return [&func](const tensor_list& in) { return tensor_list{func(in.at(0))}; };
}

tensor_list list_of(const Tensor& t) { return t.defined() ? tensor_list{t} : tensor_list{}; }

std::pair<Tensor, Tensor> single(std::pair<tensor_list, tensor_list> result) {
  return {result.first.at(0), result.second.at(0)};
}

}  // namespace

tensor_list detail::stand_ins(const tensor_list& inputs, bool create_graph, bool need_graph) {
  tensor_list result;
  result.reserve(inputs.size());
  for (const Tensor& input : inputs) {
    if (create_graph && input.requires_grad()) {
      result.push_back(input.view_as(input));
    } else {
      Tensor fresh = input.detach();
      fresh.requires_grad_(need_graph);
      result.push_back(std::move(fresh));
    }
  }
  return result;
}

tensor_list detail::detached(tensor_list tensors) {
  for (Tensor& t : tensors) t = t.defined() ? t.detach() : t;
  return tensors;
}

std::pair<tensor_list, tensor_list> vjp(const Function& func, const tensor_list& inputs, const tensor_list& v,
                                        bool create_graph, bool strict) {
  return vjp_impl(func, inputs, v, create_graph, strict, Form::List);
}
std::pair<Tensor, Tensor> vjp(const TensorFunction& func, const Tensor& input, const Tensor& v, bool create_graph,
                              bool strict) {
  return single(vjp_impl(over_lists(func), {input}, list_of(v), create_graph, strict, Form::Single));
}

std::pair<tensor_list, tensor_list> jvp(const Function& func, const tensor_list& inputs, const tensor_list& v,
                                        bool create_graph, bool strict) {
  return jvp_impl(func, inputs, v, create_graph, strict, Form::List);
}
std::pair<Tensor, Tensor> jvp(const TensorFunction& func, const Tensor& input, const Tensor& v, bool create_graph,
                              bool strict) {
  return single(jvp_impl(over_lists(func), {input}, list_of(v), create_graph, strict, Form::Single));
}

std::vector<tensor_list> jacobian(const Function& func, const tensor_list& inputs, bool create_graph, bool strict) {
  return jacobian_impl(func, inputs, create_graph, strict);
}
Tensor jacobian(const TensorFunction& func, const Tensor& input, bool create_graph, bool strict) {
  return jacobian_impl(over_lists(func), {input}, create_graph, strict).at(0).at(0);
}

std::vector<tensor_list> hessian(const Function& func, const tensor_list& inputs, bool create_graph, bool strict) {
  return hessian_impl(func, inputs, create_graph, strict);
}
Tensor hessian(const TensorFunction& func, const Tensor& input, bool create_graph, bool strict) {
  return hessian_impl(over_lists(func), {input}, create_graph, strict).at(0).at(0);
}

std::pair<tensor_list, tensor_list> vhp(const Function& func, const tensor_list& inputs, const tensor_list& v,
                                        bool create_graph, bool strict) {
  return vhp_impl(func, inputs, v, create_graph, strict, Form::List);
}
std::pair<Tensor, Tensor> vhp(const TensorFunction& func, const Tensor& input, const Tensor& v, bool create_graph,
                              bool strict) {
  return single(vhp_impl(over_lists(func), {input}, list_of(v), create_graph, strict, Form::Single));
}

std::pair<tensor_list, tensor_list> hvp(const Function& func, const tensor_list& inputs, const tensor_list& v,
                                        bool create_graph, bool strict) {
  return hvp_impl(func, inputs, v, create_graph, strict, Form::List);
}
std::pair<Tensor, Tensor> hvp(const TensorFunction& func, const Tensor& input, const Tensor& v, bool create_graph,
                              bool strict) {
  return single(hvp_impl(over_lists(func), {input}, list_of(v), create_graph, strict, Form::Single));
}

}  // namespace ember::autograd::functional
