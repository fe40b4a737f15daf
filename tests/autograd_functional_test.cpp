// The derivatives of whole functions against python3-torch's: torch.autograd.functional (vjp, jvp,
// jacobian, hessian, vhp, hvp) and the transforms of torch.func (functorch in 1.13: grad, grad_and_value,
// jacrev, hessian). The same functions at the same points, in both forms (lists and single tensors),
// with create_graph or nested, with an input the outputs ignore, and PyTorch's messages for bad calls.
#include <cmath>
#include <functional>
#include <iostream>
#include <string>
#include <utility>
#include <vector>

#include "autograd/func.h"
#include "autograd/functional.h"
#include "tests/oracle.h"
#include "tests/python_oracle.h"

namespace ember::test {
namespace {

namespace AF = autograd::functional;
using autograd::tensor_list;

// The functions, written once in each language. f: two inputs to two outputs; s: two inputs to a
// scalar; t and ts: one tensor to a tensor and to a scalar; g: its second input unused.
tensor_list f(const tensor_list& in) { return {in[0].exp() * in[1], in[0].mm(in[1].t()).tanh()}; }
tensor_list s(const tensor_list& in) {
  return {(in[0].pow(3) * in[1].sin()).sum() + in[0].mm(in[1].t()).tanh().sum()};
}
Tensor t(const Tensor& x) { return x.sin() * x.sum(); }
Tensor ts(const Tensor& x) { return (x.pow(3) * x.cos()).sum(); }
tensor_list g(const tensor_list& in) { return {in[0].exp()}; }

const char* kPythonFunctions = R"(
import torch, functorch
from torch.autograd.functional import vjp, jvp, jacobian, hessian, vhp, hvp
def f(x, y): return (x.exp() * y, x.mm(y.t()).tanh())
def s(x, y): return (x.pow(3) * y.sin()).sum() + x.mm(y.t()).tanh().sum()
def t(x): return x.sin() * x.sum()
def ts(x): return (x.pow(3) * x.cos()).sum()
def g(x, z): return (x.exp(),)
def sc(x, y): return s(x, y)
def s_aux(x, y): return s(x, y), (x.sin(),)
def sc1(x): return x.sin() * x.pow(3)
def g_sum(x, z): return x.exp().sum()
def flat(r):
    if isinstance(r, torch.Tensor): return [r.detach().flatten().double()]
    return [e for part in r for e in flat(part)]
def show(r):
    print(repr(torch.cat(flat(r)).tolist()))
    print('@@END@@')
def grads_of_sum(r, wrt):
    total = sum(e.sum() for e in flat_graph(r))
    show(torch.autograd.grad(total, wrt, allow_unused=True))
def flat_graph(r):
    if isinstance(r, torch.Tensor): return [r]
    return [e for part in r for e in flat_graph(part)]
def error(call):
    try:
        call()
        print('no error')
    except RuntimeError as e:
        print(e)
    print('@@END@@')
)";

std::vector<double> numbers(const tensor_list& tensors) {
  std::vector<double> all;
  for (const Tensor& t : tensors) {
    const std::vector<double> values = t.detach().flatten().to_vector<double>();
    all.insert(all.end(), values.begin(), values.end());
  }
  return all;
}
tensor_list joined(const std::pair<tensor_list, tensor_list>& result) {
  tensor_list all = result.first;
  all.insert(all.end(), result.second.begin(), result.second.end());
  return all;
}
tensor_list joined(const std::vector<tensor_list>& rows) {
  tensor_list all;
  for (const tensor_list& row : rows) all.insert(all.end(), row.begin(), row.end());
  return all;
}
tensor_list joined(const std::pair<Tensor, Tensor>& result) { return {result.first, result.second}; }

std::string message_of(const std::function<void()>& call) {
  try {
    call();
  } catch (const Error& e) {
    return e.what();
  }
  return "no error";
}

class AutogradFunctionalTest : public BackendTest {
 protected:
  void SetUp() override {
    BackendTest::SetUp();
    if (!device) return;
    dtype = device->supports(DType::Float64) ? DType::Float64 : DType::Float32;
    if (dtype != DType::Float64) std::cout << "[ info ] no float64 on " << device->info().name << ": float32\n";
  }
  // Random values with their Python spelling, appended to the script as `name = ...`.
  Tensor input(const std::string& name, std::vector<int64_t> sizes, uint64_t seed) {
    const at::Tensor values = random_torch(sizes, dtype, seed, -1, 1);
    script += name + " = " + python_tensor(values) + "\n";
    return from_torch(values, device);
  }
  // One case: ember's tensors, and the Python statement that prints the same numbers.
  void expect(const std::string& python, tensor_list ours) {
    script += python + "\n";
    cases.push_back({python, numbers(ours), ""});
  }
  void expect_message(const std::string& python_call, const std::function<void()>& ours) {
    script += "error(lambda: " + python_call + ")\n";
    cases.push_back({python_call, {}, message_of(ours)});
  }
  void compare_with_python() {
    std::vector<std::string> answers;
    ASSERT_PYTHON_ANSWERS(answers, kPythonFunctions + script, cases.size());
    const double tolerance = dtype == DType::Float64 ? 1e-10 : 1e-4;
    for (size_t i = 0; i < cases.size(); ++i) {
      SCOPED_TRACE(cases[i].python);
      if (!cases[i].message.empty()) {
        EXPECT_EQ(cases[i].message, answers[i]);
        continue;
      }
      const std::vector<double> expected = python_numbers(answers[i]);
      const std::vector<double>& got = cases[i].numbers;
      ASSERT_EQ(got.size(), expected.size());
      for (size_t k = 0; k < got.size(); ++k) {
        EXPECT_NEAR(got[k], expected[k], tolerance * (1 + std::abs(expected[k]))) << "element " << k;
      }
    }
  }

