#pragma once
// The CUDA implementation of ember's kernel interface. Declared with plain C++ types only, so that the
// device (compiled by the host compiler) can own one; the methods live in the .cu file of each kernel.
#include <mutex>

#include "runtime/allocator.h"
#include "runtime/kernels.h"

// cuBLAS's handle type, cublasHandle_t, is a pointer to this; matmul.cu owns the one handle per device.
struct cublasContext;

namespace ember::cuda {

class CudaKernels final : public Kernels {
 public:
  // `allocator` gives reductions their scratch memory; it belongs to the same device and outlives this.
  explicit CudaKernels(CachingAllocator& allocator) : allocator_(allocator) {}
  ~CudaKernels() override;  // matmul.cu: releases the cuBLAS handle
  CudaKernels(const CudaKernels&) = delete;
  CudaKernels& operator=(const CudaKernels&) = delete;
  std::string_view backend_name() const override { return "cuda"; }

  void fill(Stream& stream, const TensorRef& out, Scalar value) override;   // fill.cu
  void copy(Stream& stream, const TensorRef& out, const TensorRef& in) override;  // copy.cu
  void sum(Stream& stream, const TensorRef& out, const TensorRef& in) override;  // sum.cu

  void unary(Stream& stream, UnaryOp op, const TensorRef& out, const TensorRef& in, DType compute,
             Scalar p0, Scalar p1, Scalar p2) override;  // unary.cu
  void binary(Stream& stream, BinaryOp op, const TensorRef& out, const Operand& a, const Operand& b,
              DType compute, Scalar alpha) override;  // binary.cu
  void ternary(Stream& stream, TernaryOp op, const TensorRef& out, const TensorRef& a, const Operand& b,
               const Operand& c, DType compute, Scalar alpha) override;  // ternary.cu
  void sequence(Stream& stream, const TensorRef& out, Scalar start, Scalar step,
                std::optional<Scalar> end) override;  // sequence.cu

  void reduce(Stream& stream, ReduceOp op, const TensorRef* out, const TensorRef* indices,
              const TensorRef& in, uint32_t reduce_mask, DType compute, double param) override;  // reduce.cu
  void scan(Stream& stream, ScanOp op, const TensorRef& out, const TensorRef* indices, const TensorRef& in,
            int dim, DType compute) override;  // scan.cu

  void gather(Stream& stream, const TensorRef& out, const TensorRef& in, int dim,
              const TensorRef& index) override;  // index.cu
  void triangle(Stream& stream, const TensorRef& out, const TensorRef& in, int64_t diagonal,
                bool upper) override;  // index.cu
  void nonzero(Stream& stream, const TensorRef& out, const TensorRef& in,
               const TensorRef& positions) override;  // index.cu
  void scatter(Stream& stream, ScatterMode mode, const TensorRef& out, int dim, const TensorRef& index,
               const Operand& src, Scalar alpha) override;  // scatter.cu

  void matmul(Stream& stream, const MatmulArgs& args) override;  // matmul.cu

  void random(Stream& stream, RandomOp op, const TensorRef& out, PhiloxState state, Scalar p0, Scalar p1,
              const TensorRef* probabilities) override;  // random.cu
  void multinomial(Stream& stream, const TensorRef& out, const TensorRef& cdf,
                   PhiloxState state) override;  // random.cu

 private:
  // The cuBLAS handle of this device, created on first use; the caller holds blas_mutex_ and has made
  // device `device_index` current.
  cublasContext* blas_handle(int device_index);  // matmul.cu

  CachingAllocator& allocator_;
  // Created on the first matmul, on the device of that call's stream; guarded by blas_mutex_, because a
  // cuBLAS handle is bound to one stream at a time.
  std::mutex blas_mutex_;
  cublasContext* blas_handle_ = nullptr;
  int blas_device_ = -1;
};

}  // namespace ember::cuda
