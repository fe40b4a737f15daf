// scatter_reduce(_) and scatter(_) with reduce against LibTorch 1.13: every reduction with include_self
// both ways over every dtype, repeated indices, layouts of self, index and src (transposed, stepped,
// broadcast), negative dims, empty and 0-dim tensors, in place on views, PyTorch's error messages, and
// the gradients of ScatterReduceBackward0 (ties of amax/amin, zeros of prod, second order).
#include <torch/csrc/autograd/function.h>

#include "tests/autograd_oracle.h"

namespace ember::test {
namespace {

using D = std::vector<int64_t>;

const char* const kReductions[] = {"sum", "prod", "mean", "amax", "amin"};

// An int64 LibTorch tensor (at::tensor of ints makes int32).
at::Tensor L(const D& values, const D& shape = {}) {
  const at::Tensor t = at::tensor(values, at::kLong);
  return shape.empty() ? t : t.reshape(shape);
}

// Tolerance of a reduction whose order differs between the two sides: floating sums and products of a
// few values round differently; integers wrap the same in any order.
Tolerance order_tolerance(DType dtype) {
  const Tolerance t = tolerance_for(dtype);
  return {t.rtol * 8, t.atol * 8};
}

class TensorScatterReduceTest : public BackendTest {
 protected:
  Tensor from(const at::Tensor& t) { return from_torch(t, device); }

