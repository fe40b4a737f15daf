// cat, stack, hstack, vstack and column_stack against LibTorch: dtype promotion across inputs, legacy
// 1-D empty inputs, negative dims, non-contiguous and broadcast inputs, and PyTorch's error messages.
#include "tests/oracle.h"

namespace ember::test {
namespace {

class TensorJoiningTest : public BackendTest {
 protected:
  Tensor from(const at::Tensor& t) { return from_torch(t, device); }
  std::vector<Tensor> from(const std::vector<at::Tensor>& ts) {
    std::vector<Tensor> out;
    for (const at::Tensor& t : ts) out.push_back(from(t));
    return out;
  }
};

TEST_P(TensorJoiningTest, CatEveryDtypeAndDim) {
  for (DType dtype : kAllDTypes) {
    SCOPED_TRACE(std::string(dtype_name(dtype)));
    const std::vector<at::Tensor> parts = {random_torch({2, 3, 4}, dtype, 1), random_torch({2, 5, 4}, dtype, 2),
                                           random_torch({2, 1, 4}, dtype, 3)};
    EXPECT_TENSOR_EQ(cat(from(parts), 1), at::cat(parts, 1));
    EXPECT_TENSOR_EQ(cat(from(parts), -2), at::cat(parts, -2));
  }
  const std::vector<at::Tensor> same = {random_torch({3, 2}, DType::Float32, 4), random_torch({3, 7}, DType::Float32, 5)};
  EXPECT_TENSOR_EQ(cat(from(same), -1), at::cat(same, -1));
  const std::vector<at::Tensor> rows = {random_torch({1, 3}, DType::Int64, 6), random_torch({4, 3}, DType::Int64, 7)};
  EXPECT_TENSOR_EQ(cat(from(rows)), at::cat(rows));
}

TEST_P(TensorJoiningTest, CatPromotesAndSkipsLegacyEmpty) {
  const std::vector<std::vector<at::Tensor>> cases = {
      {random_torch({2, 3}, DType::Int32, 1), random_torch({2, 3}, DType::Float16, 2)},
      {random_torch({2, 3}, DType::Bool, 3), random_torch({1, 3}, DType::UInt8, 4)},
      {random_torch({2, 3}, DType::Int8, 5), random_torch({2, 3}, DType::Int64, 6),
       random_torch({1, 3}, DType::Float32, 7)},
      {at::zeros({0}, at::kDouble), random_torch({2, 3}, DType::Int32, 8)},
      {random_torch({2, 3}, DType::Float32, 9), at::zeros({0}), random_torch({2, 3}, DType::Float32, 10)},
      {at::zeros({0}), at::zeros({0})},
      {at::zeros({0}, at::kDouble)},
      {random_torch({2, 3}, DType::Float32, 11), at::zeros({0, 3})},
      {random_torch({2, 3}, DType::BFloat16, 12), random_torch({2, 3}, DType::Float16, 13)},
  };
  for (size_t c = 0; c < cases.size(); ++c) {
    SCOPED_TRACE("case " + std::to_string(c));
    EXPECT_TENSOR_EQ(cat(from(cases[c])), at::cat(cases[c]));
  }
  const std::vector<at::Tensor> columns = {at::zeros({0}), random_torch({2, 3}, DType::Float32, 14)};
  EXPECT_TENSOR_EQ(cat(from(columns), 1), at::cat(columns, 1));
  const std::vector<at::Tensor> empty_cols = {at::zeros({2, 0}), random_torch({2, 3}, DType::Float32, 15)};
  EXPECT_TENSOR_EQ(cat(from(empty_cols), 1), at::cat(empty_cols, 1));
}

TEST_P(TensorJoiningTest, NonContiguousAndBroadcastInputs) {
  const at::Tensor a = random_torch({4, 5}, DType::Float32, 16);
  const at::Tensor b = random_torch({1, 5}, DType::Float32, 17);
  for (const auto& [name, x] : layouts_of(a, device)) {
    SCOPED_TRACE(name);
    EXPECT_TENSOR_EQ(cat({x, from(b).expand({3, 5}), x.slice(0, 1, std::nullopt, 2)}, 0),
                     at::cat({a, b.expand({3, 5}), a.slice(0, 1, c10::nullopt, 2)}, 0));
    EXPECT_TENSOR_EQ(cat({x.t(), from(a).t()}, 1), at::cat({a.t(), a.t()}, 1));
    EXPECT_TENSOR_EQ(stack({x, from(a)}, 1), at::stack({a, a}, 1));
  }
}

TEST_P(TensorJoiningTest, Stacks) {
  const at::Tensor v1 = random_torch({3}, DType::Float32, 18), v2 = random_torch({3}, DType::Int64, 19);
  const at::Tensor m1 = random_torch({2, 3}, DType::Float32, 20), m2 = random_torch({2, 3}, DType::Float32, 21);
  const at::Tensor s = at::scalar_tensor(4.0, at::kFloat);
  for (int64_t dim : {0, 1, -1, -2}) {
    EXPECT_TENSOR_EQ(stack(from(std::vector<at::Tensor>{m1, m2}), dim), at::stack({m1, m2}, dim));
  }
  EXPECT_TENSOR_EQ(stack(from(std::vector<at::Tensor>{m1, m2}), 2), at::stack({m1, m2}, 2));
  EXPECT_TENSOR_EQ(stack(from(std::vector<at::Tensor>{v1, v2})), at::stack({v1, v2}));
  EXPECT_TENSOR_EQ(stack(from(std::vector<at::Tensor>{s, s})), at::stack({s, s}));
  EXPECT_TENSOR_EQ(hstack(from(std::vector<at::Tensor>{v1, v2})), at::hstack({v1, v2}));
  EXPECT_TENSOR_EQ(hstack(from(std::vector<at::Tensor>{s, v1})), at::hstack({s, v1}));
  EXPECT_TENSOR_EQ(hstack(from(std::vector<at::Tensor>{m1, m2})), at::hstack({m1, m2}));
  EXPECT_TENSOR_EQ(vstack(from(std::vector<at::Tensor>{v1, m1})), at::vstack({v1, m1}));
  EXPECT_TENSOR_EQ(vstack(from(std::vector<at::Tensor>{s, s})), at::vstack({s, s}));
  EXPECT_TENSOR_EQ(column_stack(from(std::vector<at::Tensor>{s.expand({2}), m1, v1.narrow(0, 0, 2)})),
                   at::column_stack({s.expand({2}), m1, v1.narrow(0, 0, 2)}));
  const at::Tensor e = at::zeros({0, 3});
  EXPECT_TENSOR_EQ(stack(from(std::vector<at::Tensor>{e, e}), 1), at::stack({e, e}, 1));
}

TEST_P(TensorJoiningTest, ErrorMessages) {
  const Tensor m = ones({2, 3}, TensorOptions().device(device));
  const Tensor s = full({}, 1.0, TensorOptions().device(device));
  expect_error<Error>([&] { cat({}); }, "torch.cat(): expected a non-empty list of Tensors");
  expect_error<Error>([&] { cat({s, m}); }, "zero-dimensional tensor (at position 0) cannot be concatenated");
  expect_error<Error>([&] { cat({m, s}); }, "zero-dimensional tensor (at position 1) cannot be concatenated");
  expect_error<Error>([&] { cat({m, ones({2, 4}, TensorOptions().device(device))}); },
                      "Sizes of tensors must match except in dimension 0. Expected size 3 but got size 4 for tensor "
                      "number 1 in the list.");
  expect_error<Error>([&] { cat({m, ones({2, 3, 1}, TensorOptions().device(device))}); },
                      "Tensors must have same number of dimensions: got 2 and 3");
  expect_error<IndexError>([&] { cat({m, m}, 2); },
                           "Dimension out of range (expected to be in range of [-2, 1], but got 2)");
  expect_error<Error>([&] { stack({}); }, "stack expects a non-empty TensorList");
  expect_error<Error>([&] { stack({m, m.t()}); },
                      "stack expects each tensor to be equal size, but got [2, 3] at entry 0 and [3, 2] at entry 1");
  expect_error<IndexError>([&] { stack({m, m}, 3); },
                           "Dimension out of range (expected to be in range of [-3, 2], but got 3)");
  expect_error<Error>([&] { hstack({}); }, "hstack expects a non-empty TensorList");
  expect_error<Error>([&] { vstack({}); }, "vstack expects a non-empty TensorList");
  expect_error<Error>([&] { column_stack({}); }, "column_stack expects a non-empty TensorList");
  expect_error<Error>([&] { column_stack({ones({3}, TensorOptions().device(device)), ones({2, 2}, TensorOptions().device(device))}); },
                      "Sizes of tensors must match except in dimension 1. Expected size 3 but got size 2 for tensor "
                      "number 1 in the list.");
}

INSTANTIATE_TEST_SUITE_P(Backends, TensorJoiningTest, testing::Values("vulkan", "cuda"), backend_test_name);

}  // namespace
}  // namespace ember::test
