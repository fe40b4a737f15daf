// The upsample kernels against LibTorch's ATen upsample ops and their backward functions: every rule
// (nearest, nearest-exact, linear with and without align_corners), every floating dtype and uint8
// (nearest), up- and downsampling by sizes and by given scales, input and output views with any strides
// (transposed planes, transposed spatial dims, broadcast planes, several unmerged plane dims), and the
// rejections of the argument checks.
#include <ATen/ATen.h>

#include <cmath>
#include <optional>
#include <string>
#include <vector>

#include "runtime/error.h"
#include "runtime/kernels/upsample.h"
#include "tests/oracle.h"

namespace ember::test {
namespace {

class UpsampleKernelsTest : public BackendTest {
 protected:
  UpsampleKernels& kernels() { return device->kernels().get<UpsampleKernels>(); }
};

struct Case {
  std::string name;
  UpsampleGeometry geometry;
  int64_t out_h, out_w;
};

c10::optional<double> opt(const std::optional<double>& value) {
  return value ? c10::optional<double>(*value) : c10::nullopt;
}

std::vector<Case> cases() {
  std::vector<Case> all;
  for (UpsampleOp op : {UpsampleOp::Nearest, UpsampleOp::NearestExact, UpsampleOp::Linear}) {
    const std::string name(upsample_op_name(op));
    for (bool align : {false, true}) {
      if (align && op != UpsampleOp::Linear) continue;
      const std::string suffix = align ? " align_corners" : "";
      all.push_back({name + suffix + " up", {op, align, {}}, 13, 11});
      all.push_back({name + suffix + " down", {op, align, {}}, 3, 2});
      all.push_back({name + suffix + " same and double", {op, align, {}}, 9, 16});
      all.push_back({name + suffix + " to one", {op, align, {}}, 1, 1});
      if (!align) all.push_back({name + " by scales", {op, false, {{1.7, 0.45}}}, 15, 3});
      if (!align) all.push_back({name + " equal size by a scale", {op, false, {{1.05, 2.02}}}, 9, 16});
    }
  }
  return all;
}

at::Tensor torch_forward(const Case& c, const at::Tensor& x) {
  const UpsampleGeometry& g = c.geometry;
  switch (g.op) {
    case UpsampleOp::Nearest:
      return at::upsample_nearest2d(x, {c.out_h, c.out_w}, opt(g.scales[0]), opt(g.scales[1]));
    case UpsampleOp::NearestExact:
      return at::_upsample_nearest_exact2d(x, {c.out_h, c.out_w}, opt(g.scales[0]), opt(g.scales[1]));
    case UpsampleOp::Linear:
      return at::upsample_bilinear2d(x, {c.out_h, c.out_w}, g.align_corners, opt(g.scales[0]), opt(g.scales[1]));
  }
  return {};
}

at::Tensor torch_backward(const Case& c, const at::Tensor& grad, at::IntArrayRef in_sizes) {
  const UpsampleGeometry& g = c.geometry;
  switch (g.op) {
    case UpsampleOp::Nearest:
      return at::upsample_nearest2d_backward(grad, {c.out_h, c.out_w}, in_sizes, opt(g.scales[0]), opt(g.scales[1]));
    case UpsampleOp::NearestExact:
      return at::_upsample_nearest_exact2d_backward(grad, {c.out_h, c.out_w}, in_sizes, opt(g.scales[0]),
                                                    opt(g.scales[1]));
    case UpsampleOp::Linear:
      return at::upsample_bilinear2d_backward(grad, {c.out_h, c.out_w}, in_sizes, g.align_corners, opt(g.scales[0]),
                                              opt(g.scales[1]));
  }
  return {};
}

// LibTorch's CPU forward of contiguous inputs has no shortcuts for equal and doubled sizes; its backward
// has them (the geometry's default).
UpsampleGeometry forward_geometry(const Case& c) {
  UpsampleGeometry g = c.geometry;
  g.nearest_shortcuts = false;
  return g;
}

struct Layout {
  std::string name;
  at::Tensor storage;
  at::Tensor view;
};

// values: 2 x 3 x 9 x 8.
std::vector<Layout> layouts(const at::Tensor& values) {
  std::vector<Layout> all;
  all.push_back({"contiguous", values, values});
  const at::Tensor planes = values.permute({1, 0, 2, 3}).contiguous();
  all.push_back({"transposed planes", planes, planes.permute({1, 0, 2, 3})});
  const at::Tensor spatial = values.transpose(2, 3).contiguous();
  all.push_back({"transposed spatial", spatial, spatial.transpose(2, 3)});
  const at::Tensor first = values.narrow(0, 0, 1).contiguous();
  all.push_back({"broadcast planes", first, first.expand({2, 3, 9, 8})});
  const at::Tensor five = values.reshape({2, 3, 1, 9, 8}).expand({2, 3, 2, 9, 8}).contiguous();
  const at::Tensor five_storage = five.permute({2, 0, 1, 3, 4}).contiguous();
  all.push_back({"three plane dims", five_storage, five_storage.permute({1, 2, 0, 3, 4})});
  return all;
}

at::Tensor as_batch(const at::Tensor& t) {
  return t.dim() > 4 ? t.reshape({-1, t.size(-3), t.size(-2), t.size(-1)}) : t;
}

void expect_close(const at::Tensor& actual, const at::Tensor& expected, DType dtype, const std::string& what) {
  const Tolerance tol = tolerance_for(dtype);
  ASSERT_EQ(actual.sizes(), expected.sizes()) << what;
  EXPECT_TRUE(at::allclose(actual.to(at::kDouble), expected.to(at::kDouble), tol.rtol, tol.atol, true))
      << what << "\nactual:\n" << actual << "\nexpected:\n" << expected;
}

TEST_P(UpsampleKernelsTest, EveryRuleDtypeAndLayoutMatchesLibTorch) {
  at::Generator gen = at::detail::createCPUGenerator(5);
  for (DType dtype : {DType::Float32, DType::Float16, DType::BFloat16, DType::Float64, DType::UInt8}) {
    if (!device->supports(dtype)) continue;
    const at::Tensor values = dtype == DType::UInt8 ? at::randint(0, 256, {2, 3, 9, 8}, gen).to(at::kByte)
                                                    : at::randn({2, 3, 9, 8}, gen).to(torch_dtype(dtype));
    const at::ScalarType wide = dtype == DType::Float64 ? at::kDouble : at::kFloat;
    for (const Layout& layout : layouts(values)) {
      for (const Case& c : cases()) {
        if (dtype == DType::UInt8 && c.geometry.op == UpsampleOp::Linear) continue;
        const std::string what = std::string(dtype_name(dtype)) + " " + layout.name + " " + c.name;
        SCOPED_TRACE(what);
        std::vector<int64_t> sizes = layout.view.sizes().vec();
        sizes[sizes.size() - 2] = c.out_h;
        sizes[sizes.size() - 1] = c.out_w;
        // The output's spatial dims transposed in memory.
        const at::Tensor out_base = at::full(at::IntArrayRef(sizes), 7, values.options()).transpose(-1, -2).contiguous();
        const at::Tensor out_view = out_base.transpose(-1, -2);
        DeviceStorage in(*device, *stream, layout.storage);
        DeviceStorage out(*device, *stream, out_base);
        kernels().upsample(*stream, {.geometry = forward_geometry(c), .out = out.ref(out_view), .in = in.ref(layout.view)});
        const at::Tensor actual = out.read(*stream, out_view);
        at::Tensor expected = torch_forward(c, as_batch(dtype == DType::UInt8 ? layout.view : layout.view.to(wide)));
        expect_close(actual.reshape(expected.sizes()), expected.to(torch_dtype(dtype)), dtype, what);
        if (dtype == DType::UInt8) continue;
        const at::Tensor grad = at::randn(sizes, gen).to(torch_dtype(dtype));
        const at::Tensor grad_in_base = at::full(layout.view.sizes(), 7, values.options());
        DeviceStorage g(*device, *stream, grad);
        DeviceStorage gi(*device, *stream, grad_in_base);
        kernels().upsample_backward(*stream, {.geometry = c.geometry, .grad_in = gi.ref(grad_in_base), .grad_out = g.ref(grad)});
        const at::Tensor expected_grad = torch_backward(c, as_batch(grad.to(wide)), as_batch(layout.view).sizes());
        expect_close(gi.read(*stream, grad_in_base).reshape(expected_grad.sizes()), expected_grad.to(torch_dtype(dtype)),
                     dtype, what + " backward");
      }
    }
  }
}

TEST_P(UpsampleKernelsTest, RandomSizesAndScales) {
  // Sizes from 1 to 40 each way, with and without given scales: the backward's candidate outputs must
  // hold every output that reads an input position.
  at::Generator gen = at::detail::createCPUGenerator(6);
  for (int trial = 0; trial < 40; ++trial) {
    const int64_t in_h = 1 + trial % 7, in_w = 1 + (trial * 5) % 29;
    const int64_t out_h = 1 + (trial * 11) % 23, out_w = 1 + (trial * 13) % 41;
    const UpsampleOp op = static_cast<UpsampleOp>(trial % 3);
    UpsampleGeometry g{op, trial % 6 == 2, {}};
    if (trial % 4 == 1 && !g.align_corners) {
      g.scales = {static_cast<double>(out_h) / in_h + 0.01, static_cast<double>(out_w) / in_w + 0.02};
    }
    const Case c{"random", g, out_h, out_w};
    const std::string what = "trial " + std::to_string(trial) + " " + std::string(upsample_op_name(op)) + " " +
                             std::to_string(in_h) + "x" + std::to_string(in_w) + " to " + std::to_string(out_h) + "x" +
                             std::to_string(out_w);
    SCOPED_TRACE(what);
    const at::Tensor x = at::randn({1, 2, in_h, in_w}, gen);
    const at::Tensor out_base = at::zeros({1, 2, out_h, out_w});
    DeviceStorage in(*device, *stream, x);
    DeviceStorage out(*device, *stream, out_base);
    kernels().upsample(*stream, {.geometry = forward_geometry(c), .out = out.ref(out_base), .in = in.ref(x)});
    expect_close(out.read(*stream, out_base), torch_forward(c, x), DType::Float32, what);
    const at::Tensor grad = at::randn({1, 2, out_h, out_w}, gen);
    const at::Tensor grad_in = at::zeros({1, 2, in_h, in_w});
    DeviceStorage gd(*device, *stream, grad);
    DeviceStorage gi(*device, *stream, grad_in);
    kernels().upsample_backward(*stream, {.geometry = g, .grad_in = gi.ref(grad_in), .grad_out = gd.ref(grad)});
    expect_close(gi.read(*stream, grad_in), torch_backward(c, grad, x.sizes()), DType::Float32, what + " backward");
  }
}

TEST_P(UpsampleKernelsTest, RefusesWhatItCannotResample) {
  DeviceStorage f(*device, *stream, at::zeros({2, 4, 4}));
  DeviceStorage o(*device, *stream, at::zeros({3, 8, 8}));
  DeviceStorage ints(*device, *stream, at::zeros({2, 4, 4}, at::kInt));
  DeviceStorage bytes(*device, *stream, at::zeros({2, 4, 4}, at::kByte));
  const UpsampleGeometry linear{UpsampleOp::Linear, false, {}};
  expect_error<Error>([&] { kernels().upsample(*stream, {.geometry = linear, .out = o.ref(at::zeros({3, 8, 8})), .in = f.ref(at::zeros({2, 4, 4}))}); },
                      "upsample linear: input and output differ in their planes (all dims but the last two)");
  expect_error<Error>([&] { kernels().upsample(*stream, {.geometry = linear, .out = ints.ref(at::zeros({2, 4, 4}, at::kInt)), .in = ints.ref(at::zeros({2, 4, 4}, at::kInt))}); },
                      "upsample linear does not take int32");
  expect_error<Error>([&] { kernels().upsample(*stream, {.geometry = linear, .out = bytes.ref(at::zeros({2, 4, 4}, at::kByte)), .in = bytes.ref(at::zeros({2, 4, 4}, at::kByte))}); },
                      "upsample linear does not take uint8");
  expect_error<Error>([&] { kernels().upsample(*stream, {.geometry = linear, .out = f.ref(at::zeros({2, 4, 4})), .in = bytes.ref(at::zeros({2, 4, 4}, at::kByte))}); },
                      "upsample linear needs equal dtypes, got uint8 and float32");
}

INSTANTIATE_TEST_SUITE_P(Backends, UpsampleKernelsTest, testing::Values("vulkan", "cuda"), backend_test_name);

}  // namespace
}  // namespace ember::test
