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


// Products and diagonals composed of the ops above, with PyTorch's nodes.
EMBER_OP_ROWS(product_rows) {
  return {
      op("outer", 2, [](const auto& x) { return x[0].outer(x[1]); })
          .with_dtypes(kAllTypes)
          .with_cases({{{3}, {4}}, {{0}, {2}}, {{3, 2}, {2}}, {{}, {2}}})
          .grad2(),
      op("ger function", 2, [](const auto& x) { return ger(x[0], x[1]); })
          .with_mixed({{DType::Int32, DType::Float32}, {DType::Int32, DType::Int64}})
          .with_cases({{{3}, {4}}}),
      op("addmv", 3, [](const auto& x) { return x[0].addmv(x[1], x[2], 0.5, 2); })
          .with_dtypes(kFloating)
          .with_cases({{{3}, {3, 4}, {4}}, {{}, {3, 4}, {4}}, {{1}, {3, 4}, {4}}, {{3}, {3, 0}, {0}},
                       {{2}, {3, 4}, {4}}, {{3, 1}, {3, 4}, {4}}})
          .grad2(),
      op("addmv integer", 3, [](const auto& x) { return addmv(x[0], x[1], x[2]); })
          .with_dtypes(kIntegral)
          .with_cases({{{3}, {3, 4}, {4}}}),
      op("addmv beta 0", 3, [](const auto& x) { return x[0].log().addmv(x[1], x[2], 0); })
          .in_ranges({{-1, 0}, {-1, 1}, {-1, 1}})
          .with_cases({{{3}, {3, 4}, {4}}})
          .grad(),
      op("addr", 3, [](const auto& x) { return x[0].addr(x[1], x[2], 2, -1); })
          .with_dtypes(kFloating)
          .with_cases({{{3, 4}, {3}, {4}}, {{4}, {3}, {4}}, {{}, {3}, {4}}, {{3, 1}, {3}, {4}}, {{4, 3}, {3}, {4}}})
          .grad2(),
      op("addr integer", 3, [](const auto& x) { return addr(x[0], x[1], x[2], 2, 3); })
          .with_dtypes(kAllTypes)
          .with_cases({{{3, 4}, {3}, {4}}}),
      op("addr promoting", 3, [](const auto& x) { return addr(x[0], x[1], x[2]); })
          .with_mixed({{DType::Int64, DType::Float32, DType::Float64}})
          .with_cases({{{3, 4}, {3}, {4}}}),
      op("kron", 2, [](const auto& x) { return x[0].kron(x[1]); })
          .with_dtypes(kAllTypes)
          .with_cases({{{2, 3}, {3, 2}}, {{2}, {3, 2}}, {{}, {3}}, {{}, {}}, {{2, 1, 3}, {2, 2}}, {{0, 2}, {2}}})
          .grad2(),
      op("tensordot", 2, [](const auto& x) { return tensordot(x[0], x[1], {1, 2}, {1, 0}); })
          .with_dtypes(kNumeric)
          .with_cases({{{2, 3, 4}, {4, 3, 5}}, {{2, 1, 4}, {4, 3}}, {{2, 3, 4}, {4, 2}}})
          .grad2(),
      op("tensordot outer", 2, [](const auto& x) { return tensordot(x[0], x[1], {}, {}); })
          .with_cases({{{2, 3}, {4}}})
          .grad(),
      op("trace", [](const auto& x) { return x[0].trace(); })
          .with_dtypes(kAllTypes)
          .with_cases({{{3, 3}}, {{2, 5}}, {{0, 3}}, {{4}}, {{}}})  // taller: ComposedOpsTest
          .grad2(),
      op("diag_embed", [](const auto& x) { return x[0].diag_embed(); }).with_dtypes(kAllTypes).grad2(),
      op("diag_embed offset dims", [](const auto& x) { return x[0].diag_embed(-2, 0, -1); })
          .with_cases({{{3}}, {{2, 3}}, {{2, 0}}})
          .grad(),
      op("diag_embed above", [](const auto& x) { return x[0].diag_embed(1, 2, 0); })
          .with_cases({{{2, 3}}, {{4}}})
          .grad(),
      op("cross", 2, [](const auto& x) { return x[0].cross(x[1]); })
          .with_dtypes(kAllTypes)
          .with_cases({{{3}, {3}},
                       {{3, 3}, {3, 3}},
                       {{2, 3}, {2, 3}},
                       {{3, 2}, {3, 2}},
                       {{2, 2}, {2, 2}},
                       {{4, 3}, {1, 3}},
                       {{3, 3}, {1, 3}},
                       {{2, 3}, {3}}})
          .grad2(),
      op("linalg_cross", 2, [](const auto& x) { return linalg_cross(x[0], x[1], -1); })
          .with_dtypes(kNumeric)
          .with_cases({{{3}, {3}}, {{4, 3}, {4, 1, 3}}, {{2, 1, 3}, {1, 4, 3}}, {{3, 2}, {3, 2}}, {{}, {}}})
          .grad(),
      op("linalg_cross dim 0", 2, [](const auto& x) { return linalg_cross(x[0], x[1], 0); })
          .with_mixed({{DType::Float32, DType::Float64}})
          .with_cases({{{3, 2}, {3, 2}}}),
  };
}

}  // namespace
}  // namespace ember::test
