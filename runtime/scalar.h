#pragma once
// A host value that kernels receive as an argument (fill value, alpha), like c10::Scalar.
#include <cstdint>
#include <variant>

#include "runtime/dtype.h"

namespace ember {

class Scalar {
 public:
  Scalar() : value_(int64_t{0}) {}
  Scalar(double v) : value_(v) {}
  Scalar(float v) : value_(static_cast<double>(v)) {}
  Scalar(int64_t v) : value_(v) {}
  Scalar(int v) : value_(static_cast<int64_t>(v)) {}
  Scalar(bool v) : value_(v) {}

  double to_double() const;
  int64_t to_int64() const;
  bool is_floating_point() const { return std::holds_alternative<double>(value_); }
  bool is_bool() const { return std::holds_alternative<bool>(value_); }
  bool is_integral() const { return std::holds_alternative<int64_t>(value_); }
  bool to_bool() const { return to_double() != 0.0; }

  // The value converted to `dtype` and returned as that dtype's bit pattern in the low bytes,
  // which is how kernels take fill values of any type through one 64-bit push constant.
  uint64_t bits_as(DType dtype) const;

 private:
  std::variant<double, int64_t, bool> value_;
};

}  // namespace ember