  // What ember gave for one Python statement: numbers, or the message of a call that threw.
  struct Case {
    std::string python;
    std::vector<double> numbers;
    std::string message;
  };
  DType dtype = DType::Float64;
  std::string script;
  std::vector<Case> cases;
};

TEST_P(AutogradFunctionalTest, ListFormsMatchPyTorch) {
  const Tensor x = input("x", {2, 3}, 1), y = input("y", {2, 3}, 2);
  const Tensor w0 = input("w0", {2, 3}, 3), w1 = input("w1", {2, 2}, 4);
  const Tensor u0 = input("u0", {2, 3}, 5), u1 = input("u1", {2, 3}, 6);
  expect("show(vjp(f, (x, y), (w0, w1)))", joined(AF::vjp(f, {x, y}, {w0, w1})));
  expect("show(jvp(f, (x, y), (u0, u1)))", joined(AF::jvp(f, {x, y}, {u0, u1})));
  expect("show(jacobian(f, (x, y)))", joined(AF::jacobian(f, {x, y})));
  expect("show(hessian(s, (x, y)))", joined(AF::hessian(s, {x, y})));
  expect("show(vhp(s, (x, y), (u0, u1)))", joined(AF::vhp(s, {x, y}, {u0, u1})));
  expect("show(hvp(s, (x, y), (u0, u1)))", joined(AF::hvp(s, {x, y}, {u0, u1})));
  // The input g ignores gets zeros.
  expect("show(jacobian(g, (x, y)))", joined(AF::jacobian(g, {x, y})));
  expect("show(vjp(g, (x, y), (w0,)))", joined(AF::vjp(g, {x, y}, {w0})));
  expect("show(jvp(g, (x, y), (u0, u1)))", joined(AF::jvp(g, {x, y}, {u0, u1})));
  compare_with_python();
}

TEST_P(AutogradFunctionalTest, SingleTensorFormsMatchPyTorch) {
  const Tensor x = input("x", {2, 3}, 11), w = input("w", {2, 3}, 12), u = input("u", {2, 3}, 13);
  const Tensor one = input("one", {1}, 14);
  expect("show(vjp(t, x, w))", joined(AF::vjp(t, x, w)));
  expect("show(jvp(t, x, u))", joined(AF::jvp(t, x, u)));
  expect("show(jacobian(t, x))", {AF::jacobian(t, x)});
  expect("show(hessian(ts, x))", {AF::hessian(ts, x)});
  expect("show(vhp(ts, x, u))", joined(AF::vhp(ts, x, u)));
  expect("show(hvp(ts, x, u))", joined(AF::hvp(ts, x, u)));
  // v may be left out where the tensor it pairs with has one element.
  expect("show(vjp(ts, x))", joined(AF::vjp(ts, x)));
  expect("show(jvp(t, one))", joined(AF::jvp(t, one)));
  expect("show(vhp(ts, one))", joined(AF::vhp(ts, one)));
  expect("show(hvp(ts, one))", joined(AF::hvp(ts, one)));
  EXPECT_EQ(AF::jacobian(t, x).sizes(), (std::vector<int64_t>{2, 3, 2, 3}));
  compare_with_python();
}

// With create_graph the results are differentiable: the gradient of their sum is a derivative one
// order higher, which Python computes the same way.
TEST_P(AutogradFunctionalTest, CreateGraphGivesDifferentiableResults) {
  Tensor x = input("x", {2, 3}, 21), y = input("y", {2, 3}, 22);
  const Tensor w0 = input("w0", {2, 3}, 23), w1 = input("w1", {2, 2}, 24);
  const Tensor u0 = input("u0", {2, 3}, 25), u1 = input("u1", {2, 3}, 26);
  script += "x.requires_grad_()\ny.requires_grad_()\n";
  x.requires_grad_(true);
  y.requires_grad_(true);
  const auto grads_of_sum = [&](const tensor_list& results) {
    Tensor total;
    for (const Tensor& r : results) total = total.defined() ? total + r.sum() : r.sum();
    return autograd::grad({total}, {x, y}, {}, std::nullopt, false, /*allow_unused=*/true);
  };
  const auto vjp_result = AF::vjp(f, {x, y}, {w0, w1}, /*create_graph=*/true);
  for (const Tensor& r : joined(vjp_result)) EXPECT_TRUE(r.requires_grad());
  expect("grads_of_sum(vjp(f, (x, y), (w0, w1), create_graph=True)[1], (x, y))", grads_of_sum(vjp_result.second));
  expect("grads_of_sum(jvp(f, (x, y), (u0, u1), create_graph=True)[1], (x, y))",
         grads_of_sum(AF::jvp(f, {x, y}, {u0, u1}, true).second));
  expect("grads_of_sum(jacobian(f, (x, y), create_graph=True), (x, y))",
         grads_of_sum(joined(AF::jacobian(f, {x, y}, true))));
  expect("grads_of_sum(hessian(s, (x, y), create_graph=True), (x, y))",
         grads_of_sum(joined(AF::hessian(s, {x, y}, true))));
  expect("grads_of_sum(vhp(s, (x, y), (u0, u1), create_graph=True)[1], (x, y))",
         grads_of_sum(AF::vhp(s, {x, y}, {u0, u1}, true).second));
  expect("grads_of_sum(hvp(s, (x, y), (u0, u1), create_graph=True)[1], (x, y))",
         grads_of_sum(AF::hvp(s, {x, y}, {u0, u1}, true).second));
  // Without create_graph nothing keeps a graph, even from inputs that require grad.
  for (const Tensor& r : joined(AF::vjp(f, {x, y}, {w0, w1}))) EXPECT_FALSE(r.requires_grad());
  for (const Tensor& r : joined(AF::hessian(s, {x, y}))) EXPECT_FALSE(r.requires_grad());
  compare_with_python();
}

TEST_P(AutogradFunctionalTest, BadCallsAndStrictModeGivePyTorchsMessages) {
  const Tensor x = input("x", {2, 3}, 31), y = input("y", {2, 3}, 32);
  const Tensor w0 = input("w0", {2, 3}, 33), w3 = input("w3", {3}, 34);
  expect_message("vjp(f, (x, y), (w0,))", [&] { AF::vjp(f, {x, y}, {w0}); });
  expect_message("vjp(f, (x, y), (w0, w3))", [&] { AF::vjp(f, {x, y}, {w0, w3}); });
  expect_message("vjp(t, x, w3)", [&] { AF::vjp(t, x, w3); });
  expect_message("jvp(t, x, w3)", [&] { AF::jvp(t, x, w3); });
  expect_message("vjp(f, (x, y))", [&] { AF::vjp(f, {x, y}); });
  expect_message("jvp(f, (x, y))", [&] { AF::jvp(f, {x, y}); });
  expect_message("vhp(ts, x)", [&] { AF::vhp(ts, x); });
  expect_message("hessian(f, (x, y))", [&] { AF::hessian(f, {x, y}); });
  expect_message("hessian(t, x)", [&] { AF::hessian(t, x); });
  expect_message("vhp(t, x, w0)", [&] { AF::vhp(t, x, w0); });
  expect_message("hvp(f, (x, y), (w0, w0))", [&] { AF::hvp(f, {x, y}, {w0, w0}); });
  // strict: an ignored input, an output with no graph, and a linear function's constant gradient.
  expect_message("jacobian(g, (x, y), strict=True)", [&] { AF::jacobian(g, {x, y}, false, true); });
  expect_message("vjp(g, (x, y), (w0,), strict=True)", [&] { AF::vjp(g, {x, y}, {w0}, false, true); });
  expect_message("jvp(g, (x, y), (w0, w0), strict=True)", [&] { AF::jvp(g, {x, y}, {w0, w0}, false, true); });
  expect_message("vhp(lambda x, y: s(x, x), (x, y), (w0, w0), strict=True)", [&] {
    AF::vhp([](const tensor_list& in) { return s({in[0], in[0]}); }, {x, y}, {w0, w0}, false, true);
  });
  script += "def constant(x): return torch.ones(2, dtype=x.dtype)\n";
  expect_message("vjp(constant, x, torch.ones(2, dtype=x.dtype), strict=True)", [&] {
    AF::vjp([](const Tensor& in) { return ones({2}, TensorOptions().dtype(in.dtype()).device(in.device())); }, x,
            ones({2}, TensorOptions().dtype(x.dtype()).device(x.device())), false, true);
  });
  script += "def linear(x): return (2 * x).sum()\n";
  const auto linear = [](const Tensor& in) { return (in * 2).sum(); };
  expect_message("hessian(linear, x, strict=True)", [&] { AF::hessian(linear, x, false, true); });
  expect_message("hvp(linear, x, w0, strict=True)", [&] { AF::hvp(linear, x, w0, false, true); });
  // Without strict, the same calls give zeros.
  expect("show(hessian(linear, x))", {AF::hessian(linear, x)});
  expect("show(vhp(linear, x, w0))", joined(AF::vhp(linear, x, w0)));
  compare_with_python();
}

// The transforms, with their scalar functions: sc is s as one tensor, sc1 a function of a 0-dim tensor.
Tensor sc(const tensor_list& in) { return s(in)[0]; }
Tensor sc1(const Tensor& x) { return x.sin() * x.pow(3); }
Tensor g_sum(const tensor_list& in) { return in[0].exp().sum(); }

TEST_P(AutogradFunctionalTest, FuncTransformsMatchFunctorch) {
  const Tensor x = input("x", {2, 3}, 41), y = input("y", {2, 3}, 42), x0 = input("x0", {}, 43);
  expect("show(functorch.grad(sc, argnums=(0, 1))(x, y))", func::grad(sc, {0, 1})({x, y}));
  expect("show(functorch.grad(sc)(x, y))", func::grad(sc)({x, y}));
  expect("show(functorch.grad(sc, argnums=(-1,))(x, y))", func::grad(sc, {-1})({x, y}));
  expect("show(functorch.grad(g_sum, argnums=(0, 1))(x, y))", func::grad(g_sum, {0, 1})({x, y}));
  const auto [gradients, value] = func::grad_and_value(sc, {0, 1})({x, y});
  tensor_list gradients_and_value = gradients;
  gradients_and_value.push_back(value);
  expect("show(functorch.grad_and_value(sc, argnums=(0, 1))(x, y))", gradients_and_value);
  const auto with_aux = [](const tensor_list& in) { return std::pair<Tensor, tensor_list>{sc(in), {in[0].sin()}}; };
  expect("show(functorch.grad(s_aux, argnums=(0, 1), has_aux=True)(x, y))",
         joined(func::grad_with_aux(with_aux, {0, 1})({x, y})));
  // Nested: second and third derivatives, and a Hessian as the Jacobian of a gradient.
  expect("show(functorch.grad(functorch.grad(sc1))(x0))", {func::grad(func::grad(sc1))(x0)});
  expect("show(functorch.grad(functorch.grad(functorch.grad(sc1)))(x0))",
         {func::grad(func::grad(func::grad(sc1)))(x0)});
  expect("show(functorch.jacrev(functorch.grad(ts))(x))", {func::jacrev(func::grad(ts))(x)});
  expect("show(functorch.jacrev(f, argnums=(0, 1))(x, y))", joined(func::jacrev(f, {0, 1})({x, y})));
  expect("show(functorch.jacrev(t)(x))", {func::jacrev(t)(x)});
  expect("show(functorch.hessian(sc, argnums=(0, 1))(x, y))", joined(func::hessian(sc, {0, 1})({x, y})));
  expect("show(functorch.hessian(ts)(x))", {func::hessian(ts)(x)});
  EXPECT_EQ(func::hessian(ts)(x).sizes(), (std::vector<int64_t>{2, 3, 2, 3}));
  // An inner gradient of a function that captures the outer argument stays differentiable: d/dx of
  // sum(x * x) is 2x, not x.
  script += "def closure(x): return (x * functorch.grad(lambda v: (x * v).sum())(torch.ones_like(x))).sum()\n";
  const auto closure = [](const Tensor& in) {
    const auto inner = func::grad([in](const Tensor& v) { return (in * v).sum(); });
    return (in * inner(ones_like(in))).sum();
  };
  expect("show(functorch.grad(closure)(x))", {func::grad(closure)(x)});
  // Ordinary autograd outside the transform differentiates its result; without it there is no graph.
  EXPECT_FALSE(func::grad(ts)(x).requires_grad());
  Tensor tracked = x.detach();
  tracked.requires_grad_(true);
  expect("xr = x.clone().requires_grad_()\nshow(torch.autograd.grad(functorch.grad(ts)(xr).sum(), xr))",
         autograd::grad({func::grad(ts)(tracked).sum()}, {tracked}));
  expect_message("functorch.grad(t)(x)", [&] { func::grad(t)(x); });
  expect_message("functorch.grad(sc, argnums=(2,))(x, y)", [&] { func::grad(sc, {2})({x, y}); });
  expect_message("functorch.grad(sc, argnums=(0, 0))(x, y)", [&] { func::grad(sc, {0, 0})({x, y}); });
  expect_message("functorch.grad(sc, argnums=())(x, y)", [&] { func::grad(sc, {})({x, y}); });
  compare_with_python();
}

INSTANTIATE_TEST_SUITE_P(Backends, AutogradFunctionalTest, testing::Values("vulkan", "cuda"), backend_test_name);

}  // namespace
}  // namespace ember::test
