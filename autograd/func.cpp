#include "autograd/func.h"

#include <algorithm>
#include <string>

#include "autograd/engine.h"
#include "autograd/functional.h"
#include "autograd/grad_mode.h"
#include "runtime/error.h"
#include "tensor/functions.h"

namespace ember::func {

namespace {

// How many transforms this thread is inside: an inner derivative must keep its graph for the outer.
thread_local int transform_depth = 0;

struct InsideTransform {
  InsideTransform() { ++transform_depth; }
  ~InsideTransform() { --transform_depth; }
  InsideTransform(const InsideTransform&) = delete;
  InsideTransform& operator=(const InsideTransform&) = delete;
};

bool keeps_graph(const tensor_list& args) {
  if (!autograd::GradMode::is_enabled()) return false;
  if (transform_depth > 0) return true;
  return std::any_of(args.begin(), args.end(), [](const Tensor& t) { return t.defined() && t.requires_grad(); });
}

// functorch's checks and messages, and negative argnums counted from the end.
std::vector<size_t> checked_argnums(const std::vector<int64_t>& argnums, size_t arg_count) {
  if (argnums.empty()) throw Error("argnums must be non-empty");
  std::vector<size_t> wrapped;
  for (const int64_t argnum : argnums) {
    const auto count = static_cast<int64_t>(arg_count);
    if (argnum < -count || argnum >= count) {
      throw Error("Got argnum=" + std::to_string(argnum) + ", but only " + std::to_string(arg_count) +
                  " positional inputs");
    }
    wrapped.push_back(static_cast<size_t>(argnum < 0 ? argnum + count : argnum));
  }
  for (size_t i = 0; i < argnums.size(); ++i) {
    for (size_t j = i + 1; j < argnums.size(); ++j) {
      if (argnums[i] != argnums[j]) continue;
      std::string listed = "(";
      for (size_t k = 0; k < argnums.size(); ++k) listed += (k ? ", " : "") + std::to_string(argnums[k]);
      throw Error("argnums elements must be unique, got " + listed + (argnums.size() == 1 ? ",)" : ")"));
    }
  }
  return wrapped;
}

struct GradResult {
  tensor_list gradients;
  Tensor value;
  tensor_list aux;
};

GradResult grad_and_value_with_aux(const FunctionWithAux& f, const std::vector<int64_t>& argnums,
                                   tensor_list args) {
  const std::vector<size_t> wrt = checked_argnums(argnums, args.size());
  const bool keep_graph = keeps_graph(args);
  InsideTransform inside;
  autograd::EnableGradGuard enable_grad;
  tensor_list differentiated;
  for (const size_t k : wrt) differentiated.push_back(args[k]);
  differentiated = autograd::functional::detail::stand_ins(differentiated, keep_graph, /*need_graph=*/true);
  for (size_t j = 0; j < wrt.size(); ++j) args[wrt[j]] = differentiated[j];
  auto [value, aux] = f(args);
  if (value.dim() != 0) {
    throw Error("grad_and_value(f)(*args): Expected f(*args) to return a scalar Tensor, got tensor with " +
                std::to_string(value.dim()) + " dims. Maybe you wanted to use the vjp or jacrev APIs instead?");
  }
  tensor_list gradients(differentiated.size());
  if (value.requires_grad()) {
    gradients = autograd::grad({value}, differentiated, {}, std::nullopt, keep_graph, /*allow_unused=*/true);
  }
  for (size_t k = 0; k < gradients.size(); ++k) {
    if (!gradients[k].defined()) gradients[k] = zeros_like(differentiated[k]);
  }
  if (!keep_graph) {
    return {autograd::functional::detail::detached(gradients), value.detach(),
            autograd::functional::detail::detached(aux)};
  }
  return {gradients, value, aux};
}

FunctionWithAux without_aux(Function f) {
  return [f = std::move(f)](const tensor_list& args) { return std::pair<Tensor, tensor_list>{f(args), {}}; };
}

// The argument lists the list forms take, for the single-tensor forms.
Function over_list(TensorFunction f) {
  return [f = std::move(f)](const tensor_list& args) { return f(args.at(0)); };
}

}  // namespace

ListFunction grad(Function f, std::vector<int64_t> argnums) {
  return [f = without_aux(std::move(f)), argnums = std::move(argnums)](const tensor_list& args) {
    return grad_and_value_with_aux(f, argnums, args).gradients;
  };
}

TensorFunction grad(TensorFunction f) {
  return [g = grad(over_list(std::move(f)), {0})](const Tensor& arg) { return g({arg}).at(0); };
}

std::function<std::pair<tensor_list, Tensor>(const tensor_list&)> grad_and_value(Function f,
                                                                               std::vector<int64_t> argnums) {
  return [f = without_aux(std::move(f)), argnums = std::move(argnums)](const tensor_list& args) {
    GradResult result = grad_and_value_with_aux(f, argnums, args);
    return std::pair<tensor_list, Tensor>{std::move(result.gradients), std::move(result.value)};
  };
}

std::function<std::pair<tensor_list, tensor_list>(const tensor_list&)> grad_with_aux(FunctionWithAux f,
                                                                                   std::vector<int64_t> argnums) {
  return [f = std::move(f), argnums = std::move(argnums)](const tensor_list& args) {
    GradResult result = grad_and_value_with_aux(f, argnums, args);
    return std::pair<tensor_list, tensor_list>{std::move(result.gradients), std::move(result.aux)};
  };
}

std::function<std::vector<tensor_list>(const tensor_list&)> jacrev(ListFunction f, std::vector<int64_t> argnums) {
  return [f = std::move(f), argnums = std::move(argnums)](const tensor_list& args) {
    const std::vector<size_t> wrt = checked_argnums(argnums, args.size());
    const bool keep_graph = keeps_graph(args);
    InsideTransform inside;
    tensor_list differentiated;
    for (const size_t k : wrt) differentiated.push_back(args[k]);
    const autograd::functional::Function over_differentiated = [&](const tensor_list& stand_ins) {
      tensor_list all = args;
      for (size_t j = 0; j < wrt.size(); ++j) all[wrt[j]] = stand_ins[j];
      return f(all);
    };
    return autograd::functional::jacobian(over_differentiated, differentiated, /*create_graph=*/keep_graph);
  };
}

TensorFunction jacrev(TensorFunction f) {
  return [j = jacrev([f = std::move(f)](const tensor_list& args) { return tensor_list{f(args.at(0))}; }, {0})](
             const Tensor& arg) { return j({arg}).at(0).at(0); };
}

std::function<std::vector<tensor_list>(const tensor_list&)> hessian(Function f, std::vector<int64_t> argnums) {
  // The inner Jacobian has one row per argument; the outer one differentiates each row again.
  auto inner = jacrev([f = std::move(f)](const tensor_list& args) { return tensor_list{f(args)}; }, argnums);
  auto outer = jacrev([inner](const tensor_list& args) { return inner(args).at(0); }, argnums);
  return outer;
}

TensorFunction hessian(TensorFunction f) {
  return [h = hessian(over_list(std::move(f)), {0})](const Tensor& arg) { return h({arg}).at(0).at(0); };
}

}  // namespace ember::func
