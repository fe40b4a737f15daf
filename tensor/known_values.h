#pragma once
// What the host knows about an integer tensor's values without reading the device back.
//
// Index ops and the losses check their indices against a bound, and on a device that check is a read-back:
// the host waits for every kernel recorded before it, and the device then idles while the host records
// what follows. Where the host produced the values itself (an upload from host memory, an arange, a randint), it
// already knows their bounds. The knowledge lives on the storage and holds while the storage's version
// (bumped by every in-place write) is the one it was noted at; memory handed to another API (DLPack, a
// graphics application) is forgotten, since writes there bump nothing.
#include <cstdint>
#include <optional>

#include "tensor/tensor.h"

namespace ember::detail {

// The values of the first `count` elements of a storage, read as `dtype`: all within [min, max], and
// where `exact`, both bounds are values that occur.
struct KnownValues {
  DType dtype = DType::Int64;
  int64_t min = 0;
  int64_t max = 0;
  int64_t count = 0;
  bool exact = false;
  uint64_t version = 0;
};

// Notes the bounds of a tensor just written whole (its storage's first numel() elements, contiguous).
// Integer dtypes only; others are ignored.
void note_uploaded_values(const Tensor& written, const void* host_elements);
// `exact`: min and max both occur (an arange's ends), else a bound (randint's).
void note_value_range(const Tensor& written, int64_t min, int64_t max, bool exact);
// Carries what is known of `source`'s values to `copy`, a whole new tensor just copied from it (a clone, a
// cast to another integer dtype that holds them all).
void note_copied_values(const Tensor& copy, const Tensor& source);
// Drops what is known about the storage: its memory was handed to someone who may write it.
void forget_known_values(const Tensor& tensor);

// Whether every element of `tensor` is known to lie within [min, max].
bool known_within(const Tensor& tensor, int64_t min, int64_t max);
// The exact min and max of `tensor`'s elements, where its elements are all those noted.
std::optional<std::pair<int64_t, int64_t>> known_exact_range(const Tensor& tensor);

}  // namespace ember::detail
