// Autocast (tensor/autocast.h): which dtype each op gives under the guard, checked against PyTorch's CPU
// autocast where its list agrees with the CUDA list that ember follows, and against the CUDA list where
// they differ; the values of a product on cast inputs against LibTorch; gradients back to float32
// parameters; the guard's state, cache and refusals.
#include <torch/torch.h>

#include <functional>
#include <string>
#include <thread>
#include <vector>

#include "ember.h"
#include "tests/oracle.h"
#include "tests/python_oracle.h"
#include "tests/test_support.h"

namespace ember::test {
namespace {

namespace F = ember::nn::functional;

class AutocastTest : public BackendTest {
 protected:
  // Float32 inputs shared by the cases: x [4, 8] in [0.5, 1.5) (positive, so that log and pow are
  // defined), w [6, 8], b [6], class targets t [4], convolution weights c1, c2, c3.
  void SetUp() override {
    BackendTest::SetUp();
    if (IsSkipped()) return;
    const TensorOptions f32 = TensorOptions().dtype(kFloat32).device(device);
    x = from_torch(random_torch({4, 8}, kFloat32, 1, 0.5, 1.5), device);
    w = from_torch(random_torch({6, 8}, kFloat32, 2, -1, 1), device);
    b = from_torch(random_torch({6}, kFloat32, 3, -1, 1), device);
    t = tensor({0, 1, 2, 3}, TensorOptions().dtype(kInt64).device(device));
    c1 = rand({2, 4, 3}, f32);
    c2 = rand({2, 1, 3, 3}, f32);
    c3 = rand({2, 1, 3, 3, 1}, f32);
  }

