// Rows for nn::functional's activations with their options, against torch::nn::functional, and for the
// points where the activations change branch: there PyTorch picks a value and a subgradient, and the
// rows compare both.
#include <torch/nn/functional/activation.h>

#include <limits>

#include "nn/functional/activation.h"
#include "tests/op_registry.h"

namespace ember::test {
namespace {

// A row whose expression names `F` for the functional namespace: ember::nn::functional on ember's
// tensors, torch::nn::functional on LibTorch's, so one expression states both. `kF64` names float64
// the same way, for the dtype options.
#define F_ROW(name, arity, ...)                                              \
  op(name, arity, [](const auto& x) {                                        \
    if constexpr (std::is_same_v<std::decay_t<decltype(x[0])>, Tensor>) {    \
      namespace F = ::ember::nn::functional;                                 \
      [[maybe_unused]] constexpr auto kF64 = ::ember::kFloat64;              \
      return __VA_ARGS__;                                                    \
    } else {                                                                 \
      namespace F = ::torch::nn::functional;                                 \
      [[maybe_unused]] constexpr auto kF64 = ::torch::kFloat64;              \
      return __VA_ARGS__;                                                    \
    }                                                                        \
  })

// A copy that is not a leaf, for the in-place forms (a leaf that requires grad refuses them).
template <class T>
T copy_of(const T& x) {
  return x * 1;
}

EMBER_OP_ROWS(functional_activation_rows) {
  return {
      F_ROW("F elu", 1, F::elu(x[0])).with_dtypes(kFloating).grad2(),
      F_ROW("F elu alpha inplace", 1, F::elu(copy_of(x[0]), F::ELUFuncOptions().alpha(0.5).inplace(true)))
          .with_dtypes(kFloating)
          .grad2(),
      F_ROW("F selu", 1, F::selu(x[0])).with_dtypes(kFloating).grad2(),
      F_ROW("F selu inplace", 1, F::selu(copy_of(x[0]), true)).with_dtypes(kFloating).grad(),
      F_ROW("F celu", 1, F::celu(x[0], F::CELUFuncOptions().alpha(2.0))).with_dtypes(kFloating).grad2(),
      F_ROW("F celu inplace", 1, F::celu(copy_of(x[0]), F::CELUFuncOptions().alpha(0.5).inplace(true)))
          .with_dtypes(kFloating)
          .grad(),
      F_ROW("F hardshrink", 1, F::hardshrink(x[0], 0.3)).with_dtypes(kFloating).grad(),
      F_ROW("F hardtanh", 1, F::hardtanh(x[0], F::HardtanhFuncOptions().min_val(-0.5).max_val(2.0)))
          .with_dtypes(kFloating)
          .grad(),
      F_ROW("F hardtanh inplace", 1, F::hardtanh(copy_of(x[0]), F::HardtanhFuncOptions().inplace(true)))
          .with_dtypes(kFloating)
          .grad(),
      F_ROW("F leaky_relu", 1, F::leaky_relu(x[0], F::LeakyReLUFuncOptions().negative_slope(0.2)))
          .with_dtypes(kFloating)
          .grad(),
      F_ROW("F leaky_relu inplace", 1, F::leaky_relu(copy_of(x[0]), F::LeakyReLUFuncOptions().inplace(true)))
          .with_dtypes(kFloating)
          .grad(),
      F_ROW("F logsigmoid", 1, F::logsigmoid(x[0])).with_dtypes(kFloating).grad2(),
      F_ROW("F gelu", 1, F::gelu(x[0])).with_dtypes(kFloating).grad2(),
      F_ROW("F gelu tanh", 1, F::gelu(x[0], F::GELUFuncOptions().approximate("tanh"))).with_dtypes(kFloating).grad2(),
      F_ROW("F silu", 1, F::silu(x[0])).with_dtypes(kFloating).grad2(),
      F_ROW("F mish", 1, F::mish(x[0])).with_dtypes(kFloating).grad2(),
      F_ROW("F prelu", 2, F::prelu(x[0], x[1]))
          .with_dtypes(kFloating)
          .with_cases({{{4, 3, 5}, {3}}, {{2, 3}, {1}}, {{5, 2, 3, 3}, {2}}, {{0, 2}, {2}}})
          .grad2(),
      F_ROW("F relu", 1, F::relu(x[0])).with_dtypes(kFloating).grad(),
      F_ROW("F relu inplace", 1, F::relu(copy_of(x[0]), true)).with_dtypes(kFloating).grad(),
      F_ROW("F relu6", 1, F::relu6(x[0])).with_dtypes(kFloating).in_range(-3, 9).grad(),
      F_ROW("F relu6 inplace", 1, F::relu6(copy_of(x[0]), true)).with_dtypes(kFloating).in_range(-3, 9).grad(),
      F_ROW("F rrelu", 1, F::rrelu(x[0])).with_dtypes(kFloating).grad(),
      F_ROW("F rrelu inplace", 1, F::rrelu(copy_of(x[0]), F::RReLUFuncOptions().lower(0.2).upper(0.5).inplace(true)))
          .with_dtypes(kFloating)
          .grad(),
      F_ROW("F rrelu training", 1, F::rrelu(x[0], F::RReLUFuncOptions().training(true)))
          .with_dtypes(kFloating)
          .sizes_only(),
      F_ROW("F glu", 1, F::glu(x[0], 1))
          .with_dtypes(kFloating)
          .with_cases({{{3, 4}}, {{2, 6, 3}}, {{3, 5}}, {{}}, {{0, 2}}})
          .grad2(),
      F_ROW("F softmax", 1, F::softmax(x[0], F::SoftmaxFuncOptions(-1))).with_dtypes(kFloating).grad2(),
      F_ROW("F softmax dtype", 1, F::softmax(x[0], F::SoftmaxFuncOptions(0).dtype(kF64)))
          .with_dtypes({DType::Float32, DType::Float64})
          .grad(),
      F_ROW("F softmin", 1, F::softmin(x[0], F::SoftminFuncOptions(-1))).with_dtypes(kFloating).grad2(),
      F_ROW("F softmin dtype", 1, F::softmin(x[0], F::SoftminFuncOptions(0).dtype(kF64)))
          .with_dtypes({DType::Float32, DType::Float64})
          .grad(),
      F_ROW("F log_softmax", 1, F::log_softmax(x[0], F::LogSoftmaxFuncOptions(-1))).with_dtypes(kFloating).grad2(),
      F_ROW("F log_softmax dtype", 1, F::log_softmax(x[0], F::LogSoftmaxFuncOptions(0).dtype(kF64)))
          .with_dtypes({DType::Float32, DType::Float64})
          .grad(),
      F_ROW("F softplus", 1, F::softplus(x[0], F::SoftplusFuncOptions().beta(2).threshold(3)))
          .with_dtypes(kFloating)
          .grad2(),
      F_ROW("F softshrink", 1, F::softshrink(x[0], 0.3)).with_dtypes(kFloating).grad(),
      // Compositions in LibTorch too: integral inputs become float, bool is refused by abs.
      F_ROW("F softsign", 1, F::softsign(x[0]))
          .with_dtypes({DType::Float32, DType::Float16, DType::BFloat16, DType::Float64, DType::Int32, DType::Bool})
          .grad2(),
      F_ROW("F tanhshrink", 1, F::tanhshrink(x[0]))
          .with_dtypes({DType::Float32, DType::Float16, DType::BFloat16, DType::Float64, DType::Int32, DType::Bool})
          .grad2(),
      F_ROW("F threshold", 1, F::threshold(x[0], F::ThresholdFuncOptions(0.5, 2.0))).with_dtypes(kFloating).grad(),
      F_ROW("F threshold inplace", 1, F::threshold(copy_of(x[0]), F::ThresholdFuncOptions(0.5, 2.0).inplace(true)))
          .with_dtypes(kFloating)
          .grad(),
  };
}

// Random values in [-8, 8) with `points` written over every other element (NaN and infinities among
// them where listed), so that the rows compare PyTorch's choice at each branch point.
InputMaker with_points(std::vector<double> points) {
  return [points](DType dtype, const Shapes& shapes, at::Generator& gen) {
    std::vector<at::Tensor> inputs;
    for (size_t i = 0; i < shapes.size(); ++i) {
      at::Tensor t = random_torch(shapes[i], dtype, gen, ValueRange{-8, 8});
      if (i == 0 && t.numel() > 0) {
        at::Tensor every_other = t.view({-1}).slice(0, 0, t.numel(), 2);
        std::vector<double> values(static_cast<size_t>(every_other.numel()));
        for (size_t k = 0; k < values.size(); ++k) values[k] = points[k % points.size()];
        every_other.copy_(at::tensor(values, at::kDouble));
      }
      inputs.push_back(t);
    }
    return inputs;
  };
}

// LibTorch's CPU kernels run in chunks of 16 floats (AVX2) through vector forms that disagree with their
// scalar forms at a few branch points: hardswish's gradient at x = 3 (1 in vector form, 3/3 + 1/2 in
// scalar form), and the gradients of hardtanh, hardshrink, softshrink and hardswish at NaN (0 or NaN in
// vector form, the gradient itself in scalar form). The scalar form is PyTorch's definition, the one its
// CUDA kernels and derivatives follow, and ember's. Boundary rows therefore use fewer than 16 elements,
// which LibTorch computes with the scalar form.
const std::vector<Shapes> kBoundaryCases = {{{15}}, {{3, 5}}, {{}}, {{2, 7}}, {{1, 14}}};

const double kInf = std::numeric_limits<double>::infinity();
const double kNaN = std::numeric_limits<double>::quiet_NaN();

// Each point where an activation changes branch, with its neighbours in every dtype, zeros of both
// signs, and the values that are not numbers. Gradients are compared at the finite points; second order
// differs from PyTorch only exactly there (PyTorch's double backward takes the other side), so these
// rows are first order.
EMBER_OP_ROWS(activation_boundary_rows) {
  const std::vector<double> specials = {0.0, -0.0, kNaN, kInf, -kInf};
  const auto around = [&](std::vector<double> points) {
    points.insert(points.end(), specials.begin(), specials.end());
    return with_points(points);
  };
  const auto finite_at = [](std::vector<double> points) {
    points.push_back(0.0);
    points.push_back(-0.0);
    return with_points(points);
  };
  return {
      op("elu at 0", [](const auto& x) { return elu(x[0], 0.5, 2.0, 1.5); })
          .with_dtypes(kFloating)
          .with_inputs(around({}))
          .with_cases(kBoundaryCases),
      op("elu grad at 0", [](const auto& x) { return elu(x[0], 0.5, 2.0, 1.5); })
          .with_dtypes(kFloating)
          .with_inputs(finite_at({}))
          .with_cases(kBoundaryCases)
          .grad(),
      op("celu at 0", [](const auto& x) { return celu(x[0], 2.0); })
          .with_dtypes(kFloating)
          .with_inputs(around({}))
          .with_cases(kBoundaryCases),
      op("hardtanh at bounds", [](const auto& x) { return hardtanh(x[0], -1.5, 2.0); })
          .with_dtypes(kFloating)
          .with_inputs(around({-1.5, 2.0}))
          .with_cases(kBoundaryCases)
          .grad(),
      op("relu6 at bounds", [](const auto& x) { return relu6(x[0]); })
          .with_dtypes(kFloating)
          .with_inputs(around({6.0, -6.0}))
          .with_cases(kBoundaryCases)
          .grad(),
      op("hardsigmoid at bounds", [](const auto& x) { return hardsigmoid(x[0]); })
          .with_dtypes(kFloating)
          .with_inputs(around({-3.0, 3.0}))
          .with_cases(kBoundaryCases)
          .grad(),
      op("hardswish at bounds", [](const auto& x) { return hardswish(x[0]); })
          .with_dtypes(kFloating)
          .with_inputs(around({-3.0, 3.0}))
          .with_cases(kBoundaryCases)
          .grad(),
      op("hardshrink at lambd", [](const auto& x) { return x[0].hardshrink(0.5); })
          .with_dtypes(kFloating)
          .with_inputs(around({-0.5, 0.5}))
          .with_cases(kBoundaryCases)
          .grad(),
      op("softshrink at lambd", [](const auto& x) { return softshrink(x[0], 0.5); })
          .with_dtypes(kFloating)
          .with_inputs(around({-0.5, 0.5}))
          .with_cases(kBoundaryCases)
          .grad(),
      op("softshrink lambd 0", [](const auto& x) { return softshrink(x[0], 0); })
          .with_dtypes(kFloating)
          .with_inputs(around({}))
          .with_cases(kBoundaryCases)
          .grad(),
      // beta x = threshold exactly: still the log1p branch.
      op("softplus at threshold", [](const auto& x) { return softplus(x[0], 2, 3); })
          .with_dtypes(kFloating)
          .with_inputs(around({1.5, 20.0, -20.0}))
          .with_cases(kBoundaryCases)
          .grad(),
      op("log_sigmoid extremes", [](const auto& x) { return log_sigmoid(x[0]); })
          .with_dtypes(kFloating)
          .with_inputs(around({-100.0, 100.0, -1e-8}))
          .with_cases(kBoundaryCases)
          .grad(),
      op("mish extremes", [](const auto& x) { return mish(x[0]); })
          .with_dtypes(kFloating)
          .with_inputs(finite_at({-100.0, 100.0, 50.0}))
          .with_cases(kBoundaryCases)
          .grad(),
      op("gelu extremes", [](const auto& x) { return gelu_of(x[0]); })
          .with_dtypes(kFloating)
          .with_inputs(finite_at({-100.0, 100.0, -6.0}))
          .with_cases(kBoundaryCases)
          .grad(),
      op("gelu tanh extremes", [](const auto& x) { return gelu_of(x[0], "tanh"); })
          .with_dtypes(kFloating)
          .with_inputs(finite_at({-100.0, 100.0, -6.0}))
          .with_cases(kBoundaryCases)
          .grad(),
      op("silu extremes", [](const auto& x) { return silu_of(x[0]); })
          .with_dtypes(kFloating)
          .with_inputs(finite_at({-100.0, 100.0, -30.0}))
          .with_cases(kBoundaryCases)
          .grad(),
      op("mish specials", [](const auto& x) { return mish(x[0]); })
          .with_dtypes(kFloating)
          .with_inputs(around({}))
          .with_cases(kBoundaryCases),
      op("rrelu eval at 0", [](const auto& x) { return rrelu(x[0], 0.1, 0.3, false); })
          .with_dtypes(kFloating)
          .with_inputs(around({}))
          .with_cases(kBoundaryCases)
          .grad(),
      op("prelu at 0", 2, [](const auto& x) { return prelu(x[0], x[1]); })
          .with_dtypes(kFloating)
          .with_inputs(around({}))
          .with_cases({{{2, 3, 2}, {3}}, {{6}, {1}}, {{1, 3, 4}, {3}}})
          .grad(),
  };
}

}  // namespace
}  // namespace ember::test
