#pragma once
// Collation: a batch transform from a vector of examples to one batch, as LibTorch's aliases.
#include <vector>

#include "data/transforms/lambda.h"

namespace ember::data::transforms {

template <typename T, typename BatchType = std::vector<T>>
using Collation = BatchTransform<BatchType, T>;

template <typename T, typename BatchType = std::vector<T>>
using Collate = BatchLambda<BatchType, T>;

}  // namespace ember::data::transforms
