// The convolution, pooling, normalization, padding, resampling, fold and distance modules against
// LibTorch's torch::nn modules with the same options and parameters: forward, the input gradient and every
// parameter gradient; BatchNorm's running statistics over training steps; state dict keys; default init;
// Python's reprs.
#include <torch/torch.h>

#include "ember.h"
#include "tests/oracle.h"
#include "tests/python_oracle.h"
#include "tests/test_support.h"

namespace ember::test {
namespace {

class LayerModulesTest : public BackendTest {
 protected:
  // Copies LibTorch's parameters and buffers into ours, by name; both trees must have the same names.
  void copy_state(nn::Module& ours, const torch::nn::Module& theirs) {
    std::vector<std::string> their_names;
    for (const auto& p : theirs.named_parameters()) their_names.push_back(p.key());
    for (const auto& b : theirs.named_buffers()) their_names.push_back(b.key());
    std::vector<std::string> our_names = ours.named_parameters().keys();
    for (const std::string& key : ours.named_buffers().keys()) our_names.push_back(key);
    ASSERT_EQ(our_names, their_names);
    ours.to(device);
    OrderedDict<std::string, Tensor> state;
    for (const auto& p : theirs.named_parameters()) state.insert(p.key(), from_torch(p.value().detach(), device));
    for (const auto& b : theirs.named_buffers()) state.insert(b.key(), from_torch(b.value(), device));
    ours.load_state_dict(state);
  }

