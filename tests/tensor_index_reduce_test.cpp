// index_reduce(_) against LibTorch 1.13: every reduction with include_self both ways over every dtype,
// along each dim, repeated indices, int32 indices, sources whose slices broadcast, 0-dim and empty
// operands, in place on a view, PyTorch's error messages (and self left as it was), and the gradients of
// IndexReduceBackward0 (ties of amax/amin, zeros of prod, broadcast sources, second order).
#include "tests/autograd_oracle.h"
#include "tests/same_error.h"

namespace ember::test {
namespace {

using D = std::vector<int64_t>;

const char* const kReductions[] = {"prod", "mean", "amax", "amin"};

at::Tensor L(const D& values) { return at::tensor(values, at::kLong); }

class TensorIndexReduceTest : public BackendTest {
 protected:
  Tensor from(const at::Tensor& t) { return from_torch(t, device); }

  // self.index_reduce(dim, index, source, reduce, include_self) in ember and LibTorch: the method, the
  // function, and in place on a copy.
  void expect_index_reduce(const at::Tensor& self, int64_t dim, const at::Tensor& index, const at::Tensor& source,
                           const char* reduce, bool include_self, const std::string& context) {
    SCOPED_TRACE(context + " " + reduce + (include_self ? " include_self" : " exclude_self"));
    // Products and sums of a few values round differently in another order; integers wrap the same.
    const Tolerance t = tolerance_for(ember_dtype(self.scalar_type()));
    const double rtol = t.rtol * 8, atol = t.atol * 8;
    const at::Tensor expected = self.index_reduce(dim, index, source, reduce, include_self);
    EXPECT_TENSOR_EQ(from(self).index_reduce(dim, from(index), from(source), reduce, include_self), expected, rtol,
                     atol);
    EXPECT_TENSOR_EQ(index_reduce(from(self), dim, from(index), from(source), reduce, include_self), expected, rtol,
                     atol);
    Tensor copy = from(self);
    Tensor& returned = copy.index_reduce_(dim, from(index), from(source), reduce, include_self);
    EXPECT_TRUE(returned.is_same(copy));
    EXPECT_TENSOR_EQ(copy, expected, rtol, atol);
  }
};

TEST_P(TensorIndexReduceTest, EveryReductionEveryDtype) {
  for (DType dtype : kAllDTypes) {
    if (!device->supports(dtype)) continue;
    SCOPED_TRACE(std::string(dtype_name(dtype)));
    // Small values keep products of a few factors inside float16's range.
    const at::Tensor self = random_torch({4, 6}, dtype, 1, -3, 3);
    const at::Tensor rows = random_torch({5, 6}, dtype, 2, -3, 3);
    const at::Tensor columns = random_torch({4, 3}, dtype, 3, -3, 3);
    const at::Tensor index = L({3, 0, 3, 1, 0});  // repeated: several sources reduce into one row
    for (const char* reduce : kReductions) {
      for (bool include_self : {true, false}) {
        // Bools take neither mean nor include_self = false in LibTorch: errors, tested below.
        if (dtype == DType::Bool && (std::string(reduce) == "mean" || !include_self)) continue;
        expect_index_reduce(self, 0, index, rows, reduce, include_self, "dim 0");
        expect_index_reduce(self, -1, L({5, 0, 5}).to(at::kInt), columns, reduce, include_self, "dim -1, int32 index");
        expect_index_reduce(self, 0, index, rows.narrow(1, 0, 1), reduce, include_self, "source slices of one");
        expect_index_reduce(self, 0, index, rows.select(1, 0), reduce, include_self, "1-D source");
      }
    }
  }
}

TEST_P(TensorIndexReduceTest, FloorsIntegerMeans) {
  const at::Tensor self = at::tensor({5, 7, 9}, at::kLong), source = at::tensor({2, 3, 4}, at::kLong);
  for (bool include_self : {true, false}) {
    expect_index_reduce(self, 0, L({0, 0, 2}), source, "mean", include_self, "int64");
    expect_index_reduce(self.to(at::kInt).neg(), 0, L({0, 0, 2}), source.to(at::kInt), "mean", include_self,
                        "negative int32");
  }
}

TEST_P(TensorIndexReduceTest, ThreeDimsZeroDimEmptyAndViews) {
  const at::Tensor cube = random_torch({3, 4, 5}, DType::Float32, 4);
  const at::Tensor cube_source = random_torch({3, 2, 5}, DType::Float32, 5);
  const at::Tensor s = at::scalar_tensor(2.5), s_source = at::scalar_tensor(-1.5);
  const at::Tensor self = random_torch({3, 4}, DType::Float32, 6);
  for (const char* reduce : kReductions) {
    for (bool include_self : {true, false}) {
      expect_index_reduce(cube, 1, L({3, 3}), cube_source, reduce, include_self, "middle dim");
      expect_index_reduce(s, 0, L({0}), s_source, reduce, include_self, "0-dim");
      expect_index_reduce(s, -1, L({0, 0}), at::tensor({3.0f, -0.5f}), reduce, include_self, "0-dim self, 1-D source");
      expect_index_reduce(self, 0, L({}), at::zeros({0, 4}), reduce, include_self, "empty index");
      expect_index_reduce(self, 1, L({2}), self.narrow(1, 0, 1).t().t(), reduce, include_self, "a column view");
    }
  }
  // In place on a view writes through to its base.
  const at::Tensor base = random_torch({6, 5}, DType::Float32, 7);
  const at::Tensor source = random_torch({3, 3}, DType::Float32, 8);
  for (const char* reduce : kReductions) {
    SCOPED_TRACE(reduce);
    Tensor x = from(base);
    at::Tensor expected = base.clone();
    Tensor view = x.narrow(0, 1, 3).narrow(1, 1, 3);
    view.index_reduce_(1, from(L({2, 0, 2})), from(source), reduce, false);
    expected.narrow(0, 1, 3).narrow(1, 1, 3).index_reduce_(1, L({2, 0, 2}), source, reduce, false);
    EXPECT_TENSOR_EQ(x, expected, 1e-5, 1e-5);
  }
}

TEST_P(TensorIndexReduceTest, ErrorMessages) {
  const at::Tensor self = at::ones({3, 4}), source = at::ones({2, 4}), index = L({0, 2});
  const auto same = [&](const at::Tensor& s, int64_t dim, const at::Tensor& i, const at::Tensor& src, const char* reduce,
                        const std::string& what) {
    expect_same_error([&] { from(s).index_reduce(dim, from(i), from(src), reduce); },
                      [&] { s.index_reduce(dim, i, src, reduce); }, what);
  };
  same(self, 0, index, source, "sum", "a reduce index_reduce lacks");
  same(self, 0, index.view({2, 1}), source, "prod", "a 2-D index");
  same(self, 0, index.to(at::kFloat), source, "prod", "a float index");
  same(self, 0, index, source.to(at::kDouble), "prod", "dtypes that differ");
  same(self, 0, L({0, 1, 2}), source, "prod", "more indices than source rows");
  same(self, 0, L({0, 3}), source, "prod", "an index past the end");
  same(self, 0, L({0, -1}), source, "amax", "a negative index");
  same(self, 0, index, at::ones({2, 5}), "prod", "source slices of another size");
  same(self, 0, index, at::ones({2, 4, 1}), "prod", "source slices of more dims");
  same(self, 2, index, source, "prod", "a dim out of range");
  same(self, 1, L({0}), at::ones({3}), "prod", "a dim the source lacks");
  same(self.to(at::kBool), 0, index, source.to(at::kBool), "mean", "a mean of bools");
  same(self, 0, L({0, 5}), at::ones({2, 5}), "amax", "a bad shape before a bad index");
  const at::Tensor bools = self.to(at::kBool), bool_source = source.to(at::kBool);
  expect_same_error([&] { from(bools).index_reduce(0, from(L({0, 5})), from(bool_source), "amax", false); },
                    [&] { bools.index_reduce(0, L({0, 5}), bool_source, "amax", false); },
                    "bools without self, before a bad index");

  // A failed in-place call leaves self as it was.
  Tensor x = from(self);
  EXPECT_THROW(x.index_reduce_(0, from(L({0, 7})), from(source * 3), "amax", false), Error);
  EXPECT_THROW(x.index_reduce_(0, from(index), from(at::ones({2, 5})), "prod", false), Error);
  EXPECT_TENSOR_EQ(x, self);
}

INSTANTIATE_TEST_SUITE_P(Backends, TensorIndexReduceTest, testing::Values("vulkan", "cuda"), backend_test_name);

// ---- gradients ----

class AutogradIndexReduceTest : public GradTest {
 protected:
  static at::Tensor rand(D sizes, uint64_t seed, DType dtype = DType::Float32) {
    return random_torch(std::move(sizes), dtype, seed, -2, 2);
  }
  // Values from {-1, 0, 1, 2}: ties for amax and amin, zeros for prod.
  static at::Tensor small_ints(D sizes, uint64_t seed) {
    return random_torch(std::move(sizes), DType::Int64, seed, -1, 3).to(at::kFloat);
  }
};

TEST_P(AutogradIndexReduceTest, EveryReductionBothWays) {
  const at::Tensor index = L({3, 0, 2, 2, 0});
  for (DType dtype : {DType::Float32, DType::Float64}) {
    if (!device->supports(dtype)) continue;
    const at::Tensor x = rand({4, 3}, 1, dtype), source = rand({5, 3}, 2, dtype), column = rand({5, 1}, 3, dtype);
    for (const char* reduce : kReductions) {
      for (bool include_self : {true, false}) {
        const std::string context = std::string(reduce) + (include_self ? "" : " exclude_self") + " " +
                                    std::string(dtype_name(dtype));
        check({x, source, index}, context,
              [=](const Ins& v) { return v[0].index_reduce(0, v[2], v[1], reduce, include_self); },
              [=](const TIns& v) { return v[0].index_reduce(0, v[2], v[1], reduce, include_self); });
        check({x, column, index}, context + " broadcast source",
              [=](const Ins& v) { return v[0].index_reduce(0, v[2], v[1], reduce, include_self); },
              [=](const TIns& v) { return v[0].index_reduce(0, v[2], v[1], reduce, include_self); });
      }
    }
  }
}

TEST_P(AutogradIndexReduceTest, TiesOfAmaxAminAndZerosOfProd) {
  const at::Tensor index = L({1, 0, 1, 2, 1, 1});
  for (uint64_t seed = 3; seed < 6; ++seed) {
    const at::Tensor x = small_ints({3, 4}, seed), source = small_ints({6, 4}, seed + 10);
    for (const char* reduce : {"amax", "amin", "prod"}) {
      for (bool include_self : {true, false}) {
        check({x, source, index}, std::string(reduce) + " seed " + std::to_string(seed) + (include_self ? "" : " excl"),
              [=](const Ins& v) { return v[0].index_reduce(-2, v[2], v[1], reduce, include_self); },
              [=](const TIns& v) { return v[0].index_reduce(-2, v[2], v[1], reduce, include_self); });
      }
    }
  }
}

TEST_P(AutogradIndexReduceTest, InPlaceOnANonLeafSecondOrderAndNodeName) {
  const at::Tensor index = L({2, 0, 2});
  const at::Tensor x = rand({3, 4}, 7), c = rand({3, 4}, 8), source = rand({3, 3}, 9);
  for (const char* reduce : kReductions) {
    check({x, c, source, index}, std::string("index_reduce_ ") + reduce,
          [=](const Ins& v) {
            Tensor b = v[0] * v[1];
            b.index_reduce_(1, v[3], v[2], reduce, false);
            return b * v[1];
          },
          [=](const TIns& v) {
            at::Tensor b = v[0] * v[1];
            b.index_reduce_(1, v[3], v[2], reduce, false);
            return b * v[1];
          },
          {1});
  }
  for (const char* reduce : {"mean", "prod", "amax"}) {
    check_second_order({x, source, index}, std::string("second order ") + reduce,
                       [=](const Ins& v) { return v[0].index_reduce(1, v[2], v[1], reduce) * v[0]; },
                       [=](const TIns& v) { return v[0].index_reduce(1, v[2], v[1], reduce) * v[0]; });
  }
  const Tensor y = from_torch(x, device).requires_grad_(true);
  const at::Tensor t = x.clone().requires_grad_(true);
  EXPECT_EQ(grad_fn_name(y.index_reduce(1, from_torch(index, device), y.narrow(1, 0, 3), "mean")),
            grad_fn_name(t.index_reduce(1, index, t.narrow(1, 0, 3), "mean")));
  EXPECT_EQ(grad_fn_name((y * 2).index_reduce_(1, from_torch(index, device), y.narrow(1, 0, 3), "amin")),
            grad_fn_name((t * 2).index_reduce_(1, index, t.narrow(1, 0, 3), "amin")));
}

INSTANTIATE_TEST_SUITE_P(Backends, AutogradIndexReduceTest, testing::Values("vulkan", "cuda"), backend_test_name);

}  // namespace
}  // namespace ember::test
