#include "tests/autograd_oracle.h"

#include <torch/csrc/autograd/autograd.h>
#include <torch/csrc/autograd/function.h>

#include <algorithm>

namespace ember::test {

namespace {

bool differentiated(const GradCase& test, size_t i) {
  return at::isFloatingType(test.inputs[i].scalar_type()) &&
         std::find(test.constant.begin(), test.constant.end(), i) == test.constant.end();
}

struct Prepared {
  std::vector<Tensor> ember;
  std::vector<at::Tensor> torch;
  std::string layout;
};

// Both sides' inputs in layout number `layout` (or contiguous where an input has no such layout).
Prepared prepare(const std::shared_ptr<Device>& device, const GradCase& test, size_t layout) {
  Prepared p;
  for (size_t i = 0; i < test.inputs.size(); ++i) {
    std::vector<Layout> options = layouts_of(test.inputs[i], device);
    const Layout& chosen = options[std::min(layout, options.size() - 1)];
    if (layout < options.size() && layout > 0) p.layout = chosen.name;
    Tensor e = chosen.tensor;
    at::Tensor t = test.inputs[i].clone();
    if (differentiated(test, i)) {
      e.requires_grad_(true);
      t.requires_grad_(true);
    }
    p.ember.push_back(e);
    p.torch.push_back(t);
  }
  if (p.layout.empty()) p.layout = "contiguous";
  return p;
}

size_t layout_count(const std::shared_ptr<Device>& device, const GradCase& test) {
  if (!test.all_layouts) return 1;
  size_t most = 1;
  for (const at::Tensor& t : test.inputs) most = std::max(most, layouts_of(t, device).size());
  return most;
}

// Same random values on both sides.
std::pair<Tensor, at::Tensor> random_like(const at::Tensor& like, const std::shared_ptr<Device>& device,
                                          uint64_t seed) {
  const DType dtype = ember_dtype(like.scalar_type());
  const at::Tensor t = random_torch(like.sizes().vec(), dtype, seed, -2, 2);
  return {from_torch(t, device), t};
}

void expect_grad_eq(const Tensor& actual, const at::Tensor& expected, double rtol, double atol,
                    const std::string& context) {
  if (!expected.defined()) {
    if (actual.defined()) {
      EXPECT_TRUE(at::equal(to_torch(actual), at::zeros_like(to_torch(actual))))
          << context << ": LibTorch has no gradient but ember's is nonzero";
    }
    return;
  }
  if (!actual.defined()) {
    EXPECT_TRUE(at::equal(expected, at::zeros_like(expected))) << context << ": ember has no gradient";
    return;
  }
  expect_tensor_eq(actual, expected, rtol, atol, context);
}

struct Tolerances {
  double rtol, atol;
};

Tolerances tolerances(const GradCase& test) {
  const DType dtype = ember_dtype(test.inputs.front().scalar_type());
  const double rtol = test.rtol >= 0 ? test.rtol : gradient_tolerance(dtype);
  return {rtol, test.atol >= 0 ? test.atol : rtol};
}

}  // namespace

std::string grad_fn_name(const Tensor& t) { return t.grad_fn() ? t.grad_fn()->name() : "none"; }
std::string grad_fn_name(const at::Tensor& t) { return t.grad_fn() ? t.grad_fn()->name() : "none"; }

double gradient_tolerance(DType dtype) {
  switch (dtype) {
    case DType::Float64: return 1e-10;
    case DType::Float32: return 1e-4;
    case DType::Float16: return 1e-2;
    case DType::BFloat16: return 5e-2;
    default: return 0;
  }
}

void expect_grads_match(const std::shared_ptr<Device>& device, const GradCase& test, const EmberFn& ember_fn,
                        const TorchFn& torch_fn) {
  const Tolerances tol = tolerances(test);
  for (size_t layout = 0; layout < layout_count(device, test); ++layout) {
    Prepared p = prepare(device, test, layout);
    const std::string where = test.context + " [" + p.layout + "]";
    SCOPED_TRACE(where);
    const Tensor out = ember_fn(p.ember);
    const at::Tensor expected = torch_fn(p.torch);
    expect_tensor_eq(out, expected.detach(), tol.rtol, tol.atol, where + " output");
    if (!expected.requires_grad()) {
      EXPECT_FALSE(out.requires_grad()) << where;
      continue;
    }
    ASSERT_TRUE(out.requires_grad()) << where << ": output has no grad_fn";
    auto [g, g_torch] = random_like(expected, device, 99 + layout);
    autograd::backward({out}, {g});
    expected.backward(g_torch);
    for (size_t i = 0; i < p.ember.size(); ++i) {
      if (!differentiated(test, i)) continue;
      expect_grad_eq(p.ember[i].grad(), p.torch[i].grad(), tol.rtol, tol.atol,
                     where + " grad of input " + std::to_string(i));
    }
  }
}

void expect_second_order_match(const std::shared_ptr<Device>& device, const GradCase& test,
                               const EmberFn& ember_fn, const TorchFn& torch_fn) {
  const Tolerances tol = tolerances(test);
  Prepared p = prepare(device, test, 0);
  const std::string where = test.context + " second order";
  SCOPED_TRACE(where);
  std::vector<Tensor> wrt;
  std::vector<at::Tensor> wrt_torch;
  for (size_t i = 0; i < p.ember.size(); ++i) {
    if (!differentiated(test, i)) continue;
    wrt.push_back(p.ember[i]);
    wrt_torch.push_back(p.torch[i]);
  }
  const Tensor out = ember_fn(p.ember);
  const at::Tensor expected = torch_fn(p.torch);
  auto [g, g_torch] = random_like(expected, device, 7);
  const autograd::tensor_list first = autograd::grad({out}, wrt, {g}, true, /*create_graph=*/true, true);
  const std::vector<at::Tensor> first_torch = torch::autograd::grad({expected}, wrt_torch, {g_torch}, true, true, true);
  // sum_i <grad_i, v_i> for random v_i, differentiated again.
  Tensor total;
  at::Tensor total_torch;
  for (size_t i = 0; i < wrt.size(); ++i) {
    expect_grad_eq(first[i], first_torch[i], tol.rtol, tol.atol, where + " first grad " + std::to_string(i));
    if (!first_torch[i].defined() || !first_torch[i].requires_grad()) continue;
    auto [v, v_torch] = random_like(first_torch[i].detach(), device, 11 + i);
    ASSERT_TRUE(first[i].defined() && first[i].requires_grad()) << where << ": first grad " << i << " has no graph";
    const Tensor term = (first[i] * v).sum();
    const at::Tensor term_torch = (first_torch[i] * v_torch).sum();
    total = total.defined() ? total + term : term;
    total_torch = total_torch.defined() ? total_torch + term_torch : term_torch;
  }
  if (!total_torch.defined()) return;  // linear in every input: no second-order terms
  const autograd::tensor_list second = autograd::grad({total}, wrt, {}, false, false, /*allow_unused=*/true);
  const std::vector<at::Tensor> second_torch = torch::autograd::grad({total_torch}, wrt_torch, {}, false, false, true);
  for (size_t i = 0; i < wrt.size(); ++i) {
    expect_grad_eq(second[i], second_torch[i], tol.rtol * 10, tol.atol * 10, where + " second grad " + std::to_string(i));
  }
}

void GradTest::check(std::vector<at::Tensor> inputs, const std::string& context, const EmberFn& ember_fn,
                     const TorchFn& torch_fn, std::vector<size_t> constant, bool all_layouts) {
  GradCase test;
  test.inputs = std::move(inputs);
  test.constant = std::move(constant);
  test.context = context;
  test.all_layouts = all_layouts;
  expect_grads_match(device, test, ember_fn, torch_fn);
}

void GradTest::check_second_order(std::vector<at::Tensor> inputs, const std::string& context,
                                  const EmberFn& ember_fn, const TorchFn& torch_fn) {
  GradCase test;
  test.inputs = std::move(inputs);
  test.context = context;
  expect_second_order_match(device, test, ember_fn, torch_fn);
}

}  // namespace ember::test
