#pragma once
// How many invocations share a row in the row kernels (norm_rows.comp, cross_entropy.comp).
#include <cstdint>

#include "runtime/vulkan/context.h"

namespace ember::vulkan {

// log2 of the invocations that share each of `rows` rows of `length` elements. GPUs: about eight
// elements an invocation, up to a workgroup a row. CPU drivers (lavapipe): a barrier of the tree that
// merges a row's invocations costs as much as many elements, so rows get one invocation each when
// there are enough rows to keep a thousand invocations busy, and only as many more as make up that many.
uint32_t row_lanes_log2(const Context& context, int64_t rows, int64_t length);

}  // namespace ember::vulkan
