#pragma once
// The CUDA implementation of ember's kernel interface. Declared with plain C++ types only, so that the
// device (compiled by the host compiler) can own one; the methods live in the .cu file of each kernel.
#include "runtime/allocator.h"
#include "runtime/kernels.h"

namespace ember::cuda {

class CudaKernels final : public Kernels {
 public:
  // `allocator` gives reductions their scratch memory; it belongs to the same device and outlives this.
  explicit CudaKernels(CachingAllocator& allocator) : allocator_(allocator) {}
  std::string_view backend_name() const override { return "cuda"; }

  void fill(Stream& stream, const TensorRef& out, Scalar value) override;   // fill.cu
  void copy(Stream& stream, const TensorRef& out, const TensorRef& in) override;  // copy.cu
  void sum(Stream& stream, const TensorRef& out, const TensorRef& in) override;  // sum.cu

 private:
  CachingAllocator& allocator_;
};

}  // namespace ember::cuda
