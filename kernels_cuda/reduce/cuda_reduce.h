#pragma once
// The CUDA reduce family (reduce.cu, scan.cu; registered in reduce.cu).
#include "kernels_cuda/common/cuda_family.h"
#include "runtime/kernels/reduce.h"

namespace ember::cuda {

class CudaReduce final : public ReduceKernels {
 public:
  explicit CudaReduce(CudaDevice& device) : device_(device) {}
  void reduce(Stream& stream, const ReduceArgs& args) override;  // reduce.cu
  void scan(Stream& stream, const ScanArgs& args) override;      // scan.cu

 private:
  CudaDevice& device_;  // reductions take their scratch memory from its allocator
};

}  // namespace ember::cuda