  Tensor x, w, b, t, c1, c2, c3;
};

struct DtypeCase {
  std::string name;
  std::string python;  // the same op in Python, over the same names (h: x in bfloat16)
  std::function<Tensor()> ember;
};

std::string dtype_text(const Tensor& t) { return std::string(dtype_name(t.dtype())); }

std::string trimmed(const std::string& text) {
  const size_t begin = text.find_first_not_of(" \n");
  return begin == std::string::npos ? "" : text.substr(begin, text.find_last_not_of(" \n") - begin + 1);
}

// Where PyTorch 1.13's CPU autocast list (bfloat16 only) agrees with the CUDA list, its answer is the oracle:
// each case runs under torch.autocast("cpu", dtype=torch.bfloat16) and under AutocastGuard(kBFloat16).
TEST_P(AutocastTest, DtypesMatchPyTorchWhereItsCpuAndCudaListsAgree) {
  const Tensor h = x.to(kBFloat16);
  const Tensor ints = ones({2, 2}, TensorOptions().dtype(kInt64).device(device));
  const std::vector<DtypeCase> cases = {
      // Lower precision.
      {"mm", "torch.mm(x, w.t())", [&] { return x.mm(w.t()); }},
      {"matmul", "torch.matmul(x[None], w.t())", [&] { return x.unsqueeze(0).matmul(w.t()); }},
      {"bmm", "torch.bmm(x[None], w.t()[None])", [&] { return x.unsqueeze(0).bmm(w.t().unsqueeze(0)); }},
      {"addmm", "torch.addmm(b, x, w.t())", [&] { return b.addmm(x, w.t()); }},
      {"baddbmm", "torch.baddbmm(b[None, None], x[None], w.t()[None])",
       [&] { return b.unsqueeze(0).unsqueeze(0).baddbmm(x.unsqueeze(0), w.t().unsqueeze(0)); }},
      {"linear", "F.linear(x, w, b)", [&] { return F::linear(x, w, b); }},
      {"linear_3d", "F.linear(x[None], w)", [&] { return F::linear(x.unsqueeze(0), w); }},
      {"conv1d", "F.conv1d(x[None], c1)", [&] { return F::conv1d(x.unsqueeze(0), c1); }},
      {"conv2d", "F.conv2d(x[None, None], c2)", [&] { return F::conv2d(x.unsqueeze(0).unsqueeze(0), c2); }},
      {"conv3d", "F.conv3d(x[None, None, :, :, None], c3)",
       [&] { return F::conv3d(x.unsqueeze(0).unsqueeze(0).unsqueeze(-1), c3); }},
      {"mm_of_float16", "torch.mm(x.half(), x.half().t())", [&] { return x.to(kFloat16).mm(x.to(kFloat16).t()); }},
      // Float32, from bfloat16 inputs.
      {"prod", "h.prod()", [&] { return h.prod(); }},
      {"cross_entropy", "F.cross_entropy(h[:, :6], t)", [&] { return F::cross_entropy(h.slice(1, 0, 6), t); }},
      {"nll_loss", "F.nll_loss(h[:, :6], t)", [&] { return F::nll_loss(h.slice(1, 0, 6), t); }},
      {"mse_loss", "F.mse_loss(h, h)", [&] { return F::mse_loss(h, h); }},
      {"l1_loss", "F.l1_loss(h, h)", [&] { return F::l1_loss(h, h); }},
      {"smooth_l1_loss", "F.smooth_l1_loss(h, h)", [&] { return F::smooth_l1_loss(h, h); }},
      {"soft_margin_loss", "F.soft_margin_loss(h, h.sign())", [&] { return F::soft_margin_loss(h, h.sign()); }},
      {"bce_with_logits", "F.binary_cross_entropy_with_logits(h, h.sigmoid())",
       [&] { return F::binary_cross_entropy_with_logits(h, h.sigmoid()); }},
      {"kl_div", "F.kl_div(h, h, reduction='sum')", [&] { return F::kl_div(h, h, F::KLDivFuncOptions(kSum)); }},
      {"poisson_nll_loss", "F.poisson_nll_loss(h, h)", [&] { return F::poisson_nll_loss(h, h); }},
      {"cdist", "torch.cdist(h, h)", [&] { return F::cdist(h, h); }},
      // In neither list: the inputs' dtype, promoted as usual.
      {"relu", "h.relu()", [&] { return h.relu(); }},
      {"tanh", "h.tanh()", [&] { return h.tanh(); }},
      {"mean", "h.mean()", [&] { return h.mean(); }},
      {"add", "h + h", [&] { return h + h; }},
      {"add_mixed", "h + x", [&] { return h + x; }},
      {"sum_with_dtype", "h.sum(dtype=torch.bfloat16)", [&] { return h.sum(kBFloat16); }},
      {"mm_of_int64", "torch.mm(torch.ones(2, 2, dtype=torch.int64), torch.ones(2, 2, dtype=torch.int64))",
       [&] { return ints.mm(ints); }},
      {"linear_float64", "F.linear(x.double(), w.double())", [&] { return F::linear(x.to(kFloat64), w.to(kFloat64)); }},
  };
  std::string script =
      "import torch.nn.functional as F\n"
      "x = torch.rand(4, 8) + 0.5\nw = torch.rand(6, 8)\nb = torch.rand(6)\nt = torch.tensor([0, 1, 2, 3])\n"
      "c1 = torch.rand(2, 4, 3)\nc2 = torch.rand(2, 1, 3, 3)\nc3 = torch.rand(2, 1, 3, 3, 1)\nh = x.bfloat16()\n"
      "with torch.autocast('cpu', dtype=torch.bfloat16):\n";
  for (const DtypeCase& c : cases) {
    script += "    print(str((" + c.python + ").dtype).replace('torch.', ''))\n    print('@@END@@')\n";
  }
  std::vector<std::string> answers;
  ASSERT_PYTHON_ANSWERS(answers, script, cases.size());

  autocast::AutocastGuard autocast(kBFloat16);
  for (size_t i = 0; i < cases.size(); ++i) {
    EXPECT_EQ(dtype_text(cases[i].ember()), trimmed(answers[i])) << cases[i].name << ": " << cases[i].python;
  }
}

// PyTorch 1.13's CPU autocast takes only bfloat16, and its list differs from the CUDA list for these ops:
// the CPU leaves mv, prelu and the transposed convolutions alone or runs them in float32, and leaves
// softmax, the norms, the reductions and the pointwise functions in their input's dtype. The CUDA list,
// documented at https://pytorch.org/docs/stable/amp.html#cuda-op-specific-behavior, is what ember follows;
// so these are asserted from it, for both lower-precision dtypes.
TEST_P(AutocastTest, FollowsTheCudaListWherePyTorchsCpuListDiffers) {
  for (DType low : {kFloat16, kBFloat16}) {
    SCOPED_TRACE(dtype_name(low));
    const Tensor h = x.to(low);  // a lower-precision activation
    const Tensor qkv = x.reshape({1, 2, 2, 8});
    nn::LayerNorm layer_norm(nn::LayerNormOptions({8}));
    layer_norm->to(device);
    autocast::AutocastGuard autocast(low);
    // Lower precision.
    const std::string expected(dtype_name(low));
    const Tensor mask = zeros({2, 2}, TensorOptions().device(device));
    EXPECT_EQ(dtype_text(x.mv(x[0])), expected) << "mv";
    const Tensor c1t = rand({4, 2, 3}, TensorOptions().device(device));
    EXPECT_EQ(dtype_text(F::conv_transpose1d(x.unsqueeze(0), c1t)), expected) << "conv_transpose1d";
    EXPECT_EQ(dtype_text(F::conv_transpose2d(x.unsqueeze(0).unsqueeze(0), c2.transpose(0, 1))), expected)
        << "conv_transpose2d";
    EXPECT_EQ(dtype_text(F::prelu(x, full({1}, 0.25, TensorOptions().device(device)))), expected) << "prelu";
    EXPECT_EQ(dtype_text(F::scaled_dot_product_attention(qkv, qkv, qkv)), expected) << "scaled_dot_product_attention";
    EXPECT_EQ(dtype_text(F::scaled_dot_product_attention(qkv, qkv, qkv, mask)), expected)
        << "scaled_dot_product_attention with a float32 mask";
    // Float32 from lower-precision inputs.
    const std::vector<std::pair<std::string, std::function<Tensor()>>> float32_ops = {
        {"softmax", [&] { return F::softmax(h, F::SoftmaxFuncOptions(-1)); }},
        {"log_softmax", [&] { return F::log_softmax(h, F::LogSoftmaxFuncOptions(-1)); }},
        {"softmin", [&] { return F::softmin(h, F::SoftminFuncOptions(-1)); }},
        {"layer_norm", [&] { return F::layer_norm(h, F::LayerNormFuncOptions({8}).weight(x[0])); }},
        {"LayerNorm", [&] { return layer_norm->forward(h); }},
        {"group_norm", [&] { return F::group_norm(h.unsqueeze(-1), F::GroupNormFuncOptions(2)); }},
        {"sum", [&] { return h.sum(); }},
        {"sum over a dim", [&] { return h.sum({1}); }},
        {"prod over a dim", [&] { return h.prod(1); }},
        {"cumsum", [&] { return h.cumsum(0); }},
        {"cumprod", [&] { return h.cumprod(0); }},
        {"norm", [&] { return h.norm(); }},
        {"norm over a dim", [&] { return h.norm(2, {1}); }},
        {"exp", [&] { return h.exp(); }},
        {"expm1", [&] { return h.expm1(); }},
        {"log", [&] { return h.log(); }},
        {"log2", [&] { return h.log2(); }},
        {"log10", [&] { return h.log10(); }},
        {"log1p", [&] { return h.log1p(); }},
        {"reciprocal", [&] { return h.reciprocal(); }},
        {"rsqrt", [&] { return h.rsqrt(); }},
        {"tan", [&] { return h.tan(); }},
        {"sinh", [&] { return h.sinh(); }},
        {"cosh", [&] { return h.cosh(); }},
        {"asin", [&] { return (h - 1).asin(); }},
        {"acos", [&] { return (h - 1).acos(); }},
        {"pow", [&] { return h.pow(2); }},
        {"pow of a tensor", [&] { return h.pow(h); }},
        {"pow of a scalar base", [&] { return pow(2, h); }},
        {"softplus", [&] { return F::softplus(h); }},
        {"cosine_similarity", [&] { return F::cosine_similarity(h, h); }},
        {"exp of float16 under any autocast dtype", [&] { return x.to(kFloat16).exp(); }},
    };
    for (const auto& [name, op] : float32_ops) EXPECT_EQ(dtype_text(op()), "float32") << name;
    // PyTorch's CPU list runs huber_loss in float32; the CUDA list does not list it.
    EXPECT_EQ(dtype_text(F::huber_loss(h, h)), expected) << "huber_loss";
  }
}

TEST_P(AutocastTest, LeavesFloat64IntegersAndExplicitDtypesAlone) {
  const Tensor d = x.to(kFloat64);
  const Tensor ints = ones({3, 3}, TensorOptions().dtype(kInt32).device(device));
  autocast::AutocastGuard autocast(kFloat16);
  EXPECT_EQ(dtype_text(d.mm(d.t())), "float64");
  EXPECT_EQ(dtype_text(F::linear(d, w.to(kFloat64))), "float64");
  EXPECT_EQ(dtype_text(d.exp()), "float64");
  EXPECT_EQ(dtype_text(d.sum()), "float64");
  EXPECT_EQ(dtype_text(d.softmax(0)), "float64");
  EXPECT_EQ(dtype_text(ints.sum()), "int64");
  EXPECT_EQ(dtype_text(ints.mm(ints)), "int32");
  // An explicit dtype argument wins over autocast's float32, as PyTorch's fp32_set_opt_dtype keeps it.
  EXPECT_EQ(dtype_text(x.to(kFloat16).sum(kFloat16)), "float16");
  EXPECT_EQ(dtype_text(x.to(kFloat16).softmax(0, kFloat16)), "float16");
  // A float32 product with a float64 operand: the float32 one is cast, the float64 one is not, and mm
  // refuses the mix with PyTorch's message, as PyTorch's autocast does.
  EXPECT_THROW(x.mm(d.t()), Error);
}

// In-place ops are in neither list: they keep their tensor's dtype, even when their out-of-place form is
// a float32 op.
TEST_P(AutocastTest, InPlaceOpsKeepTheirDtype) {
  Tensor h = x.to(kFloat16);
  const at::Tensor expected = to_torch(h).to(at::kFloat).exp().to(at::kHalf);
  autocast::AutocastGuard autocast(kFloat16);
  EXPECT_EQ(dtype_text(h.exp()), "float32");
  h.exp_();
  EXPECT_EQ(dtype_text(h), "float16");
  EXPECT_TENSOR_EQ(h, expected);
}

// linear under autocast is LibTorch's linear on the inputs rounded to the autocast dtype, computed in
// float32 and rounded once (as ember's and PyTorch's CUDA kernels do).
TEST_P(AutocastTest, LinearEqualsLibTorchOnCastInputs) {
  const at::Tensor tx = random_torch({5, 16}, kFloat32, 11, -2, 2);
  const at::Tensor tw = random_torch({7, 16}, kFloat32, 12, -1, 1);
  const at::Tensor tb = random_torch({7}, kFloat32, 13, -1, 1);
  const Tensor ex = from_torch(tx, device), ew = from_torch(tw, device), eb = from_torch(tb, device);
  for (DType low : {kFloat16, kBFloat16}) {
    SCOPED_TRACE(dtype_name(low));
    const at::ScalarType tlow = torch_dtype(low);
    auto rounded = [&](const at::Tensor& t) { return t.to(tlow).to(at::kFloat); };
    const at::Tensor expected = at::linear(rounded(tx), rounded(tw), rounded(tb)).to(tlow);
    const at::Tensor expected_3d = at::linear(rounded(tx).unsqueeze(0), rounded(tw)).to(tlow);
    Tensor out, out_3d;
    {
      autocast::AutocastGuard autocast(low);
      out = F::linear(ex, ew, eb);
      out_3d = F::linear(ex.unsqueeze(0), ew);
    }
    EXPECT_TENSOR_EQ(out, expected);
    EXPECT_TENSOR_EQ(out_3d, expected_3d);
  }
}

// The casts are recorded: float32 parameters and inputs get float32 gradients, those of the product in
// float16 cast back (ToCopyBackward0), whether backward runs inside the guard or after it.
TEST_P(AutocastTest, GradientsReachFloat32ParametersAsFloat32) {
  const at::Tensor tx = random_torch({4, 8}, kFloat32, 21, -2, 2);
  nn::Linear linear(8, 6);
  linear->to(device);
  const at::Tensor tw = to_torch(linear->weight);
  auto half = [](const at::Tensor& t) { return t.to(at::kHalf).to(at::kFloat); };
  // d sum(x_h w_hᵀ + b_h) / dw = onesᵀ x_h and / dx = ones w_h, each rounded to float16 by the float16
  // product, then widened.
  const at::Tensor ones_t = at::ones({4, 6});
  const at::Tensor grad_w = half(ones_t.t().mm(half(tx)));
  const at::Tensor grad_x = half(ones_t.mm(half(tw)));
  const at::Tensor grad_b = at::full({6}, 4.0);
  for (bool backward_inside : {false, true}) {
    SCOPED_TRACE(backward_inside ? "backward inside the guard" : "backward after the guard");
    linear->zero_grad();
    const Tensor ex = from_torch(tx, device).requires_grad_(true);
    Tensor loss;
    {
      autocast::AutocastGuard autocast(kFloat16);
      const Tensor y = linear->forward(ex);
      EXPECT_EQ(dtype_text(y), "float16");
      EXPECT_EQ(y.grad_fn()->name(), "AddmmBackward0");
      // Each operand reaches the product through its cast (the weight through its transpose too).
      EXPECT_EQ(y.grad_fn()->next_edge(0).function->name(), "ToCopyBackward0");
      EXPECT_EQ(y.grad_fn()->next_edge(1).function->name(), "ToCopyBackward0");
      const auto& transpose = y.grad_fn()->next_edge(2).function;
      EXPECT_EQ(transpose->name(), "TBackward0");
      EXPECT_EQ(transpose->next_edge(0).function->name(), "ToCopyBackward0");
      loss = y.sum();  // a float32 op
      EXPECT_EQ(dtype_text(loss), "float32");
      if (backward_inside) loss.backward();
    }
    if (!backward_inside) loss.backward();
    ASSERT_TRUE(linear->weight.grad().defined());
    EXPECT_EQ(dtype_text(linear->weight.grad()), "float32");
    EXPECT_EQ(dtype_text(linear->bias.grad()), "float32");
    EXPECT_EQ(dtype_text(ex.grad()), "float32");
    EXPECT_TENSOR_EQ(linear->weight.grad(), grad_w);
    EXPECT_TENSOR_EQ(linear->bias.grad(), grad_b);
    EXPECT_TENSOR_EQ(ex.grad(), grad_x);
  }
}

TEST_P(AutocastTest, GuardsNestRestoreAndArePerThread) {
  EXPECT_FALSE(autocast::is_enabled());
  {
    autocast::AutocastGuard outer(kBFloat16);
    EXPECT_TRUE(autocast::is_enabled());
    EXPECT_EQ(autocast::get_autocast_dtype(), kBFloat16);
    EXPECT_EQ(dtype_text(x.mm(w.t())), "bfloat16");
    {
      autocast::AutocastGuard off(kFloat16, /*enabled=*/false);
      EXPECT_FALSE(autocast::is_enabled());
      EXPECT_EQ(dtype_text(x.mm(w.t())), "float32");
    }
    EXPECT_TRUE(autocast::is_enabled());
    EXPECT_EQ(autocast::get_autocast_dtype(), kBFloat16);
    bool other_thread_enabled = true;
    std::thread([&] { other_thread_enabled = autocast::is_enabled(); }).join();
    EXPECT_FALSE(other_thread_enabled);
  }
  EXPECT_FALSE(autocast::is_enabled());
  EXPECT_EQ(dtype_text(x.mm(w.t())), "float32");
  expect_error<Error>([] { autocast::AutocastGuard bad(kFloat32); },
                      "autocast: the autocast dtype must be float16 or bfloat16, got float32");
  expect_error<Error>([] { autocast::set_autocast_dtype(kInt8); },
                      "autocast: the autocast dtype must be float16 or bfloat16, got int8");
  autocast::set_enabled(true);
  EXPECT_TRUE(autocast::is_enabled());
  autocast::set_enabled(false);
}

// A parameter is cast once per autocast region, and again after it changes in place or the region ends.
TEST_P(AutocastTest, CachesParameterCastsWithinARegion) {
  Tensor param = x.clone().requires_grad_(true);
  const Tensor activation = x.clone();
  Tensor first;
  {
    autocast::AutocastGuard autocast(kFloat16);
    first = autocast::to_lower_precision(param);
    EXPECT_TRUE(autocast::to_lower_precision(param).is_same(first));
    EXPECT_FALSE(autocast::to_lower_precision(activation).is_same(autocast::to_lower_precision(activation)));
    {
      NoGradGuard no_grad;
      param.mul_(2);
    }
    const Tensor after_change = autocast::to_lower_precision(param);
    EXPECT_FALSE(after_change.is_same(first));
    EXPECT_TENSOR_EQ(after_change, to_torch(param).detach().to(at::kHalf));
    {
      autocast::AutocastGuard no_cache(kFloat16, true, /*cache_enabled=*/false);
      EXPECT_FALSE(autocast::to_lower_precision(param).is_same(autocast::to_lower_precision(param)));
    }
    first = after_change;
  }
  autocast::AutocastGuard again(kFloat16);
  EXPECT_FALSE(autocast::to_lower_precision(param).is_same(first));
}

// PyTorch's CUDA autocast refuses binary_cross_entropy, whose probabilities would arrive rounded.
TEST_P(AutocastTest, RefusesBinaryCrossEntropy) {
  const Tensor p = x.sigmoid();
  autocast::AutocastGuard autocast(kFloat16);
  EXPECT_THROW(F::binary_cross_entropy(p, p), Error);
  EXPECT_EQ(dtype_text(F::binary_cross_entropy_with_logits(x, p)), "float32");
}

INSTANTIATE_TEST_SUITE_P(Backends, AutocastTest, testing::Values("vulkan", "cuda"), backend_test_name);

}  // namespace
}  // namespace ember::test
