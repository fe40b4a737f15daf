// matmul: out = act(alpha * a @ b + beta * bias) over a batch, through cuBLAS's strided batched GEMM; the
// activation, when asked, is the elementwise kernel run over out afterwards.
//
// cuBLAS is column-major. A row-major view is the column-major view of its transpose, so each operand
// maps to a cuBLAS operand with or without a transpose whenever one of its two inner strides is 1 (and
// the other is a valid leading dimension). The output cannot be transposed in cuBLAS; when it is
// row-major, the call computes out^T = b^T a^T instead. An operand that fits neither layout is first
// copied into contiguous scratch memory with the copy kernel; so is an output, which then gets the
// result copied back.
//
// float16 and bfloat16 multiply in tensor cores with float32 accumulation (reduced-precision reductions
// are disallowed on the handle); float32 computes in float32 without TF32, as PyTorch's default;
// float64 in float64. The bias enters as beta * out after a cast of bias into out; beta == 0 ignores
// the bias entirely, NaN included, because cuBLAS does not read C when beta is 0. Integer products,
// which cuBLAS lacks, run integer_matmul.cu's kernel.
//
// Operands of different floating dtypes (which tensor/ does not send) are what cuBLAS cannot take: a
// and b are first converted into scratch memory in the compute dtype (float64 when any operand is
// float64, else float32, into which float16 and bfloat16 widen exactly), the product and its activation
// run there, and the result is converted into out, as the Vulkan kernel loads each operand from its own
// dtype and stores once.
#include <cublas_v2.h>

#include <climits>
#include <cstdint>
#include <memory>
#include <string>
#include <vector>

#include <mutex>

#include "kernels_cuda/common/cuda_family.h"
#include "kernels_cuda/common/strided_index.cuh"
#include "kernels_cuda/matmul/integer_matmul.h"
#include "runtime/kernels/elementwise.h"
#include "runtime/kernels/matmul.h"
#include "runtime/kernels/memory.h"
#include "runtime/kernels/reduce.h"

namespace ember::cuda {

namespace {

void check_blas(cublasStatus_t status, const char* what) {
  if (status == CUBLAS_STATUS_SUCCESS) return;
  throw Error(std::string(what) + " failed: " + cublasGetStatusString(status));
}

// A matrix in memory as cuBLAS takes it: op(stored) is the logical rows × cols matrix.
struct BlasOperand {
  const void* data = nullptr;
  cublasOperation_t op = CUBLAS_OP_N;
  int64_t ld = 1;
  int64_t batch_stride = 0;
};

// The logical rows × cols matrix whose element (i, j) lies at i * row_stride + j * column_stride, as
// a column-major matrix (op N) or the transpose of one (op T); nullopt when it is neither. Strides of
// dims of size 1 do not matter and are replaced by valid ones.
std::optional<BlasOperand> as_blas(int64_t rows, int64_t cols, int64_t row_stride, int64_t column_stride) {
  const int64_t min_rows = rows > 1 ? rows : 1;
  const int64_t min_cols = cols > 1 ? cols : 1;
  BlasOperand operand;
  if (rows == 1 || row_stride == 1) {
    operand.op = CUBLAS_OP_N;
    operand.ld = cols == 1 ? min_rows : column_stride;
    if (operand.ld >= min_rows) return operand;
  }
  if (cols == 1 || column_stride == 1) {
    operand.op = CUBLAS_OP_T;
    operand.ld = rows == 1 ? min_cols : row_stride;
    if (operand.ld >= min_cols) return operand;
  }
  return std::nullopt;
}

// A matrix operand of the call: batch × rows × cols with its strides.
struct MatrixView {
  TensorRef ref;
  int64_t rows, cols;
  int64_t batch_stride() const { return ref.sizes[0] == 1 ? 0 : ref.strides[0]; }
};

// The view as cuBLAS operand `transposed ? view^T : view`.
std::optional<BlasOperand> as_blas(const MatrixView& view, bool transposed) {
  std::optional<BlasOperand> operand =
      transposed ? as_blas(view.cols, view.rows, view.ref.strides[2], view.ref.strides[1])
                 : as_blas(view.rows, view.cols, view.ref.strides[1], view.ref.strides[2]);
  if (operand) {
    operand->data = device_pointer(*view.ref.allocation, view.ref.byte_offset);
    operand->batch_stride = view.batch_stride();
  }
  return operand;
}

struct BlasTypes {
  cudaDataType data;
  cublasComputeType_t compute;
  bool double_scalars;
};

BlasTypes blas_types(DType dtype) {
  switch (dtype) {
    case DType::Float32: return {CUDA_R_32F, CUBLAS_COMPUTE_32F, false};
    case DType::Float16: return {CUDA_R_16F, CUBLAS_COMPUTE_32F, false};
    case DType::BFloat16: return {CUDA_R_16BF, CUBLAS_COMPUTE_32F, false};
    case DType::Float64: return {CUDA_R_64F, CUBLAS_COMPUTE_64F, true};
    default:
      throw UnsupportedError("the cuda backend has no matmul kernel for " + std::string(dtype_name(dtype)));
  }
}

bool fits_int(int64_t value) { return value >= 0 && value <= INT_MAX; }

// The CUDA matmul family: owns the device's cuBLAS handle.
class CudaMatmul final : public MatmulKernels {
 public:
  explicit CudaMatmul(CudaDevice& device) : device_(device) {}
  ~CudaMatmul() override;
  CudaMatmul(const CudaMatmul&) = delete;
  CudaMatmul& operator=(const CudaMatmul&) = delete;
  void matmul(Stream& stream, const MatmulArgs& args) override;

