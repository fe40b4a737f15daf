// The dropout kernels on CUDA (runtime/kernels/dropout.h): block k of 256 threads takes elements
// [8192 k, 8192 (k + 1)), thread l its elements 1024 j + 4 l + q, whose keep bits are word l of the
// block's 256 mask words; the draw of element i is word i % 4 of the Philox block at offset + i / 4,
// as on every backend. Both modes write out = in * (kept ? scale : 0).
#include <cstdint>

#include "kernels_cuda/common/cuda_family.h"
#include "kernels_cuda/common/philox.cuh"
#include "kernels_cuda/common/strided_index.cuh"
#include "kernels_cuda/common/typed_operands.cuh"
#include "runtime/kernels/dropout.h"

namespace ember::cuda {

namespace {

struct DropoutLaunch {
  bool draw;  // else apply the mask
  void* out;
  const void* in;
  uint32_t* mask;
  int dtype;
  int64_t numel;
  int64_t blocks;
  uint64_t seed, offset;
  float keep;
  double scale;
};

template <class A>
__global__ void __launch_bounds__(kThreadsPerBlock) dropout_kernel(const DropoutLaunch p) {
  const int64_t lane = threadIdx.x;
  const A scale = static_cast<A>(p.scale);
  for (int64_t block = blockIdx.x; block < p.blocks; block += gridDim.x) {
    const int64_t word = block * kThreadsPerBlock + lane;
    uint32_t bits = p.draw ? 0u : p.mask[word];
    for (int j = 0; j < 8; ++j) {
      const int64_t first = block * 8192 + j * 1024 + lane * 4;
      if (first >= p.numel) break;
      uint4 draws = make_uint4(0u, 0u, 0u, 0u);
      if (p.draw) draws = philox_block(p.seed, p.offset, static_cast<uint64_t>(first / 4));
      const uint32_t words[4] = {draws.x, draws.y, draws.z, draws.w};
      for (int q = 0; q < 4 && first + q < p.numel; ++q) {
        const uint32_t bit = 1u << (j * 4 + q);
        if (p.draw && philox_unit<float>(words[q], 0u) < p.keep) bits |= bit;
        const A factor = (bits & bit) != 0u ? scale : A(0);
        store_as<A>(p.dtype, p.out, first + q, load_as<A>(p.dtype, p.in, first + q) * factor);
      }
    }
    if (p.draw) p.mask[word] = bits;
  }
}

class CudaDropout final : public DropoutKernels {
 public:
  explicit CudaDropout(CudaDevice&) {}
  void dropout(Stream& stream, const DropoutArgs& args) override {
    args.check();
    launch(stream, true, args.out, args.in, args.mask, 1.0 / (1.0 - args.p), 1.0 - args.p, args.state);
  }
  void apply_mask(Stream& stream, const DropoutMaskArgs& args) override {
    args.check();
    launch(stream, false, args.out, args.in, args.mask, args.scale, 0, {});
  }

 private:
  void launch(Stream& stream, bool draw, const TensorRef& out, const TensorRef& in, const TensorRef& mask, double scale,
              double keep, PhiloxState state) {
    const int64_t numel = in.numel();
    if (numel == 0) return;
    CudaStream& cuda_stream = CudaStream::of(stream);
    ScopedDevice device(cuda_stream.context());
    DropoutLaunch p{};
    p.draw = draw;
    p.out = device_pointer(*out.allocation, out.byte_offset);
    p.in = device_pointer(*in.allocation, in.byte_offset);
    p.mask = static_cast<uint32_t*>(device_pointer(*mask.allocation, mask.byte_offset));
    p.dtype = dtype_code(in.dtype);
    p.numel = numel;
    p.blocks = (numel + 8191) / 8192;
    p.seed = state.seed;
    p.offset = state.offset;
    p.keep = static_cast<float>(keep);
    p.scale = scale;
    const unsigned int blocks = static_cast<unsigned int>(p.blocks < kMaxBlocks ? p.blocks : kMaxBlocks);
    if (in.dtype == DType::Float64) {
      dropout_kernel<double><<<blocks, kThreadsPerBlock, 0, cuda_stream.handle()>>>(p);
    } else {
      dropout_kernel<float><<<blocks, kThreadsPerBlock, 0, cuda_stream.handle()>>>(p);
    }
    check_launch(cuda_stream, "the dropout kernel's launch");
    cuda_stream.note_dispatch({out.allocation, in.allocation, mask.allocation});
  }
};

}  // namespace

EMBER_CUDA_KERNELS(DropoutKernels, CudaDropout);

}  // namespace ember::cuda
