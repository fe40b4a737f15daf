#pragma once
// The counts that the data API takes as size_t, as LibTorch does, checked as Python checks its ints: a
// negative int passed there arrives as a huge size_t, so the checks and their messages read it back signed.
#include <cstddef>
#include <cstdint>
#include <limits>
#include <string>

#include "runtime/error.h"

namespace ember::data::detail {

// A size_t past 2^63 - 1 counts nothing real: it is a negative number converted.
inline bool is_negative_converted(size_t count) {
  return count > static_cast<size_t>(std::numeric_limits<int64_t>::max());
}

// Python's ValueError for a batch_size that is zero or negative.
inline void check_batch_size(size_t batch_size) {
  if (batch_size == 0 || is_negative_converted(batch_size)) {
    throw Error("batch_size should be a positive integer value, but got batch_size=" +
                std::to_string(static_cast<int64_t>(batch_size)));
  }
}

}  // namespace ember::data::detail
