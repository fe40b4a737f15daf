#pragma once
// Stack: collates examples into one by stacking their tensors along a new dim 0, as LibTorch's. The rows
// of a batch that a dataset built at once come back as that batch, without a copy
// (data/batch_rows.h). DefaultCollate is the DataLoader's default: Stack for vectors of
// Example<> or TensorExample, and a batch that is no vector (already collated) passes through.
#include <type_traits>
#include <utility>
#include <vector>

#include "data/batch_rows.h"
#include "data/example.h"
#include "data/transforms/collate.h"

namespace ember::data::transforms {

template <typename T = Example<>>
struct Stack;

template <>
struct Stack<Example<>> : public Collation<Example<>> {
  Example<> apply_batch(std::vector<Example<>> examples) override {
    std::vector<Tensor> data, targets;
    data.reserve(examples.size());
    targets.reserve(examples.size());
    for (auto& example : examples) {
      data.push_back(std::move(example.data));
      targets.push_back(std::move(example.target));
    }
    examples.clear();
    return {data::detail::stack_rows(data), data::detail::stack_rows(targets)};
  }
};

template <>
struct Stack<TensorExample> : public Collation<Example<Tensor, example::NoTarget>> {
  TensorExample apply_batch(std::vector<TensorExample> examples) override {
    std::vector<Tensor> data;
    data.reserve(examples.size());
    for (auto& example : examples) data.push_back(std::move(example.data));
    examples.clear();
    return data::detail::stack_rows(data);
  }
};

namespace detail {
template <typename T>
struct is_vector : std::false_type {};
template <typename T>
struct is_vector<std::vector<T>> : std::true_type {};
template <typename T>
inline constexpr bool dependent_false = false;
}  // namespace detail

struct DefaultCollate {
  template <typename Batch>
  auto operator()(Batch batch) const {
    if constexpr (std::is_same_v<Batch, std::vector<Example<>>>) {
      return Stack<Example<>>().apply_batch(std::move(batch));
    } else if constexpr (std::is_same_v<Batch, std::vector<TensorExample>>) {
      return Stack<TensorExample>().apply_batch(std::move(batch));
    } else if constexpr (detail::is_vector<Batch>::value) {
      static_assert(detail::dependent_false<Batch>,
                    "the default collate stacks Example<> and TensorExample only: give the DataLoader "
                    "a collate function for these examples");
    } else {
      return batch;
    }
  }
};

}  // namespace ember::data::transforms
