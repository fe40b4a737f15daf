// logspace, the new_* methods, narrow with a tensor start, is_nonzero and Slice with None against
// LibTorch: dtypes, empty and one-step sequences, options that override the inherited dtype, PyTorch's
// error messages.
#include <torch/csrc/autograd/function.h>

#include "tests/autograd_oracle.h"

namespace ember::test {
namespace {

using ember::indexing::None;
using ember::indexing::Slice;
namespace ti = at::indexing;

class TensorCreationOpsTest : public GradTest {
 protected:
  Tensor from(const at::Tensor& t) { return from_torch(t, device); }
  TensorOptions on_device(DType dtype) const { return TensorOptions().dtype(dtype).device(device); }
};

struct LogspaceCase {
  double start, end;
  int64_t steps;
  double base;
};

TEST_P(TensorCreationOpsTest, LogspaceMatchesLibTorch) {
  const std::vector<LogspaceCase> cases = {{0, 3, 4, 10},   {0, 3, 4, 2},     {3, 0, 4, 0.5},  {-2, 2, 5, -2},
                                           {0, 1, 7, 10},   {0.5, 1.5, 3, 10}, {0, 10, 11, 2}, {0, 5, 6, 3},
                                           {0, 2, 5, 10},   {-1.3, 2.7, 9, 1.5}, {1, 1, 3, 10}, {0, 3, 0, 10},
                                           {0.5, 3, 1, 10}, {2, -2, 2, 10}};
  for (DType dtype : {DType::Float32, DType::Float64, DType::BFloat16, DType::Int64, DType::Int32, DType::Int16}) {
    SCOPED_TRACE(std::string(dtype_name(dtype)));
    for (const LogspaceCase& c : cases) {
      SCOPED_TRACE(std::to_string(c.start) + " " + std::to_string(c.end) + " " + std::to_string(c.steps) + " " +
                   std::to_string(c.base));
      EXPECT_TENSOR_EQ(logspace(c.start, c.end, c.steps, c.base, on_device(dtype)),
                       at::logspace(c.start, c.end, c.steps, c.base, at::TensorOptions().dtype(torch_dtype(dtype))));
    }
  }
  // Integer bounds, powers that fit 8 bits, and the default dtype.
  EXPECT_TENSOR_EQ(logspace(0, 2, 3, 10, on_device(kInt8)), at::logspace(0, 2, 3, 10, at::kChar));
  EXPECT_TENSOR_EQ(logspace(0, 7, 8, 2, on_device(kUInt8)), at::logspace(0, 7, 8, 2, at::kByte));
  EXPECT_TENSOR_EQ(logspace(2, 3, 2, 10, on_device(kInt8)), at::logspace(2, 3, 2, 10, at::kChar));
  EXPECT_TENSOR_EQ(logspace(-1, 1, 5, 10, TensorOptions().device(device)), at::logspace(-1, 1, 5));
  // One step is base ** start, in any dtype, bool and float16 included.
  EXPECT_TENSOR_EQ(logspace(0, 3, 1, 10, on_device(kBool)), at::logspace(0, 3, 1, 10, at::kBool));
  EXPECT_TENSOR_EQ(logspace(1, 3, 1, 10, on_device(kFloat16)), at::logspace(1, 3, 1, 10, at::kHalf));
  EXPECT_TENSOR_EQ(logspace(0, 3, 0, 10, on_device(kFloat16)), at::logspace(0, 3, 0, 10, at::kHalf));
  const Tensor leaf = logspace(0, 1, 3, 10, on_device(kFloat32).requires_grad(true));
  EXPECT_TRUE(leaf.requires_grad());
  EXPECT_TRUE(leaf.is_leaf());
}

TEST_P(TensorCreationOpsTest, LogspaceErrors) {
  expect_error<Error>([&] { logspace(0, 3, -1, 10, on_device(kFloat32)); }, "number of steps must be non-negative");
  expect_error<Error>([&] { logspace(0, 3, 4, 10, on_device(kBool)); }, "\"logspace_cpu\" not implemented for 'Bool'");
  expect_error<Error>([&] { logspace(0, 3, 4, 10, on_device(kFloat16)); },
                      "\"logspace_cpu\" not implemented for 'Half'");
  expect_error<Error>([&] { logspace(0, 300, 4, 10, on_device(kInt8)); },
                      "value cannot be converted to type int8_t without overflow");
  expect_error<Error>([&] { logspace(3, 4, 1, 10, on_device(kInt8)); },
                      "value cannot be converted to type int8_t without overflow");
}

TEST_P(TensorCreationOpsTest, NewTensorsInheritDtypeAndDevice) {
  for (DType dtype : {DType::Int8, DType::Float16, DType::Float32, DType::Int64, DType::Bool, DType::Float64}) {
    SCOPED_TRACE(std::string(dtype_name(dtype)));
    const at::Tensor t = random_torch({2, 3}, dtype, 1);
    const Tensor x = from(t).t();  // a view: the dtype and device are what count
    EXPECT_TENSOR_EQ(x.new_zeros({3, 2}), t.new_zeros({3, 2}));
    EXPECT_TENSOR_EQ(x.new_ones({4}), t.new_ones({4}));
    EXPECT_TENSOR_EQ(x.new_ones({}), t.new_ones({}));
    EXPECT_TENSOR_EQ(x.new_full({2, 2}, 1), t.new_full({2, 2}, 1));
    EXPECT_TENSOR_EQ(x.new_zeros({0, 3}), t.new_zeros({0, 3}));
    const Tensor e = x.new_empty({5, 0, 2});
    EXPECT_EQ(to_string(e.sizes()), "[5, 0, 2]");
    EXPECT_EQ(e.dtype(), dtype);
    EXPECT_EQ(e.device(), x.device());
    EXPECT_EQ(x.new_empty({3}).dtype(), dtype);
    EXPECT_EQ(x.new_zeros({2}).device(), x.device());
    EXPECT_FALSE(x.new_ones({2}).requires_grad());
    // The data converts to this dtype instead of deciding it.
    EXPECT_TENSOR_EQ(x.new_tensor({{1.5, 0}, {-2.75, 1}}),
                     at::tensor({1.5, 0., -2.75, 1.}).reshape({2, 2}).to(t.scalar_type()));
    EXPECT_TENSOR_EQ(x.new_tensor({1, 0, 1}), at::tensor({1, 0, 1}, at::kLong).to(t.scalar_type()));
  }
  const at::Tensor bytes = random_torch({2}, DType::Int8, 2);
  const Tensor b = from(bytes);
  EXPECT_TENSOR_EQ(b.new_full({3}, 1.9), bytes.new_full({3}, 1.9));
  EXPECT_TENSOR_EQ(b.new_full({3}, -7), bytes.new_full({3}, -7));
  EXPECT_TENSOR_EQ(b.new_zeros({2}, on_device(kFloat64)), bytes.new_zeros({2}, at::kDouble));
  EXPECT_TENSOR_EQ(b.new_ones({2}, kInt32), bytes.new_ones({2}, at::kInt));
  EXPECT_TENSOR_EQ(b.new_full({2}, 2.5, kFloat32), bytes.new_full({2}, 2.5, at::kFloat));
  EXPECT_TENSOR_EQ(b.new_tensor({2.5, 3}, kFloat32), at::tensor({2.5, 3.}, at::kFloat));
  EXPECT_EQ(b.new_empty({1}, kInt16).dtype(), DType::Int16);
  const Tensor grad_leaf = b.new_zeros({2}, TensorOptions(kFloat32).requires_grad(true));
  EXPECT_TRUE(grad_leaf.requires_grad() && grad_leaf.is_leaf());
  expect_error<Error>([&] { b.new_full({2}, 1000); }, "value cannot be converted to type int8_t without overflow");
  expect_error<Error>([&] { b.new_zeros({-1, 2}); }, "Trying to create tensor with negative dimension -1: [-1, 2]");
}

TEST_P(TensorCreationOpsTest, NarrowWithATensorStart) {
  const at::Tensor t = random_torch({4, 6}, DType::Float32, 3);
  for (const Layout& x : layouts_of(t, device)) {
    SCOPED_TRACE(x.name);
    for (int64_t start : {0, 2, -3, 6, -6}) {
      SCOPED_TRACE(start);
      for (at::ScalarType type : {at::kLong, at::kInt, at::kChar, at::kByte}) {
        if (type == at::kByte && start < 0) continue;
        const at::Tensor s = at::scalar_tensor(start, type);
        const int64_t length = start == 6 ? 0 : 1;
        const Tensor part = x.tensor.narrow(1, from(s), length);
        EXPECT_TENSOR_EQ(part, t.narrow(1, s, length));
        EXPECT_EQ(part.storage().get(), x.tensor.storage().get());
      }
    }
    EXPECT_TENSOR_EQ(x.tensor.narrow(-2, from(at::scalar_tensor(1, at::kLong)), 3),
                     t.narrow(-2, at::scalar_tensor(1, at::kLong), 3));
  }
  const Tensor x = from(t);
  const Tensor s = full({}, 1.0, TensorOptions().device(device));
  const std::string not_a_start = "start must be an 0-dim integral Tensor.";
  expect_error<Error>([&] { x.narrow(0, from(at::tensor({1}, at::kLong)), 1); }, not_a_start);
  expect_error<Error>([&] { x.narrow(0, from(at::scalar_tensor(1.0)), 1); }, not_a_start);
  expect_error<Error>([&] { x.narrow(0, from(at::scalar_tensor(true)), 1); }, not_a_start);
  expect_error<IndexError>([&] { x.narrow(1, from(at::scalar_tensor(7, at::kLong)), 0); },
                           "Dimension out of range (expected to be in range of [-6, 5], but got 7)");
  expect_error<IndexError>([&] { x.narrow(1, from(at::scalar_tensor(-7, at::kLong)), 1); },
                           "Dimension out of range (expected to be in range of [-6, 5], but got -7)");
  expect_error<Error>([&] { x.narrow(1, from(at::scalar_tensor(-2, at::kLong)), 3); },
                      "start (4) + length (3) exceeds dimension size (6).");
  expect_error<Error>([&] { x.narrow(1, from(at::scalar_tensor(2, at::kLong)), -1); },
                      "start (2) + length (-1) exceeds dimension size (6).");
  expect_error<Error>([&] { s.narrow(0, from(at::scalar_tensor(0, at::kLong)), 1); },
                      "narrow() cannot be applied to a 0-dim tensor.");
  check({t}, "narrow with a tensor start",
        [&](const Ins& v) { return v[0].narrow(1, from(at::scalar_tensor(-4, at::kLong)), 3); },
        [](const TIns& v) { return v[0].narrow(1, at::scalar_tensor(-4, at::kLong), 3); });
  const at::Tensor leaf = t.clone().requires_grad_();
  const Tensor e = from(t).requires_grad_();
  EXPECT_EQ(e.narrow(0, from(at::scalar_tensor(1, at::kLong)), 2).grad_fn()->name(),
            leaf.narrow(0, at::scalar_tensor(1, at::kLong), 2).grad_fn()->name());
}

TEST_P(TensorCreationOpsTest, IsNonzero) {
  const std::vector<at::Tensor> singles = {
      at::scalar_tensor(0.0),          at::scalar_tensor(-0.0),        at::scalar_tensor(0.25),
      at::scalar_tensor(NAN),          at::scalar_tensor(3, at::kChar), at::scalar_tensor(0, at::kLong),
      at::scalar_tensor(true),         at::scalar_tensor(false),        at::full({1, 1}, 7, at::kInt),
      at::full({1}, 0.0, at::kHalf),   at::full({1}, 1e-30, at::kDouble)};
  for (const at::Tensor& t : singles) {
    SCOPED_TRACE(t.toString());
    EXPECT_EQ(from(t).is_nonzero(), t.is_nonzero());
  }
  const at::Tensor one = at::tensor({0.0, 2.0});
  EXPECT_EQ(from(one).narrow(0, 1, 1).is_nonzero(), one.narrow(0, 1, 1).is_nonzero());
  EXPECT_EQ(from(one).narrow(0, 0, 1).expand({1, 1}).is_nonzero(), one.narrow(0, 0, 1).expand({1, 1}).is_nonzero());
  expect_error<Error>([&] { zeros({0}, TensorOptions().device(device)).is_nonzero(); },
                      "Boolean value of Tensor with no values is ambiguous");
  expect_error<Error>([&] { zeros({2}, TensorOptions().device(device)).is_nonzero(); },
                      "Boolean value of Tensor with more than one value is ambiguous");
  expect_error<Error>([&] { zeros({1, 0, 3}, TensorOptions().device(device)).is_nonzero(); },
                      "Boolean value of Tensor with no values is ambiguous");
}

TEST_P(TensorCreationOpsTest, SliceBoundsSpelledNone) {
  const at::Tensor t = random_torch({5, 6}, DType::Float32, 4);
  for (const Layout& x : layouts_of(t, device)) {
    SCOPED_TRACE(x.name);
    const Tensor& e = x.tensor;
    EXPECT_TENSOR_EQ(e.index({Slice(None, 3)}), t.index({ti::Slice(ti::None, 3)}));
    EXPECT_TENSOR_EQ(e.index({Slice(2, None)}), t.index({ti::Slice(2, ti::None)}));
    EXPECT_TENSOR_EQ(e.index({Slice(None, None, 2)}), t.index({ti::Slice(ti::None, ti::None, 2)}));
    EXPECT_TENSOR_EQ(e.index({Slice(None, -1), Slice(1, None, 3)}),
                     t.index({ti::Slice(ti::None, -1), ti::Slice(1, ti::None, 3)}));
    EXPECT_TENSOR_EQ(e.index({Slice(std::nullopt, 2), Slice(None)}),
                     t.index({ti::Slice(ti::None, 2), ti::Slice(ti::None)}));
    EXPECT_TENSOR_EQ(e.index({ember::indexing::Ellipsis, Slice(ember::indexing::None, -2)}),
                     t.index({ti::Ellipsis, ti::Slice(ti::None, -2)}));
    EXPECT_TENSOR_EQ(e.index({None, Slice(1, None)}), t.index({ti::None, ti::Slice(1, ti::None)}));
    EXPECT_TENSOR_EQ(e.slice(1, None, 4), t.slice(1, c10::nullopt, 4));
    Tensor copy = e.clone();
    at::Tensor copy_torch = t.clone();
    copy.index_put_({Slice(None, 2), Slice(3, None)}, 9.0);
    copy_torch.index_put_({ti::Slice(ti::None, 2), ti::Slice(3, ti::None)}, 9.0);
    EXPECT_TENSOR_EQ(copy, copy_torch);
  }
}

INSTANTIATE_TEST_SUITE_P(Backends, TensorCreationOpsTest, testing::Values("vulkan", "cuda"), backend_test_name);

}  // namespace
}  // namespace ember::test
