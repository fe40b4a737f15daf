#pragma once
// Calling a module's forward as Python's __call__ does: forward pre-hooks see (and may replace) the
// tensor arguments, forward hooks see (and may replace) the tensors forward returned. Arguments and
// results that are not tensors pass through; tensors inside tuples, pairs and vectors are visited.
#include <tuple>
#include <type_traits>
#include <utility>
#include <vector>

#include "nn/module.h"

namespace ember::nn::detail {

// Calls `visit(Tensor&)` on each tensor inside `value`, in order.
template <class T, class Visit>
void for_each_tensor(T& value, Visit&& visit) {
  using Plain = std::remove_cv_t<T>;
  if constexpr (std::is_same_v<Plain, Tensor>) {
    visit(value);
  } else if constexpr (requires { std::tuple_size<Plain>::value; }) {
    std::apply([&](auto&... element) { (for_each_tensor(element, visit), ...); }, value);
  } else if constexpr (std::is_same_v<Plain, std::vector<Tensor>>) {
    for (Tensor& t : value) visit(t);
  }
}

template <class T>
tensor_list tensors_in(T& value) {
  tensor_list out;
  for_each_tensor(value, [&](Tensor& t) { out.push_back(t); });
  return out;
}

// Writes `replacements` over the tensors inside `value`; a hook must return as many as it was given.
template <class T>
void replace_tensors(T& value, const tensor_list& replacements, const char* what) {
  size_t next = 0;
  const size_t expected = tensors_in(value).size();
  if (replacements.size() != expected) {
    throw Error(std::string("a forward ") + what + " returned " + std::to_string(replacements.size()) +
                " tensors where the module has " + std::to_string(expected));
  }
  for_each_tensor(value, [&](Tensor& t) { t = replacements[next++]; });
}

template <class M, class... Args>
auto call_forward(M& module, Args&&... args) -> decltype(module.forward(std::forward<Args>(args)...)) {
  if (!module.has_forward_hooks()) return module.forward(std::forward<Args>(args)...);
  std::tuple<std::decay_t<Args>...> arguments(std::forward<Args>(args)...);
  tensor_list inputs = tensors_in(arguments);
  if (auto replaced = module.run_forward_pre_hooks(inputs)) {
    replace_tensors(arguments, *replaced, "pre-hook");
    inputs = std::move(*replaced);
  }
  auto output = std::apply([&](auto&... a) { return module.forward(a...); }, arguments);
  if constexpr (!std::is_void_v<decltype(output)>) {
    if (auto replaced = module.run_forward_hooks(inputs, tensors_in(output))) {
      replace_tensors(output, *replaced, "hook");
    }
  }
  return output;
}

}  // namespace ember::nn::detail
