#pragma once
// The CTC recursion on CUDA (ctc_recursion.cu), for CudaLoss.
#include "runtime/kernels/loss.h"

namespace ember::cuda {

void launch_ctc_recursion(Stream& stream, const CtcRecursionArgs& args);

}  // namespace ember::cuda
