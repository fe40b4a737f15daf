#include "runtime/scalar.h"

#include <bit>
#include <cstring>

#include "runtime/half.h"

namespace ember {

double Scalar::to_double() const {
  return std::visit([](auto v) { return static_cast<double>(v); }, value_);
}

int64_t Scalar::to_int64() const {
  return std::visit([](auto v) { return static_cast<int64_t>(v); }, value_);
}

uint64_t Scalar::bits_as(DType dtype) const {
  switch (dtype) {
    case DType::Float32: return std::bit_cast<uint32_t>(static_cast<float>(to_double()));
    case DType::Float64: return std::bit_cast<uint64_t>(to_double());
    case DType::Float16: return float_to_half_bits(static_cast<float>(to_double()));
    case DType::BFloat16: return float_to_bfloat16_bits(static_cast<float>(to_double()));
    case DType::Int8: return static_cast<uint8_t>(static_cast<int8_t>(to_int64()));
    case DType::UInt8: return static_cast<uint8_t>(to_int64());
    case DType::Int16: return static_cast<uint16_t>(static_cast<int16_t>(to_int64()));
    case DType::Int32: return static_cast<uint32_t>(static_cast<int32_t>(to_int64()));
    case DType::Int64: return static_cast<uint64_t>(to_int64());
    case DType::Bool: return to_double() != 0.0 ? 1u : 0u;
  }
  return 0;
}

}  // namespace ember
