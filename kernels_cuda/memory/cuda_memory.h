#pragma once
// The CUDA memory family (fill.cu, copy.cu; registered in fill.cu).
#include "kernels_cuda/common/cuda_family.h"
#include "runtime/kernels/memory.h"

namespace ember::cuda {

class CudaMemory final : public MemoryKernels {
 public:
  explicit CudaMemory(CudaDevice&) {}
  void fill(Stream& stream, const FillArgs& args) override;  // fill.cu
  void copy(Stream& stream, const CopyArgs& args) override;  // copy.cu
};

}  // namespace ember::cuda