 private:
  // The floating product without its activation, which apply_activation runs over out afterwards.
  void product(Stream& stream, const MatmulArgs& args);
  // A floating product whose operands differ in dtype, through converted copies (see the top).
  void mixed_product(Stream& stream, const MatmulArgs& args);
  void apply_activation(Stream& stream, MatmulActivation activation, const TensorRef& out);
  ElementwiseKernels& elementwise() const { return device_.kernels().get<ElementwiseKernels>(); }
  // The cuBLAS handle, created on first use; the caller holds blas_mutex_ and has made device
  // `device_index` current.
  cublasHandle_t blas_handle(int device_index);

  CudaDevice& device_;
  // Guards the handle, because a cuBLAS handle is bound to one stream at a time.
  std::mutex blas_mutex_;
  cublasHandle_t blas_handle_ = nullptr;
  int blas_device_ = -1;
};

CudaMatmul::~CudaMatmul() {
  if (blas_handle_ == nullptr) return;
  // Runs from the device's destructor, which must not throw; a lost device or an unloading runtime
  // leaves nothing to release.
  int current = -1;
  if (cudaGetDevice(&current) == cudaSuccess && cudaSetDevice(blas_device_) == cudaSuccess) {
    cublasDestroy(blas_handle_);
    cudaSetDevice(current);
  }
  cudaGetLastError();
}

cublasHandle_t CudaMatmul::blas_handle(int device_index) {
  if (blas_handle_ != nullptr) return blas_handle_;
  cublasHandle_t handle = nullptr;
  check_blas(cublasCreate(&handle), "cublasCreate");
  // float16 and bfloat16 products accumulate in float32 all the way, as the kernel interface promises.
  const cublasStatus_t status =
      cublasSetMathMode(handle, static_cast<cublasMath_t>(CUBLAS_DEFAULT_MATH |
                                                          CUBLAS_MATH_DISALLOW_REDUCED_PRECISION_REDUCTION));
  if (status != CUBLAS_STATUS_SUCCESS) {
    cublasDestroy(handle);
    check_blas(status, "cublasSetMathMode");
  }
  blas_handle_ = handle;
  blas_device_ = device_index;
  return blas_handle_;
}

void CudaMatmul::matmul(Stream& stream, const MatmulArgs& args) {
  if (args.a_row_sums) {  // summed apart, after cuBLAS's product
    MatmulArgs product_only = args;
    product_only.a_row_sums.reset();
    matmul(stream, product_only);
    matmul_row_sums_by_reduction(device_.kernels().get<ReduceKernels>(), stream, args);
    return;
  }
  const TensorRef& out = args.out;
  if (out.ndim != 3 || args.a.ndim != 3 || args.b.ndim != 3) {
    throw Error("matmul kernel: out, a and b must each have one batch dim and two matrix dims");
  }
  // Each operand may have its own dtype, as in the Vulkan kernel; only integers and floats do not mix.
  // (A bool out goes on to blas_types, which refuses it.)
  const bool integer = is_integral(out.dtype);
  const bool floating = is_floating_point(out.dtype);
  for (const TensorRef* ref : {&args.a, &args.b}) {
    if ((integer && !is_integral(ref->dtype)) || (floating && !is_floating_point(ref->dtype))) {
      throw Error("matmul kernel: integer and floating operands do not mix (out is " +
                  std::string(dtype_name(out.dtype)) + ", an operand is " + std::string(dtype_name(ref->dtype)) +
                  ")");
    }
  }
  const int64_t batch = out.sizes[0];
  const int64_t m = out.sizes[1];
  const int64_t n = out.sizes[2];
  const int64_t k = args.a.sizes[2];
  if (args.a.sizes[1] != m || args.b.sizes[1] != k || args.b.sizes[2] != n ||
      (args.a.sizes[0] != batch && args.a.sizes[0] != 1) || (args.b.sizes[0] != batch && args.b.sizes[0] != 1)) {
    throw Error("matmul kernel: operand sizes do not match");
  }
  if (batch == 0 || m == 0 || n == 0) return;
  if (integer) {
    if (args.activation != MatmulActivation::None) {
      throw Error("matmul kernel: an activation epilogue takes floating operands, not " +
                  std::string(dtype_name(out.dtype)));
    }
    integer_matmul(stream, args);
    return;
  }
  if (args.a.dtype != out.dtype || args.b.dtype != out.dtype) {
    mixed_product(stream, args);
    return;
  }
  product(stream, args);
  if (args.activation != MatmulActivation::None) apply_activation(stream, args.activation, out);
}

void CudaMatmul::mixed_product(Stream& stream, const MatmulArgs& args) {
  const TensorRef& out = args.out;
  const bool use_bias = args.bias.has_value() && args.beta != 0.0;
  const bool wide = out.dtype == DType::Float64 || args.a.dtype == DType::Float64 ||
                    args.b.dtype == DType::Float64 || (use_bias && args.bias->dtype == DType::Float64);
  const DType compute = wide ? DType::Float64 : DType::Float32;
  std::vector<std::shared_ptr<Allocation>> scratch;  // released to this stream's cache after the launches
  // `ref` in the compute dtype: itself, or a contiguous converted copy (a broadcast batch converted once).
  const auto converted = [&](const TensorRef& ref) {
    if (ref.dtype == compute) return ref;
    TensorRef source = ref;
    if (source.sizes[0] == 1 || source.strides[0] == 0) source.sizes[0] = 1;
    scratch.push_back(device_.allocator().allocate(static_cast<uint64_t>(source.numel()) * element_size(compute),
                                                   stream.shared_from_this()));
    const TensorRef copy =
        TensorRef::contiguous(*scratch.back(), compute, {source.sizes[0], source.sizes[1], source.sizes[2]});
    elementwise().unary(stream, {.op = UnaryOp::Cast, .out = copy, .in = source, .compute = compute});
    return copy;
  };
  MatmulArgs inner = args;
  inner.activation = MatmulActivation::None;
  if (args.a.sizes[2] > 0) {  // with K == 0, A and B are never read
    inner.a = converted(args.a);
    inner.b = converted(args.b);
  } else {
    inner.a.dtype = compute;
    inner.b.dtype = compute;
  }
  if (out.dtype != compute) {
    scratch.push_back(device_.allocator().allocate(static_cast<uint64_t>(out.numel()) * element_size(compute),
                                                   stream.shared_from_this()));
    inner.out = TensorRef::contiguous(*scratch.back(), compute, {out.sizes[0], out.sizes[1], out.sizes[2]});
  }
  product(stream, inner);
  if (args.activation != MatmulActivation::None) apply_activation(stream, args.activation, inner.out);
  if (out.dtype != compute) {
    elementwise().unary(stream, {.op = UnaryOp::Cast, .out = out, .in = inner.out, .compute = out.dtype});
  }
}

void CudaMatmul::apply_activation(Stream& stream, MatmulActivation activation, const TensorRef& out) {
  const UnaryOp op = activation == MatmulActivation::Relu   ? UnaryOp::Relu
                     : activation == MatmulActivation::Gelu ? UnaryOp::Gelu
                                                            : UnaryOp::GeluTanh;
  const DType compute = out.dtype == DType::Float64 ? DType::Float64 : DType::Float32;
  elementwise().unary(stream, {.op = op, .out = out, .in = out, .compute = compute});
}

// alpha * a @ b + beta * bias into out, for floating operands.
void CudaMatmul::product(Stream& stream, const MatmulArgs& args) {
  MemoryKernels& memory = device_.kernels().get<MemoryKernels>();
  const TensorRef& out = args.out;
  const int64_t batch = out.sizes[0], m = out.sizes[1], n = out.sizes[2], k = args.a.sizes[2];
  const BlasTypes types = blas_types(out.dtype);
  const bool use_bias = args.bias.has_value() && args.beta != 0.0;
  if (k == 0) {
    // Nothing to multiply: out = beta * bias, or zeros.
    if (use_bias) {
      elementwise().binary(stream, {.op = BinaryOp::Mul, .out = out, .a = *args.bias, .b = Scalar(args.beta),
                                    .compute = out.dtype});
    } else {
      memory.fill(stream, {out, Scalar(0)});
    }
    return;
  }
  if (!fits_int(batch) || !fits_int(m) || !fits_int(n) || !fits_int(k)) {
    throw UnsupportedError("the cuda backend's matmul takes sizes below 2^31");
  }

  CudaStream& cuda_stream = CudaStream::of(stream);
  ScopedDevice device(cuda_stream.context());
  std::vector<std::shared_ptr<Allocation>> scratch;  // released to this stream's cache after the launch
  // A contiguous copy of view in scratch memory; a broadcast batch is copied once.
  const auto contiguous_copy = [&](const TensorRef& ref) {
    TensorRef source = ref;
    if (source.sizes[0] == 1 || source.strides[0] == 0) source.sizes[0] = 1;
    const uint64_t bytes = static_cast<uint64_t>(source.numel()) * element_size(ref.dtype);
    scratch.push_back(device_.allocator().allocate(bytes, stream.shared_from_this()));
    TensorRef copy_ref =
        TensorRef::contiguous(*scratch.back(), ref.dtype, {source.sizes[0], source.sizes[1], source.sizes[2]});
    memory.copy(stream, {copy_ref, source});
    return copy_ref;
  };

  // The output: column-major as it is, or row-major computed as out^T.
  TensorRef target = out;
  bool transposed = false;
  std::optional<BlasOperand> c = as_blas(MatrixView{target, m, n}, false);
  if (!c || c->op != CUBLAS_OP_N) {
    c = as_blas(MatrixView{target, m, n}, true);
    transposed = true;
  }
  const bool out_in_scratch = !c || c->op != CUBLAS_OP_N || (batch > 1 && out.strides[0] == 0);
  if (out_in_scratch) {
    scratch.push_back(device_.allocator().allocate(static_cast<uint64_t>(out.numel()) * element_size(out.dtype),
                                          stream.shared_from_this()));
    target = TensorRef::contiguous(*scratch.back(), out.dtype, {batch, m, n});
    c = as_blas(MatrixView{target, m, n}, true);
    transposed = true;
  }
  if (use_bias) {
    elementwise().unary(stream, {.op = UnaryOp::Cast, .out = target, .in = *args.bias, .compute = target.dtype});
  }

  // cuBLAS computes C (rows × cols, column-major) = op(X) op(Y) with X rows × inner and Y inner × cols.
  const MatrixView first = transposed ? MatrixView{args.b, k, n} : MatrixView{args.a, m, k};
  const MatrixView second = transposed ? MatrixView{args.a, m, k} : MatrixView{args.b, k, n};
  TensorRef x_ref = first.ref;
  std::optional<BlasOperand> x = as_blas(first, transposed);
  if (!x) {
    x_ref = contiguous_copy(first.ref);
    x = as_blas(MatrixView{x_ref, first.rows, first.cols}, transposed);
  }
  TensorRef y_ref = second.ref;
  std::optional<BlasOperand> y = as_blas(second, transposed);
  if (!y) {
    y_ref = contiguous_copy(second.ref);
    y = as_blas(MatrixView{y_ref, second.rows, second.cols}, transposed);
  }
  if (!fits_int(x->ld) || !fits_int(y->ld) || !fits_int(c->ld)) {
    throw UnsupportedError("the cuda backend's matmul takes strides below 2^31");
  }

  const int64_t rows = transposed ? n : m;
  const int64_t cols = transposed ? m : n;
  const float alpha_f = static_cast<float>(args.alpha);
  const float beta_f = use_bias ? static_cast<float>(args.beta) : 0.0f;
  const double alpha_d = args.alpha;
  const double beta_d = use_bias ? args.beta : 0.0;
  const void* alpha = types.double_scalars ? static_cast<const void*>(&alpha_d) : &alpha_f;
  const void* beta = types.double_scalars ? static_cast<const void*>(&beta_d) : &beta_f;
  void* c_data = device_pointer(*target.allocation, target.byte_offset);
  {
    std::lock_guard lock(blas_mutex_);
    cublasHandle_t handle = blas_handle(cuda_stream.context().index());
    check_blas(cublasSetStream(handle, cuda_stream.handle()), "cublasSetStream");
    check_blas(cublasGemmStridedBatchedEx(handle, x->op, y->op, static_cast<int>(rows), static_cast<int>(cols),
                                          static_cast<int>(k), alpha, x->data, types.data, static_cast<int>(x->ld),
                                          x->batch_stride, y->data, types.data, static_cast<int>(y->ld),
                                          y->batch_stride, beta, c_data, types.data, static_cast<int>(c->ld),
                                          target.strides[0], static_cast<int>(batch), types.compute,
                                          CUBLAS_GEMM_DEFAULT),
               "cublasGemmStridedBatchedEx");
  }
  check_launch(cuda_stream, "the matmul kernel's launch");
  cuda_stream.note_dispatch({target.allocation, x_ref.allocation, y_ref.allocation});
  if (out_in_scratch) memory.copy(stream, {out, target});
}

}  // namespace

EMBER_CUDA_KERNELS(MatmulKernels, CudaMatmul);

}  // namespace ember::cuda
