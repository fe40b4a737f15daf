// The dropout kernels' contract: which elements are kept follows from (seed, offset, index) alone, as
// Philox4x32-10 computed here on the host says; the mask's bits sit where runtime/kernels/dropout.h puts
// them; a launch from a later block with the offset moved on reproduces the tail of a longer one;
// apply_mask scales what the mask keeps; every floating dtype, in place; and the argument checks.
#include <ATen/ATen.h>

#include <cstring>
#include <string>

#include "runtime/error.h"
#include "runtime/kernels/dropout.h"
#include "tests/oracle.h"

namespace ember::test {
namespace {

// Philox4x32-10 (Salmon et al., SC 2011) on the host: the 128-bit counter `start + index` under the
// 64-bit key `seed`.
std::array<uint32_t, 4> philox(uint64_t seed, uint64_t start, uint64_t index) {
  const uint64_t sum = start + index;
  uint32_t c[4] = {static_cast<uint32_t>(sum), static_cast<uint32_t>(sum >> 32), sum < start ? 1u : 0u, 0u};
  uint32_t k0 = static_cast<uint32_t>(seed), k1 = static_cast<uint32_t>(seed >> 32);
  for (int round = 0; round < 10; ++round) {
    const uint64_t p0 = uint64_t{0xD2511F53u} * c[0];
    const uint64_t p1 = uint64_t{0xCD9E8D57u} * c[2];
    const uint32_t next[4] = {static_cast<uint32_t>(p1 >> 32) ^ c[1] ^ k0, static_cast<uint32_t>(p1),
                              static_cast<uint32_t>(p0 >> 32) ^ c[3] ^ k1, static_cast<uint32_t>(p0)};
    std::memcpy(c, next, sizeof c);
    k0 += 0x9E3779B9u;
    k1 += 0xBB67AE85u;
  }
  return {c[0], c[1], c[2], c[3]};
}

// Whether element i is kept: its uniform, the top 24 bits of word i % 4 of block offset + i / 4, below 1 - p.
bool kept(uint64_t seed, uint64_t offset, int64_t i, double p) {
  const uint32_t word = philox(seed, offset, static_cast<uint64_t>(i / 4))[i % 4];
  return static_cast<float>(word >> 8) * (1.0f / 16777216.0f) < static_cast<float>(1.0 - p);
}

class DropoutKernelsTest : public BackendTest {
 protected:
  DropoutKernels& kernels() { return device->kernels().get<DropoutKernels>(); }
  Tensor mask_for(int64_t numel) {
    return ember::empty({dropout_mask_words(numel)}, TensorOptions(DType::Int32).device(device));
  }
};

TEST_P(DropoutKernelsTest, KeepsWhatPhiloxSaysWithTheMaskLayout) {
  const int64_t numel = 3 * 8192 + 1001;  // a partial last block
  const uint64_t seed = 0x0123456789abcdefull, offset = 77;
  const double p = 0.3;
  const at::Tensor values = random_torch({numel}, DType::Float32, 1, 1, 2);
  const Tensor x = from_torch(values, device);
  const Tensor out = ember::empty({numel}, TensorOptions(DType::Float32).device(device));
  const Tensor mask = mask_for(numel);
  kernels().dropout(*stream, {.out = out.ref(), .in = x.ref(), .mask = mask.ref(), .p = p, .state = {seed, offset}});
  const at::Tensor got = to_torch(out);
  const at::Tensor words = to_torch(mask);
  const float* y = got.data_ptr<float>();
  const float* v = values.data_ptr<float>();
  const int32_t* w = words.data_ptr<int32_t>();
  int wrong_values = 0, wrong_bits = 0;
  for (int64_t i = 0; i < numel; ++i) {
    const bool keep = kept(seed, offset, i, p);
    const float expected = keep ? v[i] * static_cast<float>(1.0 / 0.7) : 0.0f;
    wrong_values += y[i] != expected;
    const int64_t block = i / 8192, j = i % 8192 / 1024, lane = i % 1024 / 4, q = i % 4;
    const bool bit = (static_cast<uint32_t>(w[block * 256 + lane]) >> (4 * j + q)) & 1u;
    wrong_bits += bit != keep;
  }
  EXPECT_EQ(wrong_values, 0);
  EXPECT_EQ(wrong_bits, 0);
  // Bits past the last element are clear.
  const int64_t last_word = dropout_mask_words(numel) - 1;
  EXPECT_EQ(w[last_word], 0);
}

TEST_P(DropoutKernelsTest, LaterStartReproducesTheTail) {
  const int64_t numel = 5 * 8192 + 17, skip = 2 * 8192;
  const Tensor x = from_torch(random_torch({numel}, DType::Float32, 2, 1, 2), device);
  const Tensor whole = ember::empty({numel}, TensorOptions(DType::Float32).device(device));
  const Tensor tail = ember::empty({numel - skip}, TensorOptions(DType::Float32).device(device));
  const Tensor m1 = mask_for(numel), m2 = mask_for(numel - skip);
  kernels().dropout(*stream, {.out = whole.ref(), .in = x.ref(), .mask = m1.ref(), .p = 0.5, .state = {9, 1000}});
  const Tensor x_tail = x.narrow(0, skip, numel - skip);
  kernels().dropout(*stream,
                    {.out = tail.ref(), .in = x_tail.ref(), .mask = m2.ref(), .p = 0.5, .state = {9, 1000 + skip / 4}});
  EXPECT_TRUE(at::equal(to_torch(tail), to_torch(whole).narrow(0, skip, numel - skip)));
  EXPECT_TRUE(at::equal(to_torch(m2), to_torch(m1).narrow(0, skip / 32, dropout_mask_words(numel - skip))));
}

TEST_P(DropoutKernelsTest, ApplyMaskEveryDtypeInPlace) {
  for (const DType dtype : {DType::Float32, DType::Float16, DType::BFloat16, DType::Float64}) {
    if (!device->supports(dtype)) continue;
    SCOPED_TRACE(std::string(dtype_name(dtype)));
    const int64_t numel = 9000;
    const at::Tensor values = random_torch({numel}, dtype, 3, 1, 2);
    Tensor x = from_torch(values, device);
    const Tensor mask = mask_for(numel);
    // In place: out is the input.
    kernels().dropout(*stream, {.out = x.ref(), .in = x.ref(), .mask = mask.ref(), .p = 0.25, .state = {5, 0}});
    const at::Tensor y = to_torch(x).to(at::kDouble);
    const at::Tensor keep = y.ne(0);
    const double scale = dtype == DType::Float64 ? 1 / 0.75 : static_cast<float>(1 / 0.75);
    const at::Tensor scaled = (values.to(at::kDouble) * scale).to(torch_dtype(dtype)).to(at::kDouble);
    EXPECT_TRUE(at::equal(y.masked_select(keep), scaled.masked_select(keep)));
    const at::Tensor g = random_torch({numel}, dtype, 4);
    const Tensor ge = from_torch(g, device);
    const Tensor gi = ember::empty({numel}, TensorOptions(dtype).device(device));
    kernels().apply_mask(*stream, {.out = gi.ref(), .in = ge.ref(), .mask = mask.ref(), .scale = 3.0});
    const at::Tensor expected = (g.to(at::kDouble) * keep.to(at::kDouble) * 3).to(torch_dtype(dtype));
    EXPECT_TRUE(at::equal(to_torch(gi), expected));
  }
}

TEST_P(DropoutKernelsTest, RejectsBadArguments) {
  const Tensor x = from_torch(at::rand({100}), device);
  const Tensor mask = mask_for(100);
  const Tensor short_mask = ember::empty({10}, TensorOptions(DType::Int32).device(device));
  expect_error<Error>([&] { kernels().dropout(*stream, {.out = x.ref(), .in = x.ref(), .mask = short_mask.ref()}); },
                      "dropout: the mask must be 256 contiguous int32 words");
  expect_error<Error>([&] { kernels().dropout(*stream, {.out = x.ref(), .in = x.ref(), .mask = mask.ref(), .p = 1}); },
                      "dropout: p must be in [0, 1), got 1.000000");
  const Tensor stepped = from_torch(at::rand({200}), device).slice(0, 0, 200, 2);
  expect_error<Error>([&] { kernels().apply_mask(*stream, {.out = stepped.ref(), .in = stepped.ref(), .mask = mask.ref()}); },
                      "dropout apply_mask: the input and out must be contiguous");
}

INSTANTIATE_TEST_SUITE_P(Backends, DropoutKernelsTest, testing::Values("vulkan", "cuda"), backend_test_name);

}  // namespace
}  // namespace ember::test
