// Each module's default init against LibTorch's module of the same options: the same parameter and buffer
// names, shapes and dtypes; constant inits (norm weights, running statistics, PReLU) equal LibTorch's
// values; random ones are drawn from LibTorch's distribution (a two-sample Kolmogorov-Smirnov test, since
// the generators differ) and stay within PyTorch's bound, 1/sqrt(fan_in) for the kaiming-uniform rule of
// Linear, Bilinear and the convolutions.
#include <torch/torch.h>

#include <algorithm>
#include <cmath>
#include <optional>

#include "ember.h"
#include "tests/oracle.h"
#include "tests/statistics.h"
#include "tests/test_support.h"

namespace ember::test {
namespace {

class DefaultInitTest : public BackendTest {
 protected:
  void SetUp() override {
    BackendTest::SetUp();
    ember::manual_seed(2024);
    torch::manual_seed(2024);
  }

  // `bound`: PyTorch's bound on |x| for the module's random parameters, where its rule has one.
  void expect_same_init(nn::Module& ours, torch::nn::Module& theirs, std::optional<double> bound = std::nullopt) {
    ours.to(device);
    const auto params = ours.named_parameters();
    const auto buffers = ours.named_buffers();
    std::vector<std::string> their_params, their_buffers;
    for (const auto& p : theirs.named_parameters()) their_params.push_back(p.key());
    for (const auto& b : theirs.named_buffers()) their_buffers.push_back(b.key());
    EXPECT_EQ(params.keys(), their_params);
    EXPECT_EQ(buffers.keys(), their_buffers);
    for (const auto& p : theirs.named_parameters()) {
      if (!params.contains(p.key())) continue;
      SCOPED_TRACE(ours.name() + " parameter " + p.key());
      EXPECT_TRUE(params[p.key()].requires_grad());
      expect_same_distribution(params[p.key()], p.value().detach(), bound);
    }
    for (const auto& b : theirs.named_buffers()) {
      if (!buffers.contains(b.key())) continue;
      SCOPED_TRACE(ours.name() + " buffer " + b.key());
      expect_same_distribution(buffers[b.key()], b.value(), bound);
    }
  }

