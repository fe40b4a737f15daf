#pragma once
// Example<Data, Target>: one sample, or one collated batch, as LibTorch's torch::data::Example is.
// Example<Data, NoTarget> (TensorExample for tensors) holds data only and converts to it.
#include <span>
#include <utility>

#include "tensor/tensor.h"

namespace ember::data {

// The index lists samplers hand to datasets, as LibTorch's ArrayRef<size_t>: a view, not an owner.
template <class T>
using ArrayRef = std::span<const T>;

template <typename Data = Tensor, typename Target = Tensor>
struct Example {
  using DataType = Data;
  using TargetType = Target;

  Example() = default;
  Example(Data data, Target target) : data(std::move(data)), target(std::move(target)) {}

  Data data;
  Target target;
};

namespace example {
using NoTarget = void;
}  // namespace example

template <typename Data>
struct Example<Data, example::NoTarget> {
  using DataType = Data;
  using TargetType = example::NoTarget;

  Example() = default;
  /* implicit */ Example(Data data) : data(std::move(data)) {}

  operator Data&() { return data; }
  operator const Data&() const { return data; }

  Data data;
};

using TensorExample = Example<Tensor, example::NoTarget>;

}  // namespace ember::data
