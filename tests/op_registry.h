#pragma once
// The op registry of the tests. Each op is one row: a generic callable that runs on ember tensors and on
// LibTorch tensors alike, the dtypes it takes, the range of its inputs, and whether its gradients (and
// their second order) are checked. One runner (tests/ops/op_rows_test.cpp) checks every row on every
// backend present: the forward over shapes (0-dim, empty, odd sizes, broadcasting) and layouts
// (contiguous, transposed, stepped, broadcast), the gradients and the grad_fn name. The coverage test
// (tests/ops/op_coverage_test.cpp) fails when an op of any kernel op list is reached by no row.
//
// Rows live beside their family in tests/ops/<family>.cpp, registered with EMBER_OP_ROWS:
//
//   EMBER_OP_ROWS(activation_rows) {
//     return {op("relu", [](const auto& x) { return x[0].relu(); }).with_dtypes(kFloating).grad()};
//   }
#include <ATen/ATen.h>

#include <functional>
#include <string>
#include <vector>

#include "tests/autograd_oracle.h"

namespace ember::test {

enum class Gradients { None, First, Second };

using Shapes = std::vector<std::vector<int64_t>>;  // one shape per input
// Makes a row's LibTorch inputs for one case (dtype: of the first input), where random values of the shapes will not do (indices
// that must be in range, a mask, a permutation).
using InputMaker = std::function<std::vector<at::Tensor>(DType dtype, const Shapes& shapes, at::Generator& gen)>;

inline const std::vector<DType> kFloating = {DType::Float32, DType::Float16, DType::BFloat16, DType::Float64};
inline const std::vector<DType> kIntegral = {DType::UInt8, DType::Int8, DType::Int16, DType::Int32, DType::Int64};
inline const std::vector<DType> kSignedIntegral = {DType::Int8, DType::Int16, DType::Int32, DType::Int64};
inline const std::vector<DType> kNumeric = {DType::Float32, DType::Float16, DType::BFloat16, DType::Float64,
                                            DType::UInt8,   DType::Int8,    DType::Int16,    DType::Int32,
                                            DType::Int64};
inline const std::vector<DType> kAllTypes = {DType::Float32, DType::Float16, DType::BFloat16, DType::Float64,
                                             DType::UInt8,   DType::Int8,    DType::Int16,    DType::Int32,
                                             DType::Int64,   DType::Bool};

struct OpRow {
  std::string name;  // unique; letters, digits and spaces (a space becomes '_' in the test name)
  size_t arity = 1;  // tensor inputs
  EmberFn ember;
  TorchFn torch;
  std::vector<DType> dtypes = {DType::Float32, DType::Float64};  // every input of this dtype
  std::vector<std::vector<DType>> mixed;                           // and these dtypes per input
  std::vector<ValueRange> ranges;  // per input, the last repeating; empty: random_torch's defaults
  std::vector<Shapes> cases;       // empty: every shape of test_shapes() for each input, and broadcasts
  InputMaker make_inputs;          // replaces `ranges` when set
  Gradients gradients = Gradients::None;
  std::vector<size_t> constant;    // inputs that are never differentiated
  bool compare_values = true;      // false for random draws: sizes and dtype only
  bool broadcast_layout = true;    // false where an expanded input would make the result order-dependent
  Tolerance tolerance{-1, -1};     // below zero: tolerance_for(dtype)
  std::string node;                // PyTorch's grad_fn name where LibTorch's side is composed; empty: its own

  OpRow& with_dtypes(std::vector<DType> d) { dtypes = std::move(d); return *this; }
  OpRow& with_mixed(std::vector<std::vector<DType>> m) { mixed = std::move(m); return *this; }
  OpRow& in_range(double low, double high) { ranges = {{low, high}}; return *this; }
  OpRow& in_ranges(std::vector<ValueRange> r) { ranges = std::move(r); return *this; }
  OpRow& with_cases(std::vector<Shapes> c) { cases = std::move(c); return *this; }
  OpRow& with_inputs(InputMaker m) { make_inputs = std::move(m); return *this; }
  OpRow& grad(Gradients g = Gradients::First) { gradients = g; return *this; }
  OpRow& grad2() { gradients = Gradients::Second; return *this; }
  OpRow& constant_inputs(std::vector<size_t> c) { constant = std::move(c); return *this; }
  OpRow& sizes_only() { compare_values = false; return *this; }
  OpRow& without_broadcast_layout() { broadcast_layout = false; return *this; }
  OpRow& within(double rtol, double atol) { tolerance = {rtol, atol}; return *this; }
  OpRow& recorded_as(std::string grad_fn) { node = std::move(grad_fn); return *this; }
};

// The few ops LibTorch spells differently, so that one generic lambda serves both sides.
inline Tensor gelu_of(const Tensor& x, std::string_view approximate = "none") { return x.gelu(approximate); }
inline at::Tensor gelu_of(const at::Tensor& x, std::string_view approximate = "none") {
  return at::gelu(x, c10::string_view(approximate.data(), approximate.size()));
}
inline Tensor silu_of(const Tensor& x) { return x.silu(); }
inline at::Tensor silu_of(const at::Tensor& x) { return at::silu(x); }

// The parts of a (values, indices) result, for ops that return both (max, sort, topk).
template <class T>
T values_of(const std::tuple<T, T>& result) { return std::get<0>(result); }
template <class T>
T indices_of(const std::tuple<T, T>& result) { return std::get<1>(result); }

// A row from one generic callable over the input list, e.g. `[](const auto& x) { return x[0] + x[1]; }`;
// ember's and LibTorch's spellings agree for most ops, and ADL picks the free functions.
template <class F>
OpRow op(std::string name, size_t arity, F f) {
  OpRow row;
  row.name = std::move(name);
  row.arity = arity;
  row.ember = EmberFn(f);
  row.torch = TorchFn(f);
  return row;
}
template <class F>
OpRow op(std::string name, F f) { return op(std::move(name), 1, std::move(f)); }

// Registers a file's rows before main runs.
struct OpRowsRegistration {
  explicit OpRowsRegistration(std::vector<OpRow> (*rows)());
};
#define EMBER_OP_ROWS(function)                                                               \
  static std::vector<::ember::test::OpRow> function();                                        \
  static const ::ember::test::OpRowsRegistration function##_registration(&function); \
  static std::vector<::ember::test::OpRow> function()

// Every registered row, in name order.
const std::vector<OpRow>& op_rows();

// The cases a row runs: its own, or the default shapes.
std::vector<Shapes> cases_of(const OpRow& row);
// The dtypes of the inputs, per combination the row runs.
std::vector<std::vector<DType>> dtype_combinations(const OpRow& row);
// A row's LibTorch inputs for one case.
std::vector<at::Tensor> inputs_of(const OpRow& row, const std::vector<DType>& dtypes, const Shapes& shapes,
                                  at::Generator& gen);
// The row's LibTorch result; float16 and bfloat16 inputs that LibTorch's CPU cannot take are computed in
// float32 and the floating result rounded back, as ember computes them.
at::Tensor torch_result(const OpRow& row, const std::vector<at::Tensor>& inputs);

}  // namespace ember::test
