// Views and creation against LibTorch: sizes, strides, storage offsets and values must all agree, and
// views must share storage.
#include <torch/csrc/autograd/function.h>

#include <array>

#include "tests/oracle.h"

namespace ember::test {
namespace {

class ViewsTest : public BackendTest {
 protected:
  // Values and geometry both match.
  void expect_same_view(const Tensor& e, const at::Tensor& t) {
    EXPECT_EQ(to_string(e.sizes()), to_string(std::vector<int64_t>(t.sizes().begin(), t.sizes().end())));
    EXPECT_EQ(to_string(e.strides()), to_string(std::vector<int64_t>(t.strides().begin(), t.strides().end())));
    EXPECT_EQ(e.storage_offset(), t.storage_offset());
    EXPECT_EQ(e.is_contiguous(), t.is_contiguous());
    expect_tensor_eq(e, t);
  }
  Pair arange_pair(std::vector<int64_t> sizes) {
    int64_t n = 1;
    for (int64_t s : sizes) n *= s;
    at::Tensor t = at::arange(n, at::kFloat).reshape(sizes);
    return {ember::arange(n, TensorOptions().dtype(kFloat).device(device)).reshape(sizes), t, "arange"};
  }
};

TEST_P(ViewsTest, ViewOpsMatchLibTorchGeometryAndShareStorage) {
  Pair p = arange_pair({2, 3, 4});
  const Tensor& e = p.ember;
  const at::Tensor& t = p.torch;
  expect_same_view(e.view({4, 6}), t.view({4, 6}));
  expect_same_view(e.view({-1, 8}), t.view({-1, 8}));
  expect_same_view(e.reshape({-1}), t.reshape({-1}));
  expect_same_view(e.permute({2, 0, 1}), t.permute({2, 0, 1}));
  expect_same_view(e.transpose(0, 2), t.transpose(0, 2));
  expect_same_view(e.mT(), t.mT());
  expect_same_view(e.select(1, 0).t(), t.select(1, 0).t());
  expect_same_view(e.T(), t.permute({2, 1, 0}));
  expect_same_view(e.unsqueeze(1), t.unsqueeze(1));
  expect_same_view(e.unsqueeze(-1), t.unsqueeze(-1));
  expect_same_view(e.unsqueeze(1).expand({2, 5, 3, 4}), t.unsqueeze(1).expand({2, 5, 3, 4}));
  expect_same_view(e.select(2, 0).unsqueeze(2).expand_as(e), t.select(2, 0).unsqueeze(2).expand_as(t));
  expect_same_view(e.narrow(2, 1, 2), t.narrow(2, 1, 2));
  expect_same_view(e.narrow(1, -2, 2), t.narrow(1, -2, 2));
  expect_same_view(e.slice(2, 1, std::nullopt, 2), t.slice(2, 1, c10::nullopt, 2));
  expect_same_view(e.slice(1, -2), t.slice(1, -2));
  expect_same_view(e.select(0, -1), t.select(0, -1));
  expect_same_view(e.flatten(1), t.flatten(1));
  expect_same_view(e.flatten(), t.flatten());
  expect_same_view(e.unflatten(2, {2, 2}), t.unflatten(2, {2, 2}));
  expect_same_view(e.as_strided({3, 3}, {1, 2}, 1), t.as_strided({3, 3}, {1, 2}, 1));
  expect_same_view(e.movedim(0, 2), t.movedim(0, 2));
  expect_same_view(e.movedim({1, 2}, {0, 1}), t.movedim({1, 2}, {0, 1}));
  expect_same_view(e.unfold(2, 2, 1), t.unfold(2, 2, 1));
  expect_same_view(e.unfold(2, 2, 2), t.unfold(2, 2, 2));
  expect_same_view(e.diagonal(), t.diagonal());
  expect_same_view(e.diagonal(1, 1, 2), t.diagonal(1, 1, 2));
  expect_same_view(e.diagonal(-1, 2, 1), t.diagonal(-1, 2, 1));
  expect_same_view(e.squeeze(), t.squeeze());
  Pair ones = arange_pair({2, 1, 2, 1, 2});
  expect_same_view(ones.ember.squeeze(), ones.torch.squeeze());
  expect_same_view(ones.ember.squeeze(0), ones.torch.squeeze(0));
  expect_same_view(ones.ember.squeeze(1), ones.torch.squeeze(1));
  expect_same_view(ones.ember.squeeze({1, 3}), ones.torch.squeeze(1).squeeze(2));

  const auto check_parts = [&](const std::vector<Tensor>& es, const std::vector<at::Tensor>& ts) {
    ASSERT_EQ(es.size(), ts.size());
    for (size_t i = 0; i < es.size(); ++i) expect_same_view(es[i], ts[i]);
  };
  check_parts(e.split(2, 2), t.split(2, 2));
  check_parts(e.split({1, 3}, 2), t.split_with_sizes({1, 3}, 2));
  check_parts(e.chunk(2, 1), t.chunk(2, 1));
  check_parts(e.unbind(1), t.unbind(1));
  Pair eleven = arange_pair({11});
  check_parts(eleven.ember.chunk(6), eleven.torch.chunk(6));

  // Views share storage: a write through one is seen by the base.
  Tensor base = e.clone();
  base.select(1, 1).fill_(-7);
  at::Tensor tb = t.clone();
  tb.select(1, 1).fill_(-7);
  expect_tensor_eq(base, tb);
  base.transpose(0, 2).narrow(0, 0, 1).mul_(2);
  tb.transpose(0, 2).narrow(0, 0, 1).mul_(2);
  expect_tensor_eq(base, tb);
}

TEST_P(ViewsTest, ReshapeCopiesOnlyWhenItMust) {
  Pair p = arange_pair({4, 6});
  const Tensor transposed = p.ember.t();
  const Tensor reshaped = transposed.reshape({-1});
  EXPECT_NE(reshaped.storage().get(), p.ember.storage().get());
  expect_tensor_eq(reshaped, p.torch.t().reshape({-1}));
  EXPECT_EQ(p.ember.reshape({6, 4}).storage().get(), p.ember.storage().get());
  EXPECT_FALSE(transposed.is_contiguous());
  EXPECT_TRUE(transposed.contiguous().is_contiguous());
}

TEST_P(ViewsTest, ViewErrorsUsePyTorchMessages) {
  Pair p = arange_pair({2, 3, 4});
  auto message = [](const std::function<void()>& f) {
    try {
      f();
    } catch (const Error& e) {
      return std::string(e.what());
    }
    return std::string("no error");
  };
  EXPECT_EQ(message([&] { (void)p.ember.transpose(0, 1).view({-1}); }),
            "view size is not compatible with input tensor's size and stride (at least one dimension spans "
            "across two contiguous subspaces). Use .reshape(...) instead.");
  EXPECT_EQ(message([&] { (void)p.ember.view({5, 5}); }), "shape '[5, 5]' is invalid for input of size 24");
  EXPECT_EQ(message([&] { (void)p.ember.view({-1, -1}); }), "only one dimension can be inferred");
  EXPECT_EQ(message([&] { (void)p.ember.select(1, 3); }), torch_error([&] { (void)p.torch.select(1, 3); }));
  EXPECT_EQ(message([&] { (void)p.ember.select(0, -3); }),
            "select(): index -3 out of range for tensor of size [2, 3, 4] at dimension 0");
  EXPECT_EQ(message([&] { (void)p.ember.transpose(0, 3); }),
            "Dimension out of range (expected to be in range of [-3, 2], but got 3)");
  EXPECT_EQ(message([&] { (void)p.ember.expand({3, 3, 4}); }),
            "The expanded size of the tensor (3) must match the existing size (2) at non-singleton dimension 0.  "
            "Target sizes: [3, 3, 4].  Tensor sizes: [2, 3, 4]");
  EXPECT_EQ(message([&] { (void)p.ember[5]; }), torch_error([&] { (void)p.torch[5]; }));
}

// narrow_copy: narrow's elements in new contiguous memory, with LibTorch 1.13's refusal of a backward.
TEST_P(ViewsTest, NarrowCopyCopiesAndHasNoDerivative) {
  Pair p = arange_pair({4, 6});
  Tensor copy = p.ember.t().narrow_copy(0, 1, 3);
  const at::Tensor expected = p.torch.t().narrow_copy(0, 1, 3);
  expect_same_view(copy, expected);
  EXPECT_NE(copy.storage().get(), p.ember.storage().get());
  expect_same_view(narrow_copy(p.ember, -1, -2, 2), at::narrow_copy(p.torch, -1, -2, 2));
  expect_same_view(p.ember.narrow_copy(0, 4, 0), p.torch.narrow_copy(0, 4, 0));
  p.ember.fill_(7);
  expect_tensor_eq(copy, expected);

  const Tensor x = p.ember.detach().requires_grad_(true);
  const at::Tensor t = p.torch.detach().clone().requires_grad_(true);
  const Tensor y = x.narrow_copy(1, 2, 3);
  const at::Tensor u = t.narrow_copy(1, 2, 3);
  ASSERT_TRUE(y.grad_fn());
  EXPECT_EQ(y.grad_fn()->name(), u.grad_fn()->name());
  try {
    y.sum().backward();
    ADD_FAILURE() << "backward through narrow_copy did not throw";
  } catch (const Error& e) {
    EXPECT_EQ(std::string(e.what()), torch_error([&] { u.sum().backward(); }));
  }
  // narrow's checks and messages (LibTorch's own for a dim out of range is an internal assertion).
  for (const auto& [dim, start, length] : std::vector<std::array<int64_t, 3>>{{0, 3, 2}, {0, -5, 1}, {1, 0, -1}}) {
    SCOPED_TRACE(testing::Message() << dim << " " << start << " " << length);
    EXPECT_EQ(torch_error([&] { (void)p.ember.narrow_copy(dim, start, length); }),
              torch_error([&] { (void)p.torch.narrow_copy(dim, start, length); }));
  }
  expect_error<IndexError>([&] { (void)p.ember.narrow_copy(2, 0, 1); },
                           "Dimension out of range (expected to be in range of [-2, 1], but got 2)");
  const Tensor scalar = p.ember.sum();
  EXPECT_EQ(torch_error([&] { (void)scalar.narrow_copy(0, 0, 1); }),
            torch_error([&] { (void)p.torch.sum().narrow_copy(0, 0, 1); }));
}

TEST_P(ViewsTest, DevicesMustMatch) {
  // A second device is faked: only the device identity matters to the check.
  class OtherDevice final : public Device {
   public:
    explicit OtherDevice(const DeviceInfo& like) { info_ = like; info_.index = 7; }
    std::shared_ptr<Stream> default_stream() override { return nullptr; }
    std::shared_ptr<Stream> create_stream() override { return nullptr; }
    Kernels& kernels() override { throw Error("no kernels"); }
    void synchronize() override {}
  };
  Tensor a = ember::ones({2}, TensorOptions().device(device));
  Tensor b = a.detach();
  auto moved = std::make_shared<Storage>(*b.storage());
  moved->device = std::make_shared<OtherDevice>(device->info());
  b.impl().storage = moved;
  try {
    (void)(a + b);
    FAIL();
  } catch (const Error& e) {
    EXPECT_EQ(std::string(e.what()), "Expected all tensors to be on the same device, but found at least two devices, " +
                                         device->spec() + " and " + moved->device->spec() + "!");
  }
}

TEST_P(ViewsTest, CreationMatchesLibTorch) {
  const auto opts = TensorOptions().device(device);
  expect_tensor_eq(ember::zeros({2, 3}, opts), at::zeros({2, 3}));
  expect_tensor_eq(ember::ones({4}, opts.dtype(kInt32)), at::ones({4}, at::kInt));
  expect_tensor_eq(ember::full({2, 3}, 3.141592, opts), at::full({2, 3}, 3.141592));
  expect_tensor_eq(ember::full({2}, 7, opts), at::full({2}, 7, at::kLong));
  expect_tensor_eq(ember::full({2}, true, opts), at::full({2}, true, at::kBool));
  expect_tensor_eq(ember::arange(5, opts), at::arange(5));
  expect_tensor_eq(ember::arange(1, 4, opts), at::arange(1, 4));
  expect_tensor_eq(ember::arange(1, 2.5, 0.5, opts), at::arange(1, 2.5, 0.5));
  expect_tensor_eq(ember::arange(10, 0, -3, opts), at::arange(10, 0, -3));
  expect_tensor_eq(ember::arange(0, 1, 0.1, opts), at::arange(0, 1, 0.1));
  expect_tensor_eq(ember::linspace(3, 10, 5, opts), at::linspace(3, 10, 5));
  expect_tensor_eq(ember::linspace(-10, 10, 1, opts), at::linspace(-10, 10, 1));
  expect_tensor_eq(ember::linspace(0, 1, 1000, opts), at::linspace(0, 1, 1000));
  expect_tensor_eq(ember::linspace(0, 1, 0, opts), at::linspace(0, 1, 0));
  expect_tensor_eq(ember::eye(3, opts), at::eye(3));
  expect_tensor_eq(ember::eye(2, 4, opts.dtype(kInt64)), at::eye(2, 4, at::kLong));
  expect_tensor_eq(ember::tensor({{1, 2}, {3, 4}}, opts), at::tensor({1, 2, 3, 4}, at::kLong).reshape({2, 2}));
  expect_tensor_eq(ember::tensor({1.2, 3.0}, opts), at::tensor({1.2f, 3.0f}));
  expect_tensor_eq(ember::tensor({true, false}, opts), at::tensor({1, 0}, at::kInt).to(at::kBool));
  expect_tensor_eq(ember::tensor(3.14159, opts), at::scalar_tensor(3.14159, at::kFloat));
  expect_tensor_eq(ember::tensor({}, opts), at::empty({0}));
  Tensor like = ember::ones({2, 5}, opts.dtype(kInt8));
  EXPECT_EQ(ember::empty_like(like).dtype(), kInt8);
  expect_tensor_eq(ember::zeros_like(like), at::zeros({2, 5}, at::kChar));
  expect_tensor_eq(ember::full_like(like, 9), at::full({2, 5}, 9, at::kChar));
  expect_tensor_eq(ember::empty_strided({2, 3}, {1, 2}, opts).fill_(1), at::ones({2, 3}));
  EXPECT_EQ(to_string(ember::empty_strided({2, 3}, {1, 2}, opts).strides()), "[1, 2]");
  const std::vector<float> host = {1, 2, 3, 4, 5, 6};
  expect_tensor_eq(ember::from_blob(host.data(), {2, 3}, opts), at::tensor({1.f, 2.f, 3.f, 4.f, 5.f, 6.f}).reshape({2, 3}));
}

TEST_P(ViewsTest, ConversionsAndHostAccess) {
  const auto opts = TensorOptions().device(device);
  Tensor x = ember::tensor({{1.5, -2.25}, {3.75, 1e6}}, opts);
  EXPECT_EQ(x.to_vector<float>(), (std::vector<float>{1.5f, -2.25f, 3.75f, 1e6f}));
  EXPECT_EQ(x.t().to_vector<double>(), (std::vector<double>{1.5, 3.75, -2.25, 1e6}));
  EXPECT_EQ(x.to(kInt32).to_vector<int32_t>(), (std::vector<int32_t>{1, -2, 3, 1000000}));
  EXPECT_EQ(x.to(kBool).to_vector<bool>(), (std::vector<bool>{true, true, true, true}));
  EXPECT_EQ(x[1][0].item<double>(), 3.75);
  at::Tensor cast_source = at::randn({64}, at::kDouble) * 100;
  for (DType to : kAllDTypes) {
    if (!device->supports(to)) continue;
    SCOPED_TRACE(std::string(dtype_name(to)));
    for (DType from : {DType::Float32, DType::Float64, DType::Int64, DType::Float16, DType::Bool}) {
      if (!device->supports(from)) continue;
      at::Tensor source = cast_source.to(torch_dtype(from));
      expect_tensor_eq(from_torch(source, device).to(to), source.to(torch_dtype(to)), 0, 0);
    }
  }
  try {
    (void)x.item<double>();
    FAIL();
  } catch (const Error& e) {
    EXPECT_STREQ(e.what(), "a Tensor with 4 elements cannot be converted to Scalar");
  }
}

INSTANTIATE_TEST_SUITE_P(Backends, ViewsTest, testing::Values("vulkan", "cuda"), backend_test_name);

}  // namespace
}  // namespace ember::test
