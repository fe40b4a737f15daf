// random and multinomial: counter-based draws (philox.cuh). Element i of out, in row-major order, uses
// the Philox block at counter state.offset + i, so results depend on (seed, offset, i) only:
//   Uniform    low + unit(word0, word1) * (high - low), rounded to out's dtype; a value that rounds up
//              to high becomes low, as PyTorch's generators return only [low, high)
//   Normal     mean + std * sqrt(-2 log(1 - unit(word0, word1))) * cos(2 pi unit(word2, word3))
//   Bernoulli  unit(word0, word1) < p
//   Exponential  -log1p(-unit(word0, word1)) / lambda
//   Geometric  max(ceil(log(1 - unit(word0, word1)) / log1p(-p)), 1)
//   LogNormal  exp of Normal's draw
//   Cauchy     median + sigma * tan(pi (unit(word0, word1) - 1/2))
//   RandInt    low + ((word1 << 32 | word0) mod (high - low)), a 64-bit draw
//   Randperm   see randperm_kernel
//   multinomial  the first category whose inclusive cdf exceeds unit(word0, word1) * total
// where unit has float's precision (24 bits, from word0 alone), or double's (53 bits) where
// draws_in_double says so.
#include <cstdint>
#include <string>

#include "kernels_cuda/common/cuda_family.h"
#include "kernels_cuda/common/device_math.cuh"
#include "kernels_cuda/common/philox.cuh"
#include "kernels_cuda/common/strided_index.cuh"
#include "kernels_cuda/common/typed_operands.cuh"
#include "runtime/kernels/random.h"
#include "runtime/kernels/random_domain.h"

