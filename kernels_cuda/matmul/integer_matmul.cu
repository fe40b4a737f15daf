// Integer matmul on CUDA: one thread per element of out, a dot product along K in the compute type
// (int32_t for int8 to int32, whose low bits are what a narrower result keeps; int64_t when any operand
// is int64, as the Vulkan kernel computes) with wraparound. Integer products are rare enough that plain
// strided loads serve; floats go to cuBLAS.
#include <cstdint>

#include "kernels_cuda/common/cuda_family.h"
#include "kernels_cuda/common/device_math.cuh"
#include "kernels_cuda/common/strided_index.cuh"
#include "kernels_cuda/common/typed_operands.cuh"
#include "kernels_cuda/matmul/integer_matmul.h"

namespace ember::cuda {

namespace {

// One operand of the product: its data, dtype code and element strides (batch, row, column); a batch
// of one reads with batch stride 0.
struct MatrixOperand {
  const void* data = nullptr;
  int dtype = 0;
  int64_t batch_stride = 0, row_stride = 0, col_stride = 0;
};

MatrixOperand matrix_operand(const TensorRef& ref) {
  MatrixOperand operand;
  operand.data = device_pointer(*ref.allocation, ref.byte_offset);
  operand.dtype = dtype_code(ref.dtype);
  operand.batch_stride = ref.sizes[0] == 1 ? 0 : ref.strides[0];
  operand.row_stride = ref.strides[1];
  operand.col_stride = ref.strides[2];
  return operand;
}

struct IntegerMatmulLaunch {
  MatrixOperand out, a, b, bias;
  int64_t batch, m, n, k;
  bool has_bias;
};

__device__ inline int64_t offset_of(const MatrixOperand& operand, int64_t batch, int64_t row, int64_t col) {
  return batch * operand.batch_stride + row * operand.row_stride + col * operand.col_stride;
}

template <class T>
__global__ void __launch_bounds__(kThreadsPerBlock)
    integer_matmul_kernel(const IntegerMatmulLaunch args, const T alpha, const T beta) {
  const int64_t total = args.batch * args.m * args.n;
  for (int64_t i = first_index(); i < total; i += index_step()) {
    const int64_t col = i % args.n;
    const int64_t row = (i / args.n) % args.m;
    const int64_t batch = i / (args.n * args.m);
    T acc = 0;
    for (int64_t k = 0; k < args.k; ++k) {
      const T a = load_as<T>(args.a.dtype, args.a.data, offset_of(args.a, batch, row, k));
      const T b = load_as<T>(args.b.dtype, args.b.data, offset_of(args.b, batch, k, col));
      acc = wrap_add(acc, wrap_mul(a, b));
    }
    T value = wrap_mul(alpha, acc);
    if (args.has_bias) {
      value = wrap_add(value, wrap_mul(beta, load_as<T>(args.bias.dtype, args.bias.data,
                                                        offset_of(args.bias, batch, row, col))));
    }
    store_as<T>(args.out.dtype, const_cast<void*>(args.out.data), offset_of(args.out, batch, row, col), value);
  }
}

}  // namespace

void integer_matmul(Stream& stream, const MatmulArgs& args) {
  IntegerMatmulLaunch launch{};
  launch.batch = args.out.sizes[0];
  launch.m = args.out.sizes[1];
  launch.n = args.out.sizes[2];
  launch.k = args.a.sizes[2];
  if (launch.batch * launch.m * launch.n == 0) return;
  launch.has_bias = args.bias.has_value() && args.beta != 0.0;
  if (launch.has_bias && !is_integral(args.bias->dtype)) {
    throw Error("matmul kernel: an integer product takes an integer bias, not " +
                std::string(dtype_name(args.bias->dtype)));
  }
  launch.out = matrix_operand(args.out);
  // With K == 0 A and B hold no elements and are never read.
  if (launch.k > 0) {
    launch.a = matrix_operand(args.a);
    launch.b = matrix_operand(args.b);
  }
  if (launch.has_bias) launch.bias = matrix_operand(*args.bias);

  CudaStream& cuda_stream = CudaStream::of(stream);
  ScopedDevice device(cuda_stream.context());
  const bool wide = args.out.dtype == DType::Int64 || (launch.k > 0 && (args.a.dtype == DType::Int64 ||
                                                                        args.b.dtype == DType::Int64)) ||
                    (launch.has_bias && args.bias->dtype == DType::Int64);
  const DType compute = wide ? DType::Int64 : DType::Int32;
  with_compute_type(compute, [&](auto zero) {
    using T = decltype(zero);
    integer_matmul_kernel<T><<<grid_size(launch.batch * launch.m * launch.n), kThreadsPerBlock, 0,
                               cuda_stream.handle()>>>(launch, scalar_as<T>(Scalar(args.alpha)),
                                                      scalar_as<T>(Scalar(args.beta)));
  });
  check_launch(cuda_stream, "the integer matmul kernel's launch");
  cuda_stream.note_dispatch({args.out.allocation, launch.k > 0 ? args.a.allocation : nullptr,
                             launch.k > 0 ? args.b.allocation : nullptr,
                             launch.has_bias ? args.bias->allocation : nullptr});
}

}  // namespace ember::cuda
