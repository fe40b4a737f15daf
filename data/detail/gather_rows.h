#pragma once
// Gathering a batch of rows of a device tensor on its device. Each run of consecutive indices is one
// buffer copy in stream order: nothing passes through the host, nothing waits, and no kernel binding has
// to reach the whole source (a 60000x784 float32 training set is past lavapipe's 128 MiB binding).
#include <cstddef>

#include "data/example.h"

namespace ember::data::detail {

// source[indices] along dim 0 as a new contiguous tensor; `source` must be contiguous. Throws IndexError
// for an index past source's rows.
Tensor gather_rows(const Tensor& source, ArrayRef<size_t> indices);

}  // namespace ember::data::detail
