// 3-d max unpooling against LibTorch: the messages of bad inputs, output sizes (given, defaulted,
// padded, empty), repeated indices, dtypes LibTorch's CPU kernel refuses, gradcheck and the node names,
// and the module. Values and gradients over layouts are rows in tests/ops/pool.cpp.
#include <torch/csrc/autograd/autograd.h>
#include <torch/nn/functional/pooling.h>
#include <torch/nn/modules/pooling.h>

#include "autograd/gradcheck.h"
#include "nn/functional/pooling.h"
#include "nn/modules/pooling.h"
#include "tests/autograd_oracle.h"
#include "tests/same_error.h"

namespace ember::test {
namespace {

namespace F = ember::nn::functional;
namespace TF = torch::nn::functional;

class MaxUnpool3dTest : public GradTest {
 protected:
  void SetUp() override {
    GradTest::SetUp();
    const at::Tensor input = at::randn({2, 3, 4, 4, 4}, at::detail::createCPUGenerator(5));
    std::tie(pooled, indices) = at::max_pool3d_with_indices(input, {2, 2, 2});
  }

  // A 2 x 2 x 2 max pooling of a (2, 3, 4, 4, 4) input: its values and indices.
  at::Tensor pooled, indices;
};

// Runs F::max_unpool3d and TF::max_unpool3d with the same options on (values, indices) pairs.
#define EXPECT_SAME_UNPOOL_ERROR(values, index_tensor, options)                                                  \
  expect_same_error([&] { F::max_unpool3d(on_device(values), on_device(index_tensor), F::options); },         \
                    [&] { TF::max_unpool3d(values, index_tensor, TF::options); }, #values ", " #index_tensor ", " \
                    #options)

TEST_P(MaxUnpool3dTest, BadInputsGetLibTorchsMessages) {
  at::Tensor far = indices.clone();
  far.index_put_({0, 0, 0, 0, 0}, 64);
  far.index_put_({1, 0, 0, 0, 1}, -3);
  EXPECT_SAME_UNPOOL_ERROR(pooled, indices.to(at::kInt), MaxUnpool3dFuncOptions(2));
  EXPECT_SAME_UNPOOL_ERROR(pooled[0][0], indices[0][0], MaxUnpool3dFuncOptions(2));
  EXPECT_SAME_UNPOOL_ERROR(pooled.unsqueeze(0), indices.unsqueeze(0), MaxUnpool3dFuncOptions(2));
  EXPECT_SAME_UNPOOL_ERROR(pooled, indices.narrow(1, 0, 2), MaxUnpool3dFuncOptions(2));
  EXPECT_SAME_UNPOOL_ERROR(pooled.narrow(2, 0, 0), indices.narrow(2, 0, 0), MaxUnpool3dFuncOptions(2));
  // The empty dim is named before the stride, the stride before the indices.
  EXPECT_SAME_UNPOOL_ERROR(pooled.narrow(3, 0, 0), indices.narrow(3, 0, 0),
                           MaxUnpool3dFuncOptions(2).stride({0, 1, 1}));
  EXPECT_SAME_UNPOOL_ERROR(pooled, indices * 100, MaxUnpool3dFuncOptions(2).stride({0, 1, 1}));
  EXPECT_SAME_UNPOOL_ERROR(pooled, indices, MaxUnpool3dFuncOptions(2).stride({2, -1, 2}));
  EXPECT_SAME_UNPOOL_ERROR(pooled, indices, MaxUnpool3dFuncOptions(0));
  // Indices outside the output: the last one in row-major order is named.
  EXPECT_SAME_UNPOOL_ERROR(pooled, far, MaxUnpool3dFuncOptions(2));
  EXPECT_SAME_UNPOOL_ERROR(pooled, indices, MaxUnpool3dFuncOptions(2).padding({1, 0, 0}));
  EXPECT_SAME_UNPOOL_ERROR(pooled, indices, MaxUnpool3dFuncOptions(2).output_size(std::vector<int64_t>{2, 3, 4, 3, 4}));
  EXPECT_SAME_UNPOOL_ERROR(pooled, indices, MaxUnpool3dFuncOptions(2).output_size(std::vector<int64_t>{2, 3, 4, 4, 9}));
  // A negative output size, as ATen's resize reads it.
  EXPECT_SAME_UNPOOL_ERROR(pooled, indices, MaxUnpool3dFuncOptions(1).padding(2));
  // LibTorch 1.13 reads an output_size of 3 values as none at all and throws; ember takes it, as Python
  // does, and checks its length as LibTorch.
  expect_error<Error>(
      [&] {
        F::max_unpool3d(on_device(pooled), on_device(indices),
                        F::MaxUnpool3dFuncOptions(2).output_size(std::vector<int64_t>{4, 4}));
      },
      "output_size should be a sequence containing 3 or 5 elements, but it has a length of '2'");
}

TEST_P(MaxUnpool3dTest, OutputSizesAsLibTorchs) {
  const Tensor p = on_device(pooled), i = on_device(indices);
  // Given as 5 sizes (LibTorch's functional) and as 3 (Python's; ATen's op is the reference).
  EXPECT_TENSOR_EQ(F::max_unpool3d(p, i, F::MaxUnpool3dFuncOptions(2).output_size(std::vector<int64_t>{2, 3, 5, 5, 4})),
                   TF::max_unpool3d(pooled, indices,
                                    TF::MaxUnpool3dFuncOptions(2).output_size(std::vector<int64_t>{2, 3, 5, 5, 4})));
  EXPECT_TENSOR_EQ(F::max_unpool3d(p, i, F::MaxUnpool3dFuncOptions(2).output_size(std::vector<int64_t>{5, 4, 5})),
                   at::max_unpool3d(pooled, indices, {5, 4, 5}, {2, 2, 2}, {0, 0, 0}));
  // A negative padding widens the output.
  EXPECT_TENSOR_EQ(F::max_unpool3d(p, i, F::MaxUnpool3dFuncOptions(2).padding({0, -1, 0})),
                   TF::max_unpool3d(pooled, indices, TF::MaxUnpool3dFuncOptions(2).padding({0, -1, 0})));
  // An empty output: ATen checks no index then.
  EXPECT_TENSOR_EQ(F::max_unpool3d(p, i, F::MaxUnpool3dFuncOptions(2).padding({2, 0, 0})),
                   TF::max_unpool3d(pooled, indices, TF::MaxUnpool3dFuncOptions(2).padding({2, 0, 0})));
  // Unbatched: LibTorch's functional reads sizes past the input's dims there, so ATen's op is the reference.
  EXPECT_TENSOR_EQ(F::max_unpool3d(on_device(pooled[1]), on_device(indices[1]), F::MaxUnpool3dFuncOptions(2)),
                   at::max_unpool3d(pooled[1], indices[1], {4, 4, 4}, {2, 2, 2}, {0, 0, 0}));
  // An empty batch.
  const at::Tensor none = pooled.narrow(0, 0, 0), no_indices = indices.narrow(0, 0, 0);
  EXPECT_TENSOR_EQ(F::max_unpool3d(on_device(none), on_device(no_indices), F::MaxUnpool3dFuncOptions(2)),
                   TF::max_unpool3d(none, no_indices, TF::MaxUnpool3dFuncOptions(2)));
}

// LibTorch's CPU kernel takes float and double only; PyTorch's CUDA kernel, like ember's scatter and
// both runtimes' max_unpool2d, takes every dtype. The reference is the float64 result, cast.
TEST_P(MaxUnpool3dTest, OtherDtypesUnpoolAsFloat64) {
  const at::Tensor expected = at::max_unpool3d(pooled.to(at::kDouble), indices, {4, 4, 4}, {2, 2, 2}, {0, 0, 0});
  for (const at::ScalarType dtype : {at::kHalf, at::kBFloat16, at::kLong, at::kFloat}) {
    SCOPED_TRACE(c10::toString(dtype));
    if (!device->supports(ember_dtype(dtype))) continue;
    EXPECT_TENSOR_EQ(F::max_unpool3d(on_device(pooled.to(dtype)), on_device(indices), F::MaxUnpool3dFuncOptions(2)),
                     expected.to(dtype));
  }
}

// PyTorch flags max_unpool as nondeterministic where indices repeat, so ember lets any of the colliding
// values win: each written position holds one of the values aimed at it, and the rest stay zero.
TEST_P(MaxUnpool3dTest, RepeatedIndicesKeepOneOfTheirValues) {
  // Every value of a plane aimed at position 5 of its 4 x 4 x 4 output, in 2-d and in 3-d.
  const at::Tensor repeated = at::full_like(indices, 5);
  const Tensor values = on_device(pooled), aims = on_device(repeated);
  const at::Tensor out3d = to_torch(F::max_unpool3d(values, aims, F::MaxUnpool3dFuncOptions(2)));
  const at::Tensor out2d =
      to_torch(F::max_unpool2d(values.flatten(2, 3), aims.flatten(2, 3), F::MaxUnpool2dFuncOptions(2)));
  const at::Tensor planes = pooled.flatten(2);
  for (const at::Tensor& out : {out3d.flatten(2), out2d.flatten(2)}) {
    const at::Tensor kept = out.select(2, 5).unsqueeze(2);
    EXPECT_TRUE(planes.eq(kept).any(2).all().item<bool>()) << "a value that was not aimed at its position";
    EXPECT_EQ(out.ne(0).sum().item<int64_t>(), kept.ne(0).sum().item<int64_t>()) << "a position nothing aimed at";
  }
}

TEST_P(MaxUnpool3dTest, GradientsAndNodeNamesAsLibTorchs) {
  if (!device->supports(DType::Float64)) GTEST_SKIP() << "no float64 on " << device->info().name;
  const Tensor x = on_device(pooled.to(at::kDouble), true), i = on_device(indices);
  auto unpool = [&i](const autograd::tensor_list& in) {
    return autograd::tensor_list{F::max_unpool3d(in[0], i, F::MaxUnpool3dFuncOptions(2).padding({0, 1, 0}).stride(3))};
  };
  EXPECT_TRUE(autograd::gradcheck(unpool, {x}));
  EXPECT_TRUE(autograd::gradgradcheck(unpool, {x}));

  const at::Tensor xt = pooled.to(at::kDouble).requires_grad_(true);
  const at::Tensor yt = TF::max_unpool3d(xt, indices, TF::MaxUnpool3dFuncOptions(2));
  const Tensor y = F::max_unpool3d(x, i, F::MaxUnpool3dFuncOptions(2));
  EXPECT_EQ(grad_fn_name(y), grad_fn_name(yt));
  const at::Tensor weights = at::randn(yt.sizes(), at::detail::createCPUGenerator(6)).to(at::kDouble);
  const Tensor g = autograd::grad({y}, {x}, {on_device(weights)}, true, true)[0];
  const at::Tensor gt = torch::autograd::grad({yt}, {xt}, {weights}, true, true)[0];
  EXPECT_TENSOR_EQ(g, gt);
  EXPECT_EQ(grad_fn_name(g), grad_fn_name(gt));
}

TEST_P(MaxUnpool3dTest, ModuleMatchesLibTorchs) {
  nn::MaxUnpool3d unpool(nn::MaxUnpool3dOptions({3, 2, 2}).stride(2).padding(1));
  torch::nn::MaxUnpool3d torch_unpool(torch::nn::MaxUnpool3dOptions({3, 2, 2}).stride(2).padding(1));
  torch::nn::MaxPool3d torch_pool(torch::nn::MaxPool3dOptions({3, 2, 2}).stride(2).padding(1));
  // Pooled from 5 x 6 x 6, which the default output size restores.
  const auto [values, where] =
      torch_pool->forward_with_indices(at::randn({2, 3, 5, 6, 6}, at::detail::createCPUGenerator(31)));
  EXPECT_TENSOR_EQ(unpool(on_device(values), on_device(where)), torch_unpool(values, where));
  // Pooled from 5 x 6 x 7, which only output_size restores. (LibTorch 1.13's module loses its output_size
  // argument; ATen's op is the reference.)
  const auto [wide_values, wide_where] =
      torch_pool->forward_with_indices(at::randn({2, 3, 5, 6, 7}, at::detail::createCPUGenerator(32)));
  EXPECT_TENSOR_EQ(unpool(on_device(wide_values), on_device(wide_where), std::vector<int64_t>{5, 6, 7}),
                   at::max_unpool3d(wide_values, wide_where, {5, 6, 7}, {2, 2, 2}, {1, 1, 1}));
}

INSTANTIATE_TEST_SUITE_P(Backends, MaxUnpool3dTest, testing::Values("vulkan", "cuda"), backend_test_name);

}  // namespace
}  // namespace ember::test
