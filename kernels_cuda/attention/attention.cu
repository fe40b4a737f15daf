// The attention kernels on CUDA (runtime/kernels/attention.h), one thread per row, the row's vectors held
// in the thread's local arrays:
//   forward_kernel         one thread per query row: the keys stream past under the online softmax, then
//                          out_i = acc / l and lse_i = m + log l
//   backward_query_kernel  one thread per query row: D_i = dO_i·out_i into delta, then dq_i
//   backward_key_kernel    one thread per key row, after the query kernel (it reads delta): dk_j and dv_j
// Each gradient has a single writer, so the backward needs no atomics. Every kernel sums a score's dot
// product in the same order, so that the backward's recomputed scores match the forward's. Arithmetic is
// in A: float for float32, float16 and bfloat16 operands, double for float64.
#include <cstdint>
#include <string>

#include "kernels_cuda/common/cuda_family.h"
#include "kernels_cuda/common/device_math.cuh"
#include "kernels_cuda/common/strided_index.cuh"
#include "kernels_cuda/common/typed_operands.cuh"
#include "runtime/kernels/attention.h"

namespace ember::cuda {

namespace {

// Each thread does a whole row's work, so rows are few next to elements: small blocks spread them over
// more multiprocessors.
constexpr int kRowsPerBlock = 64;
constexpr int kMaxDim = static_cast<int>(kAttentionMaxHeadDim);

struct AttentionLaunch {
  int dtype;  // every floating operand's, the mask's included
  const void* q;
  const void* k;
  const void* v;
  const void* mask;  // null without
  int64_t mask_strides[3];
  void* out;  // written forward, read backward
  void* lse;  // A per query row
  const void* grad_out;
  void* delta;  // A per query row
  void* grad_q;
  void* grad_k;
  void* grad_v;
  int64_t batch, queries, keys, head_dim, value_dim;
  double scale;
  bool causal;
};

template <class A>
__device__ void load_row(A* dst, int dtype, const void* base, int64_t first, int64_t n) {
  for (int64_t c = 0; c < n; ++c) dst[c] = load_as<A>(dtype, base, first + c);
}

// x · the n elements of `base` from `first`, summed in increasing c in every kernel.
template <class A>
__device__ A dot_row(const A* x, int dtype, const void* base, int64_t first, int64_t n) {
  A sum = A(0);
  for (int64_t c = 0; c < n; ++c) sum += x[c] * load_as<A>(dtype, base, first + c);
  return sum;
}

// s_ij from q_i·k_j; the causal -inf never gets here, since the loops stop short of it.
template <class A>
__device__ A score(const AttentionLaunch& p, A dot, int64_t b, int64_t i, int64_t j) {
  A s = A(p.scale) * dot;
  if (p.mask) {
    s += load_as<A>(p.dtype, p.mask, b * p.mask_strides[0] + i * p.mask_strides[1] + j * p.mask_strides[2]);
  }
  return s;
}

// p_ij recomputed from lse_i. As in the Vulkan kernels, a key masked to -inf weighs 0 even in a row whose
// lse is -inf too, where exp(s - lse) would be NaN: such a row adds nothing to dv, while its NaN out still
// makes ds, and so dq and dk, NaN through D_i.
template <class A>
__device__ A weight_of(A s, A lse) {
  return s == -infinity<A>() ? A(0) : m_exp(s - lse);
}

__device__ inline int64_t thread_row() { return static_cast<int64_t>(blockIdx.x) * blockDim.x + threadIdx.x; }

// One past the last key that query row i sees.
__device__ inline int64_t key_end(const AttentionLaunch& p, int64_t i) {
  return (p.causal && i + 1 < p.keys) ? i + 1 : p.keys;
}

template <class A>
__global__ void __launch_bounds__(kRowsPerBlock) forward_kernel(const AttentionLaunch p) {
  const int64_t row = thread_row();
  if (row >= p.batch * p.queries) return;
  const int64_t b = row / p.queries;
  const int64_t i = row - b * p.queries;
  A q[kMaxDim], acc[kMaxDim];
  load_row(q, p.dtype, p.q, row * p.head_dim, p.head_dim);
  for (int64_t c = 0; c < p.value_dim; ++c) acc[c] = A(0);
  A m = -infinity<A>(), l = A(0);
  const int64_t end = key_end(p, i);
  for (int64_t j = 0; j < end; ++j) {
    const int64_t key = b * p.keys + j;
    const A s = score(p, dot_row(q, p.dtype, p.k, key * p.head_dim, p.head_dim), b, i, j);
    // Its weight is 0 whatever m is; skipping it also keeps exp(-inf - (-inf)) = NaN out of a row that has
    // seen only -inf so far.
    if (s == -infinity<A>()) continue;
    // A NaN score becomes the maximum so that it poisons the row, as it does PyTorch's softmax.
    const A m_new = (s > m || is_nan(s)) ? s : m;
    const A rescale = m_exp(m - m_new);
    const A w = m_exp(s - m_new);
    l = l * rescale + w;
    for (int64_t c = 0; c < p.value_dim; ++c) {
      acc[c] = acc[c] * rescale + w * load_as<A>(p.dtype, p.v, key * p.value_dim + c);
    }
    m = m_new;
  }
  // A row whose scores are all -inf, or that has no keys, keeps m = -inf and l = 0: out = 0/0 = NaN and
  // lse = -inf.
  for (int64_t c = 0; c < p.value_dim; ++c) store_as<A>(p.dtype, p.out, row * p.value_dim + c, acc[c] / l);
  static_cast<A*>(p.lse)[row] = m + m_log(l);
}

template <class A>
__global__ void __launch_bounds__(kRowsPerBlock) backward_query_kernel(const AttentionLaunch p) {
  const int64_t row = thread_row();
  if (row >= p.batch * p.queries) return;
  const int64_t b = row / p.queries;
  const int64_t i = row - b * p.queries;
  A q[kMaxDim], grad_out[kMaxDim], dq[kMaxDim];
  load_row(q, p.dtype, p.q, row * p.head_dim, p.head_dim);
  load_row(grad_out, p.dtype, p.grad_out, row * p.value_dim, p.value_dim);
  const A d = dot_row(grad_out, p.dtype, p.out, row * p.value_dim, p.value_dim);
  static_cast<A*>(p.delta)[row] = d;
  const A lse = static_cast<const A*>(p.lse)[row];
  for (int64_t c = 0; c < p.head_dim; ++c) dq[c] = A(0);
  const int64_t end = key_end(p, i);
  for (int64_t j = 0; j < end; ++j) {
    const int64_t key = b * p.keys + j;
    const A s = score(p, dot_row(q, p.dtype, p.k, key * p.head_dim, p.head_dim), b, i, j);
    const A weight = weight_of(s, lse);
    const A ds = weight * (dot_row(grad_out, p.dtype, p.v, key * p.value_dim, p.value_dim) - d);
    for (int64_t c = 0; c < p.head_dim; ++c) dq[c] += ds * load_as<A>(p.dtype, p.k, key * p.head_dim + c);
  }
  const A scale = A(p.scale);
  for (int64_t c = 0; c < p.head_dim; ++c) store_as<A>(p.dtype, p.grad_q, row * p.head_dim + c, scale * dq[c]);
}

template <class A>
__global__ void __launch_bounds__(kRowsPerBlock) backward_key_kernel(const AttentionLaunch p) {
  const int64_t key = thread_row();
  if (key >= p.batch * p.keys) return;
  const int64_t b = key / p.keys;
  const int64_t j = key - b * p.keys;
  A k[kMaxDim], v[kMaxDim], dk[kMaxDim], dv[kMaxDim];
  load_row(k, p.dtype, p.k, key * p.head_dim, p.head_dim);
  load_row(v, p.dtype, p.v, key * p.value_dim, p.value_dim);
  for (int64_t c = 0; c < p.head_dim; ++c) dk[c] = A(0);
  for (int64_t c = 0; c < p.value_dim; ++c) dv[c] = A(0);
  const A* lse = static_cast<const A*>(p.lse);
  const A* delta = static_cast<const A*>(p.delta);
  // Causal: only the rows i >= j see key j.
  for (int64_t i = p.causal ? j : 0; i < p.queries; ++i) {
    const int64_t row = b * p.queries + i;
    const A s = score(p, dot_row(k, p.dtype, p.q, row * p.head_dim, p.head_dim), b, i, j);
    const A weight = weight_of(s, lse[row]);
    const A ds = weight * (dot_row(v, p.dtype, p.grad_out, row * p.value_dim, p.value_dim) - delta[row]);
    for (int64_t c = 0; c < p.value_dim; ++c) {
      dv[c] += weight * load_as<A>(p.dtype, p.grad_out, row * p.value_dim + c);
    }
    for (int64_t c = 0; c < p.head_dim; ++c) dk[c] += ds * load_as<A>(p.dtype, p.q, row * p.head_dim + c);
  }
  const A scale = A(p.scale);
  for (int64_t c = 0; c < p.value_dim; ++c) store_as<A>(p.dtype, p.grad_v, key * p.value_dim + c, dv[c]);
  for (int64_t c = 0; c < p.head_dim; ++c) store_as<A>(p.dtype, p.grad_k, key * p.head_dim + c, scale * dk[c]);
}

void* pointer(const TensorRef& ref) { return device_pointer(*ref.allocation, ref.byte_offset); }

AttentionLaunch common(const TensorRef& q, const TensorRef& k, const TensorRef& v, const TensorRef& out,
                       const std::optional<TensorRef>& mask, const TensorRef& lse, const AttentionShape& shape,
                       double scale, bool causal) {
  AttentionLaunch p{};
  p.dtype = dtype_code(q.dtype);
  p.q = pointer(q);
  p.k = pointer(k);
  p.v = pointer(v);
  p.out = pointer(out);
  p.lse = pointer(lse);
  if (mask) {
    p.mask = pointer(*mask);
    for (int d = 0; d < 3; ++d) p.mask_strides[d] = mask->strides[d];
  }
  p.batch = shape.batch;
  p.queries = shape.queries;
  p.keys = shape.keys;
  p.head_dim = shape.head_dim;
  p.value_dim = shape.value_dim;
  p.scale = scale;
  p.causal = causal;
  return p;
}

// A grid's x dimension holds 2^31 - 1 blocks.
unsigned int block_count(int64_t rows, const char* op) {
  const int64_t blocks = (rows + kRowsPerBlock - 1) / kRowsPerBlock;
  if (blocks > 0x7fffffff) {
    throw UnsupportedError(std::string(op) + ": the cuda kernels take at most " +
                           std::to_string(int64_t{0x7fffffff} * kRowsPerBlock) + " rows, got " + std::to_string(rows));
  }
  return static_cast<unsigned int>(blocks);
}

Allocation* allocation_of(const std::optional<TensorRef>& ref) { return ref ? ref->allocation : nullptr; }

class CudaAttention final : public AttentionKernels {
 public:
  explicit CudaAttention(CudaDevice&) {}
  void attention(Stream& stream, const AttentionArgs& args) override;
  void attention_backward(Stream& stream, const AttentionBackwardArgs& args) override;
};

void CudaAttention::attention(Stream& stream, const AttentionArgs& args) {
  args.check();
  const AttentionShape& shape = args.shape;
  const int64_t rows = shape.batch * shape.queries;
  if (rows == 0) return;
  const unsigned int blocks = block_count(rows, "attention");
  const AttentionLaunch p = common(args.q, args.k, args.v, args.out, args.mask, args.lse, shape, args.scale, args.causal);
  CudaStream& cuda_stream = CudaStream::of(stream);
  ScopedDevice device(cuda_stream.context());
  if (args.q.dtype == DType::Float64) {
    forward_kernel<double><<<blocks, kRowsPerBlock, 0, cuda_stream.handle()>>>(p);
  } else {
    forward_kernel<float><<<blocks, kRowsPerBlock, 0, cuda_stream.handle()>>>(p);
  }
  check_launch(cuda_stream, "the attention kernel's launch");
  cuda_stream.note_dispatch({args.out.allocation, args.q.allocation, args.k.allocation, args.v.allocation,
                             allocation_of(args.mask), args.lse.allocation});
}

void CudaAttention::attention_backward(Stream& stream, const AttentionBackwardArgs& args) {
  args.check();
  const AttentionShape& shape = args.shape;
  const int64_t query_rows = shape.batch * shape.queries;
  const int64_t key_rows = shape.batch * shape.keys;
  const unsigned int query_blocks = block_count(query_rows, "attention_backward");
  const unsigned int key_blocks = block_count(key_rows, "attention_backward");
  AttentionLaunch p = common(args.q, args.k, args.v, args.out, args.mask, args.lse, shape, args.scale, args.causal);
  p.grad_out = pointer(args.grad_out);
  p.delta = pointer(args.delta);
  p.grad_q = pointer(args.grad_q);
  p.grad_k = pointer(args.grad_k);
  p.grad_v = pointer(args.grad_v);
  const bool f64 = args.q.dtype == DType::Float64;
  CudaStream& cuda_stream = CudaStream::of(stream);
  ScopedDevice device(cuda_stream.context());
  // Without query rows the key kernel still runs: it writes grad_k and grad_v as the empty sums, zero.
  if (query_blocks > 0) {
    if (f64) {
      backward_query_kernel<double><<<query_blocks, kRowsPerBlock, 0, cuda_stream.handle()>>>(p);
    } else {
      backward_query_kernel<float><<<query_blocks, kRowsPerBlock, 0, cuda_stream.handle()>>>(p);
    }
    check_launch(cuda_stream, "the attention backward query kernel's launch");
    cuda_stream.note_dispatch({args.grad_q.allocation, args.delta.allocation, args.grad_out.allocation,
                               args.q.allocation, args.k.allocation, args.v.allocation, args.out.allocation,
                               allocation_of(args.mask), args.lse.allocation});
  }
  if (key_blocks > 0) {
    if (f64) {
      backward_key_kernel<double><<<key_blocks, kRowsPerBlock, 0, cuda_stream.handle()>>>(p);
    } else {
      backward_key_kernel<float><<<key_blocks, kRowsPerBlock, 0, cuda_stream.handle()>>>(p);
    }
    check_launch(cuda_stream, "the attention backward key kernel's launch");
    cuda_stream.note_dispatch({args.grad_k.allocation, args.grad_v.allocation, args.delta.allocation,
                               args.grad_out.allocation, args.q.allocation, args.k.allocation, args.v.allocation,
                               allocation_of(args.mask), args.lse.allocation});
  }
}

}  // namespace

EMBER_CUDA_KERNELS(AttentionKernels, CudaAttention);

}  // namespace ember::cuda
