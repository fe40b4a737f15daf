// MultiheadAttention and the transformer modules against LibTorch's torch::nn modules with the same
// weights: outputs, attention weights, and the gradients of every input and parameter. What LibTorch
// 1.13's C++ modules lack (batch_first, norm_first, kdim != vdim, 3-D attention masks, bool attention
// masks, which its C++ forward adds instead of hiding) is checked against Python's modules through
// python3-torch.
#include <torch/torch.h>

#include <limits>

#include "ember.h"
#include "tests/nn/torch_parameters.h"
#include "tests/oracle.h"
#include "tests/python_oracle.h"
#include "tests/test_support.h"

namespace ember::test {
namespace {

constexpr double kTolerance = 2e-5;

// Hides key 0 from nobody, so no row of scores is all -inf.
at::Tensor random_hiding_mask(at::IntArrayRef sizes, uint64_t seed) {
  at::Tensor mask = random_torch(sizes, DType::Bool, seed);
  mask.select(-1, 0).fill_(false);
  return mask;
}

// A bool mask (true hides) as the additive mask LibTorch 1.13's C++ forward expects.
at::Tensor additive(const at::Tensor& hiding) {
  return at::zeros(hiding.sizes()).masked_fill(hiding, -std::numeric_limits<double>::infinity());
}

class TransformerModulesTest : public BackendTest {
 protected:
  using Inputs = std::vector<at::Tensor>;

  // Runs both modules on the same float32 inputs (leaves that require grad), compares the outputs, then
  // back-propagates one random output gradient through both and compares every input's and parameter's
  // gradient. `run_*` return the output that is compared and differentiated.
  void expect_same(nn::Module& ours, torch::nn::Module& theirs, const Inputs& inputs,
                   const std::function<Tensor(const std::vector<Tensor>&)>& run_ours,
                   const std::function<at::Tensor(const Inputs&)>& run_theirs) {
    Inputs torch_inputs;
    std::vector<Tensor> ember_inputs;
    for (const at::Tensor& input : inputs) {
      torch_inputs.push_back(input.clone().requires_grad_(true));
      ember_inputs.push_back(from_torch(input, device).requires_grad_(true));
    }
    const at::Tensor expected = run_theirs(torch_inputs);
    const Tensor got = run_ours(ember_inputs);
    EXPECT_TENSOR_EQ(got, expected.detach(), kTolerance, kTolerance);
    const at::Tensor grad = random_torch(expected.sizes(), DType::Float32, 77, -1, 1);
    expected.backward(grad);
    got.backward(from_torch(grad, device));
    for (size_t i = 0; i < inputs.size(); ++i) {
      SCOPED_TRACE("gradient of input " + std::to_string(i));
      EXPECT_TENSOR_EQ(ember_inputs[i].grad(), torch_inputs[i].grad(), kTolerance, kTolerance);
    }
    const auto mine = ours.named_parameters();
    for (const auto& p : theirs.named_parameters()) {
      SCOPED_TRACE("gradient of " + p.key());
      ASSERT_TRUE(p.value().grad().defined());
      EXPECT_TENSOR_EQ(mine[p.key()].grad(), p.value().grad(), kTolerance, kTolerance);
    }
  }

