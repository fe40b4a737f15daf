// Rows for the matrix products.
#include "tests/op_registry.h"

namespace ember::test {
namespace {

Tensor einsum_of(std::string_view equation, const Tensor& a, const Tensor& b) { return einsum(equation, {a, b}); }
at::Tensor einsum_of(std::string_view equation, const at::Tensor& a, const at::Tensor& b) {
  return at::einsum(c10::string_view(equation.data(), equation.size()), {a, b});
}

EMBER_OP_ROWS(matmul_rows) {
  const std::vector<DType> floating = {DType::Float32, DType::Float16, DType::BFloat16, DType::Float64};
  const std::vector<DType> integers = {DType::Int32, DType::Int64, DType::Int8, DType::UInt8, DType::Int16};
  return {
      op("matmul integer", 2, [](const auto& x) { return x[0].matmul(x[1]); })
          .with_dtypes(integers)
          .with_cases({{{3, 4}, {4, 5}}, {{2, 3, 4}, {4, 5}}, {{4}, {4}}, {{3, 4}, {4}}, {{3, 0}, {0, 2}}}),
      op("bmm integer", 2, [](const auto& x) { return x[0].bmm(x[1]); })
          .with_dtypes(integers)
          .with_cases({{{2, 3, 4}, {2, 4, 5}}}),
      op("einsum batch contraction", 2, [](const auto& x) { return einsum_of("bij,bjk->bik", x[0], x[1]); })
          .with_cases({{{2, 3, 4}, {2, 4, 5}}, {{1, 0, 2}, {1, 2, 3}}})
          .grad2(),
      op("einsum trace and outer", 2, [](const auto& x) { return einsum_of("ii,j->j", x[0], x[1]); })
          .with_cases({{{4, 4}, {3}}})
          .grad(),
      op("matmul", 2, [](const auto& x) { return x[0].matmul(x[1]); })
          .with_dtypes(floating)
          .with_cases({{{3, 4}, {4, 5}},
                       {{2, 3, 4}, {4, 5}},
                       {{4}, {2, 4, 3}},
                       {{2, 1, 3, 4}, {5, 4, 2}},
                       {{4}, {4}},
                       {{3, 4}, {4}},
                       {{3, 0}, {0, 2}},
                       {{33, 17}, {17, 40}}})
          .grad2(),
      op("mm", 2, [](const auto& x) { return x[0].mm(x[1]); })
          .with_dtypes(floating)
          .with_cases({{{3, 4}, {4, 5}}, {{1, 7}, {7, 1}}, {{0, 3}, {3, 2}}, {{65, 70}, {70, 33}}})
          .grad(),
      op("bmm", 2, [](const auto& x) { return x[0].bmm(x[1]); })
          .with_dtypes(floating)
          .with_cases({{{2, 3, 4}, {2, 4, 5}}, {{0, 3, 4}, {0, 4, 5}}})
          .grad(),
      op("mv", 2, [](const auto& x) { return x[0].mv(x[1]); }).with_cases({{{3, 4}, {4}}}).grad(),
      op("dot", 2, [](const auto& x) { return x[0].dot(x[1]); }).with_cases({{{7}, {7}}, {{0}, {0}}}).grad(),
      op("addmm", 3, [](const auto& x) { return x[0].addmm(x[1], x[2], 0.5, 2); })
          .with_cases({{{3, 5}, {3, 4}, {4, 5}}, {{5}, {3, 4}, {4, 5}}})
          .grad2(),
      // A Linear's layout (bias along the rows, weight.t() as mat2): the weight's and the bias's gradients
      // come from one launch (MatmulArgs::a_row_sums).
      op("addmm as a Linear", 3, [](const auto& x) { return x[0].addmm(x[1], x[2].t(), 1, 2); })
          .with_cases({{{5}, {3, 4}, {5, 4}}, {{33}, {17, 12}, {33, 12}}, {{1}, {2, 3}, {1, 3}}})
          .grad(),
      op("baddbmm", 3, [](const auto& x) { return x[0].baddbmm(x[1], x[2], 1, -1); })
          .with_cases({{{2, 3, 5}, {2, 3, 4}, {2, 4, 5}}})
          .grad(),
  };
}

}  // namespace
}  // namespace ember::test