  static void expect_same_distribution(const Tensor& ours, const at::Tensor& theirs, std::optional<double> bound) {
    ASSERT_EQ(ours.sizes().vec(), theirs.sizes().vec());
    EXPECT_EQ(ours.dtype(), ember_dtype(theirs.scalar_type()));
    const at::Tensor mine = to_torch(ours).to(at::kDouble).flatten();
    const at::Tensor reference = theirs.to(at::kDouble).flatten();
    if (reference.numel() == 0) return;
    if (reference.eq(reference[0]).all().item<bool>()) {
      EXPECT_TRUE(at::equal(mine, reference)) << "LibTorch's init is the constant " << reference[0].item<double>();
      return;
    }
    // A wrong rule (fan_out for fan_in, normal for uniform) fails on these sizes.
    EXPECT_LT(kolmogorov_smirnov(mine, reference), kolmogorov_smirnov_bound(mine.numel(), reference.numel()));
    if (bound) {
      EXPECT_LE(mine.abs().max().item<double>(), *bound);
    }
  }
};

double inverse_sqrt(double fan_in) { return 1 / std::sqrt(fan_in); }

TEST_P(DefaultInitTest, LinearLayers) {
  {
    nn::Linear ours(1000, 40);
    torch::nn::Linear theirs(1000, 40);
    expect_same_init(*ours, *theirs, inverse_sqrt(1000));
  }
  {
    nn::Bilinear ours(30, 50, 20);
    torch::nn::Bilinear theirs(30, 50, 20);
    expect_same_init(*ours, *theirs, inverse_sqrt(30));  // Bilinear's own rule: 1/sqrt(in1_features)
  }
}

TEST_P(DefaultInitTest, Convolutions) {
  {
    nn::Conv1d ours(nn::Conv1dOptions(64, 8, 5));
    torch::nn::Conv1d theirs(torch::nn::Conv1dOptions(64, 8, 5));
    expect_same_init(*ours, *theirs, inverse_sqrt(64 * 5));
  }
  {
    nn::Conv2d ours(nn::Conv2dOptions(48, 16, 3).groups(4));
    torch::nn::Conv2d theirs(torch::nn::Conv2dOptions(48, 16, 3).groups(4));
    expect_same_init(*ours, *theirs, inverse_sqrt(12 * 9));
  }
  {
    nn::Conv3d ours(nn::Conv3dOptions(8, 4, 3));
    torch::nn::Conv3d theirs(torch::nn::Conv3dOptions(8, 4, 3));
    expect_same_init(*ours, *theirs, inverse_sqrt(8 * 27));
  }
  // A transposed weight is (in, out / groups, kernel...): its fan_in is out / groups times the kernel.
  {
    nn::ConvTranspose1d ours(nn::ConvTranspose1dOptions(16, 64, 3));
    torch::nn::ConvTranspose1d theirs(torch::nn::ConvTranspose1dOptions(16, 64, 3));
    expect_same_init(*ours, *theirs, inverse_sqrt(64 * 3));
  }
  {
    nn::ConvTranspose2d ours(nn::ConvTranspose2dOptions(32, 8, 4));
    torch::nn::ConvTranspose2d theirs(torch::nn::ConvTranspose2dOptions(32, 8, 4));
    expect_same_init(*ours, *theirs, inverse_sqrt(8 * 16));
  }
}

TEST_P(DefaultInitTest, Normalization) {
  {
    nn::BatchNorm1d ours(50);
    torch::nn::BatchNorm1d theirs(50);
    expect_same_init(*ours, *theirs);
  }
  {
    nn::BatchNorm2d ours(nn::BatchNorm2dOptions(20).affine(false));
    torch::nn::BatchNorm2d theirs(torch::nn::BatchNorm2dOptions(20).affine(false));
    expect_same_init(*ours, *theirs);
  }
  {
    nn::InstanceNorm2d ours(nn::InstanceNorm2dOptions(10).affine(true).track_running_stats(true));
    torch::nn::InstanceNorm2d theirs(torch::nn::InstanceNorm2dOptions(10).affine(true).track_running_stats(true));
    expect_same_init(*ours, *theirs);
  }
  {
    nn::LayerNorm ours(nn::LayerNormOptions({7, 9}));
    torch::nn::LayerNorm theirs(torch::nn::LayerNormOptions({7, 9}));
    expect_same_init(*ours, *theirs);
  }
  {
    nn::GroupNorm ours(nn::GroupNormOptions(4, 12));
    torch::nn::GroupNorm theirs(torch::nn::GroupNormOptions(4, 12));
    expect_same_init(*ours, *theirs);
  }
}

TEST_P(DefaultInitTest, EmbeddingsAndPReLU) {
  {
    nn::Embedding ours(500, 64);
    torch::nn::Embedding theirs(500, 64);
    expect_same_init(*ours, *theirs);
  }
  {
    nn::Embedding ours(nn::EmbeddingOptions(300, 16).padding_idx(3));
    torch::nn::Embedding theirs(torch::nn::EmbeddingOptions(300, 16).padding_idx(3));
    expect_same_init(*ours, *theirs);
    EXPECT_TRUE(to_torch(ours->weight[3]).eq(0).all().item<bool>()) << "padding_idx's row starts at zero";
  }
  {
    nn::EmbeddingBag ours(400, 32);
    torch::nn::EmbeddingBag theirs(400, 32);
    expect_same_init(*ours, *theirs);
  }
  {
    nn::PReLU ours(nn::PReLUOptions().num_parameters(5));
    torch::nn::PReLU theirs(torch::nn::PReLUOptions().num_parameters(5));
    expect_same_init(*ours, *theirs);
  }
}

TEST_P(DefaultInitTest, AttentionAndTransformer) {
  {
    nn::MultiheadAttention ours(nn::MultiheadAttentionOptions(64, 4).add_bias_kv(true));
    torch::nn::MultiheadAttention theirs(torch::nn::MultiheadAttentionOptions(64, 4).add_bias_kv(true));
    expect_same_init(*ours, *theirs);
  }
  {
    nn::MultiheadAttention ours(nn::MultiheadAttentionOptions(64, 4).kdim(32).vdim(32));
    torch::nn::MultiheadAttention theirs(torch::nn::MultiheadAttentionOptions(64, 4).kdim(32).vdim(32));
    expect_same_init(*ours, *theirs);
  }
  {
    nn::Transformer ours(nn::TransformerOptions(32, 4, 1, 1).dim_feedforward(64));
    torch::nn::Transformer theirs(torch::nn::TransformerOptions(32, 4, 1, 1).dim_feedforward(64));
    expect_same_init(*ours, *theirs);
  }
}

TEST_P(DefaultInitTest, RecurrentLayers) {
  // Every weight and bias: uniform(±1/sqrt(hidden_size)).
  {
    nn::LSTM ours(nn::LSTMOptions(16, 32).num_layers(2).bidirectional(true));
    torch::nn::LSTM theirs(torch::nn::LSTMOptions(16, 32).num_layers(2).bidirectional(true));
    expect_same_init(*ours, *theirs, inverse_sqrt(32));
  }
  {
    nn::GRU ours(nn::GRUOptions(24, 40));
    torch::nn::GRU theirs(torch::nn::GRUOptions(24, 40));
    expect_same_init(*ours, *theirs, inverse_sqrt(40));
  }
  {
    nn::RNNCell ours(nn::RNNCellOptions(20, 50));
    torch::nn::RNNCell theirs(torch::nn::RNNCellOptions(20, 50));
    expect_same_init(*ours, *theirs, inverse_sqrt(50));
  }
}

INSTANTIATE_TEST_SUITE_P(Backends, DefaultInitTest, testing::Values("vulkan", "cuda"), backend_test_name);

}  // namespace
}  // namespace ember::test
