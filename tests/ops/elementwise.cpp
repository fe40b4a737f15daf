// Rows for the elementwise ops: unary math, activations, rounding, predicates, arithmetic with
// promotion, comparisons, bitwise ops, scalar operands and the ternary ops.
#include "tests/op_registry.h"

namespace ember::test {
namespace {

// LibTorch's C++ `2 / x` multiplies x's reciprocal in place, which fails for integers; Python's (and
// ember's) divides.
Tensor scalar_over(Scalar a, const Tensor& x) { return a / x; }
at::Tensor scalar_over(const at::Scalar& a, const at::Tensor& x) { return at::div(at::scalar_tensor(a, at::kLong), x); }
Tensor cast(const Tensor& x, DType dtype) { return x.to(dtype); }
at::Tensor cast(const at::Tensor& x, DType dtype) { return x.to(torch_dtype(dtype)); }

std::vector<DType> join(std::initializer_list<std::vector<DType>> lists) {
  std::vector<DType> all;
  for (const auto& list : lists) all.insert(all.end(), list.begin(), list.end());
  return all;
}
// Integer and bool inputs of floating ops are promoted to the default float dtype.
const std::vector<DType> kFloatingAndPromoted = join({kFloating, {DType::Int32, DType::Bool}});

// Pairs that exercise promotion: mixed categories and widths.
const std::vector<std::vector<DType>> kMixedPairs = {
    {DType::Int32, DType::Float32}, {DType::UInt8, DType::Int8},    {DType::Float16, DType::BFloat16},
    {DType::Bool, DType::Int64},    {DType::Int64, DType::Float64}, {DType::Float16, DType::Float32},
    {DType::Int8, DType::Int64},    {DType::Bool, DType::Float16}};

// Random inputs whose last one (a divisor) has no zeros.
std::vector<at::Tensor> nonzero_divisor(DType dtype, const Shapes& shapes, at::Generator& gen) {
  std::vector<at::Tensor> inputs;
  for (const auto& shape : shapes) inputs.push_back(random_torch(shape, dtype, gen));
  at::Tensor& divisor = inputs.back();
  divisor = at::where(divisor.eq(0), at::ones_like(divisor), divisor);
  return inputs;
}

// Values with NaN and infinities that no dtype overflows into: log gives NaN for negative x, and the
// reciprocal of round(x) gives an infinity for |x| < 0.5.
template <class T>
T special(const T& x) { return x.log() + x.round().reciprocal(); }

// A bool condition first, then random values.
std::vector<at::Tensor> condition_first(DType dtype, const Shapes& shapes, at::Generator& gen) {
  std::vector<at::Tensor> inputs = {random_torch(shapes[0], DType::Bool, gen)};
  for (size_t i = 1; i < shapes.size(); ++i) inputs.push_back(random_torch(shapes[i], dtype, gen));
  return inputs;
}

// Bool conditions of `shape` (the first input) with values for the rest, as in where's gradient tests.
const std::vector<Shapes> kConditionCases = {
    {{33, 17}, {33, 17}, {33, 17}}, {{3, 1, 5}, {4, 5}, {5}}, {{}, {}, {}}, {{0}, {0}, {}}, {{7}, {7}, {}}};

EMBER_OP_ROWS(unary_math_rows) {
  const auto math = [](std::string name, auto f) { return op(std::move(name), f).with_dtypes(kFloatingAndPromoted); };
  return {
      math("exp", [](const auto& x) { return x[0].exp(); }).grad2(),
      math("exp2", [](const auto& x) { return x[0].exp2(); }).grad(),
      math("log", [](const auto& x) { return x[0].log(); }).in_range(0.5, 3).grad2(),
      math("log2", [](const auto& x) { return x[0].log2(); }).in_range(0.5, 3).grad(),
      math("log10", [](const auto& x) { return x[0].log10(); }).in_range(0.5, 3).grad(),
      math("log1p", [](const auto& x) { return x[0].log1p(); }).in_range(-0.5, 3).grad(),
      math("expm1", [](const auto& x) { return x[0].expm1(); }).grad(),
      math("sqrt", [](const auto& x) { return x[0].sqrt(); }).in_range(0.5, 3).grad2(),
      math("rsqrt", [](const auto& x) { return x[0].rsqrt(); }).in_range(0.5, 3).grad2(),
      math("sin", [](const auto& x) { return x[0].sin(); }).grad2(),
      math("cos", [](const auto& x) { return x[0].cos(); }).grad(),
      math("tan", [](const auto& x) { return x[0].tan(); }).in_range(-1.2, 1.2).grad(),
      math("asin", [](const auto& x) { return x[0].asin(); }).in_range(-0.9, 0.9).grad(),
      math("acos", [](const auto& x) { return x[0].acos(); }).in_range(-0.9, 0.9).grad(),
      // Outside [-1, 1] they give NaN, as PyTorch's.
      op("asin outside", [](const auto& x) { return x[0].asin(); }).with_dtypes(kFloating),
      math("atan", [](const auto& x) { return x[0].atan(); }).grad(),
      math("sinh", [](const auto& x) { return x[0].sinh(); }).grad(),
      math("cosh", [](const auto& x) { return x[0].cosh(); }).grad(),
      math("tanh", [](const auto& x) { return x[0].tanh(); }).grad2(),
      math("sigmoid", [](const auto& x) { return x[0].sigmoid(); }).grad2(),
      math("erf", [](const auto& x) { return x[0].erf(); }).grad2(),
      math("erfc", [](const auto& x) { return x[0].erfc(); }).grad(),
      math("reciprocal", [](const auto& x) { return x[0].reciprocal(); }).in_range(0.5, 3).grad(),
      op("frac", [](const auto& x) { return x[0].frac(); }).with_dtypes(kFloating).grad(),
  };
}

EMBER_OP_ROWS(activation_rows) {
  return {
      op("relu", [](const auto& x) { return x[0].relu(); }).with_dtypes(join({kFloating, kSignedIntegral})).grad(),
      op("gelu", [](const auto& x) { return gelu_of(x[0]); }).with_dtypes(kFloating).grad2(),
      op("gelu tanh", [](const auto& x) { return gelu_of(x[0], "tanh"); }).with_dtypes(kFloating).grad2(),
      op("silu", [](const auto& x) { return silu_of(x[0]); }).with_dtypes(kFloating).grad2(),
      // Piecewise linear: the second derivative is zero. LibTorch still gives the first gradient a node
      // (LeakyReluBackwardBackward0) where ember's carries none, so second order is not compared.
      op("leaky_relu", [](const auto& x) { return leaky_relu(x[0], 0.2); }).with_dtypes(kFloating).grad(),
      op("threshold", [](const auto& x) { return threshold(x[0], 0.5, 2.0); }).with_dtypes(kNumeric).grad(),
  };
}

// The activations of torch.nn.functional that are tensor ops (their boundary values and the F:: forms
// are rows of tests/ops/activation.cpp). Piecewise-linear ones compare first order only: LibTorch's
// gradient keeps a node of the input (HardtanhBackwardBackward0, ...) whose derivative is zero.
EMBER_OP_ROWS(nn_activation_rows) {
  const auto act = [](std::string name, auto f) { return op(std::move(name), f).with_dtypes(kFloating); };
  return {
      act("elu", [](const auto& x) { return elu(x[0]); }).grad2(),
      act("elu scaled", [](const auto& x) { return elu(x[0], 0.5, 2.0, 1.5); }).grad2(),
      act("elu_", [](const auto& x) {
        auto y = x[0] * 1;
        return elu_(y, 0.5, 2.0, 1.5);
      }).grad2(),
      act("selu", [](const auto& x) { return selu(x[0]); }).grad2(),
      act("selu_", [](const auto& x) {
        auto y = x[0] * 1;
        return selu_(y);
      }).grad(),
      act("celu", [](const auto& x) { return celu(x[0], 2.0); }).grad2(),
      act("celu_", [](const auto& x) {
        auto y = x[0] * 1;
        return celu_(y, 0.5);
      }).grad(),
      op("hardtanh", [](const auto& x) { return hardtanh(x[0], -0.5, 1.5); })
          .with_dtypes(join({kFloating, {DType::Int32, DType::Int64, DType::Int8}}))
          .grad(),
      // uint8 with a negative bound is refused, by both.
      op("hardtanh uint8", [](const auto& x) { return hardtanh(x[0], -1, 5); }).with_dtypes({DType::UInt8, DType::Float32}),
      act("hardtanh_", [](const auto& x) {
        auto y = x[0] * 1;
        return hardtanh_(y, -2.0, 1.0);
      }).grad(),
      op("relu6", [](const auto& x) { return relu6(x[0]); })
          .with_dtypes(join({kFloating, {DType::UInt8, DType::Int32}}))
          .in_range(-3, 9)
          .grad(),
      act("relu6_", [](const auto& x) {
        auto y = x[0] * 1;
        return relu6_(y);
      }).in_range(-3, 9).grad(),
      act("hardsigmoid", [](const auto& x) { return hardsigmoid(x[0]); }).in_range(-5, 5).grad(),
      act("hardsigmoid_", [](const auto& x) {
        auto y = x[0] * 1;
        return hardsigmoid_(y);
      }).in_range(-5, 5).grad(),
      act("hardswish", [](const auto& x) { return hardswish(x[0]); }).in_range(-5, 5).grad2(),
      act("hardswish_", [](const auto& x) {
        auto y = x[0] * 1;
        return hardswish_(y);
      }).in_range(-5, 5).grad(),
      act("hardshrink", [](const auto& x) { return x[0].hardshrink(0.7); }).grad(),
      act("softshrink", [](const auto& x) { return softshrink(x[0], 0.7); }).grad(),
      act("softplus", [](const auto& x) { return softplus(x[0]); }).grad2(),
      act("softplus beta threshold", [](const auto& x) { return softplus(x[0], 2, 3); }).grad2(),
      act("log_sigmoid", [](const auto& x) { return log_sigmoid(x[0]); }).in_range(-30, 30).grad2(),
      act("mish", [](const auto& x) { return mish(x[0]); }).grad2(),
      act("mish_", [](const auto& x) {
        auto y = x[0] * 1;
        return mish_(y);
      }).grad(),
      act("rrelu eval", [](const auto& x) { return rrelu(x[0], 0.1, 0.3, false); }).grad(),
      act("rrelu_ eval", [](const auto& x) {
        auto y = x[0] * 1;
        return rrelu_(y, 0.1, 0.3, false);
      }).grad(),
      // Random slopes: sizes and dtype only (tests/activation_test.cpp checks the values).
      act("rrelu training", [](const auto& x) { return rrelu(x[0], 0.1, 0.3, true); }).sizes_only(),
      op("prelu one slope", 2, [](const auto& x) { return prelu(x[0], x[1]); })
          .with_dtypes(kFloating)
          .with_cases({{{4, 3, 5}, {1}}, {{}, {1}}, {{0, 3}, {1}}, {{7}, {1}}, {{33, 17}, {}}})
          .grad2(),
      op("prelu per channel", 2, [](const auto& x) { return prelu(x[0], x[1]); })
          .with_dtypes(kFloating)
          .with_mixed({{DType::Float32, DType::Float64}})
          .with_cases({{{4, 3, 5}, {3}}, {{2, 3}, {3}}, {{0, 3, 2}, {3}}, {{2, 3, 4, 5}, {3}}, {{2, 4}, {3}},
                       {{3}, {3}}, {{}, {3}}, {{2, 3}, {1, 3}}})
          .grad2(),
      act("glu", [](const auto& x) { return glu(x[0]); })
          .with_cases({{{4, 6}}, {{3, 5, 2}}, {{0, 4}}, {{2}}, {{3}}, {{}}})
          .grad2(),
      act("glu dim 1", [](const auto& x) { return glu(x[0], 1); })
          .with_cases({{{3, 8, 5}}, {{2, 3}}, {{4, 2}}, {{2, 0, 3}}})
          .grad2(),
  };
}

EMBER_OP_ROWS(sign_and_rounding_rows) {
  const std::vector<DType> numeric = kNumeric;
  return {
      op("neg", [](const auto& x) { return -x[0]; }).with_dtypes(join({kFloating, kSignedIntegral})).grad(),
      op("abs", [](const auto& x) { return x[0].abs(); }).with_dtypes(numeric).grad(),
      op("sign", [](const auto& x) { return x[0].sign(); }).with_dtypes(numeric).grad(),
      op("square", [](const auto& x) { return x[0].square(); }).with_dtypes(kAllTypes).grad(),
      op("floor", [](const auto& x) { return x[0].floor(); }).with_dtypes(numeric).grad(),
      op("ceil", [](const auto& x) { return x[0].ceil(); }).with_dtypes(numeric).grad(),
      op("round", [](const auto& x) { return (x[0] * 2).round(); }).with_dtypes(numeric).grad(),
      op("trunc", [](const auto& x) { return x[0].trunc(); }).with_dtypes(numeric).grad(),
      op("clamp", [](const auto& x) { return x[0].clamp(-1.5, 2.0); }).with_dtypes(kFloating).grad2(),
      op("clamp int", [](const auto& x) { return x[0].clamp(-10, 20); }).with_dtypes(kIntegral),
      op("clamp min only", [](const auto& x) { return x[0].clamp(-1); }).with_dtypes(kFloating).grad(),
      op("clamp max only", [](const auto& x) { return x[0].clamp({}, 1.5); }).with_dtypes(kFloating).grad(),
      op("clamp_min", [](const auto& x) { return x[0].clamp_min(0.5); })
          .with_dtypes(join({kFloating, {DType::Int32}}))
          .grad(),
      op("clamp_max", [](const auto& x) { return x[0].clamp_max(1.5); })
          .with_dtypes(join({kFloating, {DType::Int32}}))
          .grad(),
  };
}

EMBER_OP_ROWS(predicate_rows) {
  return {
      op("isnan", [](const auto& x) { return special(x[0]).isnan(); }).with_dtypes(kFloating),
      op("isinf", [](const auto& x) { return x[0].reciprocal().isinf(); })
          .with_dtypes(join({kFloating, {DType::Int32}})),
      op("isposinf", [](const auto& x) { return special(x[0]).isposinf(); }).with_dtypes(kFloating),
      op("isneginf", [](const auto& x) { return (-special(x[0])).isneginf(); }).with_dtypes(kFloating),
      op("isfinite", [](const auto& x) { return special(x[0]).isfinite(); }).with_dtypes(kFloating),
      op("nan_to_num", [](const auto& x) { return special(x[0]).nan_to_num(); }).with_dtypes(kFloating),
      op("nan_to_num values", [](const auto& x) { return special(x[0]).nan_to_num(0.5, 10.0, -10.0); })
          .with_dtypes(kFloating)
          .grad(),
      op("logical_not", [](const auto& x) { return x[0].logical_not(); }).with_dtypes(kAllTypes),
      op("bitwise_not", [](const auto& x) { return ~x[0]; }).with_dtypes(join({kIntegral, {DType::Bool}})),
  };
}

EMBER_OP_ROWS(cast_rows) {
  std::vector<OpRow> rows;
  for (DType target : kAllTypes) {
    rows.push_back(op("to " + std::string(dtype_name(target)),
                      [target](const auto& x) { return cast(x[0], target); })
                       .with_dtypes(kAllTypes)
                       .in_range(0, 100));
  }
  rows.push_back(op("to float16 and back", [](const auto& x) { return cast(x[0], DType::Float16) * 2; }).grad());
  return rows;
}

EMBER_OP_ROWS(arithmetic_rows) {
  const std::vector<DType> numeric = kNumeric;
  const auto binary = [&](std::string name, auto f) {
    return op(std::move(name), 2, f).with_dtypes(numeric).with_mixed(kMixedPairs);
  };
  const auto dividing = [&](std::string name, auto f) {
    return op(std::move(name), 2, f).with_dtypes(numeric).with_inputs(nonzero_divisor);
  };
  return {
      binary("add", [](const auto& x) { return x[0] + x[1]; }).grad(),
      binary("add alpha", [](const auto& x) { return x[0].add(x[1], 3); }).grad(),
      op("sub", 2, [](const auto& x) { return x[0] - x[1]; }).with_dtypes(numeric).grad(),
      op("sub alpha", 2, [](const auto& x) { return x[0].sub(x[1], 3); }).with_dtypes(kFloating).grad(),
      binary("mul", [](const auto& x) { return x[0] * x[1]; }).grad2(),
      binary("x times x", [](const auto& x) { return x[0] * x[0]; }).grad2(),
      dividing("div", [](const auto& x) { return x[0] / x[1]; }).with_mixed(kMixedPairs),
      op("div grad", 2, [](const auto& x) { return x[0] / x[1]; }).in_ranges({{-3, 3}, {0.5, 3}}).grad2(),
      dividing("floor_divide", [](const auto& x) { return x[0].floor_divide(x[1]); }),
      dividing("div floor", [](const auto& x) { return x[0].div(x[1], "floor"); }),
      dividing("div trunc", [](const auto& x) { return x[0].div(x[1], "trunc"); }),
      op("div trunc grad", 2, [](const auto& x) { return x[0].div(x[1], "trunc"); })
          .in_ranges({{-3, 3}, {0.5, 3}})
          .grad(),
      dividing("remainder", [](const auto& x) { return x[0].remainder(x[1]); }),
      op("remainder grad", 2, [](const auto& x) { return x[0].remainder(x[1]); })
          .in_ranges({{-3, 3}, {0.5, 3}})
          .grad(),
      dividing("fmod", [](const auto& x) { return x[0].fmod(x[1]); }),
      op("fmod grad", 2, [](const auto& x) { return x[0].fmod(x[1]); }).in_ranges({{-3, 3}, {0.5, 3}}).grad(),
      binary("maximum", [](const auto& x) { return x[0].maximum(x[1]); }).grad(),
      binary("minimum", [](const auto& x) { return x[0].minimum(x[1]); }).grad(),
      op("atan2", 2, [](const auto& x) { return x[0].atan2(x[1]); }).with_dtypes(kFloating).grad2(),
      op("hypot", 2, [](const auto& x) { return x[0].hypot(x[1]); }).with_dtypes(kFloating).grad(),
      op("copysign", 2, [](const auto& x) { return x[0].copysign(x[1]); })
          .with_dtypes(kFloatingAndPromoted)
          .grad(),
      op("copysign scalar", [](const auto& x) { return x[0].copysign(-1.5); }).with_dtypes(kFloating).grad(),
      op("pow", 2, [](const auto& x) { return x[0].abs().pow(x[1].clamp(-3, 3)); }).with_dtypes(kFloating),
      op("pow grad", 2, [](const auto& x) { return x[0].pow(x[1]); }).in_range(0.5, 2).grad2(),
      op("pow int", 2, [](const auto& x) { return x[0].remainder(5).pow(x[1].remainder(4)); })
          .with_dtypes(kSignedIntegral)
          .with_inputs(nonzero_divisor),
  };
}

EMBER_OP_ROWS(scalar_operand_rows) {
  return {
      op("int tensor plus float scalar", [](const auto& x) { return x[0] + 2.5; })
          .with_dtypes(join({kIntegral, {DType::Bool, DType::Float16}})),
      op("x plus 2", [](const auto& x) { return x[0] + 2; }).grad(),
      op("2 plus x", [](const auto& x) { return 2 + x[0]; }).grad(),
      op("add scalar alpha", [](const auto& x) { return x[0].add(2, 3); }).grad(),
      op("x minus 2", [](const auto& x) { return x[0] - 2; }).grad(),
      op("sub scalar alpha", [](const auto& x) { return x[0].sub(2, 0.5); }).grad(),
      op("scalar minus tensor", [](const auto& x) { return 1.5 - x[0]; }).with_dtypes(kFloating).grad(),
      op("tensor times int scalar", [](const auto& x) { return x[0] * 3; }).with_dtypes(kNumeric).grad(),
      op("3 times x", [](const auto& x) { return 3.0 * x[0]; }).grad(),
      op("x over 2", [](const auto& x) { return x[0] / 2; }).grad(),
      op("scalar over tensor", [](const auto& x) { return scalar_over(2, x[0]); })
          .with_dtypes(join({kFloating, {DType::Int32}}))
          .in_range(0.5, 3)
          .grad(),
      op("pow scalar", [](const auto& x) { return x[0].pow(2); }).with_dtypes(join({kFloating, kSignedIntegral})),
      op("pow 2.5", [](const auto& x) { return x[0].pow(2.5); }).in_range(0.5, 3).grad2(),
      op("pow 3", [](const auto& x) { return x[0].pow(3); }).grad(),
      op("pow 0", [](const auto& x) { return x[0].pow(0); }).grad(),
      op("pow -1.5", [](const auto& x) { return x[0].pow(-1.5); }).in_range(0.5, 3).grad(),
      op("scalar pow", [](const auto& x) { return pow(2.0, x[0].clamp(-4, 4)); }).with_dtypes(kFloating).grad2(),
      op("uint8 greater than -1", [](const auto& x) { return x[0] > -1; }).with_dtypes({DType::UInt8}),
      op("remainder scalar", [](const auto& x) { return x[0].remainder(-3); })
          .with_dtypes(join({kFloating, kSignedIntegral})),
      op("remainder 0.7", [](const auto& x) { return x[0].remainder(0.7); }).grad(),
      op("fmod scalar", [](const auto& x) { return x[0].fmod(0.7); }).grad(),
      op("left shift scalar", [](const auto& x) { return x[0].bitwise_left_shift(2); }).with_dtypes(kIntegral),
      op("right shift scalar", [](const auto& x) { return x[0].bitwise_right_shift(1); }).with_dtypes(kIntegral),
  };
}

EMBER_OP_ROWS(comparison_rows) {
  const std::vector<DType> all = kAllTypes;
  const auto compare = [&](std::string name, auto f) {
    return op(std::move(name), 2, f).with_dtypes(all).with_mixed(kMixedPairs);
  };
  const std::vector<DType> bits = join({kIntegral, {DType::Bool}});
  return {
      compare("eq", [](const auto& x) { return x[0] == x[1]; }),
      compare("ne", [](const auto& x) { return x[0] != x[1]; }),
      compare("lt", [](const auto& x) { return x[0] < x[1]; }),
      compare("le", [](const auto& x) { return x[0] <= x[1]; }),
      compare("gt", [](const auto& x) { return x[0] > x[1]; }),
      compare("ge", [](const auto& x) { return x[0] >= x[1]; }),
      compare("logical_and", [](const auto& x) { return x[0].logical_and(x[1]); }),
      compare("logical_or", [](const auto& x) { return x[0].logical_or(x[1]); }),
      compare("logical_xor", [](const auto& x) { return x[0].logical_xor(x[1]); }),
      op("bitwise_and", 2, [](const auto& x) { return x[0] & x[1]; }).with_dtypes(bits),
      op("bitwise_or", 2, [](const auto& x) { return x[0] | x[1]; }).with_dtypes(bits),
      op("bitwise_xor", 2, [](const auto& x) { return x[0] ^ x[1]; }).with_dtypes(bits),
      // Shift counts inside the type's width: beyond it C++ leaves the result undefined.
      op("bitwise_left_shift", 2, [](const auto& x) { return x[0].bitwise_left_shift(x[1]); })
          .with_dtypes(kIntegral)
          .in_ranges({{-50, 50}, {0, 7}}),
      op("bitwise_right_shift", 2, [](const auto& x) { return x[0].bitwise_right_shift(x[1]); })
          .with_dtypes(kIntegral)
          .in_ranges({{-50, 50}, {0, 7}}),
      op("isclose", 2, [](const auto& x) { return x[0].isclose(x[1].round(), 0.1, 0.5); }).with_dtypes(kFloating),
  };
}

EMBER_OP_ROWS(ternary_rows) {
  const std::vector<DType> numeric = join({kFloating, {DType::Int32, DType::Int64}});
  return {
      op("where", 3, [](const auto& x) { return where(x[0], x[1], x[2]); })
          .with_dtypes(join({kNumeric, {DType::Bool}}))
          .with_inputs(condition_first)
          .with_cases(kConditionCases)
          .grad(),
      op("where scalar other", 2, [](const auto& x) { return where(x[0], x[1], 2.0); })
          .with_dtypes(kFloating)
          .with_inputs(condition_first)
          .grad(),
      op("where scalar self", 2, [](const auto& x) { return where(x[0], -1.5, x[1]); })
          .with_dtypes(kFloating)
          .with_inputs(condition_first)
          .grad(),
      op("Tensor where", 3, [](const auto& x) { return x[1].where(x[0], x[2]); })
          .with_dtypes(kFloating)
          .with_inputs(condition_first)
          .with_cases(kConditionCases)
          .grad(),
      op("masked_fill", 2, [](const auto& x) { return x[1].masked_fill(x[0], -1); })
          .with_dtypes(numeric)
          .with_inputs(condition_first)
          .grad(),
      op("masked_fill tensor", 3, [](const auto& x) { return x[1].masked_fill(x[0], x[2].sum()); })
          .with_dtypes(kFloating)
          .with_inputs(condition_first)
          .with_cases(kConditionCases)
          .grad(),
      op("addcmul", 3, [](const auto& x) { return x[0].addcmul(x[1], x[2], 2); }).with_dtypes(numeric).grad(),
      op("addcmul value 1", 3, [](const auto& x) { return x[0].addcmul(x[1], x[2]); }).grad(),
      op("addcdiv", 3, [](const auto& x) { return x[0].addcdiv(x[1], x[2], 0.5); })
          .with_dtypes(kFloating)
          .in_ranges({{-3, 3}, {-3, 3}, {0.5, 3}})
          .grad2(),
      op("lerp scalar", 2, [](const auto& x) { return x[0].lerp(x[1], 0.3); }).with_dtypes(kFloating).grad(),
      op("lerp tensor", 3, [](const auto& x) { return x[0].lerp(x[1], x[2]); })
          .with_dtypes(kFloating)
          .in_ranges({{-3, 3}, {-3, 3}, {0, 1}})
          .grad2(),
      // LibTorch's clamp backward fails when a bound broadcasts x to a larger shape, so x is the largest.
      op("clamp tensors", 3, [](const auto& x) { return x[0].clamp(x[1], x[2]); })
          .with_dtypes(kFloating)
          .with_cases({{{33, 17}, {33, 17}, {33, 17}}, {{3, 4, 5}, {4, 1}, {5}}, {{}, {}, {}}, {{0, 3}, {3}, {}}})
          .grad(),
      op("clamp tensor min", 2, [](const auto& x) { return x[0].clamp(x[1], {}); })
          .with_dtypes(kFloating)
          .with_cases({{{33, 17}, {33, 17}}, {{3, 4, 5}, {4, 1}}, {{}, {}}})
          .grad(),
      op("clamp tensor max", 2, [](const auto& x) { return x[0].clamp({}, x[1]); })
          .with_dtypes(kFloating)
          .with_cases({{{33, 17}, {33, 17}}, {{3, 4, 5}, {5}}, {{}, {}}})
          .grad(),
      op("clamp_min tensor", 2, [](const auto& x) { return x[0].clamp_min(x[1]); })
          .with_dtypes(join({kFloating, {DType::Int32}}))
          .with_cases({{{33, 17}, {33, 17}}, {{3, 4, 5}, {4, 1}}, {{}, {}}})
          .grad(),
      op("clamp_max tensor", 2, [](const auto& x) { return x[0].clamp_max(x[1]); })
          .with_dtypes(join({kFloating, {DType::Int32}}))
          .with_cases({{{33, 17}, {33, 17}}, {{3, 4, 5}, {5}}, {{}, {}}})
          .grad(),
      op("clamp_min constant tensor", 2, [](const auto& x) { return x[0].clamp_min(x[1]); })
          .with_cases({{{3, 4, 5}, {4, 1}}})
          .constant_inputs({1})
          .grad(),
      // clip is clamp's alias, and the functions are the methods, in both libraries.
      op("clip", [](const auto& x) { return x[0].clip(-1.5, 2.0); }).with_dtypes(kFloating).grad(),
      op("clip tensors", 3, [](const auto& x) { return x[0].clip(x[1], x[2]); })
          .with_dtypes(kFloating)
          .with_cases({{{3, 4, 5}, {4, 1}, {5}}})
          .grad(),
      op("clip function", [](const auto& x) { return clip(x[0], -10, 20); }).with_dtypes(kIntegral),
      op("clip function tensors", 3, [](const auto& x) { return clip(x[0], x[1], x[2]); })
          .with_cases({{{3, 4, 5}, {4, 1}, {5}}})
          .grad(),
      op("clamp function tensors", 3, [](const auto& x) { return clamp(x[0], x[1], x[2]); })
          .with_dtypes(kFloating)
          .with_cases({{{3, 4, 5}, {4, 1}, {5}}, {{}, {}, {}}})
          .grad(),
      op("clamp_min function", [](const auto& x) { return clamp_min(x[0], 0.5); })
          .with_dtypes(join({kFloating, {DType::Int32}}))
          .grad(),
      op("clamp_min function tensor", 2, [](const auto& x) { return clamp_min(x[0], x[1]); })
          .with_cases({{{3, 4, 5}, {4, 1}}})
          .grad(),
      op("clamp_max function", [](const auto& x) { return clamp_max(x[0], 1.5); })
          .with_dtypes(join({kFloating, {DType::Int32}}))
          .grad(),
      op("clamp_max function tensor", 2, [](const auto& x) { return clamp_max(x[0], x[1]); })
          .with_cases({{{3, 4, 5}, {5}}})
          .grad(),
  };
}

// The in-place forms write a copy that is not a leaf (a leaf that requires grad refuses them), so that
// the gradient goes through their record. Integer inputs of floating ops are refused by both libraries.
EMBER_OP_ROWS(inplace_elementwise_rows) {
#define EMBER_INPLACE(call) [](const auto& x) { auto y = x[0] * 1; return y.call; }
  const auto math = [](std::string name, auto f) { return op(std::move(name), f).with_dtypes(kFloatingAndPromoted); };
  const std::vector<DType> numeric = kNumeric;
  return {
      math("reciprocal_", EMBER_INPLACE(reciprocal_())).in_range(0.5, 3).grad(),
      math("exp2_", EMBER_INPLACE(exp2_())).grad(),
      math("expm1_", EMBER_INPLACE(expm1_())).grad(),
      math("log2_", EMBER_INPLACE(log2_())).in_range(0.5, 3).grad(),
      math("log10_", EMBER_INPLACE(log10_())).in_range(0.5, 3).grad(),
      math("log1p_", EMBER_INPLACE(log1p_())).in_range(-0.5, 3).grad(),
      math("rsqrt_", EMBER_INPLACE(rsqrt_())).in_range(0.5, 3).grad(),
      math("sin_", EMBER_INPLACE(sin_())).grad(),
      math("cos_", EMBER_INPLACE(cos_())).grad(),
      math("tan_", EMBER_INPLACE(tan_())).in_range(-1.2, 1.2).grad(),
      math("asin_", EMBER_INPLACE(asin_())).in_range(-0.9, 0.9).grad(),
      math("acos_", EMBER_INPLACE(acos_())).in_range(-0.9, 0.9).grad(),
      math("atan_", EMBER_INPLACE(atan_())).grad(),
      math("sinh_", EMBER_INPLACE(sinh_())).grad(),
      math("cosh_", EMBER_INPLACE(cosh_())).grad(),
      math("erf_", EMBER_INPLACE(erf_())).grad(),
      math("erfc_", EMBER_INPLACE(erfc_())).grad(),
      op("sign_", EMBER_INPLACE(sign_())).with_dtypes(numeric).grad(),
      op("square_", EMBER_INPLACE(square_())).with_dtypes(kAllTypes).grad(),
      op("floor_", EMBER_INPLACE(floor_())).with_dtypes(numeric).grad(),
      op("ceil_", EMBER_INPLACE(ceil_())).with_dtypes(numeric).grad(),
      op("round_", [](const auto& x) { auto y = x[0] * 2; return y.round_(); }).with_dtypes(numeric).grad(),
      op("trunc_", EMBER_INPLACE(trunc_())).with_dtypes(numeric).grad(),
      op("frac_", EMBER_INPLACE(frac_())).with_dtypes(join({kFloating, {DType::Int32}})).grad(),
      op("nan_to_num_", [](const auto& x) { auto y = special(x[0]); return y.nan_to_num_(0.5, 10.0, -10.0); })
          .with_dtypes(join({kFloating, {DType::Int32}})),
      op("clamp_min_", EMBER_INPLACE(clamp_min_(0.5))).with_dtypes(join({kFloating, {DType::Int32}})).grad(),
      op("clamp_max_", EMBER_INPLACE(clamp_max_(1.5))).with_dtypes(join({kFloating, {DType::Int32}})).grad(),
      op("clamp_ tensors", 3, [](const auto& x) { auto y = x[0] * 1; return y.clamp_(x[1], x[2]); })
          .with_dtypes(join({kFloating, {DType::Int32}}))
          .with_cases({{{33, 17}, {33, 17}, {33, 17}}, {{3, 4, 5}, {4, 1}, {5}}, {{}, {}, {}}})
          .grad(),
      op("clamp_min_ tensor", 2, [](const auto& x) { auto y = x[0] * 1; return y.clamp_min_(x[1]); })
          .with_dtypes(join({kFloating, {DType::Int32}}))
          .with_cases({{{33, 17}, {33, 17}}, {{3, 4, 5}, {4, 1}}})
          .grad(),
      op("clamp_max_ tensor", 2, [](const auto& x) { auto y = x[0] * 1; return y.clamp_max_(x[1]); })
          .with_dtypes(join({kFloating, {DType::Int32}}))
          .with_cases({{{33, 17}, {33, 17}}, {{3, 4, 5}, {5}}})
          .grad(),
      op("clip_", EMBER_INPLACE(clip_(-1.5, 2.0))).with_dtypes(join({kFloating, {DType::Int32}})).grad(),
      op("clip_ tensors", 3, [](const auto& x) { auto y = x[0] * 1; return y.clip_(x[1], x[2]); })
          .with_cases({{{3, 4, 5}, {4, 1}, {5}}})
          .grad(),
      op("clamp_ function", [](const auto& x) { auto y = x[0] * 1; return clamp_(y, -1.5, 2.0); }).grad(),
      op("clamp_ function tensors", 3, [](const auto& x) { auto y = x[0] * 1; return clamp_(y, x[1], x[2]); })
          .with_cases({{{3, 4, 5}, {4, 1}, {5}}})
          .grad(),
      op("clamp_min_ function", [](const auto& x) { auto y = x[0] * 1; return clamp_min_(y, 0.5); }).grad(),
      op("clamp_min_ function tensor", 2, [](const auto& x) { auto y = x[0] * 1; return clamp_min_(y, x[1]); })
          .with_cases({{{3, 4, 5}, {4, 1}}})
          .grad(),
      op("clamp_max_ function", [](const auto& x) { auto y = x[0] * 1; return clamp_max_(y, 1.5); }).grad(),
      op("clamp_max_ function tensor", 2, [](const auto& x) { auto y = x[0] * 1; return clamp_max_(y, x[1]); })
          .with_cases({{{3, 4, 5}, {5}}})
          .grad(),
      op("clip_ function", [](const auto& x) { auto y = x[0] * 1; return clip_(y, -1.5, 2.0); }).grad(),
      op("clip_ function tensors", 3, [](const auto& x) { auto y = x[0] * 1; return clip_(y, x[1], x[2]); })
          .with_cases({{{3, 4, 5}, {4, 1}, {5}}})
          .grad(),
      op("fmod_", 2, [](const auto& x) { auto y = x[0] * 1; return y.fmod_(x[1]); })
          .with_dtypes(numeric)
          .with_inputs(nonzero_divisor),
      op("fmod_ grad", 2, [](const auto& x) { auto y = x[0] * 1; return y.fmod_(x[1]); })
          .in_ranges({{-3, 3}, {0.5, 3}})
          .grad(),
      // Float32 only, as "fmod scalar": the half types' reference is computed in float32 with 0.7 unrounded,
      // where both libraries round the scalar to the tensor's dtype first.
      op("fmod_ scalar", EMBER_INPLACE(fmod_(0.7))).grad(),
      op("atan2_", 2, [](const auto& x) { auto y = x[0] * 1; return y.atan2_(x[1]); })
          .with_dtypes(kFloatingAndPromoted)
          .grad(),
      op("hypot_", 2, [](const auto& x) { auto y = x[0] * 1; return y.hypot_(x[1]); })
          .with_dtypes(join({kFloating, {DType::Int32}}))
          .grad(),
      op("copysign_", 2, [](const auto& x) { auto y = x[0] * 1; return y.copysign_(x[1]); })
          .with_dtypes(kFloatingAndPromoted)
          .grad(),
      op("copysign_ scalar", EMBER_INPLACE(copysign_(-1.5))).with_dtypes(kFloating).grad(),
      op("lerp_ scalar", 2, [](const auto& x) { auto y = x[0] * 1; return y.lerp_(x[1], 0.3); })
          .with_dtypes(kFloating)
          .grad(),
      op("lerp_ tensor", 3, [](const auto& x) { auto y = x[0] * 1; return y.lerp_(x[1], x[2]); })
          .with_dtypes(kFloating)
          .in_ranges({{-3, 3}, {-3, 3}, {0, 1}})
          .grad(),
  };
#undef EMBER_INPLACE
}

// The in-place comparisons, logical and bitwise ops, on a copy of the first input (clone keeps a bool
// input bool, where `* 1` would make it int64): self's dtype takes the result, and both libraries refuse
// a floating bitwise op, or a result that self's dtype cannot hold. The comparisons record zero gradients
// under PyTorch's node names; PyTorch 1.13 records no logical op in place, so those rows have no gradients.
EMBER_OP_ROWS(inplace_comparison_rows) {
#define EMBER_ON_COPY(call) [](const auto& x) { auto y = x[0].clone(); return y.call; }
  const std::vector<DType> all = kAllTypes;
  const std::vector<DType> bits = join({kIntegral, {DType::Bool}});
  const auto pair = [&](std::string name, auto f) {
    return op(std::move(name), 2, f).with_dtypes(all).with_mixed(kMixedPairs);
  };
  return {
      pair("eq_", EMBER_ON_COPY(eq_(x[1]))),
      pair("ne_", EMBER_ON_COPY(ne_(x[1]))),
      pair("lt_", EMBER_ON_COPY(lt_(x[1]))),
      pair("le_", EMBER_ON_COPY(le_(x[1]))),
      pair("gt_", EMBER_ON_COPY(gt_(x[1]))),
      pair("ge_", EMBER_ON_COPY(ge_(x[1]))),
      // A bool self compared with 0.5 compares in float32; uint8 compares with -1 as 255.
      op("lt_ scalar", EMBER_ON_COPY(lt_(0.5))).with_dtypes(all),
      op("ge_ scalar", EMBER_ON_COPY(ge_(-1))).with_dtypes(all),
      op("eq_ scalar", EMBER_ON_COPY(eq_(0))).with_dtypes(all),
      pair("logical_and_", EMBER_ON_COPY(logical_and_(x[1]))),
      pair("logical_or_", EMBER_ON_COPY(logical_or_(x[1]))),
      pair("logical_xor_", EMBER_ON_COPY(logical_xor_(x[1]))),
      op("logical_not_", EMBER_ON_COPY(logical_not_())).with_dtypes(all),
      op("bitwise_and_", 2, EMBER_ON_COPY(bitwise_and_(x[1]))).with_dtypes(all).with_mixed(kMixedPairs),
      // Through the compound assignments, which both libraries have for tensors.
      op("bitwise_or_", 2, [](const auto& x) { auto y = x[0].clone(); return y |= x[1]; }).with_dtypes(bits),
      op("bitwise_xor_", 2, [](const auto& x) { auto y = x[0].clone(); return y ^= x[1]; }).with_dtypes(bits),
      op("bitwise_and_ scalar", EMBER_ON_COPY(bitwise_and_(6))).with_dtypes(all),
      op("bitwise_or_ scalar", EMBER_ON_COPY(bitwise_or_(true))).with_dtypes(bits),
      op("bitwise_xor_ scalar", EMBER_ON_COPY(bitwise_xor_(-3))).with_dtypes(bits),
      op("bitwise_not_", EMBER_ON_COPY(bitwise_not_())).with_dtypes(all),
      // Shift counts inside the type's width: beyond it C++ leaves the result undefined.
      op("bitwise_left_shift_", 2, EMBER_ON_COPY(bitwise_left_shift_(x[1])))
          .with_dtypes(join({kIntegral, {DType::Float32}}))
          .in_ranges({{-50, 50}, {0, 7}}),
      op("bitwise_right_shift_", 2, EMBER_ON_COPY(bitwise_right_shift_(x[1])))
          .with_dtypes(kIntegral)
          .in_ranges({{-50, 50}, {0, 7}}),
      op("bitwise_left_shift_ scalar", EMBER_ON_COPY(bitwise_left_shift_(2))).with_dtypes(kIntegral),
      op("bitwise_right_shift_ scalar", EMBER_ON_COPY(bitwise_right_shift_(1))).with_dtypes(kIntegral),
      op("lt_ grad", 2, [](const auto& x) { auto y = x[0] * 1; return y.lt_(x[1]); }).grad(),
      op("ge_ scalar grad", [](const auto& x) { auto y = x[0] * 1; return y.ge_(0.5); }).grad(),
  };
#undef EMBER_ON_COPY
}


// Binary functions ember composes: heaviside (no derivative), logaddexp(2) and xlogy with PyTorch's nodes.
EMBER_OP_ROWS(binary_composite_rows) {
  return {
      op("heaviside", 2, [](const auto& x) { return x[0].heaviside(x[1]); }).with_dtypes(kAllTypes).in_range(-2, 2),
      op("heaviside mixed", 2, [](const auto& x) { return x[0].heaviside(x[1]); })
          .with_mixed({{DType::Float32, DType::Float64}, {DType::Int64, DType::Float32}}),
      op("heaviside_", 2, [](const auto& x) { auto y = x[0].clone(); return y.heaviside_(x[1]); })
          .with_dtypes(kAllTypes)
          .in_range(-2, 2),
      op("logaddexp", 2, [](const auto& x) { return x[0].logaddexp(x[1]); }).with_dtypes(kNumeric).grad2(),
      op("logaddexp mixed", 2, [](const auto& x) { return logaddexp(x[0], x[1]); })
          .with_mixed({{DType::Int64, DType::Float32}, {DType::Float32, DType::Float64}})
          .grad(),
      op("logaddexp2", 2, [](const auto& x) { return x[0].logaddexp2(x[1]); }).with_dtypes(kNumeric).grad2(),
      op("logaddexp2 function", 2, [](const auto& x) { return logaddexp2(x[0], x[1]); }).grad(),
      op("xlogy", 2, [](const auto& x) { return x[0].xlogy(x[1]); })
          .with_dtypes(kAllTypes)
          .in_ranges({{-2, 2}, {0, 3}})
          .grad2(),
      op("xlogy mixed", 2, [](const auto& x) { return xlogy(x[0], x[1]); })
          .with_mixed({{DType::Int64, DType::Float32}, {DType::Float64, DType::Int32}})
          .in_ranges({{-2, 2}, {0, 3}})
          .grad(),
      op("xlogy scalar", [](const auto& x) { return x[0].xlogy(2.5); }).with_dtypes(kAllTypes).grad2(),
      op("xlogy scalar self", [](const auto& x) { return xlogy(3, x[0]); })
          .with_dtypes(kAllTypes)
          .in_range(0, 3)
          .grad2(),
      op("xlogy_", 2, [](const auto& x) { auto y = x[0] * 1; return y.xlogy_(x[1]); })
          .with_dtypes(kAllTypes)
          .in_ranges({{-2, 2}, {0, 3}})
          .grad(),
      op("xlogy_ scalar", [](const auto& x) { auto y = x[0] * 1; return y.xlogy_(2); }).with_dtypes(kFloating).grad(),
  };
}

}  // namespace
}  // namespace ember::test
