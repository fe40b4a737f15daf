#pragma once
// The CTC kernels on CUDA (ctc_recursion.cu), for CudaLoss.
#include "runtime/cuda/cuda_device.h"
#include "runtime/kernels/loss.h"

namespace ember::cuda {

void launch_ctc_recursion(Stream& stream, const CtcRecursionArgs& args);
void launch_ctc_gradient(CudaDevice& device, Stream& stream, const CtcGradientArgs& args);

}  // namespace ember::cuda
