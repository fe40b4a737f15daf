// The autograd engine and tensor state: the tanh neuron against LibTorch, leaves and grad_fn, accumulation,
// backward(gradient)/retain_graph/create_graph, autograd::grad, dependency order with shared
// subexpressions, freeing saved tensors, and no host synchronisation during backward.
#include <torch/csrc/autograd/autograd.h>

#include "autograd/function_node.h"
#include "tests/autograd_oracle.h"

namespace ember::test {
namespace {

class AutogradEngineTest : public GradTest {
 protected:
  Tensor leaf(const at::Tensor& t) { return from_torch(t, device).requires_grad_(true); }
};

TEST_P(AutogradEngineTest, TanhNeuronMatchesLibTorchTo1e12) {
  if (!device->supports(DType::Float64)) GTEST_SKIP() << device->info().name << " has no float64";
  const double values[] = {2.0, 0.0, -3.0, 1.0, 6.8813735870195432};
  std::vector<Tensor> e;
  std::vector<at::Tensor> t;
  for (double v : values) {
    e.push_back(tensor(v, f64()).requires_grad_(true));
    t.push_back(at::tensor(v, at::kDouble).requires_grad_(true));
  }
  // o = tanh(x1*w1 + x2*w2 + b)
  const Tensor o = (e[0] * e[2] + e[1] * e[3] + e[4]).tanh();
  const at::Tensor o_t = (t[0] * t[2] + t[1] * t[3] + t[4]).tanh();
  EXPECT_EQ(o.grad_fn()->name(), "TanhBackward0");
  o.backward();
  o_t.backward();
  EXPECT_NEAR(o.item<double>(), o_t.item<double>(), 1e-12);
  for (int i : {0, 1, 2, 3}) {
    SCOPED_TRACE(i);
    ASSERT_TRUE(e[i].grad().defined());
    EXPECT_NEAR(e[i].grad().item<double>(), t[i].grad().item<double>(), 1e-12);
  }
}

TEST_P(AutogradEngineTest, LeavesGradFnAndRequiresGrad) {
  const Tensor a = ones({2, 3}, f32());
  EXPECT_FALSE(a.requires_grad());
  EXPECT_TRUE(a.is_leaf());
  const Tensor w = ones({2, 3}, f32().requires_grad(true));
  EXPECT_TRUE(w.requires_grad());
  EXPECT_TRUE(w.is_leaf());
  EXPECT_EQ(w.grad_fn(), nullptr);
  const Tensor y = w * a;
  EXPECT_TRUE(y.requires_grad());
  EXPECT_FALSE(y.is_leaf());
  EXPECT_EQ(y.grad_fn()->name(), "MulBackward0");
  EXPECT_EQ(y.exp().grad_fn()->name(), "ExpBackward0");
  EXPECT_EQ((a * a).grad_fn(), nullptr);  // no input requires grad
  // The node's edges lead to the leaf's accumulator, as PyTorch's next_functions do.
  const auto& edge = y.grad_fn()->next_edge(0);
  ASSERT_TRUE(edge.valid());
  EXPECT_EQ(edge.function->name(), "torch::autograd::AccumulateGrad");
  EXPECT_FALSE(y.grad_fn()->next_edge(1).valid());

  const Tensor d = y.detach();
  EXPECT_FALSE(d.requires_grad());
  EXPECT_TRUE(d.is_leaf());
  EXPECT_EQ(d.storage(), y.storage());
  Tensor z = w * w;
  z.detach_();
  EXPECT_FALSE(z.requires_grad());
  EXPECT_EQ(z.grad_fn(), nullptr);

  expect_error<Error>([&] { ones({2}, TensorOptions().dtype(kInt64).device(device)).requires_grad_(); },
                      "only Tensors of floating point dtype can require gradients");
  expect_error<Error>([&] { Tensor(y).requires_grad_(false); },
                      "you can only change requires_grad flags of leaf variables. If you want to use a computed "
                      "variable in a subgraph that doesn't require differentiation use var_no_grad = var.detach().");
}

TEST_P(AutogradEngineTest, PrintingNamesTheGradFn) {
  const Tensor w = ones({2}, f32().requires_grad(true));
  const std::string leaf = w.toString(), product = (w * w).toString();
  auto ends_with = [](const std::string& text, const std::string& tail) {
    return text.size() >= tail.size() && text.compare(text.size() - tail.size(), tail.size(), tail) == 0;
  };
  EXPECT_TRUE(ends_with(leaf, ", requires_grad=True)")) << leaf;
  EXPECT_TRUE(ends_with(product, ", grad_fn=<MulBackward0>)")) << product;
  EXPECT_EQ(product.find("requires_grad"), std::string::npos) << product;
}

TEST_P(AutogradEngineTest, GradientsAccumulateUntilZeroed) {
  Tensor w = tensor({1.0, 2.0}, f32()).requires_grad_(true);
  const Tensor three = full({2}, 3.0, f32());
  (w * three).sum().backward();
  (w * three).sum().backward();
  EXPECT_EQ(w.grad().to_vector<float>(), (std::vector<float>{6, 6}));
  w.mutable_grad().zero_();
  (w * three).sum().backward();
  EXPECT_EQ(w.grad().to_vector<float>(), (std::vector<float>{3, 3}));
  w.mutable_grad() = Tensor();
  EXPECT_FALSE(w.grad().defined());
}

TEST_P(AutogradEngineTest, BackwardWithGradientAndItsErrors) {
  const at::Tensor values = random_torch({3, 4}, DType::Float32, 5);
  Tensor x = leaf(values);
  at::Tensor x_t = values.clone().requires_grad_(true);
  const at::Tensor g_t = random_torch({3, 4}, DType::Float32, 6);
  (x * x).exp().backward(from_torch(g_t, device));
  (x_t * x_t).exp().backward(g_t);
  expect_tensor_eq(x.grad(), x_t.grad(), 1e-5);

  expect_error<Error>([&] { (x * x).backward(); }, "grad can be implicitly created only for scalar outputs");
  expect_error<Error>([&] { ones({2}, f32()).backward(); },
                      "element 0 of tensors does not require grad and does not have a grad_fn");
  expect_error<Error>([&] { (x * x).backward(ones({4}, f32())); },
                      "Mismatch in shape: grad_output[0] has a shape of torch.Size([4]) and output[0] has a shape "
                      "of torch.Size([3, 4]).");
}

TEST_P(AutogradEngineTest, SecondBackwardNeedsRetainGraph) {
  Tensor a = ones({3}, f32().requires_grad(true));
  const Tensor c = (a * a).sum();
  c.backward(Tensor(), /*retain_graph=*/true);
  c.backward();
  EXPECT_EQ(a.grad().to_vector<float>(), (std::vector<float>{4, 4, 4}));
  expect_error<Error>([&] { c.backward(); },
                      "Trying to backward through the graph a second time (or directly access saved tensors after "
                      "they have already been freed). Saved intermediate values of the graph are freed when you "
                      "call .backward() or autograd.grad(). Specify retain_graph=True if you need to backward "
                      "through the graph a second time or if you need to access saved tensors after calling "
                      "backward.");
  // A graph that saved nothing can run again, as in PyTorch.
  const Tensor s = (a + a).sum();
  s.backward();
  s.backward();
}

TEST_P(AutogradEngineTest, GradReturnsInsteadOfAccumulating) {
  const at::Tensor va = random_torch({4}, DType::Float32, 7), vb = random_torch({4}, DType::Float32, 8);
  Tensor a = leaf(va), b = leaf(vb);
  at::Tensor a_t = va.clone().requires_grad_(true), b_t = vb.clone().requires_grad_(true);
  const Tensor y = (a * b).exp().sum();
  const at::Tensor y_t = (a_t * b_t).exp().sum();
  const autograd::tensor_list g = autograd::grad({y}, {a, b});
  const auto g_t = torch::autograd::grad({y_t}, {a_t, b_t});
  expect_tensor_eq(g[0], g_t[0], 1e-5);
  expect_tensor_eq(g[1], g_t[1], 1e-5);
  EXPECT_FALSE(a.grad().defined());  // grad() leaves .grad alone
  EXPECT_FALSE(g[0].requires_grad());

  Tensor unused = ones({2}, f32().requires_grad(true));
  const Tensor z = (a * b).sum();
  expect_error<Error>([&] { autograd::grad({z}, {a, unused}, {}, true); },
                      "One of the differentiated Tensors appears to not have been used in the graph. Set "
                      "allow_unused=True if this is the desired behavior.");
  const autograd::tensor_list partial = autograd::grad({z}, {a, unused}, {}, true, false, /*allow_unused=*/true);
  EXPECT_TRUE(partial[0].defined());
  EXPECT_FALSE(partial[1].defined());
  expect_error<Error>([&] { autograd::grad({z}, {ones({2}, f32())}); },
                      "One of the differentiated Tensors does not require grad");
}

TEST_P(AutogradEngineTest, CreateGraphGivesHigherOrderGradients) {
  const at::Tensor v = random_torch({5}, DType::Float32, 9);
  Tensor x = leaf(v);
  at::Tensor x_t = v.clone().requires_grad_(true);
  // d/dx sum(x^3) = 3x^2; d/dx of its sum = 6x; then 6.
  const Tensor cube = (x * x * x).sum();
  const autograd::tensor_list g1 = autograd::grad({cube}, {x}, {}, std::nullopt, /*create_graph=*/true);
  ASSERT_TRUE(g1[0].requires_grad());
  const autograd::tensor_list g2 = autograd::grad({g1[0].sum()}, {x}, {}, std::nullopt, true);
  const autograd::tensor_list g3 = autograd::grad({g2[0].sum()}, {x});
  const at::Tensor cube_t = (x_t * x_t * x_t).sum();
  const auto h1 = torch::autograd::grad({cube_t}, {x_t}, {}, c10::nullopt, true);
  const auto h2 = torch::autograd::grad({h1[0].sum()}, {x_t}, {}, c10::nullopt, true);
  const auto h3 = torch::autograd::grad({h2[0].sum()}, {x_t});
  expect_tensor_eq(g1[0], h1[0].detach(), 1e-5);
  expect_tensor_eq(g2[0], h2[0].detach(), 1e-5);
  expect_tensor_eq(g3[0], h3[0], 1e-5);

  // backward(create_graph) leaves a differentiable .grad.
  Tensor y = leaf(v);
  (y * y * y).sum().backward(Tensor(), std::nullopt, /*create_graph=*/true);
  ASSERT_TRUE(y.grad().requires_grad());
  const autograd::tensor_list gg = autograd::grad({y.grad().sum()}, {y});
  expect_tensor_eq(gg[0], h2[0].detach(), 1e-5);
}

TEST_P(AutogradEngineTest, SharedSubexpressionsRunInDependencyOrder) {
  // A diamond: b feeds both c and d, which meet again in e; b's node must run once, after both.
  const at::Tensor v = random_torch({6}, DType::Float32, 10);
  Tensor a = leaf(v);
  at::Tensor a_t = v.clone().requires_grad_(true);
  auto build = [](auto x) {
    auto b = (x * x).exp();
    auto c = b * x;
    auto d = (b * b).tanh();
    return (c * d + b).sum();
  };
  int b_node_runs = 0;
  const Tensor b_probe = (a * a).exp();
  b_probe.grad_fn()->register_prehook([&](const autograd::tensor_list&) {
    ++b_node_runs;
    return std::optional<autograd::tensor_list>();
  });
  const Tensor c = b_probe * a;
  const Tensor d = (b_probe * b_probe).tanh();
  (c * d + b_probe).sum().backward();
  EXPECT_EQ(b_node_runs, 1);
  build(a_t).backward();
  expect_tensor_eq(a.grad(), a_t.grad(), 1e-4);
}

TEST_P(AutogradEngineTest, SavedTensorsAreFreedAfterBackward) {
  Tensor x = ones({1024}, f32().requires_grad(true));
  std::weak_ptr<Storage> intermediate;
  Tensor loss;
  {
    const Tensor y = x.exp();  // saved by ExpBackward0 (its output) and by the mul
    intermediate = y.storage();
    loss = (y * y).sum();
  }
  EXPECT_FALSE(intermediate.expired());  // the graph holds it
  loss.backward(Tensor(), /*retain_graph=*/true);
  EXPECT_FALSE(intermediate.expired());  // retained
  loss.backward();
  EXPECT_TRUE(intermediate.expired());   // freed as its nodes ran
}

TEST_P(AutogradEngineTest, BackwardNeverWaitsOnTheHost) {
  const at::Tensor v = random_torch({64, 32}, DType::Float32, 11);
  Tensor x = leaf(v), w = leaf(random_torch({32}, DType::Float32, 12));
  Tensor loss = ((x * w).tanh().exp() * x).sum({1}).sum();
  auto stream = device->default_stream();
  stream->synchronize();
  const StreamStats before = stream->stats();
  loss.backward();
  const StreamStats after = stream->stats();
  EXPECT_EQ(after.host_waits, before.host_waits) << "backward waited on the device";
  EXPECT_GT(after.dispatches, before.dispatches);
  std::cout << "[ info ] backward: " << (after.dispatches - before.dispatches) << " dispatches, "
            << (after.submits - before.submits) << " submits, " << (after.host_waits - before.host_waits)
            << " host waits\n";
  EXPECT_TRUE(x.grad().defined());
}

INSTANTIATE_TEST_SUITE_P(Backends, AutogradEngineTest, testing::Values("vulkan", "cuda"), backend_test_name);

}  // namespace
}  // namespace ember::test

namespace ember::test {
namespace {

// A million-node chain is released without recursing once per node (which would overflow the stack).
TEST(AutogradGraphTest, LongChainsAreReleasedIteratively) {
  auto head = std::make_shared<autograd::FunctionNode>("ChainBackward");
  for (int i = 0; i < 1000000; ++i) {
    auto next = std::make_shared<autograd::FunctionNode>("ChainBackward");
    next->add_next_edge({std::move(head), 0});
    head = std::move(next);
  }
  std::weak_ptr<autograd::Node> watch = head;
  head.reset();
  EXPECT_TRUE(watch.expired());
}

}  // namespace
}  // namespace ember::test
