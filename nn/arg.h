#pragma once
// EMBER_ARG declares one field of an options struct with LibTorch's accessors, so that options chain as
// in LibTorch: `Conv2dOptions(1, 32, 3).padding(1).bias(false)` sets, `options.padding()` reads.
#include <utility>

#define EMBER_ARG(Type, name)                                              \
 public:                                                                   \
  auto name(const Type& value)->decltype(*this) {                          \
    this->name##_ = value;                                                 \
    return *this;                                                          \
  }                                                                        \
  auto name(Type&& value)->decltype(*this) {                               \
    this->name##_ = std::move(value);                                      \
    return *this;                                                          \
  }                                                                        \
  const Type& name() const noexcept { return this->name##_; }              \
  Type& name() noexcept { return this->name##_; }                          \
                                                                           \
 private:                                                                  \
  Type name##_
