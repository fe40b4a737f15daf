// scaled_dot_product_attention against LibTorch's composed math (softmax(q kᵀ scale + mask) v, in
// float64 from the same rounded inputs): odd lengths, L ≠ S, E ≠ Ev, batch and head dims that broadcast,
// causal and both mask kinds, every float dtype, the gradients of q, k and v, and the kernel contract
// (launches, no L × S memory, the composed fallback).
#include <torch/torch.h>

#include <cmath>
#include <limits>

#include "ember.h"
#include "tests/nn/attention_reference.h"
#include "tests/oracle.h"
#include "tests/test_support.h"

namespace ember::test {
namespace {

namespace F = ember::nn::functional;

struct Case {
  std::vector<int64_t> q, k, v;  // shapes
  bool causal = false;
  enum { NoMask, BoolMask, FloatMask } mask = NoMask;
  std::vector<int64_t> mask_shape;
  std::optional<double> scale;
  std::string describe() const {
    return to_string(q) + " " + to_string(k) + " " + to_string(v) + (causal ? " causal" : "") +
           (mask == BoolMask ? " bool mask " + to_string(mask_shape) : "") +
           (mask == FloatMask ? " float mask " + to_string(mask_shape) : "");
  }
};

class AttentionTest : public BackendTest {
 protected:
  // Runs `c` in `dtype`: forward and the three gradients against the float64 reference.
  // `kernel`: whether the attention kernels take the case (else the composed path records other nodes).
  void run_case(const Case& c, DType dtype, double rtol, double atol, uint64_t seed, bool kernel = true) {
    SCOPED_TRACE(c.describe() + " " + std::string(dtype_name(dtype)));
    // Inputs rounded to dtype first, so both sides see the same values.
    const at::Tensor q = random_torch(c.q, dtype, seed, -1, 1);
    const at::Tensor k = random_torch(c.k, dtype, seed + 1, -1, 1);
    const at::Tensor v = random_torch(c.v, dtype, seed + 2, -1, 1);
    at::Tensor mask;
    if (c.mask == Case::BoolMask) {
      mask = random_torch(c.mask_shape, DType::Bool, seed + 3);
      mask.select(-1, 0).fill_(true);  // every query sees a key (a row of -inf is its own test)
    } else if (c.mask == Case::FloatMask) {
      mask = random_torch(c.mask_shape, dtype, seed + 3, -2, 2);
    }
    const double scale = c.scale.value_or(1 / std::sqrt(static_cast<double>(c.q.back())));

    at::Tensor tq = q.to(at::kDouble).requires_grad_(true), tk = k.to(at::kDouble).requires_grad_(true),
               tv = v.to(at::kDouble).requires_grad_(true);
    const at::Tensor t_mask = mask.defined() && mask.scalar_type() != at::kBool ? mask.to(at::kDouble) : mask;
    const at::Tensor expected = math_attention(tq, tk, tv, t_mask, c.causal, scale);
    const at::Tensor seed_grad = random_torch(expected.sizes(), dtype, seed + 4, -1, 1);
    expected.backward(seed_grad.to(at::kDouble));

    const Tensor eq = from_torch(q, device).requires_grad_(true), ek = from_torch(k, device).requires_grad_(true),
                 ev = from_torch(v, device).requires_grad_(true);
    const Tensor emask = mask.defined() ? from_torch(mask, device) : Tensor();
    const Tensor out = F::scaled_dot_product_attention(eq, ek, ev, emask, 0.0, c.causal, c.scale);
    ASSERT_NE(out.grad_fn(), nullptr);
    if (kernel) {
      EXPECT_EQ(out.grad_fn()->name(), "ScaledDotProductFlashAttentionBackward0");
    }
    EXPECT_TENSOR_EQ(out, expected.detach().to(q.scalar_type()), rtol, atol);
    out.backward(from_torch(seed_grad, device));
    EXPECT_TENSOR_EQ(eq.grad(), tq.grad().to(q.scalar_type()), rtol, atol);
    EXPECT_TENSOR_EQ(ek.grad(), tk.grad().to(q.scalar_type()), rtol, atol);
    EXPECT_TENSOR_EQ(ev.grad(), tv.grad().to(q.scalar_type()), rtol, atol);
  }

  std::vector<Case> cases() const {
    std::vector<Case> all;
    all.push_back({{2, 3, 17, 8}, {2, 3, 23, 8}, {2, 3, 23, 5}});
    all.push_back({{2, 3, 17, 8}, {2, 3, 23, 8}, {2, 3, 23, 5}, true});
    all.push_back({{1, 29, 16}, {1, 29, 16}, {1, 29, 16}, true});  // L = S, a decoder's self-attention
    all.push_back({{2, 2, 9, 12}, {2, 2, 31, 12}, {2, 2, 31, 7}, false, Case::BoolMask, {9, 31}});
    all.push_back({{2, 2, 9, 12}, {2, 2, 31, 12}, {2, 2, 31, 7}, false, Case::FloatMask, {2, 1, 9, 31}});
    // Keys and values shared by every head (their head dim broadcasts), a scale of one's own.
    all.push_back({{3, 4, 5, 6}, {3, 1, 11, 6}, {3, 1, 11, 6}, false, Case::NoMask, {}, 0.3});
    all.push_back({{65, 3}, {70, 3}, {70, 2}});  // no batch dims, more rows than a workgroup
    all.push_back({{1, 1, 64}, {1, 1, 64}, {1, 1, 64}});  // batch 1, one query and one key
    return all;
  }

