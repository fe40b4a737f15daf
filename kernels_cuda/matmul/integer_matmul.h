#pragma once
// Integer products for the CUDA matmul family, which cuBLAS does not offer: out = alpha * a @ b + beta *
// bias with two's-complement wraparound, as PyTorch's CPU computes them (integer_matmul.cu).
#include "runtime/kernels/matmul.h"

namespace ember::cuda {

// out, a and b are integers (checked by the caller), each loaded from its own dtype; bias, when beta != 0,
// may be any integer dtype. alpha and beta are truncated toward zero, as PyTorch converts them for
// integers.
void integer_matmul(Stream& stream, const MatmulArgs& args);

}  // namespace ember::cuda