  void expect_same_names(nn::Module& ours, const torch::nn::Module& theirs) {
    std::vector<std::string> our_names, their_names;
    for (const auto& p : ours.named_parameters()) our_names.push_back(p.key() + to_string(p.value().sizes()));
    for (const auto& p : theirs.named_parameters()) {
      their_names.push_back(p.key() + to_string(std::vector<int64_t>(p.value().sizes().begin(), p.value().sizes().end())));
    }
    EXPECT_EQ(our_names, their_names);
  }
};

struct AttentionCase {
  std::string name;
  int64_t kdim = 8, vdim = 8;
  bool bias = true, add_bias_kv = false, add_zero_attn = false;
  bool attn_mask = false, key_padding_mask = false;
  bool need_weights = true, average = true;
};

TEST_P(TransformerModulesTest, MultiheadAttentionMatchesLibTorch) {
  const int64_t E = 8, H = 2, L = 3, S = 5, N = 2;
  const std::vector<AttentionCase> cases = {
      {"plain"},
      {"masks", 8, 8, true, false, false, true, true},
      {"masks through the attention kernels", 8, 8, true, false, false, true, true, false},
      {"kdim = vdim != embed_dim, weights per head", 6, 6, true, false, false, false, true, true, false},
      {"bias_k, bias_v and a zero key", 8, 8, true, true, true, true, true},
      {"no bias", 8, 8, false},
  };
  uint64_t seed = 1;
  for (const AttentionCase& c : cases) {
    SCOPED_TRACE(c.name);
    seed += 10;
    auto theirs = torch::nn::MultiheadAttention(torch::nn::MultiheadAttentionOptions(E, H)
                                                    .kdim(c.kdim)
                                                    .vdim(c.vdim)
                                                    .bias(c.bias)
                                                    .add_bias_kv(c.add_bias_kv)
                                                    .add_zero_attn(c.add_zero_attn));
    nn::MultiheadAttention ours(nn::MultiheadAttentionOptions(E, H)
                                    .kdim(c.kdim)
                                    .vdim(c.vdim)
                                    .bias(c.bias)
                                    .add_bias_kv(c.add_bias_kv)
                                    .add_zero_attn(c.add_zero_attn));
    ours->to(device);
    expect_same_names(*ours, *theirs);
    copy_parameters(*ours, *theirs, device);
    const at::Tensor hide = c.attn_mask ? random_hiding_mask({L, S}, seed) : at::Tensor();
    const at::Tensor padding = c.key_padding_mask ? random_hiding_mask({N, S}, seed + 1) : at::Tensor();
    const Tensor our_hide = hide.defined() ? from_torch(hide, device) : Tensor();
    const Tensor our_padding = padding.defined() ? from_torch(padding, device) : Tensor();
    const at::Tensor their_hide = hide.defined() ? additive(hide) : at::Tensor();
    const Inputs inputs = {random_torch({L, N, E}, DType::Float32, seed + 2, -1, 1),
                           random_torch({S, N, c.kdim}, DType::Float32, seed + 3, -1, 1),
                           random_torch({S, N, c.vdim}, DType::Float32, seed + 4, -1, 1)};
    Tensor our_weights;
    at::Tensor their_weights;
    expect_same(
        *ours, *theirs, inputs,
        [&](const std::vector<Tensor>& x) {
          auto [out, weights] = ours(x[0], x[1], x[2], our_padding, c.need_weights, our_hide, c.average);
          our_weights = weights;
          return out;
        },
        [&](const Inputs& x) {
          auto [out, weights] = theirs(x[0], x[1], x[2], padding, c.need_weights, their_hide, c.average);
          their_weights = weights;
          return out;
        });
    ASSERT_EQ(our_weights.defined(), c.need_weights);
    if (c.need_weights) EXPECT_TENSOR_EQ(our_weights, their_weights.detach(), kTolerance, kTolerance);
  }
}

TEST_P(TransformerModulesTest, TransformerLayersMatchLibTorch) {
  const int64_t d = 8, heads = 2, ff = 16, S = 5, T = 4, N = 2;
  for (bool gelu : {false, true}) {
    SCOPED_TRACE(gelu ? "gelu" : "relu");
    auto their_encoder = torch::nn::TransformerEncoderLayer(
        torch::nn::TransformerEncoderLayerOptions(d, heads).dim_feedforward(ff).dropout(0.0).activation(
            gelu ? torch::nn::activation_t(torch::kGELU) : torch::nn::activation_t(torch::kReLU)));
    nn::TransformerEncoderLayer our_encoder(nn::TransformerEncoderLayerOptions(d, heads)
                                                .dim_feedforward(ff)
                                                .dropout(0.0)
                                                .activation(gelu ? nn::TransformerActivation(kGELU)
                                                                 : nn::TransformerActivation(kReLU)));
    our_encoder->to(device);
    expect_same_names(*our_encoder, *their_encoder);
    copy_parameters(*our_encoder, *their_encoder, device);
    const at::Tensor causal = torch::nn::TransformerImpl::generate_square_subsequent_mask(S);
    const at::Tensor padding = random_hiding_mask({N, S}, 5);
    expect_same(
        *our_encoder, *their_encoder, {random_torch({S, N, d}, DType::Float32, 6, -1, 1)},
        [&](const std::vector<Tensor>& x) {
          return our_encoder(x[0], nn::TransformerImpl::generate_square_subsequent_mask(S, device),
                             from_torch(padding, device));
        },
        [&](const Inputs& x) { return their_encoder(x[0], causal, padding); });

    auto their_decoder = torch::nn::TransformerDecoderLayer(
        torch::nn::TransformerDecoderLayerOptions(d, heads).dim_feedforward(ff).dropout(0.0).activation(
            gelu ? torch::nn::activation_t(torch::kGELU) : torch::nn::activation_t(torch::kReLU)));
    nn::TransformerDecoderLayer our_decoder(nn::TransformerDecoderLayerOptions(d, heads)
                                                .dim_feedforward(ff)
                                                .dropout(0.0)
                                                .activation(gelu ? nn::TransformerActivation(kGELU)
                                                                 : nn::TransformerActivation(kReLU)));
    our_decoder->to(device);
    expect_same_names(*our_decoder, *their_decoder);
    copy_parameters(*our_decoder, *their_decoder, device);
    const at::Tensor tgt_causal = torch::nn::TransformerImpl::generate_square_subsequent_mask(T);
    const at::Tensor tgt_padding = random_hiding_mask({N, T}, 7), memory_padding = random_hiding_mask({N, S}, 8);
    expect_same(
        *our_decoder, *their_decoder,
        {random_torch({T, N, d}, DType::Float32, 9, -1, 1), random_torch({S, N, d}, DType::Float32, 10, -1, 1)},
        [&](const std::vector<Tensor>& x) {
          return our_decoder(x[0], x[1], from_torch(tgt_causal, device), Tensor(), from_torch(tgt_padding, device),
                             from_torch(memory_padding, device));
        },
        [&](const Inputs& x) { return their_decoder(x[0], x[1], tgt_causal, at::Tensor(), tgt_padding, memory_padding); });
  }
}

TEST_P(TransformerModulesTest, TransformerMatchesLibTorch) {
  const int64_t d = 8, heads = 2, S = 5, T = 4, N = 2;
  auto theirs = torch::nn::Transformer(torch::nn::TransformerOptions(d, heads, 2, 2).dim_feedforward(16).dropout(0.1));
  nn::Transformer ours(nn::TransformerOptions(d, heads, 2, 2).dim_feedforward(16).dropout(0.1));
  ours->to(device);
  expect_same_names(*ours, *theirs);
  copy_parameters(*ours, *theirs, device);
  // Dropout is off in eval mode on both sides.
  ours->eval();
  theirs->eval();
  const at::Tensor tgt_causal = torch::nn::TransformerImpl::generate_square_subsequent_mask(T);
  EXPECT_TENSOR_EQ(nn::TransformerImpl::generate_square_subsequent_mask(T, device), tgt_causal);
  const at::Tensor src_padding = random_hiding_mask({N, S}, 20);
  expect_same(
      *ours, *theirs,
      {random_torch({S, N, d}, DType::Float32, 21, -1, 1), random_torch({T, N, d}, DType::Float32, 22, -1, 1)},
      [&](const std::vector<Tensor>& x) {
        return ours(x[0], x[1], Tensor(), from_torch(tgt_causal, device), Tensor(), from_torch(src_padding, device),
                    Tensor(), from_torch(src_padding, device));
      },
      [&](const Inputs& x) { return theirs(x[0], x[1], at::Tensor(), tgt_causal, at::Tensor(), src_padding, at::Tensor(), src_padding); });

  // A clone owns its parameters, down to the stacks' norms.
  const auto params = ours->named_parameters();
  auto copy = std::dynamic_pointer_cast<nn::TransformerImpl>(ours->clone());
  ASSERT_TRUE(copy);
  EXPECT_TRUE(equal(copy->named_parameters()["decoder.norm.weight"], params["decoder.norm.weight"]));
  NoGradGuard no_grad;
  copy->named_parameters()["decoder.norm.weight"].fill_(3);
  EXPECT_FALSE(equal(copy->named_parameters()["decoder.norm.weight"], params["decoder.norm.weight"]));
}

// Python's modules, for what LibTorch 1.13's C++ ones lack. The weights travel as Python literals.
TEST_P(TransformerModulesTest, BatchFirstNormFirstAndMaskKindsMatchPython) {
  const int64_t d = 8, heads = 2, S = 5, T = 3, N = 2;
  nn::TransformerEncoderLayer encoder(
      nn::TransformerEncoderLayerOptions(d, heads).dim_feedforward(16).dropout(0.0).batch_first(true).norm_first(true));
  nn::TransformerDecoderLayer decoder(
      nn::TransformerDecoderLayerOptions(d, heads).dim_feedforward(16).dropout(0.0).batch_first(true).norm_first(true));
  nn::MultiheadAttention attention(nn::MultiheadAttentionOptions(d, heads).batch_first(true));
  nn::MultiheadAttention cross(nn::MultiheadAttentionOptions(d, heads).kdim(6).vdim(4));
  for (nn::Module* m : std::initializer_list<nn::Module*>{encoder.get(), decoder.get(), attention.get(), cross.get()}) {
    m->to(device);
  }

  auto state_of = [](nn::Module& module) {
    std::string text = "{";
    for (const auto& p : module.named_parameters()) text += "'" + p.key() + "': " + python_tensor(to_torch(p.value())) + ",";
    return text + "}";
  };
  const at::Tensor src = random_torch({N, S, d}, DType::Float32, 30, -1, 1);
  const at::Tensor tgt = random_torch({N, T, d}, DType::Float32, 31, -1, 1);
  const at::Tensor hide_3d = random_hiding_mask({N * heads, T, S}, 32);  // bool, true hides
  const at::Tensor float_2d = random_torch({T, S}, DType::Float32, 33, -2, 0);
  const at::Tensor unbatched = random_torch({T, d}, DType::Float32, 34, -1, 1);
  std::string script =
      "import torch.nn as nn\n"
      "enc = nn.TransformerEncoderLayer(8, 2, dim_feedforward=16, dropout=0.0, batch_first=True, norm_first=True)\n"
      "dec = nn.TransformerDecoderLayer(8, 2, dim_feedforward=16, dropout=0.0, batch_first=True, norm_first=True)\n"
      "mha = nn.MultiheadAttention(8, 2, batch_first=True)\n"
      "cross = nn.MultiheadAttention(8, 2, kdim=6, vdim=4)\n";
  script += "enc.load_state_dict(" + state_of(*encoder) + ")\n";
  script += "dec.load_state_dict(" + state_of(*decoder) + ")\n";
  script += "mha.load_state_dict(" + state_of(*attention) + ")\n";
  script += "cross.load_state_dict(" + state_of(*cross) + ")\n";
  script += "src = " + python_tensor(src) + "\ntgt = " + python_tensor(tgt) + "\n";
  script += "hide = " + python_tensor(hide_3d.to(at::kFloat)) + ".bool()\nadd = " + python_tensor(float_2d) + "\n";
  script += "one = " + python_tensor(unbatched) + "\n";
  script += "memory = enc(src)\nprint(memory.tolist())\nprint('@@END@@')\n";
  script += "print(dec(tgt, memory).tolist())\nprint('@@END@@')\n";
  script += "out, w = mha(tgt, src, src, attn_mask=hide)\nprint(out.tolist(), w.tolist())\nprint('@@END@@')\n";
  script += "out, w = mha(tgt, src, src, attn_mask=add, average_attn_weights=False)\n"
            "print(out.tolist(), w.tolist())\nprint('@@END@@')\n";
  script += "out, w = mha(one, one, one)\nprint(out.tolist(), w.tolist())\nprint('@@END@@')\n";
  const at::Tensor keys = random_torch({S, N, 6}, DType::Float32, 35, -1, 1);
  const at::Tensor values = random_torch({S, N, 4}, DType::Float32, 36, -1, 1);
  script += "out, w = cross(tgt.transpose(0, 1), " + python_tensor(keys) + ", " + python_tensor(values) +
            ")\nprint(out.tolist(), w.tolist())\nprint('@@END@@')\n";
  std::vector<std::string> answers;
  ASSERT_PYTHON_ANSWERS(answers, script, 6u);

  auto expect_numbers = [](const std::vector<Tensor>& ours, const std::string& answer) {
    std::vector<double> got;
    for (const Tensor& t : ours) {
      for (double v : t.flatten().to_vector<double>()) got.push_back(v);
    }
    const std::vector<double> expected = python_numbers(answer);
    ASSERT_EQ(got.size(), expected.size()) << answer.substr(0, 300);
    for (size_t i = 0; i < got.size(); ++i) EXPECT_NEAR(got[i], expected[i], kTolerance * (1 + std::abs(expected[i])));
  };
  const Tensor our_src = from_torch(src, device), our_tgt = from_torch(tgt, device);
  const Tensor memory = encoder(our_src);
  expect_numbers({memory}, answers[0]);
  expect_numbers({decoder(our_tgt, memory)}, answers[1]);
  {
    auto [out, weights] = attention(our_tgt, our_src, our_src, Tensor(), true, from_torch(hide_3d, device));
    expect_numbers({out, weights}, answers[2]);
  }
  {
    auto [out, weights] = attention(our_tgt, our_src, our_src, Tensor(), true, from_torch(float_2d, device), false);
    expect_numbers({out, weights}, answers[3]);
  }
  {
    const Tensor one = from_torch(unbatched, device);
    auto [out, weights] = attention(one, one, one);
    EXPECT_EQ(out.sizes().vec(), (std::vector<int64_t>{T, d}));
    expect_numbers({out, weights}, answers[4]);
  }
  {
    auto [out, weights] = cross(our_tgt.transpose(0, 1), from_torch(keys, device), from_torch(values, device));
    expect_numbers({out, weights}, answers[5]);
  }
}

TEST_P(TransformerModulesTest, BadInputIsNamed) {
  nn::MultiheadAttention attention(8, 2);
  attention->to(device);
  const Tensor x = zeros({3, 2, 8}, TensorOptions().device(device));
  expect_error<Error>([&] { attention(zeros({3, 2, 6}, TensorOptions().device(device)), x, x); },
                      "was expecting embedding dimension of 8, but got 6");
  expect_error<Error>([&] { attention(x, x, x, Tensor(), true, zeros({3, 4}, TensorOptions().device(device))); },
                      "The shape of the 2D attn_mask is [3, 4], but should be [3, 3].");
  expect_error<Error>([&] { attention(x, x, x, zeros({3, 3}, TensorOptions().dtype(DType::Bool).device(device))); },
                      "expecting key_padding_mask shape of [2, 3], but got [3, 3]");
  expect_error<Error>([] { nn::MultiheadAttention(10, 3); }, "embed_dim must be divisible by num_heads");
  nn::Transformer model(nn::TransformerOptions(8, 2, 1, 1).dim_feedforward(16));
  model->to(device);
  expect_error<Error>([&] { model(x, zeros({3, 5, 8}, TensorOptions().device(device))); },
                      "the batch number of src and tgt must be equal");
}

INSTANTIATE_TEST_SUITE_P(Backends, TransformerModulesTest, testing::Values("vulkan", "cuda"), backend_test_name);

}  // namespace
}  // namespace ember::test
