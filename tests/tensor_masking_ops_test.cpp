// masked_scatter(_), fill_diagonal_, nonzero_numpy and where(condition) against LibTorch: every dtype,
// masks that broadcast, non-contiguous self, source and mask, 0-dim and empty tensors, the wrapped
// diagonal of tall matrices, gradients (with the node names LibTorch gives), and LibTorch's own error
// messages, read from LibTorch for the same call.
#include <c10/util/Exception.h>
#include <torch/csrc/autograd/function.h>

#include "tests/autograd_oracle.h"

namespace ember::test {
namespace {

at::Tensor bools(std::vector<int64_t> sizes, uint64_t seed) { return random_torch(sizes, DType::Bool, seed); }

class TensorMaskingOpsTest : public GradTest {
 protected:
  Tensor from(const at::Tensor& t) { return from_torch(t, device); }
};

// ---- masked_scatter ----

TEST_P(TensorMaskingOpsTest, MaskedScatterEveryDtype) {
  for (DType dtype : kAllDTypes) {
    SCOPED_TRACE(std::string(dtype_name(dtype)));
    const at::Tensor self = random_torch({4, 5}, dtype, 1);
    const at::Tensor mask = bools({4, 5}, 2);
    const at::Tensor source = random_torch({25}, dtype, 3);
    EXPECT_TENSOR_EQ(from(self).masked_scatter(from(mask), from(source)), self.masked_scatter(mask, source));
    Tensor ours = from(self);
    ours.masked_scatter_(from(mask), from(source));
    EXPECT_TENSOR_EQ(ours, self.clone().masked_scatter_(mask, source));
    EXPECT_TENSOR_EQ(masked_scatter(from(self), from(mask), from(source)), at::masked_scatter(self, mask, source));
  }
}

TEST_P(TensorMaskingOpsTest, MaskedScatterBroadcastsAndLayouts) {
  const at::Tensor self = random_torch({4, 6}, DType::Float32, 4);
  const at::Tensor source = random_torch({5, 6}, DType::Float32, 5);
  const std::vector<at::Tensor> masks = {bools({4, 6}, 6), bools({6}, 7), bools({4, 1}, 8), bools({1, 1}, 9),
                                         at::ones({4, 6}, at::kBool), at::zeros({4, 6}, at::kBool)};
  const size_t self_layouts = layouts_of(self, device).size();
  for (size_t m = 0; m < masks.size(); ++m) {
    SCOPED_TRACE("mask " + std::to_string(m));
    const at::Tensor expected = self.clone().masked_scatter_(masks[m], source);
    for (size_t l = 0; l < self_layouts; ++l) {
      for (const auto& [source_name, s] : layouts_of(source, device)) {
        // A fresh copy each time: the write goes through the (non-contiguous) view into its storage.
        const Layout target = layouts_of(self, device)[l];
        SCOPED_TRACE(target.name + ", source " + source_name);
        Tensor written = target.tensor;
        written.masked_scatter_(from(masks[m]), s);
        EXPECT_TENSOR_EQ(written, expected);
      }
    }
  }
  for (const auto& [name, x] : layouts_of(self, device)) {
    for (const auto& [mask_name, mk] : layouts_of(masks[0], device)) {
      SCOPED_TRACE(name + ", mask " + mask_name);
      EXPECT_TENSOR_EQ(x.masked_scatter(mk, from(source)), self.masked_scatter(masks[0], source));
    }
  }
  // Out of place, self broadcasts too.
  const at::Tensor row = random_torch({6}, DType::Float32, 10);
  EXPECT_TENSOR_EQ(from(row).masked_scatter(from(masks[0]), from(source)), row.masked_scatter(masks[0], source));
  EXPECT_TENSOR_EQ(from(row).expand({4, 6}).masked_scatter(from(masks[0]), from(source)),
                   row.expand({4, 6}).masked_scatter(masks[0], source));
  // A uint8 mask counts nonzero as true.
  const at::Tensor bytes = masks[0].to(at::kByte);
  EXPECT_TENSOR_EQ(from(self).masked_scatter(from(bytes), from(source)), self.masked_scatter(bytes, source));
}

TEST_P(TensorMaskingOpsTest, MaskedScatterZeroDimAndEmpty) {
  const at::Tensor scalar = at::scalar_tensor(1.5);
  const at::Tensor one = at::scalar_tensor(-2.0);
  for (bool value : {true, false}) {
    const at::Tensor mask = at::scalar_tensor(value, at::kBool);
    EXPECT_TENSOR_EQ(from(scalar).masked_scatter(from(mask), from(one)), scalar.masked_scatter(mask, one));
    Tensor ours = from(scalar);
    ours.masked_scatter_(from(mask), from(one.reshape({1})));
    EXPECT_TENSOR_EQ(ours, scalar.clone().masked_scatter_(mask, one.reshape({1})));
  }
  const at::Tensor empty = at::zeros({0, 3});
  const at::Tensor none = at::zeros({0});
  EXPECT_TENSOR_EQ(from(empty).masked_scatter(from(at::zeros({0, 3}, at::kBool)), from(none)),
                   empty.masked_scatter(at::zeros({0, 3}, at::kBool), none));
  const at::Tensor self = random_torch({2, 3}, DType::Float32, 11);
  // No true position needs no source element.
  EXPECT_TENSOR_EQ(from(self).masked_scatter(from(at::zeros({2, 3}, at::kBool)), from(none)),
                   self.masked_scatter(at::zeros({2, 3}, at::kBool), none));
}

TEST_P(TensorMaskingOpsTest, MaskedScatterErrors) {
  const at::Tensor self = at::zeros({2, 3});
  const at::Tensor mask = at::tensor({1, 0, 1, 0, 1, 1}).to(at::kBool).reshape({2, 3});
  const at::Tensor few = at::arange(3.0, at::kFloat);
  const at::Tensor source = at::arange(6.0, at::kFloat);
  expect_error<Error>([&] { from(self).masked_scatter_(from(mask), from(few)); },
                      torch_error([&] { self.clone().masked_scatter_(mask, few); }));
  expect_error<Error>([&] { from(self).masked_scatter(from(mask), from(few)); },
                      torch_error([&] { self.masked_scatter(mask, few); }));
  expect_error<Error>([&] { from(self).masked_scatter_(from(mask), from(source.to(at::kDouble))); },
                      torch_error([&] { self.clone().masked_scatter_(mask, source.to(at::kDouble)); }));
  const at::Tensor long_mask = at::ones({4}, at::kBool);
  expect_error<Error>([&] { from(self).masked_scatter_(from(long_mask), from(source)); },
                      torch_error([&] { self.clone().masked_scatter_(long_mask, source); }));
  expect_error<Error>([&] { from(self).masked_scatter(from(long_mask), from(source)); },
                      torch_error([&] { self.masked_scatter(long_mask, source); }));
  const at::Tensor row = at::zeros({3});
  expect_error<Error>([&] { from(row).expand({2, 3}).masked_scatter_(from(mask), from(source)); },
                      torch_error([&] { row.expand({2, 3}).masked_scatter_(mask, source); }));
  // LibTorch 1.13 reads a float mask's bytes as bools; ember refuses it.
  expect_error<Error>([&] { from(self).masked_scatter_(from(mask.to(at::kFloat)), from(source)); },
                      "masked_scatter_ only supports boolean masks, but got mask with dtype float32");
  Tensor leaf = from(self).requires_grad_();
  at::Tensor torch_leaf = self.clone().requires_grad_();
  expect_error<Error>([&] { leaf.masked_scatter_(from(mask), from(source)); },
                      torch_error([&] { torch_leaf.masked_scatter_(mask, source); }));
}

TEST_P(TensorMaskingOpsTest, MaskedScatterGradients) {
  const at::Tensor x = random_torch({3, 4}, DType::Float32, 12, -2, 2);
  const at::Tensor mask = bools({3, 4}, 13);
  const at::Tensor source = random_torch({4, 4}, DType::Float32, 14, -2, 2);
  check({x, mask, source}, "masked_scatter, source larger than needed",
        [](const Ins& v) { return v[0].masked_scatter(v[1], v[2]); },
        [](const TIns& v) { return v[0].masked_scatter(v[1], v[2]); });
  check({random_torch({4}, DType::Float32, 15, -2, 2), mask, source}, "self broadcast to the mask",
        [](const Ins& v) { return v[0].masked_scatter(v[1], v[2]); },
        [](const TIns& v) { return v[0].masked_scatter(v[1], v[2]); });
  check({x, bools({4}, 16), random_torch({12}, DType::Float32, 17, -2, 2)}, "in place on a non-leaf, mask broadcast",
        [](const Ins& v) {
          Tensor y = v[0] * 2;
          y.masked_scatter_(v[1], v[2]);
          return y;
        },
        [](const TIns& v) {
          at::Tensor y = v[0] * 2;
          y.masked_scatter_(v[1], v[2]);
          return y;
        });
  check({random_torch({}, DType::Float64, 18, -2, 2), at::scalar_tensor(true, at::kBool),
         random_torch({2}, DType::Float64, 19, -2, 2)},
        "0-dim float64", [](const Ins& v) { return v[0].masked_scatter(v[1], v[2]); },
        [](const TIns& v) { return v[0].masked_scatter(v[1], v[2]); });
  check_second_order({x, mask, source}, "masked_scatter second order",
                     [](const Ins& v) { return v[0].masked_scatter(v[1], v[2]).square(); },
                     [](const TIns& v) { return v[0].masked_scatter(v[1], v[2]).square(); });
  Tensor a = from(x).requires_grad_();
  at::Tensor ta = x.clone().requires_grad_();
  EXPECT_EQ(a.masked_scatter(from(mask), from(source)).grad_fn()->name(),
            ta.masked_scatter(mask, source).grad_fn()->name());
}

// ---- fill_diagonal_ ----

TEST_P(TensorMaskingOpsTest, FillDiagonalShapesAndWrap) {
  const std::vector<std::vector<int64_t>> shapes = {{3, 3}, {3, 5}, {5, 3}, {7, 3}, {3, 7}, {8, 2}, {9, 3},
                                                    {4, 3}, {1, 1}, {0, 0}, {0, 3}, {3, 3, 3}, {2, 2, 2, 2}};
  for (DType dtype : kAllDTypes) {
    for (const auto& shape : shapes) {
      for (bool wrap : {false, true}) {
        SCOPED_TRACE(std::string(dtype_name(dtype)) + " " + to_string(shape) + (wrap ? " wrap" : ""));
        const at::Tensor t = random_torch(shape, dtype, 20);
        const Scalar value = dtype == DType::Bool ? Scalar(true) : is_floating_point(dtype) ? Scalar(2.5) : Scalar(7);
        Tensor ours = from(t);
        ours.fill_diagonal_(value, wrap);
        const at::Tensor expected = t.clone();
        if (dtype == DType::Bool) {
          expected.fill_diagonal_(true, wrap);
        } else if (is_floating_point(dtype)) {
          expected.fill_diagonal_(2.5, wrap);
        } else {
          expected.fill_diagonal_(7, wrap);
        }
        EXPECT_TENSOR_EQ(ours, expected);
      }
    }
  }
}

// Non-contiguous tensors, built the same way on both sides so strides and offsets agree.
TEST_P(TensorMaskingOpsTest, FillDiagonalNonContiguous) {
  const at::Tensor base = random_torch({3, 7}, DType::Float32, 21);
  const at::Tensor wide = random_torch({7, 6}, DType::Float32, 22);
  const at::Tensor cube = random_torch({3, 3, 6}, DType::Float32, 23);
  struct View {
    std::string name;
    std::function<Tensor(Tensor)> ours;
    std::function<at::Tensor(at::Tensor)> theirs;
    at::Tensor source;
  };
  const std::vector<View> views = {
      {"transposed", [](Tensor t) { return t.t(); }, [](at::Tensor t) { return t.t(); }, base},
      {"every other column", [](Tensor t) { return t.slice(1, 0, std::nullopt, 2); },
       [](at::Tensor t) { return t.slice(1, 0, c10::nullopt, 2); }, wide},
      {"offset rows", [](Tensor t) { return t.slice(0, 1, std::nullopt, 1).slice(1, 1, 4); },
       [](at::Tensor t) { return t.slice(0, 1).slice(1, 1, 4); }, wide},
      {"3-d slice", [](Tensor t) { return t.slice(2, 1, 4); }, [](at::Tensor t) { return t.slice(2, 1, 4); }, cube},
  };
  for (const View& v : views) {
    for (bool wrap : {false, true}) {
      SCOPED_TRACE(v.name + (wrap ? " wrap" : ""));
      Tensor storage = from(v.source);
      v.ours(storage).fill_diagonal_(-1.0, wrap);
      const at::Tensor expected = v.source.clone();
      v.theirs(expected).fill_diagonal_(-1.0, wrap);
      EXPECT_TENSOR_EQ(storage, expected);
    }
  }
}

TEST_P(TensorMaskingOpsTest, FillDiagonalErrorsAndGradients) {
  expect_error<Error>([&] { from(at::zeros({3})).fill_diagonal_(1); },
                      torch_error([] { at::zeros({3}).fill_diagonal_(1); }));
  expect_error<Error>([&] { from(at::scalar_tensor(1.0)).fill_diagonal_(1); },
                      torch_error([] { at::scalar_tensor(1.0).fill_diagonal_(1); }));
  expect_error<Error>([&] { from(at::zeros({3, 3, 4})).fill_diagonal_(1); },
                      torch_error([] { at::zeros({3, 3, 4}).fill_diagonal_(1); }));
  expect_error<Error>([&] { from(at::zeros({3, 3}, at::kChar)).fill_diagonal_(300); },
                      torch_error([] { at::zeros({3, 3}, at::kChar).fill_diagonal_(300); }));
  Tensor leaf = from(at::zeros({3, 3})).requires_grad_();
  at::Tensor torch_leaf = at::zeros({3, 3}).requires_grad_();
  expect_error<Error>([&] { leaf.fill_diagonal_(1); }, torch_error([&] { torch_leaf.fill_diagonal_(1); }));

  for (const auto& shape : std::vector<std::vector<int64_t>>{{3, 3}, {7, 3}, {2, 5}, {3, 3, 3}}) {
    for (bool wrap : {false, true}) {
      check({random_torch(shape, DType::Float32, 24, -2, 2)}, to_string(shape) + (wrap ? " wrap" : ""),
            [wrap](const Ins& v) {
              Tensor y = v[0] * 3;
              y.fill_diagonal_(0.5, wrap);
              return y * v[0];
            },
            [wrap](const TIns& v) {
              at::Tensor y = v[0] * 3;
              y.fill_diagonal_(0.5, wrap);
              return y * v[0];
            },
            {}, /*all_layouts=*/false);
    }
  }
  Tensor y = from(at::ones({3, 3})).requires_grad_() * 2;
  at::Tensor ty = at::ones({3, 3}).requires_grad_() * 2;
  y.fill_diagonal_(0);
  ty.fill_diagonal_(0);
  EXPECT_EQ(y.grad_fn()->name(), ty.grad_fn()->name());
}

// ---- nonzero_numpy and where(condition) ----

TEST_P(TensorMaskingOpsTest, NonzeroNumpyAndWhere) {
  const std::vector<std::vector<int64_t>> shapes = {{}, {7}, {3, 4}, {2, 3, 4}, {2, 0}, {0}};
  for (DType dtype : kAllDTypes) {
    for (const auto& shape : shapes) {
      SCOPED_TRACE(std::string(dtype_name(dtype)) + " " + to_string(shape));
      const at::Tensor t = random_torch(shape, DType::Int64, 25, -1, 2).to(torch_dtype(dtype));  // a third zeros
      const std::vector<at::Tensor> expected = t.nonzero_numpy();
      const std::vector<Tensor> ours = from(t).nonzero_numpy();
      const std::vector<Tensor> ours_where = where(from(t));
      const std::vector<at::Tensor> expected_where = at::where(t);
      ASSERT_EQ(ours.size(), expected.size());
      ASSERT_EQ(ours_where.size(), expected_where.size());
      for (size_t i = 0; i < ours.size(); ++i) {
        EXPECT_TENSOR_EQ(ours[i], expected[i]);
        EXPECT_TENSOR_EQ(ours_where[i], expected_where[i]);
      }
    }
  }
  for (bool value : {true, false}) {
    const at::Tensor scalar = at::scalar_tensor(value, at::kBool);
    const std::vector<Tensor> ours = where(from(scalar));
    ASSERT_EQ(ours.size(), 1u);
    EXPECT_TENSOR_EQ(ours[0], at::where(scalar)[0]);
  }
  const at::Tensor m = random_torch({4, 6}, DType::Int64, 27, -1, 2).to(at::kFloat);
  for (const auto& [name, x] : layouts_of(m, device)) {
    SCOPED_TRACE(name);
    const std::vector<Tensor> ours = x.nonzero_numpy();
    const std::vector<at::Tensor> expected = m.nonzero_numpy();
    ASSERT_EQ(ours.size(), expected.size());
    for (size_t i = 0; i < ours.size(); ++i) EXPECT_TENSOR_EQ(ours[i], expected[i]);
  }
}

INSTANTIATE_TEST_SUITE_P(Backends, TensorMaskingOpsTest, testing::Values("vulkan", "cuda"), backend_test_name);

}  // namespace
}  // namespace ember::test