  // self.scatter_reduce(dim, index, src, reduce, include_self) in ember and LibTorch, out of place and
  // in place on a copy.
  void expect_scatter_reduce(const Tensor& self, const at::Tensor& self_t, int64_t dim, const Tensor& index,
                             const at::Tensor& index_t, const Tensor& src, const at::Tensor& src_t,
                             const char* reduce, bool include_self, const std::string& context) {
    SCOPED_TRACE(context + " " + reduce + (include_self ? " include_self" : " exclude_self"));
    const Tolerance tol = order_tolerance(self.dtype());
    const at::Tensor expected = self_t.scatter_reduce(dim, index_t, src_t, reduce, include_self);
    EXPECT_TENSOR_EQ(self.scatter_reduce(dim, index, src, reduce, include_self), expected, tol.rtol, tol.atol);
    Tensor copy = self.clone();
    Tensor& returned = copy.scatter_reduce_(dim, index, src, reduce, include_self);
    EXPECT_TRUE(returned.is_same(copy));
    EXPECT_TENSOR_EQ(copy, expected, tol.rtol, tol.atol);
  }
};

TEST_P(TensorScatterReduceTest, EveryReductionEveryDtype) {
  for (DType dtype : kAllDTypes) {
    if (!device->supports(dtype)) continue;
    SCOPED_TRACE(std::string(dtype_name(dtype)));
    // Small values keep products of up to six factors inside float16's range.
    const at::Tensor self = random_torch({4, 6}, dtype, 1, -3, 3);
    const at::Tensor src = random_torch({5, 6}, dtype, 2, -3, 3);
    const at::Tensor index = at::randint(0, 4, {5, 6}, at::kLong);  // repeated along dim 0
    for (const char* reduce : kReductions) {
      for (bool include_self : {true, false}) {
        if (dtype == DType::Bool && std::string(reduce) == "mean") continue;  // an error, tested below
        expect_scatter_reduce(from(self), self, 0, from(index), index, from(src), src, reduce, include_self, "dim 0");
        // Along the last dim, counted from the end, with an index smaller than self and src.
        const at::Tensor index1 = at::randint(0, 6, {3, 4}, at::kLong);
        expect_scatter_reduce(from(self), self, -1, from(index1), index1, from(src), src, reduce, include_self,
                              "dim -1");
      }
    }
  }
}

TEST_P(TensorScatterReduceTest, WrapsAndFloorsIntegers) {
  // int8 sums and products wrap; integer means floor, negative ones included.
  const at::Tensor self = L({100, -7, 5, 0}).to(at::kChar);
  const at::Tensor src = L({100, 2, 2, -9, 3, 127}).to(at::kChar);
  const at::Tensor index = L({0, 1, 1, 2, 2, 0});
  for (const char* reduce : kReductions) {
    for (bool include_self : {true, false}) {
      expect_scatter_reduce(from(self), self, 0, from(index), index, from(src), src, reduce, include_self, "int8");
      const at::Tensor wide_self = self.to(at::kLong) * 1000000007, wide_src = src.to(at::kLong) * 998244353;
      expect_scatter_reduce(from(wide_self), wide_self, 0, from(index), index, from(wide_src), wide_src, reduce,
                            include_self, "int64");
    }
  }
}

TEST_P(TensorScatterReduceTest, LayoutsOfSelfIndexAndSrc) {
  const at::Tensor self = random_torch({5, 4}, DType::Float32, 3);
  const at::Tensor src = random_torch({6, 4}, DType::Float32, 4);
  const at::Tensor index = at::randint(0, 5, {6, 4}, at::kLong);
  for (const auto& self_layout : layouts_of(self, device)) {
    for (const auto& index_layout : layouts_of(index, device)) {
      for (const auto& src_layout : layouts_of(src, device)) {
        const std::string context = "self " + self_layout.name + ", index " + index_layout.name + ", src " +
                                    src_layout.name;
        for (const char* reduce : {"sum", "amax", "mean"}) {
          expect_scatter_reduce(self_layout.tensor, self, 0, index_layout.tensor, index, src_layout.tensor, src, reduce,
                                false, context);
        }
      }
    }
  }
  // Broadcast (stride 0) index and src, and a broadcast self out of place.
  const at::Tensor row = L({4, 0, 4, 1}, {1, 4});
  const at::Tensor column = random_torch({1, 4}, DType::Float32, 5);
  for (const char* reduce : kReductions) {
    expect_scatter_reduce(from(self), self, 0, from(row).expand({3, 4}), row.expand({3, 4}), from(column).expand({3, 4}),
                          column.expand({3, 4}), reduce, true, "broadcast index and src");
    const at::Tensor wide = random_torch({1, 4}, DType::Float32, 6);
    EXPECT_TENSOR_EQ(from(wide).expand({5, 4}).scatter_reduce(0, from(row), from(column), reduce),
                     wide.expand({5, 4}).scatter_reduce(0, row, column, reduce), 1e-5, 1e-5);
  }
}

TEST_P(TensorScatterReduceTest, InPlaceOnAView) {
  const at::Tensor base = random_torch({6, 5}, DType::Float32, 7);
  const at::Tensor src = random_torch({2, 3}, DType::Float32, 8);
  const at::Tensor index = L({2, 0, 2, 1, 1, 0}, {2, 3});
  for (const char* reduce : kReductions) {
    SCOPED_TRACE(reduce);
    Tensor x = from(base);
    at::Tensor expected = base.clone();
    Tensor view = x.narrow(0, 1, 3).narrow(1, 1, 3);
    view.scatter_reduce_(1, from(index), from(src), reduce, false);
    expected.narrow(0, 1, 3).narrow(1, 1, 3).scatter_reduce_(1, index, src, reduce, false);
    EXPECT_TENSOR_EQ(x, expected, 1e-5, 1e-5);
  }
}

TEST_P(TensorScatterReduceTest, EmptyAndZeroDim) {
  const at::Tensor self = random_torch({3, 4}, DType::Float32, 9);
  const at::Tensor no_rows = at::zeros({0, 4}, at::kLong);
  const at::Tensor empty_self = at::zeros({0, 4});
  const at::Tensor s = at::scalar_tensor(2.5), s_src = at::scalar_tensor(-1.5);
  const at::Tensor s_index = at::scalar_tensor(0, at::kLong);
  for (const char* reduce : kReductions) {
    for (bool include_self : {true, false}) {
      expect_scatter_reduce(from(self), self, 0, from(no_rows), no_rows, from(no_rows.to(at::kFloat)),
                            no_rows.to(at::kFloat), reduce, include_self, "empty index");
      expect_scatter_reduce(from(empty_self), empty_self, 1, from(no_rows), no_rows, from(empty_self), empty_self, reduce,
                            include_self, "empty self");
      expect_scatter_reduce(from(s), s, 0, from(s_index), s_index, from(s_src), s_src, reduce, include_self, "0-dim");
      expect_scatter_reduce(from(s), s, -1, from(s_index), s_index, from(s_src), s_src, reduce, include_self,
                            "0-dim, dim -1");
    }
  }
}

TEST_P(TensorScatterReduceTest, ScatterWithReduceArgument) {
  for (DType dtype : kAllDTypes) {
    if (!device->supports(dtype)) continue;
    SCOPED_TRACE(std::string(dtype_name(dtype)));
    const Tolerance tol = order_tolerance(dtype);
    const at::Tensor self = random_torch({4, 3}, dtype, 10, -3, 3);
    const at::Tensor src = random_torch({5, 3}, dtype, 11, -3, 3);
    const at::Tensor index = at::randint(0, 4, {5, 3}, at::kLong);
    for (const char* reduce : {"add", "multiply"}) {
      SCOPED_TRACE(reduce);
      EXPECT_TENSOR_EQ(from(self).scatter(0, from(index), from(src), reduce), self.scatter(0, index, src, reduce),
                       tol.rtol, tol.atol);
      EXPECT_TENSOR_EQ(scatter(from(self), -2, from(index), from(src), reduce), self.scatter(-2, index, src, reduce),
                       tol.rtol, tol.atol);
      // A value converted to self's dtype first: 2.5 is 2 for integers.
      const at::Tensor index1 = at::randint(0, 3, {2, 5}, at::kLong);
      EXPECT_TENSOR_EQ(from(self).scatter(1, from(index1), 2.5, reduce), self.scatter(1, index1, 2.5, reduce),
                       tol.rtol, tol.atol);
      Tensor x = from(self);
      x.scatter_(0, from(index), from(src), reduce).scatter_(0, from(index), 2, reduce);
      EXPECT_TENSOR_EQ(x, self.clone().scatter_(0, index, src, reduce).scatter_(0, index, 2, reduce), tol.rtol,
                       tol.atol);
    }
  }
}

TEST_P(TensorScatterReduceTest, ErrorMessages) {
  const Tensor x = from(at::zeros({3, 4}));
  const Tensor index = from(L({0, 1, 2, 0}, {1, 4}));
  const Tensor src = from(at::ones({1, 4}));
  expect_error<Error>([&] { x.scatter_reduce(0, index, src, "max"); },
                      "reduce argument must be either sum, prod, mean, amax or amin.");
  expect_error<Error>([&] { x.scatter(0, index, src, "sum"); }, "reduce argument must be either add or multiply.");
  expect_error<Error>([&] { x.scatter(0, index, 2.0, "mean"); }, "reduce argument must be either add or multiply.");
  Tensor y = x.clone();
  expect_error<Error>([&] { y.scatter_(0, index, src, "multiplY"); }, "reduce argument must be either add or multiply.");
  expect_error<Error>([&] { y.scatter_reduce_(0, index, src, ""); },
                      "reduce argument must be either sum, prod, mean, amax or amin.");
  // Dtypes and shapes are checked before the reduce name.
  expect_error<Error>([&] { x.scatter_reduce(0, index, src.to(DType::Float64), "max"); },
                      "scatter(): Expected self.dtype to be equal to src.dtype");
  expect_error<Error>([&] { x.scatter_reduce(0, index.to(DType::Int32), src, "sum"); },
                      "scatter(): Expected dtype int64 for index");
  expect_error<Error>([&] { x.scatter(0, index.to(DType::Int32), 1.0, "add"); },
                      "scatter(): Expected dtype int64 for index");
  expect_error<Error>([&] { x.scatter_reduce(0, from(at::zeros({3, 5}, at::kLong)), from(at::ones({3, 5})), "x"); },
                      "Expected index [3, 5] to be smaller than self [3, 4] apart from dimension 0 and to be smaller "
                      "size than src [3, 5]");
  // The reduce name before the bounds; negative indices are out of bounds here.
  expect_error<Error>([&] { x.scatter_reduce(0, from(L({0, 5, 2, 0}, {1, 4})), src, "avg"); },
                      "reduce argument must be either sum, prod, mean, amax or amin.");
  expect_error<Error>([&] { x.scatter_reduce(0, from(L({0, 5, 2, 0}, {1, 4})), src, "sum", false); },
                      "index 5 is out of bounds for dimension 0 with size 3");
  expect_error<Error>([&] { x.scatter_reduce(1, from(L({0, -1, 2, 0}, {1, 4})), src, "amin"); },
                      "index -1 is out of bounds for dimension 1 with size 4");
  expect_error<Error>([&] { x.scatter(0, from(L({3, 0, 0, 0}, {1, 4})), 1.0, "add"); },
                      "index 3 is out of bounds for dimension 0 with size 3");
  expect_error<IndexError>([&] { x.scatter_reduce(2, index, src, "sum"); },
                           "Dimension out of range (expected to be in range of [-2, 1], but got 2)");
  // An out-of-bounds index leaves self as it was, include_self = false's first pass included.
  Tensor z = x.clone();
  EXPECT_THROW(z.scatter_reduce_(0, from(L({0, 9, 2, 0}, {1, 4})), src, "amax", false), Error);
  EXPECT_TENSOR_EQ(z, at::zeros({3, 4}));
  // PyTorch has no mean of bools: the error of the CPU kernel it reaches first.
  const Tensor bools = from(at::zeros({2}, at::kBool));
  expect_error<Error>([&] { bools.scatter_reduce(0, from(L({1})), from(at::ones({1}, at::kBool)), "mean"); },
                      "\"scatter_gather_tensor_cpu_reduce_mean\" not implemented for 'Bool'");
  expect_error<Error>([&] { bools.scatter_reduce(0, from(L({})), from(at::ones({0}, at::kBool)), "mean"); },
                      "\"div_floor_cpu\" not implemented for 'Bool'");
}

INSTANTIATE_TEST_SUITE_P(Backends, TensorScatterReduceTest, testing::Values("vulkan", "cuda"), backend_test_name);

// ---- gradients ----

class AutogradScatterReduceTest : public GradTest {
 protected:
  static at::Tensor rand(D sizes, uint64_t seed, DType dtype = DType::Float32) {
    return random_torch(std::move(sizes), dtype, seed, -2, 2);
  }
  // Values from {-1, 0, 1, 2}: ties for amax and amin, zeros for prod.
  static at::Tensor small_ints(D sizes, uint64_t seed, DType dtype = DType::Float32) {
    return random_torch(std::move(sizes), DType::Int64, seed, -1, 3).to(torch_dtype(dtype));
  }
};

TEST_P(AutogradScatterReduceTest, EveryReductionBothWays) {
  const at::Tensor index = L({3, 0, 2, 2, 1, 0, 3, 2, 2, 1}, {2, 5});
  for (DType dtype : {DType::Float32, DType::Float64}) {
    if (!device->supports(dtype)) continue;
    const at::Tensor x = rand({4, 5}, 1, dtype), src = rand({2, 5}, 2, dtype);
    for (const char* reduce : kReductions) {
      for (bool include_self : {true, false}) {
        const std::string context = std::string(reduce) + (include_self ? "" : " exclude_self") + " " +
                                    std::string(dtype_name(dtype));
        check({x, src, index}, context,
              [=](const Ins& v) { return v[0].scatter_reduce(0, v[2], v[1], reduce, include_self); },
              [=](const TIns& v) { return v[0].scatter_reduce(0, v[2], v[1], reduce, include_self); });
      }
    }
  }
}

TEST_P(AutogradScatterReduceTest, TiesOfAmaxAminAndZerosOfProd) {
  // Values from a small set collide: ties split the gradient evenly; several zeros at one position of a
  // product, and a single one, have their own formulas.
  const at::Tensor index = L({1, 0, 1, 2, 1, 1, 0, 2, 2, 1, 1, 0}, {4, 3});
  for (uint64_t seed = 3; seed < 6; ++seed) {
    const at::Tensor x = small_ints({3, 3}, seed), src = small_ints({4, 3}, seed + 10);
    for (const char* reduce : {"amax", "amin", "prod"}) {
      for (bool include_self : {true, false}) {
        check({x, src, index}, std::string(reduce) + " seed " + std::to_string(seed) + (include_self ? "" : " excl"),
              [=](const Ins& v) { return v[0].scatter_reduce(-2, v[2], v[1], reduce, include_self); },
              [=](const TIns& v) { return v[0].scatter_reduce(-2, v[2], v[1], reduce, include_self); });
      }
    }
  }
}

TEST_P(AutogradScatterReduceTest, InPlaceOnANonLeafAndSecondOrder) {
  const at::Tensor index = L({2, 0, 2, 1, 1, 0}, {2, 3});
  const at::Tensor x = rand({3, 3}, 7), c = rand({3, 3}, 8), src = rand({2, 3}, 9);
  for (const char* reduce : kReductions) {
    check({x, c, src, index}, std::string("scatter_reduce_ ") + reduce,
          [=](const Ins& v) {
            Tensor b = v[0] * v[1];
            b.scatter_reduce_(1, v[3], v[2], reduce, false);
            return b * v[1];
          },
          [=](const TIns& v) {
            at::Tensor b = v[0] * v[1];
            b.scatter_reduce_(1, v[3], v[2], reduce, false);
            return b * v[1];
          },
          {1});
  }
  // Second order: mean and sum are linear, prod and amax are not.
  for (const char* reduce : {"sum", "mean", "prod", "amax"}) {
    check_second_order({x, src, index}, std::string("second order ") + reduce,
                       [=](const Ins& v) { return v[0].scatter_reduce(1, v[2], v[1], reduce) * v[0]; },
                       [=](const TIns& v) { return v[0].scatter_reduce(1, v[2], v[1], reduce) * v[0]; });
  }
}

TEST_P(AutogradScatterReduceTest, DoubleBackwardThroughSeveralZerosOfProdIsRefused) {
  const Tensor x = from_torch(at::tensor({1.0f, 2.0f, 3.0f}), device).requires_grad_(true);
  const Tensor src = from_torch(at::tensor({0.0f, 0.0f, 5.0f}), device).requires_grad_(true);
  const Tensor out = x.scatter_reduce(0, from_torch(L({0, 0, 1}), device), src, "prod");
  const std::vector<Tensor> grads = autograd::grad({out.sum()}, {src}, {}, true, true);
  ASSERT_TRUE(grads[0].grad_fn());
  EXPECT_EQ(grads[0].grad_fn()->name(), "torch::autograd::Error");
  EXPECT_TENSOR_EQ(grads[0].detach(), at::tensor({0.0f, 0.0f, 2.0f}));
  expect_error<Error>([&] { grads[0].sum().backward(); },
                      "scatter_reduce(): Double backward is unsupported for src when >1 zeros in src are scattered "
                      "to the same position in self");
}

TEST_P(AutogradScatterReduceTest, NodeNamesAndScatterWithReduceHasNoDerivative) {
  const at::Tensor xt = rand({3, 4}, 10);
  const at::Tensor it = L({0, 2, 2, 1}, {1, 4});
  const Tensor i = from_torch(it, device);
  const Tensor x = from_torch(xt, device).requires_grad_(true);
  const at::Tensor t = xt.clone().requires_grad_(true);
  using Pair = std::pair<Tensor, at::Tensor>;
  const std::vector<Pair> outputs = {
      {x.scatter_reduce(0, i, x.narrow(0, 0, 1), "mean"), t.scatter_reduce(0, it, t.narrow(0, 0, 1), "mean")},
      {(x * 2).scatter_reduce_(0, i, x.narrow(0, 0, 1), "amin"), (t * 2).scatter_reduce_(0, it, t.narrow(0, 0, 1), "amin")},
      {x.scatter(0, i, x.narrow(0, 0, 1), "add"), t.scatter(0, it, t.narrow(0, 0, 1), "add")},
      {x.scatter(0, i, 2.0, "multiply"), t.scatter(0, it, 2.0, "multiply")},
      {(x * 2).scatter_(0, i, 2.0, "add"), (t * 2).scatter_(0, it, 2.0, "add")},
  };
  for (size_t k = 0; k < outputs.size(); ++k) {
    SCOPED_TRACE("op " + std::to_string(k));
    ASSERT_TRUE(outputs[k].first.grad_fn() && outputs[k].second.grad_fn());
    EXPECT_EQ(outputs[k].first.grad_fn()->name(), outputs[k].second.grad_fn()->name());
  }
  expect_error<Error>([&] { outputs[2].first.sum().backward(); }, "derivative for aten::scatter is not implemented");
  expect_error<Error>([&] { outputs[4].first.sum().backward(); }, "derivative for aten::scatter is not implemented");
}

INSTANTIATE_TEST_SUITE_P(Backends, AutogradScatterReduceTest, testing::Values("vulkan", "cuda"), backend_test_name);

}  // namespace
}  // namespace ember::test
