// Integer matmul, mm, bmm, mv, dot, addmm and baddbmm against LibTorch's CPU, which wraps integer
// arithmetic around: every integer dtype with values over its whole range, every branch of matmul's
// dispatch with broadcast batch dims, transposed, stepped and expanded operands, empty inner dims and
// empty results (which PyTorch returns without checking dtypes), and PyTorch's errors for bool and for
// integer operands mixed with floating ones.
#include <limits>

#include "tests/oracle.h"

namespace ember::test {
namespace {

class TensorIntMatmulTest : public BackendTest {
 protected:
  Tensor from(const at::Tensor& t) { return from_torch(t, device); }
};

const DType kIntTypes[] = {DType::Int32, DType::Int64, DType::Int8, DType::UInt8, DType::Int16};

// Values over `dtype`'s whole range (the low bits of random int64s), so that products and sums wrap.
at::Tensor wide_ints(const std::vector<int64_t>& sizes, DType dtype) {
  int64_t count = 1;
  for (int64_t size : sizes) count *= size;
  return at::randint(0, 256, {count * 8}, at::kByte).view(at::kLong).reshape(sizes).to(torch_dtype(dtype));
}

TEST_P(TensorIntMatmulTest, EveryBranchOfMatmulEveryIntegerDtype) {
  struct Shapes {
    std::vector<int64_t> a, b;
  };
  const std::vector<Shapes> shapes = {
      {{13}, {13}},                    // dot
      {{7, 13}, {13}},                 // mv
      {{13}, {13, 9}},                 // vector @ matrix
      {{7, 13}, {13, 9}},              // mm
      {{3, 7, 13}, {13, 9}},           // fold A's batch into rows
      {{3, 7, 13}, {13}},              // fold, then mv
      {{13}, {2, 13, 9}},              // vector @ batch
      {{7, 13}, {2, 13, 9}},           // fold B's batch through transposes
      {{2, 1, 7, 13}, {3, 13, 9}},     // broadcast batch dims
      {{2, 3, 7, 13}, {2, 3, 13, 9}},  // batched
      {{1, 3, 1, 13}, {4, 1, 13, 2}},  // both broadcast
  };
  at::manual_seed(1);
  for (DType dtype : kIntTypes) {
    if (!device->supports(dtype)) continue;
    SCOPED_TRACE(std::string(dtype_name(dtype)));
    for (const Shapes& s : shapes) {
      SCOPED_TRACE(to_string(s.a) + " @ " + to_string(s.b));
      const at::Tensor a = wide_ints(s.a, dtype), b = wide_ints(s.b, dtype);
      EXPECT_TENSOR_EQ(from(a).matmul(from(b)), a.matmul(b));
      EXPECT_TENSOR_EQ(matmul(from(a), from(b)), at::matmul(a, b));
    }
    const at::Tensor m = wide_ints({5, 4}, dtype), n = wide_ints({4, 6}, dtype);
    EXPECT_TENSOR_EQ(from(m).mm(from(n)), m.mm(n));
    EXPECT_TENSOR_EQ(mm(from(m), from(n)), at::mm(m, n));
    const at::Tensor p = wide_ints({3, 5, 4}, dtype), q = wide_ints({3, 4, 2}, dtype);
    EXPECT_TENSOR_EQ(from(p).bmm(from(q)), p.bmm(q));
    EXPECT_TENSOR_EQ(bmm(from(p), from(q)), at::bmm(p, q));
    EXPECT_TENSOR_EQ(from(m).mv(from(n.select(1, 0))), m.mv(n.select(1, 0)));
    EXPECT_TENSOR_EQ(from(m.select(0, 1)).dot(from(n.select(1, 2))), m.select(0, 1).dot(n.select(1, 2)));
  }
}

TEST_P(TensorIntMatmulTest, SmallValuesGiveExactProducts) {
  // Products that do not wrap, to see plain values too.
  for (DType dtype : {DType::Int32, DType::Int64}) {
    const at::Tensor a = random_torch({4, 7}, dtype, 2), b = random_torch({7, 3}, dtype, 3);
    EXPECT_TENSOR_EQ(from(a).matmul(from(b)), a.matmul(b));
  }
}

TEST_P(TensorIntMatmulTest, TransposedSteppedAndExpandedOperands) {
  at::manual_seed(4);
  for (DType dtype : {DType::Int32, DType::Int64}) {
    SCOPED_TRACE(std::string(dtype_name(dtype)));
    const at::Tensor a = wide_ints({6, 5}, dtype), b = wide_ints({5, 7}, dtype);
    for (const auto& [name_a, x] : layouts_of(a, device)) {
      for (const auto& [name_b, y] : layouts_of(b, device)) {
        SCOPED_TRACE(name_a + " @ " + name_b);
        EXPECT_TENSOR_EQ(x.mm(y), a.mm(b));
        EXPECT_TENSOR_EQ(y.t().matmul(x.t()), b.t().matmul(a.t()));
      }
    }
    // Batches: permuted (copied), expanded (stride 0).
    const at::Tensor p = wide_ints({4, 3, 2, 5}, dtype), q = wide_ints({1, 5, 6}, dtype);
    EXPECT_TENSOR_EQ(from(p).permute({1, 0, 2, 3}).matmul(from(q)), p.permute({1, 0, 2, 3}).matmul(q));
    EXPECT_TENSOR_EQ(from(q).expand({3, 5, 6}).bmm(from(q).expand({3, 5, 6}).transpose(1, 2)),
                     q.expand({3, 5, 6}).bmm(q.expand({3, 5, 6}).transpose(1, 2)));
  }
}

TEST_P(TensorIntMatmulTest, AddmmAndBaddbmmTruncateAlphaAndBeta) {
  at::manual_seed(5);
  for (DType dtype : {DType::Int32, DType::Int64, DType::Int16}) {
    SCOPED_TRACE(std::string(dtype_name(dtype)));
    const at::Tensor bias = wide_ints({3}, dtype), m1 = wide_ints({2, 4}, dtype), m2 = wide_ints({4, 3}, dtype);
    EXPECT_TENSOR_EQ(from(bias).addmm(from(m1), from(m2), 3, -2), bias.addmm(m1, m2, 3, -2));
    // PyTorch converts 2.5 and -1.5 to 2 and -1 for integers.
    EXPECT_TENSOR_EQ(addmm(from(bias), from(m1), from(m2), 2.5, -1.5), at::addmm(bias, m1, m2, 2.5, -1.5));
    const at::Tensor input = wide_ints({2, 1, 3}, dtype);
    const at::Tensor b1 = wide_ints({2, 2, 4}, dtype), b2 = wide_ints({2, 4, 3}, dtype);
    EXPECT_TENSOR_EQ(from(input).baddbmm(from(b1), from(b2), -1, 5), input.baddbmm(b1, b2, -1, 5));
  }
}

TEST_P(TensorIntMatmulTest, EmptySizes) {
  const std::vector<std::pair<std::vector<int64_t>, std::vector<int64_t>>> shapes = {
      {{2, 0}, {0, 3}}, {{0, 4}, {4, 3}}, {{2, 4}, {4, 0}}, {{0}, {0}}, {{0, 2, 3}, {3, 4}},
      {{2, 0, 3}, {2, 3, 5}}, {{2, 3, 0}, {2, 0, 4}}, {{3, 0}, {0}}, {{2, 1, 2, 0}, {3, 0, 2}}, {{2, 3, 0}, {0, 4}},
      {{2, 3, 0}, {0}}, {{0}, {2, 0, 3}}};
  for (DType dtype : {DType::Int32, DType::Int64, DType::UInt8}) {
    SCOPED_TRACE(std::string(dtype_name(dtype)));
    for (const auto& [sa, sb] : shapes) {
      SCOPED_TRACE(to_string(sa) + " @ " + to_string(sb));
      const at::Tensor a = random_torch(sa, dtype, 6), b = random_torch(sb, dtype, 7);
      EXPECT_TENSOR_EQ(from(a).matmul(from(b)), at::matmul(a, b));
    }
    const at::Tensor bias = random_torch({2, 3}, dtype, 8);
    const at::Tensor m1 = at::zeros({2, 0}, torch_dtype(dtype)), m2 = at::zeros({0, 3}, torch_dtype(dtype));
    EXPECT_TENSOR_EQ(from(bias).addmm(from(m1), from(m2), 3, 1), at::addmm(bias, m1, m2, 3, 1));
  }
}

TEST_P(TensorIntMatmulTest, EmptyProductsSkipTheDtypeChecks) {
  // With nothing to multiply PyTorch checks no dtypes: bool and mixed operands give zeros or nothing,
  // in self's dtype for mm, batch2's for bmm and vec's for mv.
  const auto make = [](std::vector<int64_t> sizes, at::ScalarType type) { return at::ones(sizes, type); };
  const std::vector<std::pair<at::Tensor, at::Tensor>> cases = {
      {make({2, 0}, at::kLong), make({0, 3}, at::kFloat)},       // mm, empty inner dim
      {make({0, 2}, at::kBool), make({2, 3}, at::kBool)},        // mm, no rows
      {make({2, 2}, at::kLong), make({2, 0}, at::kFloat)},       // mm, no columns
      {make({2, 2, 0}, at::kLong), make({2, 0, 3}, at::kFloat)}, // bmm through matmul
      {make({2, 0}, at::kBool), make({0}, at::kBool)},           // mv
      {make({2, 2, 0}, at::kLong), make({0, 3}, at::kFloat)},    // folded into mm
  };
  for (const auto& [a, b] : cases) {
    SCOPED_TRACE(std::string(c10::toString(a.scalar_type())) + to_string(a.sizes().vec()) + " @ " +
                 c10::toString(b.scalar_type()) + to_string(b.sizes().vec()));
    EXPECT_TENSOR_EQ(from(a).matmul(from(b)), a.matmul(b));
  }
  const at::Tensor p = make({0, 2, 3}, at::kInt), q = make({0, 3, 2}, at::kFloat);
  EXPECT_TENSOR_EQ(from(p).bmm(from(q)), p.bmm(q));
  const at::Tensor r = make({2, 0}, at::kLong), v = make({0}, at::kFloat);
  EXPECT_TENSOR_EQ(from(r).mv(from(v)), r.mv(v));
}

TEST_P(TensorIntMatmulTest, ErrorsForBoolAndMixedDtypes) {
  const auto make = [&](std::vector<int64_t> sizes, DType dtype) {
    return ones(sizes, TensorOptions().dtype(dtype).device(device));
  };
  const Tensor b23 = make({2, 3}, kBool), b32 = make({3, 2}, kBool);
  expect_error<Error>([&] { b23.mm(b32); }, "\"addmm_impl_cpu_\" not implemented for 'Bool'");
  expect_error<Error>([&] { b23.matmul(b32); }, "\"addmm_impl_cpu_\" not implemented for 'Bool'");
  expect_error<Error>([&] { b23.matmul(make({3, 2}, kFloat32)); }, "\"addmm_impl_cpu_\" not implemented for 'Bool'");
  expect_error<Error>([&] { b23.unsqueeze(0).bmm(b32.unsqueeze(0)); }, "\"bmm\" not implemented for 'Bool'");
  expect_error<Error>([&] { make({2, 2, 2, 3}, kBool).matmul(make({2, 3, 2}, kBool)); },
                      "\"bmm\" not implemented for 'Bool'");
  expect_error<Error>([&] { b23.mv(b32.select(1, 0)); }, "\"addmv_impl_cpu\" not implemented for 'Bool'");
  expect_error<Error>([&] { b23.select(0, 0).dot(b32.select(1, 0)); }, "\"dot\" not implemented for 'Bool'");
  expect_error<Error>([&] { make({0}, kBool).dot(make({0}, kBool)); }, "\"dot\" not implemented for 'Bool'");
  expect_error<Error>([&] { make({2, 3}, kFloat32).mm(b32); }, "expected scalar type Float but found Bool");

  const Tensor l23 = make({2, 3}, kInt64), f32 = make({3, 2}, kFloat32);
  expect_error<Error>([&] { l23.mm(f32); }, "expected scalar type Long but found Float");
  expect_error<Error>([&] { f32.t().mm(l23.t()); }, "expected scalar type Float but found Long");
  expect_error<Error>([&] { l23.to(kInt32).mm(l23.t()); }, "expected scalar type Int but found Long");
  expect_error<Error>([&] { l23.to(kInt8).matmul(f32); }, "expected scalar type Char but found Float");
  expect_error<Error>([&] { make({2, 2, 3}, kInt32).bmm(make({2, 3, 2}, kFloat32)); },
                      "expected scalar type Int but found Float");
  expect_error<Error>([&] { make({2, 2, 2, 3}, kInt64).matmul(make({2, 3, 2}, kFloat32)); },
                      "expected scalar type Long but found Float");
  expect_error<Error>([&] { l23.mv(f32.select(1, 0)); }, "expected scalar type Long but found Float");
  expect_error<Error>([&] { make({3}, kInt64).matmul(make({2, 3, 2}, kFloat32)); },
                      "expected scalar type Float but found Long");
  expect_error<Error>([&] { l23.select(0, 0).dot(f32.select(1, 0)); },
                      "dot : expected both vectors to have same dtype, but found Long and Float");
  expect_error<Error>([&] { make({2, 2}, kInt64).addmm(l23, f32); }, "self and mat2 must have the same dtype");
  expect_error<Error>([&] { make({2, 2}, kFloat32).addmm(l23, f32); }, "mat1 and mat2 must have the same dtype");
}

INSTANTIATE_TEST_SUITE_P(Backends, TensorIntMatmulTest, testing::Values("vulkan", "cuda"), backend_test_name);

}  // namespace
}  // namespace ember::test
