// cross_entropy and nll_loss beyond their registry rows (tests/ops/cross_entropy.cpp): a batch of
// 4096 × 1000 (many workgroups whose partial sums a second dispatch merges) forward and backward;
// scores of ±inf, NaN and huge magnitudes, aligned for texel reads and not; every target ignored; the node names PyTorch gives per input rank and reduction; gradcheck and
// gradgradcheck in float64; PyTorch's messages, including out-of-range targets found on the device
// (of many, the first, as PyTorch names it).
#include <torch/csrc/autograd/autograd.h>
#include <torch/nn/functional/loss.h>

#include <cmath>
#include <limits>

#include "autograd/gradcheck.h"
#include "nn/functional/cross_entropy.h"
#include "runtime/vulkan/vulkan_device.h"
#include "tests/autograd_oracle.h"

namespace ember::test {
namespace {

namespace F = ember::nn::functional;
namespace TF = torch::nn::functional;

class CrossEntropyTest : public GradTest {
 protected:
  Tensor put(const at::Tensor& t) { return from_torch(t, device); }
};

// Reduction r (0 none, 1 mean, 2 sum) as ember's options and LibTorch's spell it.
struct Reductions {
  LossReduction ember;
  TF::CrossEntropyFuncOptions::reduction_t torch;
};
Reductions reductions(int r) {
  if (r == 0) return {kNone, torch::kNone};
  if (r == 1) return {kMean, torch::kMean};
  return {kSum, torch::kSum};
}

at::Tensor targets(at::IntArrayRef sizes, int64_t classes, uint64_t seed) {
  at::Generator gen = at::detail::createCPUGenerator(seed);
  return at::randint(0, classes, sizes, gen, at::kLong);
}

TEST_P(CrossEntropyTest, LargeBatchForwardAndBackward) {
  const at::Tensor x = random_torch({4096, 1000}, DType::Float32, 1, -5, 5);
  at::Tensor t = targets({4096}, 1000, 2);
  t.index_put_({at::indexing::Slice(0, 100)}, -100);
  const at::Tensor w = random_torch({1000}, DType::Float32, 3, 0.5, 1.5);
  for (const double smoothing : {0.0, 0.1}) {
    SCOPED_TRACE("label_smoothing " + std::to_string(smoothing));
    check({x, t, w}, "cross_entropy 4096 x 1000",
          [&](const Ins& in) {
            return F::cross_entropy(in[0], in[1], F::CrossEntropyFuncOptions().weight(in[2]).label_smoothing(smoothing));
          },
          [&](const TIns& in) {
            return TF::cross_entropy(in[0], in[1], TF::CrossEntropyFuncOptions().weight(in[2]).label_smoothing(smoothing));
          },
          {2}, false);
  }
}

TEST_P(CrossEntropyTest, EveryTargetIgnored) {
  const at::Tensor x = random_torch({3, 4}, DType::Float32, 4);
  const Tensor t = put(at::full({3}, -100, at::kLong));
  EXPECT_TRUE(std::isnan(F::cross_entropy(put(x), t).item<float>()));
  EXPECT_EQ(F::cross_entropy(put(x), t, F::CrossEntropyFuncOptions().reduction(kSum)).item<float>(), 0.0f);
  EXPECT_TENSOR_EQ(F::nll_loss(put(x), t, F::NLLLossFuncOptions().reduction(kNone)), at::zeros({3}));
  // A custom ignore_index; the others count.
  const at::Tensor some = at::tensor({int64_t{2}, int64_t{7}, int64_t{0}});
  EXPECT_TENSOR_EQ(F::cross_entropy(put(x), put(some), F::CrossEntropyFuncOptions().ignore_index(7)),
                   TF::cross_entropy(x, some, TF::CrossEntropyFuncOptions().ignore_index(7)));
}

// Scores of ±inf, NaN and huge magnitudes give PyTorch's losses and gradients (NaN for a row holding +inf
// or only -inf, inf for a target scored -inf), over rows of a multiple of four classes (which the Vulkan
// kernel reads as texels) and rows of other lengths, in float32 and float64.
TEST_P(CrossEntropyTest, SpecialScoresMatchLibTorch) {
  const double inf = std::numeric_limits<double>::infinity(), nan = std::numeric_limits<double>::quiet_NaN();
  for (const int64_t classes : {int64_t{8}, int64_t{7}, int64_t{1000}}) {
    at::Tensor x = random_torch({6, classes}, DType::Float64, 11, -3, 3);
    x[0].fill_(-inf);
    x[1][3].fill_(inf);
    x[2][1].fill_(nan);
    x[3][2].fill_(-inf);
    x[4][0].fill_(1e30);
    x[4][1].fill_(-1e30);
    x[5][classes - 1].fill_(-inf);
    const at::Tensor t = at::tensor({int64_t{1}, int64_t{2}, int64_t{5}, int64_t{2}, int64_t{4}, int64_t{0}});
    for (const at::ScalarType type : {at::kFloat, at::kDouble}) {
      if (type == at::kDouble && !device->supports(DType::Float64)) continue;
      for (int r = 0; r < 3; ++r) {
        SCOPED_TRACE(testing::Message() << classes << " classes, " << type << ", reduction " << r);
        const at::Tensor xt = x.to(type).requires_grad_(true);
        const at::Tensor expected = TF::cross_entropy(xt, t, TF::CrossEntropyFuncOptions().reduction(reductions(r).torch));
        const at::Tensor expected_grad = torch::autograd::grad({expected.sum()}, {xt})[0];
        const Tensor xe = put(xt.detach()).requires_grad_(true);
        const Tensor loss = F::cross_entropy(xe, put(t), F::CrossEntropyFuncOptions().reduction(reductions(r).ember));
        EXPECT_TENSOR_EQ(loss, expected);
        EXPECT_TENSOR_EQ(autograd::grad({loss.sum()}, {xe})[0], expected_grad);
      }
    }
  }
  // Scores one element past a 16-byte word, which the texel kernel cannot read.
  const at::Tensor x = random_torch({5, 12}, DType::Float32, 12, -3, 3);
  const at::Tensor t = targets({5}, 12, 13);
  const Tensor shifted = put(at::cat({at::zeros({1}), x.flatten()})).narrow(0, 1, x.numel()).view({5, 12});
  EXPECT_TENSOR_EQ(F::cross_entropy(shifted, put(t)), TF::cross_entropy(x, t));
  auto* vulkan_device = dynamic_cast<vulkan::VulkanDevice*>(device.get());
  if (vulkan_device != nullptr) {
    const uint32_t f32 = static_cast<uint32_t>(DType::Float32), forward = 0, backward = 2;
    EXPECT_TRUE(vulkan_device->pipelines().made("cross_entropy_f32_quads", {f32, 0, forward}));
    EXPECT_TRUE(vulkan_device->pipelines().made("cross_entropy_f32_quads", {f32, 0, backward}));
    EXPECT_TRUE(vulkan_device->pipelines().made("cross_entropy_f32", {f32, 0, forward}));
  }
}

TEST_P(CrossEntropyTest, NodeNamesAsPyTorch) {
  struct Case {
    std::vector<int64_t> input;
    std::vector<int64_t> target;
  };
  const std::vector<Case> cases = {{{5}, {}}, {{4, 5}, {4}}, {{2, 5, 3}, {2, 3}}, {{2, 5, 3, 2}, {2, 3, 2}},
                                   {{2, 5, 3, 2, 2}, {2, 3, 2, 2}}};
  for (const Case& c : cases) {
    for (int r = 0; r < 3; ++r) {
      for (const double smoothing : {0.0, 0.2}) {
        SCOPED_TRACE(to_string(c.input) + " reduction " + std::to_string(r) + " smoothing " + std::to_string(smoothing));
        const at::Tensor x = random_torch(c.input, DType::Float32, 5);
        const at::Tensor t = targets(c.target, 5, 6);
        const Tensor y = F::cross_entropy(put(x).requires_grad_(true), put(t),
                                          F::CrossEntropyFuncOptions().reduction(reductions(r).ember).label_smoothing(smoothing));
        const at::Tensor yt = TF::cross_entropy(
            x.clone().requires_grad_(true), t,
            TF::CrossEntropyFuncOptions().reduction(reductions(r).torch).label_smoothing(smoothing));
        EXPECT_EQ(grad_fn_name(y), grad_fn_name(yt));
        EXPECT_EQ(y.sizes().vec(), yt.sizes().vec());
      }
    }
  }
}

TEST_P(CrossEntropyTest, GradcheckFloat64) {
  if (!device->supports(DType::Float64)) GTEST_SKIP() << "the device lacks float64";
  const Tensor x = put(random_torch({3, 4, 2}, DType::Float64, 7)).requires_grad_(true);
  at::Tensor t = targets({3, 2}, 4, 8);
  t[1][0] = -100;
  const Tensor te = put(t);
  const Tensor w = put(random_torch({4}, DType::Float64, 9, 0.5, 2));
  for (const double smoothing : {0.0, 0.3}) {
    for (const LossReduction reduction : {LossReduction(kMean), LossReduction(kNone), LossReduction(kSum)}) {
      const autograd::DifferentiableFn fn = [&](const autograd::tensor_list& in) {
        return autograd::tensor_list{F::cross_entropy(
            in[0], te, F::CrossEntropyFuncOptions().weight(w).label_smoothing(smoothing).reduction(reduction))};
      };
      EXPECT_TRUE(autograd::gradcheck(fn, {x}));
      EXPECT_TRUE(autograd::gradgradcheck(fn, {x}));
    }
  }
  const autograd::DifferentiableFn nll = [&](const autograd::tensor_list& in) {
    return autograd::tensor_list{F::nll_loss(in[0], te, F::NLLLossFuncOptions().weight(w))};
  };
  EXPECT_TRUE(autograd::gradcheck(nll, {x}));
}

TEST_P(CrossEntropyTest, DispatchesAndWaitsPerStep) {
  // Forward: one kernel. Targets uploaded from the host are known to be classes, so the kernel's status
  // words are neither cleared nor read back (known_values_test.cpp has targets that are); backward: one
  // kernel.
  const Tensor x = put(random_torch({64, 10}, DType::Float32, 23)).requires_grad_(true);
  const Tensor t = put(targets({64}, 10, 24));
  const Tensor seed = put(at::ones({}));
  device->synchronize();
  const StreamStats before = stream->stats();
  const Tensor loss = F::cross_entropy(x, t);
  const StreamStats forward = stream->stats();
  EXPECT_EQ(forward.dispatches - before.dispatches, 1u);
  EXPECT_EQ(forward.host_waits - before.host_waits, 0u);
  autograd::grad({loss}, {x}, {seed});
  EXPECT_EQ(stream->stats().dispatches - forward.dispatches, 1u);
}

TEST_P(CrossEntropyTest, BadInputMessages) {
  const at::Tensor x = random_torch({4, 3}, DType::Float32, 10);
  const Tensor xe = put(x);
  struct Bad {
    at::Tensor target;
    std::string message;
  };
  // Each checked against LibTorch's own text first.
  const std::vector<Bad> bad = {
      {at::tensor({int64_t{0}, int64_t{1}, int64_t{10}, int64_t{2}}), "Target 10 is out of bounds."},
      {at::tensor({int64_t{-1}, int64_t{0}, int64_t{0}, int64_t{0}}), "Target -1 is out of bounds."},
      {at::tensor({int64_t{0}, int64_t{1}, int64_t{2}}), "Expected input batch_size (4) to match target batch_size (3)."},
      {targets({4, 2}, 3, 11), "0D or 1D target tensor expected, multi-target not supported"},
      {targets({4}, 3, 12).to(at::kInt), "expected scalar type Long but found Int"},
      {targets({4, 3}, 3, 13), "Expected floating point type for target with class probabilities, got Long"},
  };
  for (const Bad& b : bad) {
    EXPECT_EQ(torch_error([&] { TF::cross_entropy(x, b.target); }), b.message);
    expect_error<Error>([&] { F::cross_entropy(xe, put(b.target)); }, b.message);
  }
  // The targets are checked again on every call.
  EXPECT_NO_THROW(F::cross_entropy(xe, put(targets({4}, 3, 14))));
  const Tensor t = put(targets({4}, 3, 15));
  expect_error<Error>([&] { F::cross_entropy(xe, t, F::CrossEntropyFuncOptions().weight(put(at::ones({4})))); },
                      "weight tensor should be defined either for all 3 classes or no classes but got weight tensor of "
                      "shape: [4]");
  expect_error<Error>([&] { F::cross_entropy(xe, t, F::CrossEntropyFuncOptions().label_smoothing(1.5)); },
                      "label_smoothing must be between 0.0 and 1.0. Got: 1.5");
  expect_error<Error>([&] { F::cross_entropy(xe.to(kInt64), t); },
                      "\"log_softmax_lastdim_kernel_impl\" not implemented for 'Long'");
  expect_error<Error>([&] { F::nll_loss(xe.to(kInt64), t); }, "\"nll_loss_out_frame\" not implemented for 'Long'");
  expect_error<Error>([&] { F::cross_entropy(put(random_torch({4, 3, 5}, DType::Float32, 16)), put(targets({4, 6}, 3, 17))); },
                      "Expected target size [4, 5], got [4, 6]");
  expect_error<Error>([&] { F::cross_entropy(put(random_torch({4, 3, 5, 2}, DType::Float32, 18)), put(targets({4, 6, 2}, 3, 19))); },
                      "size mismatch (got input: [4, 3, 5, 2] , target: [4, 6, 2]");
  expect_error<Error>([&] { F::cross_entropy(put(random_torch({4, 3, 5, 2}, DType::Float32, 20)), put(targets({4, 2}, 3, 21))); },
                      "only batches of spatial targets supported (3D tensors) but got targets of dimension: 2");
  expect_error<Error>([&] { F::cross_entropy(xe, put(random_torch({4, 3}, DType::Float32, 22)),
                                             F::CrossEntropyFuncOptions().ignore_index(1)); },
                      "ignore_index is not supported for floating point target");
  // A shape and a dtype wrong at once: PyTorch checks the shapes first (after log_softmax's input dtype),
  // so the text names the shape.
  const at::Tensor float_2d = random_torch({4, 2}, DType::Float32, 23);
  const std::string multi_target = torch_error([&] { TF::cross_entropy(x, float_2d); });
  EXPECT_EQ(multi_target, "0D or 1D target tensor expected, multi-target not supported");
  expect_error<Error>([&] { F::cross_entropy(xe, put(float_2d)); }, multi_target);
  const at::Tensor short_int = targets({3}, 3, 24).to(at::kInt);
  expect_error<Error>([&] { F::nll_loss(xe, put(short_int)); }, torch_error([&] { TF::nll_loss(x, short_int); }));
  expect_error<Error>([&] { F::nll_loss(xe.to(kInt64), put(short_int)); },
                      torch_error([&] { TF::nll_loss(x.to(at::kLong), short_int); }));
  expect_error<Error>([&] { F::cross_entropy(xe.to(kInt64), put(short_int)); },
                      torch_error([&] { TF::cross_entropy(x.to(at::kLong), short_int); }));
  // Out-of-range targets are IndexErrors, as in PyTorch.
  EXPECT_THROW(F::nll_loss(xe, put(at::tensor({int64_t{3}, int64_t{0}, int64_t{0}, int64_t{0}}))), IndexError);
}

// Every target of many rows out of range, each another value: the kernel's threads race to flag one (on an
// H200 the CUDA kernel named a later row's), and PyTorch names the first in row-major order.
TEST_P(CrossEntropyTest, TheFirstOutOfRangeTargetIsNamed) {
  const at::Tensor x = random_torch({4096, 3}, DType::Float32, 30);
  at::Tensor bad = at::arange(4096, at::kLong).flip(0) + 3;
  bad.index_put_({0}, -100);  // ignored, so the second row's target is the first out of range
  const at::Tensor spatial_x = random_torch({8, 3, 512}, DType::Float32, 31);
  const at::Tensor spatial_bad = at::arange(8 * 512, at::kLong).reshape({8, 512}).flip(1) + 3;
  for (int r = 0; r < 3; ++r) {
    SCOPED_TRACE("reduction " + std::to_string(r));
    const auto ember_options = F::CrossEntropyFuncOptions().reduction(reductions(r).ember);
    const auto torch_options = TF::CrossEntropyFuncOptions().reduction(reductions(r).torch);
    const std::string message = torch_error([&] { TF::cross_entropy(x, bad, torch_options); });
    EXPECT_EQ(message, "Target 4097 is out of bounds.");
    expect_error<IndexError>([&] { F::cross_entropy(put(x), put(bad), ember_options); }, message);
    const std::string spatial = torch_error([&] { TF::cross_entropy(spatial_x, spatial_bad, torch_options); });
    EXPECT_EQ(spatial, "Target 514 is out of bounds.");
    expect_error<IndexError>([&] { F::cross_entropy(put(spatial_x), put(spatial_bad), ember_options); }, spatial);
  }
}

INSTANTIATE_TEST_SUITE_P(Backends, CrossEntropyTest, testing::Values("vulkan", "cuda"), backend_test_name);

}  // namespace
}  // namespace ember::test
