// binary: out = a op b for float32. Broadcast operands arrive with zero strides.
#include <cstdint>
#include <string>

#include "kernels_cuda/cuda_kernels.h"
#include "kernels_cuda/strided_index.cuh"

namespace ember::cuda {

namespace {

struct AddOp {
  __device__ float operator()(float a, float b) const { return a + b; }
};
struct MulOp {
  __device__ float operator()(float a, float b) const { return a * b; }
};

// Operand 0 is the output, operands 1 and 2 the inputs.
template <class Op>
__global__ void binary_kernel(const __grid_constant__ StridedOperands<3> operands) {
  float* out = static_cast<float*>(operands.data[0]);
  const float* a = static_cast<const float*>(operands.data[1]);
  const float* b = static_cast<const float*>(operands.data[2]);
  for (int64_t i = first_index(); i < operands.numel; i += index_step()) {
    int64_t offsets[3];
    element_offsets(operands, i, offsets);
    out[offsets[0]] = Op{}(a[offsets[1]], b[offsets[2]]);
  }
}

const char* op_name(BinaryOp op) { return op == BinaryOp::Add ? "add" : "mul"; }

}  // namespace

void CudaKernels::binary(Stream& stream, BinaryOp op, const TensorRef& out, const TensorRef& a,
                         const TensorRef& b) {
  for (const TensorRef* operand : {&out, &a, &b}) {
    if (operand->dtype != DType::Float32) {
      throw UnsupportedError(std::string("the CUDA backend has no binary ") + op_name(op) + " kernel for " +
                             std::string(dtype_name(operand->dtype)) + "; only float32");
    }
  }
  CudaStream& cuda_stream = CudaStream::of(stream);
  ScopedDevice device(cuda_stream.context());
  const LaunchShape shape = plan_launch({&out, &a, &b});
  for_each_window(shape, kMaxDims, UINT64_MAX, [&](const LaunchShape& window) {
    const auto operands = strided_operands<3>(window);
    const unsigned int blocks = grid_size(operands.numel);
    if (op == BinaryOp::Add) {
      binary_kernel<AddOp><<<blocks, kThreadsPerBlock, 0, cuda_stream.handle()>>>(operands);
    } else {
      binary_kernel<MulOp><<<blocks, kThreadsPerBlock, 0, cuda_stream.handle()>>>(operands);
    }
    check_launch(cuda_stream, "the binary kernel's launch");
    cuda_stream.note_dispatch({out.allocation, a.allocation, b.allocation});
  });
}

}  // namespace ember::cuda
