// The pool kernels against LibTorch's ATen kernels (max_pool2d_with_indices, avg_pool2d,
// adaptive_max_pool2d, _adaptive_avg_pool2d and their backward functions): every op and floating dtype,
// windows with padding, dilation, ceil mode, count_include_pad and divisor_override, overlapping
// adaptive windows, input and output views with any strides (transposed planes, transposed or stepped
// spatial dims, broadcast planes, more plane dims than the launch merges), ties (the first maximum),
// NaN (a later NaN wins), windows of -inf, and the rejections of PoolArgs::check.
#include <ATen/ATen.h>

#include <cmath>
#include <optional>
#include <string>
#include <vector>

#include "runtime/error.h"
#include "runtime/scoped_environment.h"
#include "runtime/kernels/pool.h"
#include "runtime/vulkan/vulkan_device.h"
#include "tests/oracle.h"

namespace ember::test {
namespace {

class PoolKernelsTest : public BackendTest {
 protected:
  PoolKernels& kernels() { return device->kernels().get<PoolKernels>(); }
};

const DType kPoolDtypes[] = {DType::Float32, DType::Float16, DType::BFloat16, DType::Float64};

// A pooling and its LibTorch reference.
struct PoolCase {
  std::string name;
  PoolGeometry geometry;
  bool ceil_mode = false;
  int64_t out_h = 0;  // adaptive only
  int64_t out_w = 0;
};

PoolGeometry window_geometry(PoolOp op, std::vector<int64_t> k, std::vector<int64_t> s, std::vector<int64_t> p,
                             std::vector<int64_t> d = {1, 1}) {
  PoolGeometry g;
  g.op = op;
  for (int i = 0; i < 2; ++i) g.window[i] = {k[i], s[i], p[i], d[i]};
  return g;
}

std::vector<PoolCase> pool_cases() {
  std::vector<PoolCase> cases;
  cases.push_back({"max 2x2", window_geometry(PoolOp::Max, {2, 2}, {2, 2}, {0, 0})});
  cases.push_back({"max 3x2 padded dilated ceil", window_geometry(PoolOp::Max, {3, 2}, {2, 1}, {1, 1}, {2, 1}), true});
  cases.push_back({"max 3x3 stride 1 padded", window_geometry(PoolOp::Max, {3, 3}, {1, 1}, {1, 1})});
  // Windows that do not overlap (backward writes whole stride blocks): gaps between them, padding, a
  // dilated window that fills its stride, ceil mode's partial last window.
  cases.push_back({"max 2x2 stride 3 padded ceil", window_geometry(PoolOp::Max, {2, 2}, {3, 3}, {1, 1}), true});
  cases.push_back({"max 2x3 dilated to its stride", window_geometry(PoolOp::Max, {2, 3}, {3, 3}, {0, 1}, {2, 1})});
  cases.push_back({"max 1x4 stride 4", window_geometry(PoolOp::Max, {1, 4}, {2, 4}, {0, 2})});
  PoolCase avg_gaps{"avg 2x2 stride 3 padded ceil without pad", window_geometry(PoolOp::Avg, {2, 2}, {3, 3}, {1, 1}), true};
  avg_gaps.geometry.count_include_pad = false;
  cases.push_back(avg_gaps);
  cases.push_back({"avg 3x3 stride 3 padded with pad", window_geometry(PoolOp::Avg, {3, 3}, {3, 3}, {1, 1}), true});
  cases.push_back({"avg 2x2", window_geometry(PoolOp::Avg, {2, 2}, {2, 2}, {0, 0})});
  PoolCase avg_ceil{"avg 3x2 padded ceil without pad", window_geometry(PoolOp::Avg, {3, 2}, {2, 3}, {1, 1}), true};
  avg_ceil.geometry.count_include_pad = false;
  cases.push_back(avg_ceil);
  cases.push_back({"avg 3x3 padded ceil with pad", window_geometry(PoolOp::Avg, {3, 3}, {2, 2}, {1, 1}), true});
  PoolCase divided{"avg divisor", window_geometry(PoolOp::Avg, {2, 3}, {1, 2}, {1, 1})};
  divided.geometry.divisor_override = 5;
  cases.push_back(divided);
  PoolGeometry adaptive_max;
  adaptive_max.op = PoolOp::AdaptiveMax;
  cases.push_back({"adaptive max 3x4", adaptive_max, false, 3, 4});
  PoolGeometry adaptive_avg;
  adaptive_avg.op = PoolOp::AdaptiveAvg;
  cases.push_back({"adaptive avg 3x4", adaptive_avg, false, 3, 4});
  cases.push_back({"adaptive avg 1x1", adaptive_avg, false, 1, 1});
  cases.push_back({"adaptive max 9x2", adaptive_max, false, 9, 2});
  return cases;
}

at::IntArrayRef kernel_of(const PoolGeometry& g, std::vector<int64_t>& storage, int what) {
  storage.clear();
  for (int d = 0; d < 2; ++d) {
    const PoolWindow& w = g.window[d];
    storage.push_back(what == 0 ? w.kernel : what == 1 ? w.stride : what == 2 ? w.padding : w.dilation);
  }
  return storage;
}

// LibTorch's forward of `c` over `x` (float32 for the half types): values and, for the max ops, indices.
// x has at least 3 dims (ATen's kernels take 3 or 4; more are flattened into the batch).
std::pair<at::Tensor, at::Tensor> torch_forward(const PoolCase& c, const at::Tensor& x) {
  std::vector<int64_t> k, s, p, d;
  const PoolGeometry& g = c.geometry;
  switch (g.op) {
    case PoolOp::Max: {
      auto [out, indices] = at::max_pool2d_with_indices(x, kernel_of(g, k, 0), kernel_of(g, s, 1), kernel_of(g, p, 2),
                                                        kernel_of(g, d, 3), c.ceil_mode);
      return {out, indices};
    }
    case PoolOp::Avg:
      return {at::avg_pool2d(x, kernel_of(g, k, 0), kernel_of(g, s, 1), kernel_of(g, p, 2), c.ceil_mode,
                             g.count_include_pad,
                             g.divisor_override ? c10::optional<int64_t>(g.divisor_override) : c10::nullopt),
              at::Tensor()};
    case PoolOp::AdaptiveMax: {
      auto [out, indices] = at::adaptive_max_pool2d(x, {c.out_h, c.out_w});
      return {out, indices};
    }
    case PoolOp::AdaptiveAvg: return {at::_adaptive_avg_pool2d(x, {c.out_h, c.out_w}), at::Tensor()};
  }
  return {};
}

at::Tensor torch_backward(const PoolCase& c, const at::Tensor& grad, const at::Tensor& x, const at::Tensor& indices) {
  std::vector<int64_t> k, s, p, d;
  const PoolGeometry& g = c.geometry;
  switch (g.op) {
    case PoolOp::Max:
      return at::max_pool2d_with_indices_backward(grad, x, kernel_of(g, k, 0), kernel_of(g, s, 1), kernel_of(g, p, 2),
                                                  kernel_of(g, d, 3), c.ceil_mode, indices);
    case PoolOp::Avg:
      return at::avg_pool2d_backward(grad, x, kernel_of(g, k, 0), kernel_of(g, s, 1), kernel_of(g, p, 2), c.ceil_mode,
                                     g.count_include_pad,
                                     g.divisor_override ? c10::optional<int64_t>(g.divisor_override) : c10::nullopt);
    case PoolOp::AdaptiveMax: return at::adaptive_max_pool2d_backward(grad, x, indices);
    case PoolOp::AdaptiveAvg: return at::_adaptive_avg_pool2d_backward(grad, x);
  }
  return {};
}

// `view` seen by ATen: at least 3 dims, at most 4 (extra plane dims flattened into one).
at::Tensor as_batch(const at::Tensor& view) {
  if (view.dim() == 2) return view.unsqueeze(0);
  if (view.dim() > 4) return view.reshape({-1, view.size(-3), view.size(-2), view.size(-1)});
  return view;
}

// The views inputs are pooled over: name, storage, view.
struct Layout {
  std::string name;
  at::Tensor storage;
  at::Tensor view;
};

std::vector<Layout> input_layouts(const at::Tensor& values) {
  // values: 2 x 3 x 9 x 8
  std::vector<Layout> layouts;
  layouts.push_back({"contiguous", values, values});
  const at::Tensor planes_swapped = values.permute({1, 0, 2, 3}).contiguous();
  layouts.push_back({"transposed planes", planes_swapped, planes_swapped.permute({1, 0, 2, 3})});
  const at::Tensor spatial_swapped = values.transpose(2, 3).contiguous();
  layouts.push_back({"transposed spatial", spatial_swapped, spatial_swapped.transpose(2, 3)});
  const at::Tensor channels_last = values.permute({0, 2, 3, 1}).contiguous();
  layouts.push_back({"channels last", channels_last, channels_last.permute({0, 3, 1, 2})});
  const at::Tensor wide = at::zeros({2, 3, 9, 17}, values.options());
  wide.slice(3, 1, 17, 2).copy_(values);
  layouts.push_back({"stepped", wide, wide.slice(3, 1, 17, 2)});
  const at::Tensor first = values.narrow(0, 0, 1).contiguous();
  layouts.push_back({"broadcast planes", first, first.expand({2, 3, 9, 8})});
  layouts.push_back({"unbatched", values, values.select(0, 1)});
  layouts.push_back({"one plane", values, values.select(0, 1).select(0, 2)});
  // Three plane dims that no merge joins: the launch takes the outer one a position at a time.
  const at::Tensor five = values.reshape({2, 3, 1, 9, 8}).expand({2, 3, 2, 9, 8}).contiguous();
  const at::Tensor five_storage = five.permute({2, 0, 1, 3, 4}).contiguous();
  layouts.push_back({"three plane dims", five_storage, five_storage.permute({1, 2, 0, 3, 4})});
  return layouts;
}

int64_t out_size(const PoolCase& c, int d, int64_t in) {
  if (is_adaptive_pool(c.geometry.op)) return d == 0 ? c.out_h : c.out_w;
  const PoolWindow& w = c.geometry.window[d];
  const int64_t span = in + 2 * w.padding - w.dilation * (w.kernel - 1) - 1;
  int64_t out = (c.ceil_mode ? (span + w.stride - 1) / w.stride : span / w.stride) + 1;
  if (c.ceil_mode && (out - 1) * w.stride >= in + w.padding) --out;
  return out;
}

// Runs the forward of `c` over `view` (of `storage`) on the device; returns values and indices.
std::pair<at::Tensor, at::Tensor> run_forward(Device& device, Stream& stream, PoolKernels& kernels, const PoolCase& c,
                                              const at::Tensor& storage, const at::Tensor& view, bool strided_out) {
  std::vector<int64_t> sizes = view.sizes().vec();
  sizes[sizes.size() - 2] = out_size(c, 0, view.size(-2));
  sizes[sizes.size() - 1] = out_size(c, 1, view.size(-1));
  // A strided output: the spatial dims transposed in memory.
  std::vector<int64_t> stored = sizes;
  std::swap(stored[stored.size() - 1], stored[stored.size() - 2]);
  auto make = [&](at::ScalarType type) {
    const at::Tensor base = at::full(strided_out ? stored : sizes, -7, at::TensorOptions(type));
    return std::make_pair(base, strided_out ? base.transpose(-1, -2) : base);
  };
  const auto [out_base, out_view] = make(view.scalar_type());
  const auto [indices_base, indices_view] = make(at::kLong);
  DeviceStorage in(device, stream, storage);
  DeviceStorage out(device, stream, out_base);
  DeviceStorage indices(device, stream, indices_base);
  PoolArgs args{.geometry = c.geometry, .out = out.ref(out_view), .in = in.ref(view)};
  if (is_max_pool(c.geometry.op)) args.indices = indices.ref(indices_view);
  kernels.pool(stream, args);
  return {out.read(stream, out_view), is_max_pool(c.geometry.op) ? indices.read(stream, indices_view) : at::Tensor()};
}

at::Tensor run_backward(Device& device, Stream& stream, PoolKernels& kernels, const PoolCase& c,
                        const at::Tensor& grad, const at::Tensor& indices, at::IntArrayRef in_sizes) {
  const at::Tensor grad_in = at::full(in_sizes, -7, grad.options());
  DeviceStorage g(device, stream, grad);
  DeviceStorage out(device, stream, grad_in);
  std::optional<DeviceStorage> idx;
  PoolBackwardArgs args{.geometry = c.geometry, .grad_in = out.ref(grad_in), .grad_out = g.ref(grad)};
  if (indices.defined()) {
    idx.emplace(device, stream, indices);
    args.indices = idx->ref(indices);
  }
  kernels.pool_backward(stream, args);
  return out.read(stream, grad_in);
}

void expect_close(const at::Tensor& actual, const at::Tensor& expected, DType dtype, const std::string& what) {
  const Tolerance tol = tolerance_for(dtype);
  ASSERT_EQ(actual.sizes(), expected.sizes()) << what;
  EXPECT_TRUE(at::allclose(actual.to(at::kDouble), expected.to(at::kDouble), tol.rtol, tol.atol, true))
      << what << "\nactual:\n" << actual << "\nexpected:\n" << expected;
}

// Float32 on Vulkan reads its input (and the backward its indices) through texel views where the windows
// allow, and through storage buffers with EMBER_TEXEL_READS=0: both.
TEST_P(PoolKernelsTest, EveryOpDtypeAndLayoutMatchesLibTorch) {
  at::Generator gen = at::detail::createCPUGenerator(11);
  for (const std::string texel_reads : {"1", "0"})
  for (DType dtype : kPoolDtypes) {
    if (!device->supports(dtype) || (texel_reads == "0" && dtype != DType::Float32)) continue;
    ScopedEnvironment scoped_texels("EMBER_TEXEL_READS", texel_reads);
    // Values rounded to the dtype; the reference computes in float32 (float64) on them and rounds once.
    const at::Tensor values = at::randn({2, 3, 9, 8}, gen).to(torch_dtype(dtype));
    const at::ScalarType wide = dtype == DType::Float64 ? at::kDouble : at::kFloat;
    for (const Layout& layout : input_layouts(values)) {
      for (const PoolCase& c : pool_cases()) {
        const std::string what =
            std::string(dtype_name(dtype)) + " " + layout.name + " " + c.name + " EMBER_TEXEL_READS=" + texel_reads;
        SCOPED_TRACE(what);
        auto [expected, expected_indices] = torch_forward(c, as_batch(layout.view.to(wide)));
        const bool strided_out = layout.name == "stepped";
        auto [actual, indices] = run_forward(*device, *stream, kernels(), c, layout.storage, layout.view, strided_out);
        expect_close(actual.reshape(expected.sizes()), expected.to(torch_dtype(dtype)), dtype, what);
        if (expected_indices.defined()) {
          EXPECT_TRUE(at::equal(indices.reshape(expected_indices.sizes()), expected_indices)) << what;
        }
        // Backward from a random gradient, through the device's indices.
        const at::Tensor grad = at::randn(actual.sizes(), gen).to(torch_dtype(dtype));
        const at::Tensor expected_grad = torch_backward(c, as_batch(grad.to(wide)), as_batch(layout.view.to(wide)),
                                                        expected_indices.defined() ? as_batch(indices) : at::Tensor());
        const at::Tensor actual_grad =
            run_backward(*device, *stream, kernels(), c, grad, indices, layout.view.sizes());
        expect_close(actual_grad.reshape(expected_grad.sizes()), expected_grad.to(torch_dtype(dtype)), dtype,
                     what + " backward");
      }
    }
  }
}

TEST_P(PoolKernelsTest, TiesNanAndInfinityFollowPyTorch) {
  const PoolCase max3{"max 3x3", window_geometry(PoolOp::Max, {3, 3}, {1, 1}, {1, 1})};
  PoolGeometry adaptive;
  adaptive.op = PoolOp::AdaptiveMax;
  const PoolCase adaptive_max{"adaptive max 2x2", adaptive, false, 2, 2};
  const double nan = std::nan("");
  const double inf = INFINITY;
  const std::vector<at::Tensor> inputs = {
      at::ones({1, 4, 5}),                                                         // ties everywhere
      at::randint(-1, 2, {2, 6, 6}, at::detail::createCPUGenerator(5)).to(at::kFloat),  // many ties
      at::tensor({nan, 1., -nan, 3., 2., nan, 0., 5., nan}).view({1, 3, 3}),       // several NaN per window
      at::full({1, 3, 4}, -inf),                                                   // -inf: the first position
      at::tensor({-inf, -inf, 2., -inf, nan, -inf}).view({1, 2, 3}),
  };
  for (const PoolCase& c : {max3, adaptive_max}) {
    for (const at::Tensor& x : inputs) {
      SCOPED_TRACE(c.name);
      auto [expected, expected_indices] = torch_forward(c, x);
      auto [actual, indices] = run_forward(*device, *stream, kernels(), c, x, x, false);
      EXPECT_TRUE(at::equal(indices, expected_indices)) << x << indices << expected_indices;
      EXPECT_TRUE(at::allclose(actual, expected, 0, 0, true)) << actual << expected;
    }
  }
}

// `values` at element `lead` of a storage of `fill`, with room for `lead` elements before it.
std::pair<at::Tensor, at::Tensor> placed(const at::Tensor& values, int64_t lead, double fill) {
  const at::Tensor storage = at::full({lead + values.numel()}, fill, values.options());
  const at::Tensor view = storage.slice(0, lead).view(values.sizes());
  view.copy_(values);
  return {storage, view};
}

// 2×2 max and average pooling with stride 2 over float32 planes of an even height and width, the CNN's,
// take pool_pairs.comp on Vulkan (four elements per invocation, whole-word stores) where every operand
// starts on a word, and pool.comp elsewhere: both against LibTorch to the bit, with ties, NaN and windows
// of -inf, rows of pairs that cross plane rows (an odd output width), counts that are not whole words, and
// operands that start off a word; the backward of an even output width writes both rows of two windows
// per invocation. Average pooling also with a divisor override. Nothing before an operand's view is
// written.
TEST_P(PoolKernelsTest, TwoByTwoOverEvenPlanesMatchesLibTorch) {
  PoolCase divided{"avg 2x2 divided by 3", window_geometry(PoolOp::Avg, {2, 2}, {2, 2}, {0, 0})};
  divided.geometry.divisor_override = 3;
  const PoolCase cases[] = {{"max 2x2", window_geometry(PoolOp::Max, {2, 2}, {2, 2}, {0, 0})},
                            {"avg 2x2", window_geometry(PoolOp::Avg, {2, 2}, {2, 2}, {0, 0})}, divided};
  at::Generator gen = at::detail::createCPUGenerator(17);
  std::vector<at::Tensor> inputs = {at::randn({2, 3, 8, 6}, gen),
                                    at::randint(-1, 2, {2, 3, 8, 6}, gen).to(at::kFloat),  // ties in most windows
                                    at::randn({3, 1, 4, 2}, gen),                           // six outputs
                                    at::randint(-1, 2, {2, 3, 6, 8}, gen).to(at::kFloat),  // even output widths
                                    at::randn({1, 5, 2, 4}, gen)};
  at::Tensor special = at::randn({1, 2, 4, 12}, gen);
  special.index_put_({0, 0, 0, 0}, std::nan(""));  // two NaN in one window: the later one wins
  special.index_put_({0, 0, 1, 1}, std::nan(""));
  special.index_put_({0, 0, at::indexing::Slice(0, 2), at::indexing::Slice(2, 4)}, -INFINITY);
  special.index_put_({0, 1, 3, 5}, std::nan(""));
  inputs.push_back(special);
  for (const PoolCase& c : cases)
  for (const at::Tensor& values : inputs) {
    for (int64_t lead : {0, 1, 2, 4}) {  // elements before each operand in its storage
      SCOPED_TRACE(testing::Message() << c.name << ", input " << values.sizes() << ", each operand after " << lead
                                      << " elements");
      const bool max = c.geometry.op == PoolOp::Max;
      std::vector<int64_t> out_sizes = values.sizes().vec();
      out_sizes[2] /= 2;
      out_sizes[3] /= 2;
      const auto [in_storage, in_view] = placed(values, lead, 0);
      const auto [out_storage, out_view] = placed(at::zeros(out_sizes), lead, -7);
      const auto [indices_storage, indices_view] = placed(at::zeros(out_sizes, at::kLong), lead, -7);
      DeviceStorage in(*device, *stream, in_storage), out(*device, *stream, out_storage),
          indices(*device, *stream, indices_storage);
      PoolArgs args{.geometry = c.geometry, .out = out.ref(out_view), .in = in.ref(in_view)};
      if (max) args.indices = indices.ref(indices_view);
      kernels().pool(*stream, args);
      const auto [expected, expected_indices] = torch_forward(c, values);
      const at::Tensor actual_out = out.read(*stream, out_storage);
      EXPECT_TRUE(at::allclose(actual_out.slice(0, lead).view(out_sizes), expected, 0, 0, true)) << actual_out;
      EXPECT_TRUE(at::equal(actual_out.slice(0, 0, lead), out_storage.slice(0, 0, lead)));
      if (max) {
        const at::Tensor actual_indices = indices.read(*stream, indices_storage);
        EXPECT_TRUE(at::equal(actual_indices.slice(0, lead).view(out_sizes), expected_indices)) << actual_indices;
        EXPECT_TRUE(at::equal(actual_indices.slice(0, 0, lead), indices_storage.slice(0, 0, lead)));
      }

      const at::Tensor grad = at::randn(out_sizes, gen);
      const auto [grad_in_storage, grad_in_view] = placed(at::zeros(values.sizes()), lead, -7);
      DeviceStorage grad_out(*device, *stream, grad), grad_in(*device, *stream, grad_in_storage);
      PoolBackwardArgs backward{
          .geometry = c.geometry, .grad_in = grad_in.ref(grad_in_view), .grad_out = grad_out.ref(grad)};
      if (max) backward.indices = indices.ref(indices_view);
      kernels().pool_backward(*stream, backward);
      const at::Tensor actual_grad = grad_in.read(*stream, grad_in_storage);
      EXPECT_TRUE(at::equal(actual_grad.slice(0, lead).view(values.sizes()),
                            torch_backward(c, grad, values, expected_indices)))
          << actual_grad;
      EXPECT_TRUE(at::equal(actual_grad.slice(0, 0, lead), grad_in_storage.slice(0, 0, lead)));
    }
  }
  auto* vulkan_device = dynamic_cast<vulkan::VulkanDevice*>(device.get());
  if (vulkan_device != nullptr && device->info().driver.find("llvmpipe") != std::string::npos) {
    for (const char* pipeline : {"pool_pairs_f32", "pool_pairs_backward_f32", "pool_pairs_backward_rows_f32"}) {
      for (PoolOp op : {PoolOp::Max, PoolOp::Avg}) {
        EXPECT_TRUE(vulkan_device->pipelines().made(pipeline, {static_cast<uint32_t>(DType::Float32),
                                                               static_cast<uint32_t>(op)}))
            << pipeline << " for op " << static_cast<int>(op);
      }
    }
  }
}

// Launches of 2^24 positions or more: planes split into launches below it (pool_pairs.comp's pieces
// count input elements), and a single plane that large, which takes the pipelines that divide integers.
TEST_P(PoolKernelsTest, LaunchesOfManyPositionsMatchLibTorch) {
  const PoolCase pairs{"max 2x2", window_geometry(PoolOp::Max, {2, 2}, {2, 2}, {0, 0})};
  const PoolCase overlapping{"avg 3x3 stride 1 padded", window_geometry(PoolOp::Avg, {3, 3}, {1, 1}, {1, 1})};
  at::Generator gen = at::detail::createCPUGenerator(23);
  // 16.9M input elements in eight planes; 16.8M in one.
  const std::pair<PoolCase, std::vector<int64_t>> runs[] = {{pairs, {2, 4, 1454, 1454}}, {overlapping, {1, 1, 4100, 4100}}};
  for (const auto& [c, sizes] : runs) {
    SCOPED_TRACE(testing::Message() << c.name << " over " << at::IntArrayRef(sizes));
    const at::Tensor values = at::randn(sizes, gen);
    const auto [out, indices] = run_forward(*device, *stream, kernels(), c, values, values, false);
    const auto [expected, expected_indices] = torch_forward(c, values);
    // Compared in float32: expect_close's float64 copies of these sizes take seconds of page faults.
    const Tolerance tol = tolerance_for(DType::Float32);
    EXPECT_TRUE(at::allclose(out, expected, tol.rtol, tol.atol)) << "forward";
    if (indices.defined()) {
      EXPECT_TRUE(at::equal(indices, expected_indices));
    }
    const at::Tensor grad = at::randn(expected.sizes(), gen);
    EXPECT_TRUE(at::allclose(run_backward(*device, *stream, kernels(), c, grad, indices, values.sizes()),
                             torch_backward(c, grad, values, expected_indices), tol.rtol, tol.atol))
        << "backward";
  }
  auto* vulkan_device = dynamic_cast<vulkan::VulkanDevice*>(device.get());
  if (vulkan_device == nullptr) return;
  // The single plane's average pooling: forward (3x3, not interior) and backward (windows overlap).
  const uint32_t avg = static_cast<uint32_t>(PoolOp::Avg), f32 = static_cast<uint32_t>(DType::Float32);
  const std::vector<uint32_t> forward = {f32, avg, 3, 3, 0, 1}, backward = {f32, avg, 0, 0, 0, 1};
  auto made = [&](const std::string& shader, const std::vector<uint32_t>& constants) {
    return vulkan_device->pipelines().made(shader, constants) ||
           vulkan_device->pipelines().made(shader + "_texel", constants);
  };
  EXPECT_TRUE(made("pool_f32", forward));
  EXPECT_TRUE(made("pool_backward_f32", backward));
}

TEST_P(PoolKernelsTest, EmptyOutputsAndGradients) {
  PoolGeometry adaptive;
  adaptive.op = PoolOp::AdaptiveAvg;
  // An output of no columns: backward writes zeros over the whole input.
  const at::Tensor grad = at::zeros({2, 3, 0});
  const at::Tensor grad_in = run_backward(*device, *stream, kernels(), {"adaptive avg", adaptive, false, 3, 0}, grad,
                                          at::Tensor(), {2, 4, 5});
  EXPECT_TRUE(at::equal(grad_in, at::zeros({2, 4, 5})));
  // No planes: nothing to do.
  const at::Tensor empty = at::zeros({0, 4, 5});
  auto [out, indices] = run_forward(*device, *stream, kernels(), {"adaptive avg", adaptive, false, 3, 2}, empty, empty, false);
  EXPECT_EQ(out.sizes(), at::IntArrayRef({0, 3, 2}));
}

TEST_P(PoolKernelsTest, RefusesWhatItCannotPool) {
  const at::Tensor x = at::zeros({2, 4, 4});
  const at::Tensor out = at::zeros({2, 2, 2});
  const at::Tensor idx = at::zeros({2, 2, 2}, at::kLong);
  DeviceStorage in(*device, *stream, x);
  DeviceStorage o(*device, *stream, out);
  DeviceStorage i(*device, *stream, idx);
  DeviceStorage wrong(*device, *stream, at::zeros({3, 2, 2}));
  DeviceStorage ints(*device, *stream, at::zeros({2, 4, 4}, at::kInt));
  const PoolGeometry max = window_geometry(PoolOp::Max, {2, 2}, {2, 2}, {0, 0});
  PoolGeometry avg = max;
  avg.op = PoolOp::Avg;
  auto refuses = [&](PoolArgs args, const std::string& message) {
    expect_error<Error>([&] { kernels().pool(*stream, args); }, message);
  };
  refuses({.geometry = max, .out = o.ref(out), .in = in.ref(x)}, "pool max needs indices");
  refuses({.geometry = avg, .out = o.ref(out), .indices = i.ref(idx), .in = in.ref(x)}, "pool avg takes no indices");
  refuses({.geometry = max, .out = o.ref(out), .indices = o.ref(out), .in = in.ref(x)},
          "pool max takes int64 indices, not float32");
  refuses({.geometry = avg, .out = o.ref(out), .in = ints.ref(at::zeros({2, 4, 4}, at::kInt))},
          "pool avg takes floating dtypes, not int32");
  refuses({.geometry = avg, .out = wrong.ref(at::zeros({3, 2, 2})), .in = in.ref(x)},
          "pool avg: input and output differ in their planes (all dims but the last two)");
  PoolGeometry no_window = avg;
  no_window.window[0].padding = 2;  // the first window lies in the padding
  refuses({.geometry = no_window, .out = o.ref(out), .in = in.ref(x)}, "pool avg: an output window holds no input position");
  PoolGeometry zero_stride = avg;
  zero_stride.window[1].stride = 0;
  refuses({.geometry = zero_stride, .out = o.ref(out), .in = in.ref(x)},
          "pool avg: kernel 2, stride 0, padding 0 and dilation 1 do not make a window");
}

INSTANTIATE_TEST_SUITE_P(Backends, PoolKernelsTest, testing::Values("vulkan", "cuda"), backend_test_name);

}  // namespace
}  // namespace ember::test