  // Forward, input gradient and parameter gradients of `ours` and `theirs` on `x`.
  template <class Ours, class Theirs>
  void expect_same(Ours& ours, Theirs& theirs, const at::Tensor& x, double rtol = -1, double atol = -1) {
    at::Tensor tx = x.clone().requires_grad_(true);
    Tensor ex = from_torch(x, device).requires_grad_(true);
    const at::Tensor ty = theirs->forward(tx);
    const Tensor ey = ours(ex);
    EXPECT_TENSOR_EQ(ey, ty.detach(), rtol, atol);
    const at::Tensor upstream = random_torch(ty.sizes(), kFloat32, 77);
    ty.backward(upstream);
    ey.backward(from_torch(upstream, device));
    EXPECT_TENSOR_EQ(ex.grad(), tx.grad(), rtol, atol);
    auto our_params = ours->named_parameters();
    for (const auto& p : theirs->named_parameters()) {
      SCOPED_TRACE(p.key());
      if (p.value().grad().defined()) EXPECT_TENSOR_EQ(our_params[p.key()].grad(), p.value().grad(), rtol, atol);
    }
  }
};

TEST_P(LayerModulesTest, ConvolutionsMatchLibTorch) {
  {
    torch::nn::Conv2d theirs(torch::nn::Conv2dOptions(3, 8, 3).padding(1).stride(2));
    nn::Conv2d ours(nn::Conv2dOptions(3, 8, 3).padding(1).stride(2));
    copy_state(*ours, *theirs);
    expect_same(ours, theirs, random_torch({2, 3, 9, 11}, kFloat32, 1), 1e-4, 1e-5);
  }
  {
    torch::nn::Conv2d theirs(torch::nn::Conv2dOptions(4, 4, 3).groups(4).padding_mode(torch::kReflect).padding(1).bias(false));
    nn::Conv2d ours(nn::Conv2dOptions(4, 4, 3).groups(4).padding_mode(ember::kReflect).padding(1).bias(false));
    copy_state(*ours, *theirs);
    expect_same(ours, theirs, random_torch({2, 4, 6, 5}, kFloat32, 2), 1e-4, 1e-5);
  }
  {
    torch::nn::Conv1d theirs(torch::nn::Conv1dOptions(2, 5, 4).padding(torch::kSame).dilation(2).padding_mode(torch::kCircular));
    nn::Conv1d ours(nn::Conv1dOptions(2, 5, 4).padding(ember::kSame).dilation(2).padding_mode(ember::kCircular));
    copy_state(*ours, *theirs);
    expect_same(ours, theirs, random_torch({3, 2, 13}, kFloat32, 3), 1e-4, 1e-5);
  }
  {
    torch::nn::ConvTranspose2d theirs(torch::nn::ConvTranspose2dOptions(4, 3, 3).stride(2).padding(1));
    nn::ConvTranspose2d ours(nn::ConvTranspose2dOptions(4, 3, 3).stride(2).padding(1));
    copy_state(*ours, *theirs);
    expect_same(ours, theirs, random_torch({2, 4, 5, 5}, kFloat32, 4), 1e-4, 1e-5);
    // output_size picks the output padding.
    const at::Tensor x = random_torch({1, 4, 5, 5}, kFloat32, 5);
    EXPECT_TENSOR_EQ(ours->forward(from_torch(x, device), std::vector<int64_t>{10, 10}),
                     theirs->forward(x, std::vector<int64_t>{10, 10}).detach(), 1e-4, 1e-5);
  }
  expect_error<Error>([] { nn::Conv2d(nn::Conv2dOptions(3, 8, 3).groups(2)); }, "in_channels must be divisible by groups");
  expect_error<Error>([] { nn::Conv2d(nn::Conv2dOptions(3, 8, 3).padding(ember::kSame).stride(2)); },
                      "padding='same' is not supported for strided convolutions");
}

TEST_P(LayerModulesTest, ConvolutionDefaultInitFollowsPyTorchsBounds) {
  nn::Conv2d conv(nn::Conv2dOptions(16, 32, 3));
  const double bound = 1 / std::sqrt(16.0 * 9);  // kaiming_uniform_(a = sqrt(5)) and the bias's rule agree
  EXPECT_LE(conv->weight.abs().max().item<float>(), bound);
  EXPECT_LE(conv->bias.abs().max().item<float>(), bound);
  EXPECT_GT(conv->weight.abs().max().item<float>(), 0.9 * bound);
  nn::ConvTranspose2d up(nn::ConvTranspose2dOptions(16, 4, 2));
  EXPECT_EQ(up->weight.sizes().vec(), (std::vector<int64_t>{16, 4, 2, 2}));
  EXPECT_LE(up->bias.abs().max().item<float>(), 1 / std::sqrt(4.0 * 4));  // fan_in of a transposed weight
}

TEST_P(LayerModulesTest, PoolingMatchesLibTorch) {
  const at::Tensor x = random_torch({2, 3, 9, 8}, kFloat32, 6);
  {
    torch::nn::MaxPool2d theirs(torch::nn::MaxPool2dOptions(3).stride(2).padding(1).ceil_mode(true));
    nn::MaxPool2d ours(nn::MaxPool2dOptions(3).stride(2).padding(1).ceil_mode(true));
    expect_same(ours, theirs, x);
    auto [values, indices] = ours->forward_with_indices(from_torch(x, device));
    auto [their_values, their_indices] = theirs->forward_with_indices(x);
    EXPECT_TENSOR_EQ(indices, their_indices);
    nn::MaxUnpool2d unpool(nn::MaxUnpool2dOptions(3).stride(2).padding(1));
    // (LibTorch 1.13's MaxUnpool2d module loses its output_size argument; aten's op is the reference.)
    EXPECT_TENSOR_EQ(unpool(values, indices, std::vector<int64_t>{9, 8}),
                     at::max_unpool2d(their_values, their_indices, {9, 8}));
  }
  {
    torch::nn::AvgPool2d theirs(torch::nn::AvgPool2dOptions(2).count_include_pad(false).padding(1));
    nn::AvgPool2d ours(nn::AvgPool2dOptions(2).count_include_pad(false).padding(1));
    expect_same(ours, theirs, x);
  }
  {
    torch::nn::AdaptiveAvgPool2d theirs(torch::nn::AdaptiveAvgPool2dOptions({4, 3}));
    nn::AdaptiveAvgPool2d ours(nn::AdaptiveAvgPool2dOptions({4, 3}));
    expect_same(ours, theirs, x);
  }
  {
    torch::nn::AdaptiveMaxPool2d theirs(torch::nn::AdaptiveMaxPool2dOptions({c10::nullopt, 5}));
    nn::AdaptiveMaxPool2d ours(nn::AdaptiveMaxPool2dOptions({std::nullopt, 5}));
    expect_same(ours, theirs, x);
  }
  {
    torch::nn::MaxPool1d theirs(torch::nn::MaxPool1dOptions(2));
    nn::MaxPool1d ours(nn::MaxPool1dOptions(2));
    expect_same(ours, theirs, random_torch({2, 3, 9}, kFloat32, 7));
  }
}

TEST_P(LayerModulesTest, NormsMatchLibTorchInTrainingAndEval) {
  {
    torch::nn::BatchNorm2d theirs(torch::nn::BatchNorm2dOptions(3));
    nn::BatchNorm2d ours(nn::BatchNorm2dOptions(3));
    copy_state(*ours, *theirs);
    // Several training steps update the running statistics as LibTorch's do.
    for (int step = 0; step < 3; ++step) expect_same(ours, theirs, random_torch({4, 3, 5, 5}, kFloat32, 10 + step), 1e-4, 1e-5);
    EXPECT_TENSOR_EQ(ours->running_mean, theirs->running_mean, 1e-5, 1e-6);
    EXPECT_TENSOR_EQ(ours->running_var, theirs->running_var, 1e-5, 1e-6);
    EXPECT_TENSOR_EQ(ours->num_batches_tracked, theirs->num_batches_tracked);
    ours->eval();
    theirs->eval();
    expect_same(ours, theirs, random_torch({2, 3, 5, 5}, kFloat32, 20), 1e-4, 1e-5);
  }
  {
    // momentum None: the running statistics are a cumulative average.
    torch::nn::BatchNorm1d theirs(torch::nn::BatchNorm1dOptions(4).momentum(c10::nullopt));
    nn::BatchNorm1d ours(nn::BatchNorm1dOptions(4).momentum(std::nullopt));
    copy_state(*ours, *theirs);
    for (int step = 0; step < 3; ++step) expect_same(ours, theirs, random_torch({6, 4}, kFloat32, 30 + step), 1e-4, 1e-5);
    EXPECT_TENSOR_EQ(ours->running_var, theirs->running_var, 1e-5, 1e-6);
  }
  {
    torch::nn::LayerNorm theirs(torch::nn::LayerNormOptions({5, 6}));
    nn::LayerNorm ours(nn::LayerNormOptions({5, 6}));
    copy_state(*ours, *theirs);
    expect_same(ours, theirs, random_torch({3, 5, 6}, kFloat32, 40), 1e-4, 1e-5);
  }
  {
    torch::nn::GroupNorm theirs(torch::nn::GroupNormOptions(2, 6));
    nn::GroupNorm ours(nn::GroupNormOptions(2, 6));
    copy_state(*ours, *theirs);
    expect_same(ours, theirs, random_torch({3, 6, 4}, kFloat32, 41), 1e-4, 1e-5);
  }
  {
    torch::nn::InstanceNorm2d theirs(torch::nn::InstanceNorm2dOptions(3).affine(true).track_running_stats(true));
    nn::InstanceNorm2d ours(nn::InstanceNorm2dOptions(3).affine(true).track_running_stats(true));
    copy_state(*ours, *theirs);
    expect_same(ours, theirs, random_torch({2, 3, 5, 4}, kFloat32, 42), 1e-4, 1e-5);
    EXPECT_TENSOR_EQ(ours->running_mean, theirs->running_mean, 1e-5, 1e-6);
  }
  nn::BatchNorm2d bn(3);
  expect_error<Error>([&] { bn(randn({3, 4})); }, "expected 4D input (got 2D input)");
}

TEST_P(LayerModulesTest, StateDictKeysAreLibTorchs) {
  torch::nn::Sequential theirs(torch::nn::Conv2d(1, 4, 3), torch::nn::BatchNorm2d(4), torch::nn::MaxPool2d(2),
                               torch::nn::Flatten(), torch::nn::Linear(4, 2));
  nn::Sequential ours(nn::Conv2d(1, 4, 3), nn::BatchNorm2d(4), nn::MaxPool2d(2), nn::Flatten(), nn::Linear(4, 2));
  std::vector<std::string> keys;
  for (const auto& p : theirs->named_parameters()) keys.push_back(p.key());
  for (const auto& b : theirs->named_buffers()) keys.push_back(b.key());
  std::vector<std::string> ours_keys = ours->state_dict().keys();
  std::sort(keys.begin(), keys.end());
  std::sort(ours_keys.begin(), ours_keys.end());
  EXPECT_EQ(ours_keys, keys);
  // Shapes too; and a round trip through the state dict reproduces the outputs exactly.
  for (const auto& p : theirs->named_parameters()) EXPECT_EQ(ours->state_dict()[p.key()].sizes().vec(), p.value().sizes().vec());
  nn::Sequential copy(nn::Conv2d(1, 4, 3), nn::BatchNorm2d(4), nn::MaxPool2d(2), nn::Flatten(), nn::Linear(4, 2));
  ours->to(device);
  copy->to(device);
  copy->load_state_dict(ours->state_dict());
  ours->eval();
  copy->eval();
  const Tensor x = randn({2, 1, 4, 4}, TensorOptions().device(device));
  EXPECT_TRUE(copy(x).equal(ours(x)));
}

TEST_P(LayerModulesTest, PaddingModulesMatchLibTorch) {
  const at::Tensor x2 = random_torch({2, 3, 5, 4}, kFloat32, 50);
  {
    torch::nn::ReflectionPad2d theirs(torch::nn::ReflectionPad2dOptions({1, 2, 3, 0}));
    nn::ReflectionPad2d ours(nn::ReflectionPad2dOptions({1, 2, 3, 0}));
    expect_same(ours, theirs, x2);
  }
  {
    torch::nn::ReplicationPad1d theirs(3);
    nn::ReplicationPad1d ours(3);
    expect_same(ours, theirs, random_torch({2, 3, 4}, kFloat32, 51));
  }
  {
    torch::nn::ReplicationPad3d theirs(torch::nn::ReplicationPad3dOptions({1, 0, 2, 1, 0, 1}));
    nn::ReplicationPad3d ours(nn::ReplicationPad3dOptions({1, 0, 2, 1, 0, 1}));
    expect_same(ours, theirs, random_torch({1, 2, 3, 3, 4}, kFloat32, 52));
  }
  {
    torch::nn::ConstantPad2d theirs(torch::nn::ConstantPad2dOptions({2, 1, 0, 3}, 3.5));
    nn::ConstantPad2d ours(nn::ConstantPad2dOptions({2, 1, 0, 3}, 3.5));
    expect_same(ours, theirs, x2);
  }
  {
    torch::nn::ZeroPad2d theirs(torch::nn::ZeroPad2dOptions({1, 1, 2, 0}));
    nn::ZeroPad2d ours(nn::ZeroPad2dOptions({1, 1, 2, 0}));
    expect_same(ours, theirs, x2.transpose(2, 3));  // non-contiguous input
  }
  nn::ReflectionPad1d too_wide(4);
  expect_error<Error>([&] { too_wide(randn({1, 2, 4}, TensorOptions().device(device))); },
                      torch_error([] { torch::nn::ReflectionPad1d(4)(at::rand({1, 2, 4})); }));
}

TEST_P(LayerModulesTest, ResamplingFoldAndDistanceModulesMatchLibTorch) {
  const at::Tensor x = random_torch({2, 8, 3, 5}, kFloat32, 60);
  {
    torch::nn::Upsample theirs(torch::nn::UpsampleOptions().scale_factor(std::vector<double>{2, 1.5}).mode(torch::kBilinear).align_corners(true));
    nn::Upsample ours(nn::UpsampleOptions().scale_factor(std::vector<double>{2, 1.5}).mode(ember::kBilinear).align_corners(true));
    expect_same(ours, theirs, x, 1e-5, 1e-6);
  }
  {
    // One factor for every spatial dim, as Python's Upsample takes it; LibTorch's needs one per dim.
    torch::nn::Upsample theirs(torch::nn::UpsampleOptions().scale_factor(std::vector<double>{3, 3}));
    nn::Upsample ours(nn::UpsampleOptions().scale_factor(std::vector<double>{3}));
    expect_same(ours, theirs, x);
    torch::nn::Upsample sized(torch::nn::UpsampleOptions().size(std::vector<int64_t>{4, 7}).mode(torch::kNearest));
    nn::Upsample ours_sized(nn::UpsampleOptions().size(std::vector<int64_t>{4, 7}));
    expect_same(ours_sized, sized, x);
  }
  {
    torch::nn::PixelShuffle theirs(2);
    nn::PixelShuffle ours(2);
    expect_same(ours, theirs, x);
    torch::nn::PixelUnshuffle back(2);
    nn::PixelUnshuffle ours_back(2);
    expect_same(ours_back, back, random_torch({1, 2, 4, 6}, kFloat32, 61));
  }
  {
    torch::nn::Unfold theirs(torch::nn::UnfoldOptions({2, 3}).stride(2).padding(1));
    nn::Unfold ours(nn::UnfoldOptions({2, 3}).stride(2).padding(1));
    expect_same(ours, theirs, x);
    torch::nn::Fold fold(torch::nn::FoldOptions({4, 5}, {2, 2}));
    nn::Fold ours_fold(nn::FoldOptions({4, 5}, {2, 2}));
    expect_same(ours_fold, fold, random_torch({2, 12, 12}, kFloat32, 62));
  }
  const at::Tensor a = random_torch({5, 6}, kFloat32, 63), b = random_torch({5, 6}, kFloat32, 64);
  EXPECT_TENSOR_EQ(nn::CosineSimilarity(nn::CosineSimilarityOptions().dim(0))(from_torch(a, device), from_torch(b, device)),
                   torch::nn::CosineSimilarity(torch::nn::CosineSimilarityOptions().dim(0))(a, b), 1e-5, 1e-6);
  EXPECT_TENSOR_EQ(nn::PairwiseDistance(nn::PairwiseDistanceOptions().p(1).keepdim(true))(from_torch(a, device), from_torch(b, device)),
                   torch::nn::PairwiseDistance(torch::nn::PairwiseDistanceOptions().p(1).keepdim(true))(a, b), 1e-5, 1e-6);
}

INSTANTIATE_TEST_SUITE_P(Backends, LayerModulesTest, testing::Values("vulkan", "cuda"), backend_test_name);

TEST(LayerModulesPythonTest, ReprsMatchPyTorch) {
  const std::vector<std::pair<std::string, std::string>> cases = {
      {"torch.nn.Conv2d(1, 32, 3, padding=1)", nn::Conv2d(nn::Conv2dOptions(1, 32, 3).padding(1))->repr()},
      {"torch.nn.Conv1d(16, 33, 3, stride=2, dilation=2, groups=1, bias=False, padding_mode='reflect')",
       nn::Conv1d(nn::Conv1dOptions(16, 33, 3).stride(2).dilation(2).bias(false).padding_mode(ember::kReflect))->repr()},
      {"torch.nn.Conv2d(4, 4, 3, padding='same', groups=4)",
       nn::Conv2d(nn::Conv2dOptions(4, 4, 3).padding(ember::kSame).groups(4))->repr()},
      {"torch.nn.ConvTranspose2d(32, 16, 2, stride=2, output_padding=1)",
       nn::ConvTranspose2d(nn::ConvTranspose2dOptions(32, 16, 2).stride(2).output_padding(1))->repr()},
      {"torch.nn.MaxPool2d(2)", nn::MaxPool2d(2)->repr()},
      {"torch.nn.MaxPool2d((3, 2), stride=1, ceil_mode=True)",
       nn::MaxPool2d(nn::MaxPool2dOptions({3, 2}).stride(1).ceil_mode(true))->repr()},
      {"torch.nn.AvgPool2d(3, stride=2, padding=1)", nn::AvgPool2d(nn::AvgPool2dOptions(3).stride(2).padding(1))->repr()},
      {"torch.nn.AdaptiveAvgPool2d((5, 7))", nn::AdaptiveAvgPool2d(nn::AdaptiveAvgPool2dOptions({5, 7}))->repr()},
      {"torch.nn.AdaptiveMaxPool2d((None, 7))",
       nn::AdaptiveMaxPool2d(nn::AdaptiveMaxPool2dOptions({std::nullopt, 7}))->repr()},
      {"torch.nn.MaxUnpool2d(2)", nn::MaxUnpool2d(2)->repr()},
      {"torch.nn.MaxPool3d((3, 2, 2), stride=2)", nn::MaxPool3d(nn::MaxPool3dOptions({3, 2, 2}).stride(2))->repr()},
      {"torch.nn.AvgPool3d(2)", nn::AvgPool3d(2)->repr()},
      {"torch.nn.AdaptiveAvgPool3d((None, 3, 2))",
       nn::AdaptiveAvgPool3d(nn::AdaptiveAvgPool3dOptions({std::nullopt, 3, 2}))->repr()},
      {"torch.nn.AdaptiveMaxPool3d(3)", nn::AdaptiveMaxPool3d(3)->repr()},
      {"torch.nn.MaxUnpool3d(2, stride=(2, 1, 2), padding=1)",
       nn::MaxUnpool3d(nn::MaxUnpool3dOptions(2).stride({2, 1, 2}).padding(1))->repr()},
      {"torch.nn.LPPool2d(2.0, 3, stride=2)", nn::LPPool2d(nn::LPPool2dOptions(2, 3).stride(2))->repr()},
      {"torch.nn.LPPool1d(1.5, 4, stride=4)", nn::LPPool1d(nn::LPPool1dOptions(1.5, 4))->repr()},
      {"torch.nn.FractionalMaxPool2d(3, output_ratio=0.5)",
       nn::FractionalMaxPool2d(nn::FractionalMaxPool2dOptions(3).output_ratio(0.5))->repr()},
      {"torch.nn.BatchNorm2d(32)", nn::BatchNorm2d(32)->repr()},
      {"torch.nn.BatchNorm1d(8, momentum=None, affine=False)",
       nn::BatchNorm1d(nn::BatchNorm1dOptions(8).momentum(std::nullopt).affine(false))->repr()},
      {"torch.nn.LayerNorm(128)", nn::LayerNorm(nn::LayerNormOptions({128}))->repr()},
      {"torch.nn.GroupNorm(8, 32, eps=0.001)", nn::GroupNorm(nn::GroupNormOptions(8, 32).eps(0.001))->repr()},
      {"torch.nn.InstanceNorm2d(3)", nn::InstanceNorm2d(3)->repr()},
      {"torch.nn.ReflectionPad2d((1, 1, 2, 0))", nn::ReflectionPad2d(nn::ReflectionPad2dOptions({1, 1, 2, 0}))->repr()},
      {"torch.nn.ReplicationPad1d(3)", nn::ReplicationPad1d(3)->repr()},
      {"torch.nn.ZeroPad2d(2)", nn::ZeroPad2d(2)->repr()},
      {"torch.nn.ConstantPad3d((1, 2, 3, 4, 5, 6), 0.5)", nn::ConstantPad3d(nn::ConstantPad3dOptions({1, 2, 3, 4, 5, 6}, 0.5))->repr()},
      {"torch.nn.Upsample(scale_factor=2, mode='bilinear')",
       nn::Upsample(nn::UpsampleOptions().scale_factor(std::vector<double>{2}).mode(ember::kBilinear))->repr()},
      {"torch.nn.Upsample(size=(4, 5))", nn::Upsample(nn::UpsampleOptions().size(std::vector<int64_t>{4, 5}))->repr()},
      {"torch.nn.PixelShuffle(2)", nn::PixelShuffle(2)->repr()},
      {"torch.nn.PixelUnshuffle(3)", nn::PixelUnshuffle(3)->repr()},
      {"torch.nn.CosineSimilarity()", nn::CosineSimilarity()->repr()},
      {"torch.nn.PairwiseDistance()", nn::PairwiseDistance()->repr()},
      {"torch.nn.Fold((4, 5), (2, 2), dilation=(1, 1), padding=(0, 0), stride=(1, 1))", nn::Fold(nn::FoldOptions({4, 5}, {2, 2}))->repr()},
      {"torch.nn.Unfold((2, 3), stride=(2, 2), padding=(1, 1), dilation=(1, 1))",
       nn::Unfold(nn::UnfoldOptions({2, 3}).stride(2).padding(1))->repr()},
      {"torch.nn.CrossEntropyLoss()", nn::CrossEntropyLoss()->repr()},
      {"torch.nn.NLLLoss()", nn::NLLLoss()->repr()},
  };
  if (const std::string why = expect_python_prints(cases); !why.empty()) GTEST_SKIP() << why;
  expect_no_validation_messages();
}

}  // namespace
}  // namespace ember::test
