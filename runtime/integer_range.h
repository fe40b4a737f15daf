#pragma once
// The values an integral dtype (or Bool) holds. One table, so that overflow checks, random_'s bounds and
// the host's notes of known values agree on where a dtype wraps.
#include <cstdint>
#include <limits>
#include <utility>

#include "runtime/dtype.h"

namespace ember {

// Lowest and highest value of `dtype`; Bool holds 0 and 1. A floating dtype has no integer range, and
// callers check is_floating_point first: it gets int64's, the widest there is.
constexpr std::pair<int64_t, int64_t> integer_range(DType dtype) {
  switch (dtype) {
    case DType::Int8: return {std::numeric_limits<int8_t>::min(), std::numeric_limits<int8_t>::max()};
    case DType::UInt8: return {0, std::numeric_limits<uint8_t>::max()};
    case DType::Int16: return {std::numeric_limits<int16_t>::min(), std::numeric_limits<int16_t>::max()};
    case DType::Int32: return {std::numeric_limits<int32_t>::min(), std::numeric_limits<int32_t>::max()};
    case DType::Bool: return {0, 1};
    default: return {std::numeric_limits<int64_t>::min(), std::numeric_limits<int64_t>::max()};
  }
}

}  // namespace ember
