// Distances and normalize against LibTorch: the messages of bad inputs, normalize's `out`, gradcheck in
// float64 of cdist's own backward formulas (each norm and both p = 2 paths), and cosine_similarity's
// gradient where a norm is clamped (PyTorch's gradient passes through the clamp).
#include <torch/nn/functional/distance.h>
#include <torch/nn/functional/normalization.h>

#include <limits>

#include "autograd/gradcheck.h"
#include "nn/functional/distance.h"
#include "nn/functional/normalize.h"
#include "tests/autograd_oracle.h"
#include "tests/same_error.h"

namespace ember::test {
namespace {

using NnDistanceTest = GradTest;

TEST_P(NnDistanceTest, BadInputsGetLibTorchsMessages) {
  namespace F = ember::nn::functional;
  namespace TF = torch::nn::functional;
  const at::Tensor a = at::randn({3, 5}), b = at::randn({4, 5}), v = at::randn({5}), w = at::randn({4, 6});
  const at::Tensor ints = at::ones({3, 5}, at::kLong), doubles = b.to(at::kDouble), batch2 = at::randn({2, 3, 5}),
                   batch3 = at::randn({3, 4, 5});
  const Tensor ea = on_device(a), eb = on_device(b), ev = on_device(v), ew = on_device(w), e_ints = on_device(ints),
               e_doubles = on_device(doubles), e_batch2 = on_device(batch2), e_batch3 = on_device(batch3);
  auto same = [](const std::function<void()>& e, const std::function<void()>& t, const char* what) {
    expect_same_error(e, t, what);
  };
  same([&] { F::cdist(ev, eb); }, [&] { at::cdist(v, b); }, "1-d x1");
  same([&] { F::cdist(ea, ev); }, [&] { at::cdist(a, v); }, "1-d x2");
  same([&] { F::cdist(ea, ew); }, [&] { at::cdist(a, w); }, "columns");
  same([&] { F::cdist(e_ints, eb); }, [&] { at::cdist(ints, b); }, "integer x1");
  same([&] { F::cdist(ea, e_ints); }, [&] { at::cdist(a, ints); }, "integer x2");
  same([&] { F::cdist(ea, eb, -1); }, [&] { at::cdist(a, b, -1); }, "negative p");
  same([&] { F::cdist(ea, e_doubles); }, [&] { at::cdist(a, doubles); }, "mixed dtypes");
  same([&] { F::cdist(e_batch2, e_batch3); }, [&] { at::cdist(batch2, batch3); }, "batch broadcast");
  same([&] { F::cosine_similarity(ea, eb); }, [&] { TF::cosine_similarity(a, b); }, "cosine shapes");
  same([&] { F::cosine_similarity(e_ints, e_ints); }, [&] { TF::cosine_similarity(ints, ints); }, "cosine integers");
  same([&] { F::cosine_similarity(ea, ea, F::CosineSimilarityFuncOptions().dim(5)); },
       [&] { TF::cosine_similarity(a, a, TF::CosineSimilarityFuncOptions().dim(5)); }, "cosine dim");
  same([&] { F::pairwise_distance(ea, eb); }, [&] { TF::pairwise_distance(a, b); }, "pairwise shapes");
  same([&] { F::normalize(e_ints); }, [&] { TF::normalize(ints); }, "normalize integers");
  same([&] { F::normalize(ev); }, [&] { TF::normalize(v); }, "normalize dim");
}

TEST_P(NnDistanceTest, NormalizeWritesOut) {
  namespace F = ember::nn::functional;
  const at::Tensor a = at::randn({3, 5});
  Tensor out = on_device(at::zeros({3, 5}));
  const Tensor result = F::normalize(on_device(a), F::NormalizeFuncOptions().p(3).dim(0).out(out));
  const at::Tensor expected = torch::nn::functional::normalize(a, torch::nn::functional::NormalizeFuncOptions().p(3).dim(0));
  EXPECT_TENSOR_EQ(out, expected);
  EXPECT_TENSOR_EQ(result, expected);
}

TEST_P(NnDistanceTest, GradcheckInFloat64) {
  if (!device->supports(DType::Float64)) GTEST_SKIP() << "no float64 on " << device->info().name;
  namespace F = ember::nn::functional;
  at::Generator gen = at::detail::createCPUGenerator(8);
  const Tensor a = on_device(at::randn({2, 3, 4}, gen).to(at::kDouble)).requires_grad_(true);
  const Tensor b = on_device(at::randn({1, 5, 4}, gen).to(at::kDouble)).requires_grad_(true);
  for (double p : {0.0, 1.0, 1.5, 2.0, 3.0, std::numeric_limits<double>::infinity()}) {
    SCOPED_TRACE("p " + std::to_string(p));
    auto fn = [p](const autograd::tensor_list& in) { return autograd::tensor_list{F::cdist(in[0], in[1], p)}; };
    EXPECT_TRUE(autograd::gradcheck(fn, {a, b}));
  }
  auto mm = [](const autograd::tensor_list& in) { return autograd::tensor_list{F::cdist(in[0], in[1], 2, 1)}; };
  EXPECT_TRUE(autograd::gradcheck(mm, {a, b}));
  EXPECT_TRUE(autograd::gradgradcheck(mm, {a, b}));
  auto direct = [](const autograd::tensor_list& in) { return autograd::tensor_list{F::cdist(in[0], in[1], 2, 2)}; };
  EXPECT_TRUE(autograd::gradgradcheck(direct, {a, b}));
  auto cosine = [](const autograd::tensor_list& in) {
    return autograd::tensor_list{F::cosine_similarity(in[0], in[1], F::CosineSimilarityFuncOptions().dim(-1))};
  };
  const Tensor c = on_device(at::randn({1, 3, 4}, gen).to(at::kDouble)).requires_grad_(true);
  EXPECT_TRUE(autograd::gradcheck(cosine, {a, c}));
  EXPECT_TRUE(autograd::gradgradcheck(cosine, {a, c}));
}

TEST_P(NnDistanceTest, CosineSimilarityGradientPassesThroughTheClampedNorm) {
  namespace F = ember::nn::functional;
  // The first row's norm is below eps: PyTorch clamps its value but not its gradient.
  const at::Tensor values = at::tensor({1e-5, -2e-5, 1e-5, 0.5, 1.0, -2.0}, at::kDouble).view({2, 3});
  const at::Tensor other = at::tensor({0.3, 0.1, -0.7, 1.0, 2.0, 0.5}, at::kDouble).view({2, 3});
  if (!device->supports(DType::Float64)) GTEST_SKIP() << "no float64 on " << device->info().name;
  check({values, other}, "clamped norm",
        [](const std::vector<Tensor>& in) {
          return F::cosine_similarity(in[0], in[1], F::CosineSimilarityFuncOptions().eps(1e-3));
        },
        [](const std::vector<at::Tensor>& in) { return at::cosine_similarity(in[0], in[1], 1, 1e-3); });
}

INSTANTIATE_TEST_SUITE_P(Backends, NnDistanceTest, testing::Values("vulkan", "cuda"), backend_test_name);

}  // namespace
}  // namespace ember::test
