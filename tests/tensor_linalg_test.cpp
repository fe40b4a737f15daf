// matmul and the products beside it against LibTorch: every branch of matmul's dispatch (dot, mv, mm,
// folded batches, broadcast batch dims), bmm, mv, dot, addmm and baddbmm with beta and alpha, every
// float dtype, transposed, stepped and broadcast operands, empty sizes and PyTorch's error messages.
#include <limits>

#include "tests/oracle.h"

namespace ember::test {
namespace {

class TensorLinalgTest : public BackendTest {
 protected:
  Tensor from(const at::Tensor& t) { return from_torch(t, device); }
};

const DType kFloatTypes[] = {DType::Float32, DType::Float16, DType::BFloat16, DType::Float64};

// LibTorch's CPU has no float16 products: compute in float64 and round to the dtype once, as a kernel
// that accumulates in float32 does (within tolerance).
at::Tensor oracle(const std::function<at::Tensor(const at::Tensor&, const at::Tensor&)>& op, const at::Tensor& a,
                  const at::Tensor& b) {
  return op(a.to(at::kDouble), b.to(at::kDouble)).to(a.scalar_type());
}

double product_tolerance(DType dtype) { return dtype == DType::Float32 ? 1e-5 : tolerance_for(dtype).rtol * 2; }

TEST_P(TensorLinalgTest, MatmulDispatchEveryFloatDtype) {
  struct Shapes {
    std::vector<int64_t> a, b;
  };
  const std::vector<Shapes> shapes = {
      {{13}, {13}},                   // dot
      {{7, 13}, {13}},                // mv
      {{13}, {13, 9}},                // vector @ matrix
      {{7, 13}, {13, 9}},             // mm
      {{3, 7, 13}, {13, 9}},          // fold A's batch into rows
      {{3, 7, 13}, {13}},             // fold, then mv
      {{13}, {2, 13, 9}},             // vector @ batch
      {{7, 13}, {2, 13, 9}},          // fold B's batch through transposes
      {{2, 1, 7, 13}, {3, 13, 9}},    // broadcast batch dims
      {{2, 3, 7, 13}, {2, 3, 13, 9}}, // batched
      {{4, 7, 13}, {13, 1}},
  };
  for (DType dtype : kFloatTypes) {
    SCOPED_TRACE(std::string(dtype_name(dtype)));
    for (const Shapes& s : shapes) {
      SCOPED_TRACE(to_string(s.a) + " @ " + to_string(s.b));
      const at::Tensor a = random_torch(s.a, dtype, 1, -1, 1), b = random_torch(s.b, dtype, 2, -1, 1);
      EXPECT_TENSOR_EQ(from(a).matmul(from(b)), oracle([](const at::Tensor& x, const at::Tensor& y) { return at::matmul(x, y); }, a, b), product_tolerance(dtype));
    }
  }
}

TEST_P(TensorLinalgTest, NonContiguousAndBroadcastOperands) {
  const at::Tensor a = random_torch({6, 5}, DType::Float32, 3, -1, 1);
  const at::Tensor b = random_torch({5, 7}, DType::Float32, 4, -1, 1);
  for (const auto& [name_a, x] : layouts_of(a, device)) {
    for (const auto& [name_b, y] : layouts_of(b, device)) {
      SCOPED_TRACE(name_a + " @ " + name_b);
      EXPECT_TENSOR_EQ(x.mm(y), a.mm(b), 1e-5);
      EXPECT_TENSOR_EQ(y.t().matmul(x.t()), b.t().matmul(a.t()), 1e-5);
    }
  }
  // Batches: permuted (no single batch stride: copied), expanded (stride 0), stepped.
  const at::Tensor p = random_torch({4, 3, 2, 5}, DType::Float32, 5, -1, 1);
  const at::Tensor q = random_torch({1, 5, 6}, DType::Float32, 6, -1, 1);
  const at::Tensor pp = p.permute({1, 0, 2, 3});  // batch dims 3x4 with strides that do not merge
  EXPECT_TENSOR_EQ(from(p).permute({1, 0, 2, 3}).matmul(from(q)), pp.matmul(q), 1e-5);
  EXPECT_TENSOR_EQ(from(q).expand({3, 5, 6}).bmm(from(q).expand({3, 5, 6}).transpose(1, 2)),
                   q.expand({3, 5, 6}).bmm(q.expand({3, 5, 6}).transpose(1, 2)), 1e-5);
  const at::Tensor big = random_torch({6, 2, 5}, DType::Float32, 7, -1, 1);
  EXPECT_TENSOR_EQ(from(big).slice(0, 1, std::nullopt, 2).bmm(from(q).expand({3, 5, 6})),
                   big.slice(0, 1, c10::nullopt, 2).bmm(q.expand({3, 5, 6})), 1e-5);
  // A larger, odd-sized product.
  const at::Tensor l = random_torch({67, 129}, DType::Float32, 8, -1, 1);
  const at::Tensor r = random_torch({129, 33}, DType::Float32, 9, -1, 1);
  EXPECT_TENSOR_EQ(from(l).mm(from(r)), l.mm(r), 1e-5, 1e-4);
}

TEST_P(TensorLinalgTest, AddmmBaddbmmMvDot) {
  for (DType dtype : kFloatTypes) {
    SCOPED_TRACE(std::string(dtype_name(dtype)));
    const double tol = product_tolerance(dtype);
    const at::Tensor bias = random_torch({9}, dtype, 10, -1, 1);
    const at::Tensor m1 = random_torch({7, 4}, dtype, 11, -1, 1), m2 = random_torch({4, 9}, dtype, 12, -1, 1);
    const at::Tensor expected =
        (bias.to(at::kDouble) * 0.5 + m1.to(at::kDouble).mm(m2.to(at::kDouble)) * -2.0).to(bias.scalar_type());
    EXPECT_TENSOR_EQ(from(bias).addmm(from(m1), from(m2), 0.5, -2.0), expected, tol);
    EXPECT_TENSOR_EQ(addmm(from(bias), from(m1), from(m2)), oracle([](const at::Tensor& x, const at::Tensor& y) { return at::mm(x, y); }, m1, m2).add(bias), tol * 2);
    const at::Tensor input = random_torch({1, 7, 9}, dtype, 13, -1, 1);
    const at::Tensor b1 = random_torch({3, 7, 4}, dtype, 14, -1, 1), b2 = random_torch({3, 4, 9}, dtype, 15, -1, 1);
    const at::Tensor bexpected =
        (input.to(at::kDouble) * 2.0 + b1.to(at::kDouble).bmm(b2.to(at::kDouble)) * 0.25).to(input.scalar_type());
    EXPECT_TENSOR_EQ(baddbmm(from(input), from(b1), from(b2), 2.0, 0.25), bexpected, tol);
    const at::Tensor v = random_torch({4}, dtype, 16, -1, 1);
    EXPECT_TENSOR_EQ(from(m1).mv(from(v)), oracle([](const at::Tensor& x, const at::Tensor& y) { return at::mv(x, y); }, m1, v), tol);
    EXPECT_TENSOR_EQ(from(v).dot(from(v)), oracle([](const at::Tensor& x, const at::Tensor& y) { return at::dot(x, y); }, v, v), tol);
  }
  // beta = 0 ignores the input, NaN included.
  const at::Tensor nan_bias = at::full({3}, std::numeric_limits<double>::quiet_NaN(), at::kFloat);
  const at::Tensor m1 = random_torch({2, 4}, DType::Float32, 17), m2 = random_torch({4, 3}, DType::Float32, 18);
  EXPECT_TENSOR_EQ(from(nan_bias).addmm(from(m1), from(m2), 0, 1), at::addmm(nan_bias, m1, m2, 0, 1), 1e-5);
  // float64 input with float32 batches: converted, as PyTorch does.
  const at::Tensor b1 = random_torch({2, 2, 3}, DType::Float32, 19), b2 = random_torch({2, 3, 3}, DType::Float32, 20);
  const at::Tensor dinput = random_torch({3}, DType::Float64, 21);
  EXPECT_TENSOR_EQ(from(dinput).baddbmm(from(b1), from(b2)), at::baddbmm(dinput, b1, b2), 1e-5);
}

TEST_P(TensorLinalgTest, EmptySizes) {
  const std::vector<std::pair<std::vector<int64_t>, std::vector<int64_t>>> shapes = {
      {{2, 0}, {0, 3}}, {{0, 4}, {4, 3}}, {{2, 4}, {4, 0}}, {{0}, {0}}, {{0, 2, 3}, {3, 4}}, {{2, 0, 3}, {2, 3, 5}}};
  for (const auto& [sa, sb] : shapes) {
    SCOPED_TRACE(to_string(sa) + " @ " + to_string(sb));
    const at::Tensor a = random_torch(sa, DType::Float32, 22), b = random_torch(sb, DType::Float32, 23);
    EXPECT_TENSOR_EQ(from(a).matmul(from(b)), at::matmul(a, b));
  }
  const at::Tensor bias = random_torch({2, 3}, DType::Float32, 24);
  EXPECT_TENSOR_EQ(from(bias).addmm(from(at::zeros({2, 0})), from(at::zeros({0, 3})), 3, 1),
                   at::addmm(bias, at::zeros({2, 0}), at::zeros({0, 3}), 3, 1), 1e-6);
}

TEST_P(TensorLinalgTest, ErrorMessages) {
  auto f = [&](std::vector<int64_t> sizes) { return ones(sizes, TensorOptions().device(device)); };
  auto d = [&](std::vector<int64_t> sizes) { return ones(sizes, TensorOptions().dtype(kFloat64).device(device)); };
  expect_error<Error>([&] { f({2, 3}).mm(f({2, 3})); }, "mat1 and mat2 shapes cannot be multiplied (2x3 and 2x3)");
  expect_error<Error>([&] { f({2, 3}).mm(d({3, 2})); }, "expected scalar type Float but found Double");
  expect_error<Error>([&] { f({3}).mm(f({3, 2})); }, "self must be a matrix");
  expect_error<Error>([&] { f({2, 3}).mm(f({3})); }, "mat2 must be a matrix");
  expect_error<Error>([&] { f({2, 3}).matmul(d({3, 2})); }, "expected scalar type Float but found Double");
  expect_error<Error>([&] { f({3}).matmul(f({4})); },
                      "inconsistent tensor size, expected tensor [3] and src [4] to have the same number of elements, "
                      "but got 3 and 4 elements respectively");
  expect_error<Error>([&] { f({3}).dot(d({3})); }, "dot : expected both vectors to have same dtype, but found Float and Double");
  expect_error<Error>([&] { f({3, 1}).dot(f({3})); }, "1D tensors expected, but got 2D and 1D tensors");
  expect_error<Error>([&] { f({2, 3}).mv(f({4})); }, "size mismatch, got 2, 2x3,4");
  expect_error<Error>([&] { f({2, 3}).mv(f({3, 1})); }, "vector + matrix @ vector expected, got 1, 2, 2");
  expect_error<Error>([&] { f({4}).matmul(f({2, 3})); }, "mat1 and mat2 shapes cannot be multiplied (1x4 and 2x3)");
  expect_error<Error>([&] { f({5, 2, 3}).matmul(f({4, 2})); }, "mat1 and mat2 shapes cannot be multiplied (10x3 and 4x2)");
  expect_error<Error>([&] { f({5, 2, 3}).matmul(f({4})); }, "size mismatch, got 10, 10x3,4");
  expect_error<Error>([&] { f({2, 3}).matmul(f({5, 4, 2})); }, "mat1 and mat2 shapes cannot be multiplied (10x4 and 3x2)");
  expect_error<Error>([&] { f({5, 2, 3}).matmul(f({5, 4, 2})); },
                      "Expected size for first two dimensions of batch2 tensor to be: [5, 3] but got: [5, 4].");
  expect_error<Error>([&] { f({5, 2, 3}).matmul(f({4, 3, 2})); },
                      "The size of tensor a (5) must match the size of tensor b (4) at non-singleton dimension 0");
  expect_error<Error>([&] { f({5, 2, 3}).matmul(d({5, 3, 2})); }, "expected scalar type Float but found Double");
  expect_error<Error>([&] { full({}, 1.0, TensorOptions().device(device)).matmul(f({3})); },
                      "both arguments to matmul need to be at least 1D, but they are 0D and 1D");
  expect_error<Error>([&] { f({2, 3}).bmm(f({2, 3, 4})); }, "batch1 must be a 3D tensor");
  expect_error<Error>([&] { f({2, 2, 3}).bmm(f({2, 3})); }, "batch2 must be a 3D tensor");
  expect_error<Error>([&] { f({2, 2, 3}).bmm(f({3, 3, 4})); },
                      "Expected size for first two dimensions of batch2 tensor to be: [2, 3] but got: [3, 3].");
  expect_error<Error>([&] { f({2, 2, 3}).bmm(d({2, 3, 4})); }, "expected scalar type Float but found Double");
  expect_error<Error>([&] { f({4}).addmm(f({2, 3}), f({3, 3})); },
                      "The expanded size of the tensor (3) must match the existing size (4) at non-singleton dimension "
                      "1.  Target sizes: [2, 3].  Tensor sizes: [4]");
  expect_error<Error>([&] { d({3}).addmm(f({2, 3}), f({3, 3})); }, "self and mat2 must have the same dtype");
  expect_error<Error>([&] { f({3}).addmm(f({2, 3}), f({4, 3})); }, "mat1 and mat2 shapes cannot be multiplied (2x3 and 4x3)");
  expect_error<Error>([&] { f({3}).baddbmm(f({2, 2, 3}), f({2, 4, 3})); },
                      "Expected size for first two dimensions of batch2 tensor to be: [2, 3] but got: [2, 4].");
}

INSTANTIATE_TEST_SUITE_P(Backends, TensorLinalgTest, testing::Values("vulkan", "cuda"), backend_test_name);

}  // namespace
}  // namespace ember::test
