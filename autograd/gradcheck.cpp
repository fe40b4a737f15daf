#include "autograd/gradcheck.h"

#include <cmath>
#include <sstream>

#include "autograd/engine.h"
#include "autograd/grad_mode.h"
#include "runtime/error.h"
#include "tensor/functions.h"

namespace ember::autograd {

namespace {

struct Tolerances {
  double eps, atol, rtol;
};

Tolerances tolerances_for(const tensor_list& inputs, const GradcheckOptions& options) {
  bool all_double = true;
  for (const Tensor& t : inputs) {
    if (t.defined() && t.requires_grad() && t.dtype() != DType::Float64) all_double = false;
  }
  const Tolerances base = all_double ? Tolerances{1e-6, 1e-5, 1e-3} : Tolerances{1e-3, 1e-2, 1e-2};
  return {options.eps.value_or(base.eps), options.atol.value_or(base.atol), options.rtol.value_or(base.rtol)};
}

// The outputs' elements, concatenated, in float64 on the host.
std::vector<double> flat_outputs(const tensor_list& outputs) {
  std::vector<double> all;
  for (const Tensor& out : outputs) {
    if (!out.defined() || !out.is_floating_point()) continue;
    const std::vector<double> values = out.to_vector<double>();
    all.insert(all.end(), values.begin(), values.end());
  }
  return all;
}

std::vector<int64_t> output_sizes(const tensor_list& outputs) {
  std::vector<int64_t> sizes;
  for (const Tensor& out : outputs) sizes.push_back(out.defined() && out.is_floating_point() ? out.numel() : 0);
  return sizes;
}

// Column-major by input element: numerical[j][k] = d output_k / d input_j.
std::vector<std::vector<double>> numerical_jacobian(const DifferentiableFn& fn, const tensor_list& inputs,
                                                    size_t which, double eps) {
  NoGradGuard no_grad;
  const Tensor& x = inputs[which];
  const std::vector<double> base = x.to_vector<double>();
  std::vector<std::vector<double>> columns;
  for (size_t j = 0; j < base.size(); ++j) {
    auto evaluate = [&](double delta) {
      std::vector<double> moved = base;
      moved[j] += delta;
      tensor_list perturbed = inputs;
      perturbed[which] = from_blob(moved.data(), x.sizes(), TensorOptions().dtype(kFloat64).device(x.device()))
                             .to(x.dtype());
      for (Tensor& t : perturbed) {
        if (t.defined()) t = t.detach();
      }
      return flat_outputs(fn(perturbed));
    };
    const std::vector<double> plus = evaluate(eps), minus = evaluate(-eps);
    std::vector<double> column(plus.size());
    for (size_t k = 0; k < plus.size(); ++k) column[k] = (plus[k] - minus[k]) / (2 * eps);
    columns.push_back(std::move(column));
  }
  return columns;
}

std::string format_matrix(const std::vector<std::vector<double>>& columns) {
  std::ostringstream out;
  out.precision(8);
  for (const auto& column : columns) {
    for (double v : column) out << v << ' ';
    out << '\n';
  }
  return out.str();
}

}  // namespace

bool gradcheck(const DifferentiableFn& fn, const tensor_list& inputs, const GradcheckOptions& options) {
  const Tolerances tol = tolerances_for(inputs, options);
  const tensor_list outputs = fn(inputs);
  const std::vector<int64_t> sizes = output_sizes(outputs);
  int64_t total = 0;
  for (int64_t n : sizes) total += n;

  std::vector<size_t> differentiable;
  tensor_list wrt;
  for (size_t i = 0; i < inputs.size(); ++i) {
    if (inputs[i].defined() && inputs[i].requires_grad()) {
      differentiable.push_back(i);
      wrt.push_back(inputs[i]);
    }
  }
  // analytical[i][j][k]: d output_k / d element j of input i, one backward per output element.
  std::vector<std::vector<std::vector<double>>> analytical(wrt.size());
  for (size_t i = 0; i < wrt.size(); ++i) {
    analytical[i].assign(static_cast<size_t>(wrt[i].numel()), std::vector<double>(static_cast<size_t>(total), 0.0));
  }
  int64_t row = 0;
  for (size_t o = 0; o < outputs.size(); ++o) {
    for (int64_t e = 0; e < sizes[o]; ++e, ++row) {
      tensor_list roots, seeds;
      std::vector<double> one_hot(static_cast<size_t>(sizes[o]), 0.0);
      one_hot[static_cast<size_t>(e)] = 1.0;
      if (!outputs[o].requires_grad()) continue;
      roots.push_back(outputs[o]);
      seeds.push_back(from_blob(one_hot.data(), outputs[o].sizes(),
                                TensorOptions().dtype(kFloat64).device(outputs[o].device()))
                          .to(outputs[o].dtype()));
      const tensor_list grads = grad(roots, wrt, seeds, /*retain_graph=*/true, false, /*allow_unused=*/true);
      for (size_t i = 0; i < wrt.size(); ++i) {
        if (!grads[i].defined()) continue;
        const std::vector<double> values = grads[i].to_vector<double>();
        for (size_t j = 0; j < values.size(); ++j) analytical[i][j][static_cast<size_t>(row)] = values[j];
      }
    }
  }
  for (size_t i = 0; i < wrt.size(); ++i) {
    const auto numerical = numerical_jacobian(fn, inputs, differentiable[i], tol.eps);
    for (size_t j = 0; j < numerical.size(); ++j) {
      for (size_t k = 0; k < numerical[j].size(); ++k) {
        const double a = analytical[i][j][k], n = numerical[j][k];
        if (std::abs(a - n) <= tol.atol + tol.rtol * std::abs(n)) continue;
        if (!options.raise_exception) return false;
        throw Error("Jacobian mismatch for output " + std::to_string(k) + " with respect to input " +
                    std::to_string(differentiable[i]) + ",\nnumerical:\n" + format_matrix(numerical) +
                    "analytical:\n" + format_matrix(analytical[i]));
      }
    }
  }
  return true;
}

bool gradgradcheck(const DifferentiableFn& fn, const tensor_list& inputs, const GradcheckOptions& options) {
  tensor_list with_grads = inputs;
  std::vector<size_t> differentiable;
  for (size_t i = 0; i < inputs.size(); ++i) {
    if (inputs[i].defined() && inputs[i].requires_grad()) differentiable.push_back(i);
  }
  tensor_list outputs;
  {
    NoGradGuard no_grad;
    outputs = fn(inputs);
  }
  // Random output gradients, themselves differentiable: the vector-Jacobian product is linear in them.
  for (const Tensor& out : outputs) {
    if (!out.defined() || !out.is_floating_point()) continue;
    with_grads.push_back(randn(out.sizes(), TensorOptions().dtype(out.dtype()).device(out.device()))
                             .requires_grad_(true));
  }
  const size_t num_inputs = inputs.size();
  auto vjp = [&fn, num_inputs, differentiable](const tensor_list& all) {
    EnableGradGuard enable;
    tensor_list ins(all.begin(), all.begin() + static_cast<std::ptrdiff_t>(num_inputs));
    // The numerical pass hands in detached copies: make the same inputs differentiable again.
    tensor_list wrt;
    for (size_t i : differentiable) {
      if (!ins[i].requires_grad()) ins[i] = ins[i].detach().requires_grad_(true);
      wrt.push_back(ins[i]);
    }
    tensor_list outs;
    for (const Tensor& out : fn(ins)) {
      if (out.defined() && out.is_floating_point()) outs.push_back(out);
    }
    const tensor_list seeds(all.begin() + static_cast<std::ptrdiff_t>(num_inputs),
                            all.begin() + static_cast<std::ptrdiff_t>(num_inputs + outs.size()));
    tensor_list g = grad(outs, wrt, seeds, true, /*create_graph=*/true, /*allow_unused=*/true);
    for (size_t i = 0; i < g.size(); ++i) {
      if (!g[i].defined()) g[i] = zeros_like(wrt[i]);
    }
    return g;
  };
  return gradcheck(vjp, with_grads, options);
}

}  // namespace ember::autograd
