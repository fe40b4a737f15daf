#pragma once
// LibTorch-style indices for Tensor::index and index_put_: integers, slices, None, Ellipsis, booleans,
// integer tensors and boolean masks.
#include <cstdint>
#include <optional>
#include <variant>

#include "tensor/tensor.h"

namespace ember::indexing {

// LibTorch's None is c10::nullopt, so it also stands for an absent bound: Slice(None, 3), Slice(1, None).
struct NoneIndex {
  constexpr operator std::optional<int64_t>() const { return std::nullopt; }
};
struct EllipsisIndex {};
inline constexpr NoneIndex None{};
inline constexpr EllipsisIndex Ellipsis{};

// Python's start:stop:step; an absent bound (std::nullopt or None) means the end of the dim.
class Slice {
 public:
  Slice(std::optional<int64_t> start = std::nullopt, std::optional<int64_t> stop = std::nullopt,
        std::optional<int64_t> step = std::nullopt)
      : start_(start), stop_(stop), step_(step.value_or(1)) {}
  std::optional<int64_t> start() const { return start_; }
  std::optional<int64_t> stop() const { return stop_; }
  int64_t step() const { return step_; }

 private:
  std::optional<int64_t> start_, stop_;
  int64_t step_;
};

}  // namespace ember::indexing

namespace ember {

class TensorIndex {
 public:
  TensorIndex(indexing::NoneIndex) : value_(indexing::None) {}
  TensorIndex(indexing::EllipsisIndex) : value_(indexing::Ellipsis) {}
  TensorIndex(int64_t index) : value_(index) {}
  TensorIndex(int index) : value_(static_cast<int64_t>(index)) {}
  TensorIndex(bool value) : value_(value) {}
  TensorIndex(indexing::Slice slice) : value_(slice) {}
  TensorIndex(Tensor tensor) : value_(std::move(tensor)) {}
  TensorIndex(const char* ellipsis);  // "..." as LibTorch accepts

  using Value = std::variant<indexing::NoneIndex, indexing::EllipsisIndex, int64_t, bool, indexing::Slice,
                             Tensor>;
  const Value& value() const { return value_; }

 private:
  Value value_;
};

}  // namespace ember