  // The cases of the other dtypes: causal, a float mask, broadcast keys (each feature count compiles
  // pipelines of its own, a second or so on llvmpipe).
  std::vector<Case> few_cases() const {
    const std::vector<Case> all = cases();
    return {all[1], all[4], all[5]};
  }
};

TEST_P(AttentionTest, Float32MatchesLibTorch) {
  uint64_t seed = 10;
  for (const Case& c : cases()) run_case(c, DType::Float32, 1e-5, 1e-5, seed += 10);
}

TEST_P(AttentionTest, Float64MatchesLibTorch) {
  if (!device->supports(DType::Float64)) GTEST_SKIP() << device->info().name << " has no float64";
  uint64_t seed = 100;
  for (const Case& c : few_cases()) run_case(c, DType::Float64, 1e-10, 1e-12, seed += 10);
}

TEST_P(AttentionTest, HalfAndBFloat16AccumulateInFloat32) {
  for (auto [dtype, tol] : {std::pair{DType::Float16, 3e-3}, std::pair{DType::BFloat16, 2e-2}}) {
    if (!device->supports(dtype)) {
      std::printf("[  NOTE    ] %s skipped: the device cannot store it\n", std::string(dtype_name(dtype)).c_str());
      continue;
    }
    uint64_t seed = 200;
    for (const Case& c : few_cases()) run_case(c, dtype, tol, tol, seed += 10);
  }
}

TEST_P(AttentionTest, HeadDims64And128And256) {
  // A CPU driver's kernels stop at 128 features (llvmpipe's loop guard, attention.comp); past them the
  // composed path answers.
  const bool cpu = device->info().kind == "CPU";
  for (int64_t e : {64, 128, 256}) {
    run_case({{1, 2, 33, e}, {1, 2, 40, e}, {1, 2, 40, e}, true}, DType::Float32, 1e-5, 1e-5, 300 + e,
             !(cpu && e > 128));
  }
}

TEST_P(AttentionTest, OneLaunchForwardTwoBackward) {
  const Tensor q = from_torch(random_torch({2, 4, 32, 16}, DType::Float32, 1), device).requires_grad_(true);
  const Tensor k = from_torch(random_torch({2, 4, 32, 16}, DType::Float32, 2), device).requires_grad_(true);
  const Tensor v = from_torch(random_torch({2, 4, 32, 16}, DType::Float32, 3), device).requires_grad_(true);
  const Tensor grad = from_torch(random_torch({2, 4, 32, 16}, DType::Float32, 4), device);
  device->synchronize();
  const StreamStats before = stream->stats();
  const Tensor out = F::scaled_dot_product_attention(q, k, v, {}, 0.0, true);
  const StreamStats forward = stream->stats();
  EXPECT_EQ(forward.dispatches - before.dispatches, 1u);
  autograd::grad({out}, {q, k, v}, {grad});
  EXPECT_EQ(stream->stats().dispatches - forward.dispatches, 2u);
  EXPECT_EQ(stream->stats().host_waits - before.host_waits, 0u);
}

TEST_P(AttentionTest, MemoryIsLinearInSequenceLength) {
  // L = S = 8192, E = 64: the scores alone would take 256 MiB in float32.
  const int64_t L = 8192, E = 64;
  const Tensor q = from_torch(random_torch({1, L, E}, DType::Float32, 5), device);
  const Tensor k = from_torch(random_torch({1, L, E}, DType::Float32, 6), device);
  const Tensor v = from_torch(random_torch({1, L, E}, DType::Float32, 7), device);
  device->synchronize();
  device->allocator().reset_peak();
  const uint64_t before = device->allocator().stats().allocated_bytes;
  const Tensor out = F::scaled_dot_product_attention(q, k, v, {}, 0.0, true);
  device->synchronize();
  const uint64_t used = device->allocator().stats().peak_allocated_bytes - before;
  EXPECT_LE(used, uint64_t(L * E * 4 + L * 4) * 2) << "bytes allocated beyond the inputs: " << used;
  // A few rows checked against the reference (causal: row i sees keys 0..i).
  for (int64_t i : {int64_t{0}, int64_t{4095}, L - 1}) {
    const at::Tensor tq = to_torch(q).slice(1, i, i + 1).to(at::kDouble);
    const at::Tensor tk = to_torch(k).slice(1, 0, i + 1).to(at::kDouble);
    const at::Tensor tv = to_torch(v).slice(1, 0, i + 1).to(at::kDouble);
    EXPECT_TENSOR_EQ(out.slice(1, i, i + 1), math_attention(tq, tk, tv, {}, false, 0.125).to(at::kFloat), 1e-4, 1e-5);
  }
}

TEST_P(AttentionTest, RowsWithoutKeysAndEmptyInputs) {
  // A bool mask that hides every key of a row gives NaN there, as PyTorch's softmax does.
  const at::Tensor q = random_torch({1, 3, 4}, DType::Float32, 8), k = random_torch({1, 5, 4}, DType::Float32, 9);
  at::Tensor mask = at::ones({3, 5}, at::kBool);
  mask[1].fill_(false);
  const Tensor out = F::scaled_dot_product_attention(from_torch(q, device), from_torch(k, device),
                                                     from_torch(k, device), from_torch(mask, device));
  EXPECT_TENSOR_EQ(out, math_attention(q, k, k, mask, false, 0.5));
  // No keys: zeros, as the product over an empty dim; no queries: an empty result.
  const at::Tensor none = at::empty({1, 0, 4});
  EXPECT_TENSOR_EQ(F::scaled_dot_product_attention(from_torch(q, device), from_torch(none, device),
                                                   from_torch(none, device)),
                   at::zeros({1, 3, 4}));
  EXPECT_EQ(F::scaled_dot_product_attention(from_torch(none, device), from_torch(k, device), from_torch(k, device))
                .sizes()
                .vec(),
            (std::vector<int64_t>{1, 0, 4}));
}

TEST_P(AttentionTest, SecondOrderGradients) {
  if (!device->supports(DType::Float64)) GTEST_SKIP() << device->info().name << " has no float64";
  // The second case's keys and values are shared by both heads: their batched copies are not the inputs.
  for (const auto& [qs, ks, vs] : {std::tuple<std::vector<int64_t>, std::vector<int64_t>, std::vector<int64_t>>{
                                       {2, 3, 4}, {2, 5, 4}, {2, 5, 3}},
                                   {{2, 2, 3, 4}, {2, 1, 5, 4}, {2, 1, 5, 3}}}) {
    const Tensor q = from_torch(random_torch(qs, DType::Float64, 11), device).requires_grad_(true);
    const Tensor k = from_torch(random_torch(ks, DType::Float64, 12), device).requires_grad_(true);
    const Tensor v = from_torch(random_torch(vs, DType::Float64, 13), device).requires_grad_(true);
    for (bool causal : {false, true}) {
      SCOPED_TRACE(to_string(ks) + (causal ? " causal" : ""));
      const autograd::DifferentiableFn fn = [&](const autograd::tensor_list& in) {
        return autograd::tensor_list{F::scaled_dot_product_attention(in[0], in[1], in[2], {}, 0.0, causal, 0.4)};
      };
      EXPECT_TRUE(autograd::gradcheck(fn, {q, k, v}));
      EXPECT_TRUE(autograd::gradgradcheck(fn, {q, k, v}));
    }
  }
}

TEST_P(AttentionTest, DropoutTakesTheComposedPath) {
  // Equal scores give every key the weight 1/S; with values of one, each output is the kept share of
  // the weights over 1 - p: 1 on average.
  const int64_t S = 64;
  ember::manual_seed(3);
  const Tensor q = zeros({256, 1, 8}, TensorOptions().device(device));
  const Tensor k = zeros({256, S, 8}, TensorOptions().device(device));
  const Tensor v = ones({256, S, 1}, TensorOptions().device(device));
  const at::Tensor out = to_torch(F::scaled_dot_product_attention(q, k, v, {}, 0.25)).flatten();
  EXPECT_NEAR(out.mean().item<double>(), 1.0, 0.02);
  // Each output is a count of kept keys over S (1 - p): binomial, with variance p / (S (1 - p)).
  EXPECT_NEAR(out.var().item<double>(), 0.25 / (S * 0.75), 0.002);
}

TEST_P(AttentionTest, BadArgumentsGetPyTorchsMessages) {
  const Tensor q = from_torch(random_torch({2, 3, 4}, DType::Float32, 1), device);
  const Tensor d = from_torch(random_torch({2, 3, 4}, DType::Float64, 1), device);
  const Tensor mask = ones({3, 3}, TensorOptions().dtype(DType::Bool).device(device));
  expect_error<Error>([&] { F::scaled_dot_product_attention(q, d, q); },
                      "Expected query, key, and value to have the same dtype, but got query.dtype: float key.dtype: "
                      "double and value.dtype: float instead.");
  expect_error<Error>([&] { F::scaled_dot_product_attention(q, q, q, mask, 0.0, true); },
                      "_scaled_dot_product_attention: Explicit attn_mask should not be set when is_causal=True");
  const Tensor wide = from_torch(random_torch({2, 3, 5}, DType::Float32, 1), device);
  expect_error<Error>([&] { F::scaled_dot_product_attention(q, wide, wide); },
                      "scaled_dot_product_attention: query and key must have the same embedding dim, got 4 and 5");
}

INSTANTIATE_TEST_SUITE_P(Backends, AttentionTest, testing::Values("vulkan", "cuda"), backend_test_name);

}  // namespace
}  // namespace ember::test
