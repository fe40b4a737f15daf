#pragma once
// The CUDA index family (index.cu: gather, triangle, nonzero; scatter.cu; registered in index.cu).
#include "kernels_cuda/common/cuda_family.h"
#include "runtime/kernels/index.h"

namespace ember::cuda {

class CudaIndex final : public IndexKernels {
 public:
  explicit CudaIndex(CudaDevice& device) : device_(device) {}
  void gather(Stream& stream, const GatherArgs& args) override;      // index.cu
  void scatter(Stream& stream, const ScatterArgs& args) override;    // scatter.cu
  void triangle(Stream& stream, const TriangleArgs& args) override;  // index.cu
  void nonzero(Stream& stream, const NonzeroArgs& args) override;    // index.cu

 private:
  CudaDevice& device_;  // its allocator holds scatter's table of claims
};

}  // namespace ember::cuda