namespace ember::cuda {

namespace {

struct RandomLaunch {
  uint64_t seed;
  uint64_t offset;
  RandomOp op;
  int out_dtype;
  int probability_dtype;
  bool has_probabilities;
  int64_t int_low;     // RandInt
  uint64_t int_range;  // RandInt: high - low
};

// Box-Muller; the first uniform is taken from (0, 1] so that its log is finite.
template <class A>
__host__ __device__ A standard_normal(uint4 block) {
  const A u1 = A(1) - philox_unit<A>(block.x, block.y);
  const A u2 = philox_unit<A>(block.z, block.w);
  const A two_pi = static_cast<A>(6.283185307179586476925286766559);
  return m_sqrt(A(-2) * m_log(u1)) * m_cos(two_pi * u2);
}

// One floating draw from a Philox block: `low` and `high` are the op's two parameters in A, and
// `probability` Bernoulli's for this element. Every op has a case (-Werror=switch); RandInt and
// Randperm draw integers elsewhere.
template <class A>
__host__ __device__ A floating_draw(RandomOp op, uint4 block, A low, A high, A probability, int out_dtype) {
  switch (op) {
    case RandomOp::Uniform: {
      const A value = as_stored(out_dtype, low + philox_unit<A>(block.x, block.y) * (high - low));
      return value >= high ? low : value;
    }
    case RandomOp::Normal: return low + high * standard_normal<A>(block);
    case RandomOp::Bernoulli: return philox_unit<A>(block.x, block.y) < probability ? A(1) : A(0);
    case RandomOp::Exponential: return -m_log1p(-philox_unit<A>(block.x, block.y)) / low;
    case RandomOp::Geometric: {
      // From 1 - u in (0, 1], whose log is finite; a draw of exactly 1 counts as 1 trial, not 0.
      const A trials = m_ceil(m_log(A(1) - philox_unit<A>(block.x, block.y)) / m_log1p(-low));
      return trials < A(1) ? A(1) : trials;
    }
    case RandomOp::LogNormal: return m_exp(low + high * standard_normal<A>(block));
    case RandomOp::Cauchy: {
      const A pi = static_cast<A>(3.14159265358979323846264338327950);
      return low + high * m_tan(pi * (philox_unit<A>(block.x, block.y) - A(0.5)));
    }
    case RandomOp::RandInt:
    case RandomOp::Randperm: break;
  }
  return A(0);
}

// The host compiler checks the switch above only where it compiles the function: here.
template float floating_draw<float>(RandomOp, uint4, float, float, float, int);

// Operands: out, then the probabilities (Bernoulli with a tensor; otherwise a stand-in never read).
// A is float, or double for float64; low and high are the op's parameters in A.
template <class A>
__global__ void __launch_bounds__(kThreadsPerBlock)
    random_kernel(const __grid_constant__ StridedOperands<2> operands, const RandomLaunch args, const A low,
                  const A high) {
  for (int64_t i = first_index(); i < operands.numel; i += index_step()) {
    int64_t offsets[2];
    element_offsets(operands, i, offsets);
    const uint4 block = philox_block(args.seed, args.offset, static_cast<uint64_t>(i));
    if (args.op == RandomOp::RandInt) {
      const uint64_t bits = (static_cast<uint64_t>(block.y) << 32) | block.x;
      const uint64_t draw = args.int_range == 0 ? 0 : bits % args.int_range;
      const int64_t value = static_cast<int64_t>(static_cast<uint64_t>(args.int_low) + draw);
      store_as<int64_t>(args.out_dtype, operands.data[0], offsets[0], value);
      continue;
    }
    const A probability =
        args.has_probabilities ? load_as<A>(args.probability_dtype, operands.data[1], offsets[1]) : low;
    const A value = floating_draw<A>(args.op, block, low, high, probability, args.out_dtype);
    store_as<A>(args.out_dtype, operands.data[0], offsets[0], value);
  }
}

// A balanced Feistel network on 2 * half_bits bits, keyed by (seed, start): a bijection of
// [0, 2^(2 half_bits)). Round r maps the right half R through the r-th 16 bits of the Philox block at
// counter start + R (words r / 2, low half for even r, high for odd). Six rounds; Luby and Rackoff's
// bound wants four for a pseudorandom permutation.
__host__ __device__ inline uint32_t feistel(uint32_t x, uint32_t half_bits, uint64_t seed, uint64_t start) {
  const uint32_t mask = (1u << half_bits) - 1u;
  uint32_t left = x >> half_bits;
  uint32_t right = x & mask;
  for (int round = 0; round < 6; ++round) {
    const uint4 block = philox_block(seed, start, right);
    const uint32_t words[4] = {block.x, block.y, block.z, block.w};
    const uint32_t word = words[round / 2];
    const uint32_t f = (round % 2 == 0 ? word : word >> 16) & mask;
    const uint32_t next_right = left ^ f;
    left = right;
    right = next_right;
  }
  return (left << half_bits) | right;
}

// out[i] = P(i) for a random permutation P of 0..n-1: the Feistel network restricted to 0..n-1 by cycle
// walking (applied again until the value falls below n), which is a bijection of 0..n-1 because the
// network is one of its whole domain. The domain is the fewest even number of bits covering n, so below
// 4n, and the walk is short. A permutation of n reads blocks start .. start + n - 1 only.
__global__ void __launch_bounds__(kThreadsPerBlock)
    randperm_kernel(const __grid_constant__ StridedOperands<1> out, const int out_dtype, const uint32_t half_bits,
                    const uint64_t seed, const uint64_t start) {
  const auto n = static_cast<uint64_t>(out.numel);
  for (int64_t i = first_index(); i < out.numel; i += index_step()) {
    int64_t offsets[1];
    element_offsets(out, i, offsets);
    uint32_t value = feistel(static_cast<uint32_t>(i), half_bits, seed, start);
    while (value >= n) value = feistel(value, half_bits, seed, start);
    store_as<int64_t>(out_dtype, out.data[0], offsets[0], static_cast<int64_t>(value));
  }
}

// out: rows × samples (coalesced, row-major positions i); cdf: rows × categories.
template <class A>
__global__ void __launch_bounds__(kThreadsPerBlock)
    multinomial_kernel(const __grid_constant__ StridedOperands<1> out, const int out_dtype, const int64_t samples,
                       const void* cdf, const int cdf_dtype, const int64_t row_stride,
                       const int64_t category_stride, const int64_t categories, const uint64_t seed,
                       const uint64_t start) {
  for (int64_t i = first_index(); i < out.numel; i += index_step()) {
    int64_t offsets[1];
    element_offsets(out, i, offsets);
    const uint4 block = philox_block(seed, start, static_cast<uint64_t>(i));
    const int64_t row = (i / samples) * row_stride;
    const A total = load_as<A>(cdf_dtype, cdf, row + (categories - 1) * category_stride);
    const A target = philox_unit<A>(block.x, block.y) * total;
    // A category of zero weight has the cdf of the one before it, so it is never the first to exceed
    // the target; if rounding lets nothing exceed it, the last category is taken.
    int64_t first = 0;
    int64_t last = categories - 1;
    while (first < last) {
      const int64_t middle = first + (last - first) / 2;
      if (load_as<A>(cdf_dtype, cdf, row + middle * category_stride) > target) {
        last = middle;
      } else {
        first = middle + 1;
      }
    }
    store_as<int64_t>(out_dtype, out.data[0], offsets[0], first);
  }
}

class CudaRandom final : public RandomKernels {
 public:
  explicit CudaRandom(CudaDevice&) {}
  void random(Stream& stream, const RandomArgs& args) override;
  void multinomial(Stream& stream, const MultinomialArgs& args) override;
};

void CudaRandom::random(Stream& stream, const RandomArgs& draw) {
  const RandomOp op = draw.op;
  const TensorRef& out = draw.out;
  const PhiloxState state = draw.state;
  const std::array<Scalar, 2> parameters = draw.parameters();
  const Scalar p0 = parameters[0], p1 = parameters[1];
  const TensorRef* probabilities = draw.probabilities ? &*draw.probabilities : nullptr;
  CudaStream& cuda_stream = CudaStream::of(stream);
  ScopedDevice device(cuda_stream.context());
  const int64_t numel = out.numel();
  if (numel == 0) return;

  if (op == RandomOp::Randperm) {
    if (static_cast<uint64_t>(numel) > (uint64_t{1} << 32)) {
      throw UnsupportedError("the cuda backend's randperm takes at most 2^32 elements");
    }
    uint32_t half_bits = 0;
    while ((uint64_t{1} << (2 * half_bits)) < static_cast<uint64_t>(numel)) ++half_bits;
    const auto operands = strided_operands<1>(plan_launch({&out}));
    randperm_kernel<<<grid_size(numel), kThreadsPerBlock, 0, cuda_stream.handle()>>>(
        operands, dtype_code(out.dtype), half_bits, state.seed, state.offset);
    check_launch(cuda_stream, "the randperm kernel's launch");
    cuda_stream.note_dispatch({out.allocation});
    return;
  }

  const bool has_probabilities = op == RandomOp::Bernoulli && probabilities != nullptr;
  if (draws_floats_only(op) && !is_floating_point(out.dtype)) {
    throw UnsupportedError("the cuda backend has no random kernel drawing floats into " +
                           std::string(dtype_name(out.dtype)));
  }
  RandomLaunch args{};
  args.seed = state.seed;
  args.offset = state.offset;
  args.op = op;
  args.out_dtype = dtype_code(out.dtype);
  args.has_probabilities = has_probabilities;
  args.probability_dtype = has_probabilities ? dtype_code(probabilities->dtype) : args.out_dtype;
  if (op == RandomOp::RandInt) {
    args.int_low = p0.to_int64();
    args.int_range = static_cast<uint64_t>(p1.to_int64()) - static_cast<uint64_t>(args.int_low);
  }
  const bool in_double = draws_in_double(op, out.dtype, has_probabilities ? probabilities->dtype : out.dtype);
  TensorRef stand_in = out;
  stand_in.strides.fill(0);
  const LaunchShape shape = plan_launch({&out, has_probabilities ? probabilities : &stand_in});
  const auto operands = strided_operands<2>(shape);
  const auto launch = [&](auto zero) {
    using A = decltype(zero);
    random_kernel<A><<<grid_size(numel), kThreadsPerBlock, 0, cuda_stream.handle()>>>(
        operands, args, static_cast<A>(p0.to_double()), static_cast<A>(p1.to_double()));
  };
  if (in_double) {
    launch(double{});
  } else {
    launch(float{});
  }
  check_launch(cuda_stream, "the random kernel's launch");
  cuda_stream.note_dispatch({out.allocation, has_probabilities ? probabilities->allocation : nullptr});
}

void CudaRandom::multinomial(Stream& stream, const MultinomialArgs& args) {
  const TensorRef& out = args.out;
  const TensorRef& cdf = args.cdf;
  const PhiloxState state = args.state;
  if (out.ndim != 2 || cdf.ndim != 2 || out.sizes[0] != cdf.sizes[0]) {
    throw Error("multinomial kernel: out must be rows × samples and cdf rows × categories");
  }
  if (!is_floating_point(cdf.dtype)) throw Error("multinomial kernel: the cdf must be floating point");
  const int64_t samples = out.sizes[1];
  const int64_t categories = cdf.sizes[1];
  if (out.numel() == 0) return;
  if (categories == 0) throw Error("multinomial kernel: no categories to draw from");
  CudaStream& cuda_stream = CudaStream::of(stream);
  ScopedDevice device(cuda_stream.context());
  const auto operands = strided_operands<1>(plan_launch({&out}));
  const void* cdf_data = device_pointer(*cdf.allocation, cdf.byte_offset);
  const auto launch = [&](auto zero) {
    using A = decltype(zero);
    multinomial_kernel<A><<<grid_size(operands.numel), kThreadsPerBlock, 0, cuda_stream.handle()>>>(
        operands, dtype_code(out.dtype), samples, cdf_data, dtype_code(cdf.dtype), cdf.strides[0], cdf.strides[1],
        categories, state.seed, state.offset);
  };
  if (cdf.dtype == DType::Float64) {
    launch(double{});
  } else {
    launch(float{});
  }
  check_launch(cuda_stream, "the multinomial kernel's launch");
  cuda_stream.note_dispatch({out.allocation, cdf.allocation});
}

}  // namespace

EMBER_CUDA_KERNELS(RandomKernels, CudaRandom);

}  // namespace ember::cuda
