#pragma once
// ExpandingArray<D>: a kernel size, stride or padding given either as one value for every spatial dim or
// as D values, as LibTorch's options take them (`kernel_size(3)` or `kernel_size({3, 5})`).
#include <algorithm>
#include <array>
#include <cstdint>
#include <initializer_list>
#include <optional>
#include <string>
#include <vector>

#include "runtime/error.h"
#include "tensor/types.h"

namespace ember {

template <size_t D, class T = int64_t>
class ExpandingArray {
 public:
  ExpandingArray(T single) { values_.fill(single); }
  ExpandingArray(std::initializer_list<T> list) : ExpandingArray(std::vector<T>(list)) {}
  ExpandingArray(const std::array<T, D>& values) : values_(values) {}
  ExpandingArray(const std::vector<T>& values) {
    if (values.size() != D) {
      throw Error("Expected " + std::to_string(D) + " values, but instead got " + std::to_string(values.size()));
    }
    std::copy(values.begin(), values.end(), values_.begin());
  }

  static constexpr size_t size() { return D; }
  const T& operator[](size_t i) const { return values_[i]; }
  T& operator[](size_t i) { return values_[i]; }
  const T* data() const { return values_.data(); }
  const T* begin() const { return values_.data(); }
  const T* end() const { return values_.data() + D; }
  const std::array<T, D>& operator*() const { return values_; }
  const std::array<T, D>* operator->() const { return &values_; }
  std::vector<T> vec() const { return {values_.begin(), values_.end()}; }
  operator IntArrayRef() const
    requires std::is_same_v<T, int64_t>
  {
    return IntArrayRef(values_.data(), D);
  }
  bool operator==(const ExpandingArray& other) const = default;

 private:
  std::array<T, D> values_{};
};

// Output sizes where a missing entry keeps the input's size (AdaptiveMaxPool2d({std::nullopt, 7})).
template <size_t D>
using ExpandingArrayWithOptionalElem = ExpandingArray<D, std::optional<int64_t>>;

}  // namespace ember
