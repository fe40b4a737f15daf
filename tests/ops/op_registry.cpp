#include "tests/op_registry.h"

#include <c10/util/Exception.h>

#include <algorithm>
#include <map>

namespace ember::test {
namespace {

std::vector<std::vector<OpRow> (*)()>& row_functions() {
  static std::vector<std::vector<OpRow> (*)()> functions;
  return functions;
}

bool is_half(at::ScalarType type) { return type == at::kHalf || type == at::kBFloat16; }

}  // namespace

OpRowsRegistration::OpRowsRegistration(std::vector<OpRow> (*rows)()) { row_functions().push_back(rows); }

const std::vector<OpRow>& op_rows() {
  static const std::vector<OpRow> rows = [] {
    std::map<std::string, OpRow> by_name;
    for (auto* function : row_functions()) {
      for (OpRow& row : function()) {
        const std::string name = row.name;
        if (!by_name.emplace(name, std::move(row)).second) {
          throw std::logic_error("two op registry rows are named '" + name + "'");
        }
      }
    }
    std::vector<OpRow> sorted;
    for (auto& [name, row] : by_name) sorted.push_back(std::move(row));
    return sorted;
  }();
  return rows;
}

std::vector<Shapes> cases_of(const OpRow& row) {
  if (!row.cases.empty()) return row.cases;
  std::vector<Shapes> cases;
  for (const auto& shape : test_shapes()) cases.push_back(Shapes(row.arity, shape));
  // Operands of different shapes and ranks that broadcast together.
  if (row.arity >= 2) {
    Shapes outer = {{3, 1, 5}, {4, 5}, {1}};
    Shapes scalar = {{}, {6}, {2, 6}};
    outer.resize(row.arity, {1});
    scalar.resize(row.arity, {});
    cases.push_back(outer);
    cases.push_back(scalar);
  }
  return cases;
}

std::vector<std::vector<DType>> dtype_combinations(const OpRow& row) {
  std::vector<std::vector<DType>> combinations;
  for (DType dtype : row.dtypes) combinations.push_back(std::vector<DType>(row.arity, dtype));
  combinations.insert(combinations.end(), row.mixed.begin(), row.mixed.end());
  return combinations;
}

std::vector<at::Tensor> inputs_of(const OpRow& row, const std::vector<DType>& dtypes, const Shapes& shapes,
                                  at::Generator& gen) {
  if (row.make_inputs) return row.make_inputs(dtypes.front(), shapes, gen);
  std::vector<at::Tensor> inputs;
  for (size_t i = 0; i < shapes.size(); ++i) {
    std::optional<ValueRange> range;
    if (!row.ranges.empty()) range = row.ranges[std::min(i, row.ranges.size() - 1)];
    inputs.push_back(random_torch(shapes[i], dtypes[std::min(i, dtypes.size() - 1)], gen, range));
  }
  return inputs;
}

at::Tensor torch_result(const OpRow& row, const std::vector<at::Tensor>& inputs) {
  const auto half = std::find_if(inputs.begin(), inputs.end(),
                                 [](const at::Tensor& t) { return is_half(t.scalar_type()); });
  if (half == inputs.end()) return row.torch(inputs);
  // ember computes float16 and bfloat16 in float32 and rounds once; LibTorch's CPU rounds some
  // intermediates (a quotient before trunc, a matmul's partial sums) or lacks the op. The reference is
  // the float32 result, rounded to the dtype LibTorch gives (or would give: the input's).
  at::Tensor direct;
  try {
    direct = row.torch(inputs);
  } catch (const c10::Error&) {
    // LibTorch's CPU lacks this op for the half type.
  }
  if (direct.defined() && !is_half(direct.scalar_type())) return direct;
  std::vector<at::Tensor> widened;
  for (const at::Tensor& t : inputs) widened.push_back(is_half(t.scalar_type()) ? t.to(at::kFloat) : t);
  const at::Tensor result = row.torch(widened);
  if (!result.is_floating_point()) return result;
  return result.to(direct.defined() ? direct.scalar_type() : half->scalar_type());
}

}  // namespace ember::test
