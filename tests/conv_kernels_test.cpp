// The convolution kernels' contract (runtime/kernels/conv.h) on every backend: the forward (with and
// without relu), input gradient and weight gradient (with the bias gradient) against a direct evaluation
// of their formulas in float64 and against LibTorch's convolution; free output and input sizes
// (asymmetric padding, output_padding), the bias of the input gradient, groups, 1 to 3 spatial dims,
// every floating dtype; on Vulkan both kernels and every register block shape, and weight gradients that
// split their reduction; empty operands; and rejections.
#include <ATen/ATen.h>

#include <array>
#include <cstdlib>
#include <string>
#include <vector>

#include "runtime/error.h"
#include "runtime/kernels/conv.h"
#include "runtime/vulkan/vulkan_device.h"
#include "tests/oracle.h"

namespace ember::test {
namespace {

struct Geometry {
  std::vector<int64_t> input, weight, output;  // sizes
  std::vector<int64_t> stride, padding, dilation;
  int64_t groups = 1;
};

ConvGeometry geometry_of(const Geometry& g) {
  ConvGeometry c;
  c.spatial = static_cast<int>(g.input.size()) - 2;
  c.groups = g.groups;
  for (int d = 0; d < c.spatial; ++d) {
    c.stride[d] = g.stride[d];
    c.padding[d] = g.padding[d];
    c.dilation[d] = g.dilation[d];
  }
  return c;
}

// Calls f(b, co, c, o, i) for every (output position o, kernel offset k) whose input position i lies
// inside the input, with the linear indices of output, weight and input elements.
template <class F>
void for_each_tap(const Geometry& g, F f) {
  const int64_t spatial = static_cast<int64_t>(g.input.size()) - 2;
  const int64_t batch = g.input[0], cin = g.input[1], cout = g.output[1];
  const int64_t cin_g = cin / g.groups, cout_g = cout / g.groups;
  std::array<int64_t, 3> in{1, 1, 1}, out{1, 1, 1}, kernel{1, 1, 1}, s{1, 1, 1}, p{0, 0, 0}, dil{1, 1, 1};
  for (int64_t d = 0; d < spatial; ++d) {
    in[d] = g.input[2 + d];
    out[d] = g.output[2 + d];
    kernel[d] = g.weight[2 + d];
    s[d] = g.stride[d];
    p[d] = g.padding[d];
    dil[d] = g.dilation[d];
  }
  const int64_t in_plane = in[0] * in[1] * in[2], out_plane = out[0] * out[1] * out[2];
  const int64_t kernel_volume = kernel[0] * kernel[1] * kernel[2];
  for (int64_t b = 0; b < batch; ++b)
    for (int64_t co = 0; co < cout; ++co)
      for (int64_t c = 0; c < cin_g; ++c)
        for (int64_t o0 = 0; o0 < out[0]; ++o0)
          for (int64_t o1 = 0; o1 < out[1]; ++o1)
            for (int64_t o2 = 0; o2 < out[2]; ++o2)
              for (int64_t k0 = 0; k0 < kernel[0]; ++k0)
                for (int64_t k1 = 0; k1 < kernel[1]; ++k1)
                  for (int64_t k2 = 0; k2 < kernel[2]; ++k2) {
                    const int64_t i0 = o0 * s[0] - p[0] + k0 * dil[0];
                    const int64_t i1 = o1 * s[1] - p[1] + k1 * dil[1];
                    const int64_t i2 = o2 * s[2] - p[2] + k2 * dil[2];
                    if (i0 < 0 || i0 >= in[0] || i1 < 0 || i1 >= in[1] || i2 < 0 || i2 >= in[2]) continue;
                    const int64_t ci = (co / cout_g) * cin_g + c;
                    f((b * cout + co) * out_plane + (o0 * out[1] + o1) * out[2] + o2,
                      (co * cin_g + c) * kernel_volume + (k0 * kernel[1] + k1) * kernel[2] + k2,
                      (b * cin + ci) * in_plane + (i0 * in[1] + i1) * in[2] + i2);
                  }
}

struct Reference {
  at::Tensor output, input_grad, weight_grad, bias_grad;
};

// The three formulas evaluated directly in float64; input_grad gets `bias` per input channel.
Reference reference(const Geometry& g, const at::Tensor& x, const at::Tensor& w, const at::Tensor& gy,
                    const at::Tensor& bias, const at::Tensor& in_bias) {
  at::Tensor xd = x.to(at::kDouble).contiguous(), wd = w.to(at::kDouble).contiguous(), gd = gy.to(at::kDouble).contiguous();
  Reference r{at::zeros(g.output, at::kDouble), at::zeros(g.input, at::kDouble), at::zeros(g.weight, at::kDouble),
              at::zeros({g.output[1]}, at::kDouble)};
  const double* xp = xd.data_ptr<double>();
  const double* wp = wd.data_ptr<double>();
  const double* gp = gd.data_ptr<double>();
  double* yp = r.output.data_ptr<double>();
  double* gxp = r.input_grad.data_ptr<double>();
  double* gwp = r.weight_grad.data_ptr<double>();
  for_each_tap(g, [&](int64_t o, int64_t k, int64_t i) {
    yp[o] += wp[k] * xp[i];
    gxp[i] += wp[k] * gp[o];
    gwp[k] += gp[o] * xp[i];
  });
  // The bias gradient sums grad_output over the batch and positions.
  double* gbp = r.bias_grad.data_ptr<double>();
  const int64_t out_plane = gd.numel() / std::max<int64_t>(1, g.output[0] * g.output[1]);
  for (int64_t o = 0; o < gd.numel(); ++o) gbp[o / out_plane % g.output[1]] += gp[o];
  std::vector<int64_t> channel_shape(g.input.size(), 1);
  channel_shape[1] = -1;
  if (bias.defined()) r.output += bias.to(at::kDouble).view(channel_shape);
  if (in_bias.defined()) r.input_grad += in_bias.to(at::kDouble).view(channel_shape);
  return r;
}

class ConvKernelsTest : public BackendTest {
 protected:
  ConvKernels& kernels() { return device->kernels().get<ConvKernels>(); }

  // Runs the three entry points on `g` in `dtype` and compares with the direct formulas. The input and
  // grad_output start `lead` elements into their buffers.
  void check(const Geometry& g, DType dtype, bool with_bias = true, const std::string& what = "", int64_t lead = 0) {
    SCOPED_TRACE(what + " " + std::string(dtype_name(dtype)));
    auto placed = [&](const at::Tensor& values) {
      at::Tensor storage = at::zeros({values.numel() + lead}, values.options());
      storage.narrow(0, lead, values.numel()).copy_(values.flatten());
      return storage.narrow(0, lead, values.numel()).view(values.sizes());
    };
    const at::Tensor x = placed(random_torch(g.input, dtype, 1, -1, 1));
    const at::Tensor w = random_torch(g.weight, dtype, 2, -1, 1);
    const at::Tensor gy = placed(random_torch(g.output, dtype, 3, -1, 1));
    const at::Tensor bias = with_bias ? random_torch({g.output[1]}, dtype, 4, -1, 1) : at::Tensor();
    const at::Tensor in_bias = with_bias ? random_torch({g.input[1]}, dtype, 5, -1, 1) : at::Tensor();
    const Reference r = reference(g, x, w, gy, bias, in_bias);

    DeviceStorage xs(*device, *stream, x), ws(*device, *stream, w), gs(*device, *stream, gy);
    DeviceStorage ys(*device, *stream, at::full(g.output, 7, x.options()));
    DeviceStorage relu_ys(*device, *stream, at::full(g.output, 7, x.options()));
    DeviceStorage gxs(*device, *stream, at::full(g.input, 7, x.options()));
    DeviceStorage gws(*device, *stream, at::full(g.weight, 7, x.options()));
    std::optional<DeviceStorage> bs, ibs, gbs;
    if (with_bias) {
      bs.emplace(*device, *stream, bias);
      ibs.emplace(*device, *stream, in_bias);
      gbs.emplace(*device, *stream, at::full({g.output[1]}, 7, x.options()));
    }
    const ConvGeometry geometry = geometry_of(g);
    kernels().forward(*stream, {ys.ref(at::empty(g.output, x.options())), xs.ref(x), ws.ref(w),
                                with_bias ? std::optional<TensorRef>(bs->ref(bias)) : std::nullopt, geometry});
    kernels().forward(*stream, {relu_ys.ref(at::empty(g.output, x.options())), xs.ref(x), ws.ref(w),
                                with_bias ? std::optional<TensorRef>(bs->ref(bias)) : std::nullopt, geometry, true});
    kernels().input_grad(*stream, {gxs.ref(at::empty(g.input, x.options())), gs.ref(gy), ws.ref(w),
                                   with_bias ? std::optional<TensorRef>(ibs->ref(in_bias)) : std::nullopt, geometry});
    kernels().weight_grad(*stream, {gws.ref(at::empty(g.weight, x.options())), gs.ref(gy), xs.ref(x), geometry,
                                    with_bias ? std::optional<TensorRef>(gbs->ref(bias)) : std::nullopt});
    const double tol = dtype == DType::Float64 ? 1e-12 : dtype == DType::Float32 ? 1e-5 : dtype == DType::Float16 ? 4e-3 : 3e-2;
    auto expect = [&](const DeviceStorage& s, const at::Tensor& expected, const char* name) {
      const at::Tensor got = s.read(*stream, at::empty(expected.sizes(), x.options())).to(at::kDouble);
      const double scale = std::max(1.0, expected.numel() ? expected.abs().max().item<double>() : 0.0);
      EXPECT_TRUE(at::allclose(got, expected.to(torch_dtype(dtype)).to(at::kDouble), tol, tol * scale))
          << name << "\ngot:\n" << got << "\nexpected:\n" << expected;
    };
    expect(ys, r.output, "forward");
    expect(relu_ys, at::relu(r.output), "forward with relu");
    expect(gxs, r.input_grad, "input_grad");
    expect(gws, r.weight_grad, "weight_grad");
    if (with_bias) expect(*gbs, r.bias_grad, "bias gradient");
  }
};

const std::vector<Geometry>& geometries() {
  static const std::vector<Geometry> all = {
      // input, weight, output, stride, padding, dilation, groups
      {{2, 3, 6, 7}, {4, 3, 3, 3}, {2, 4, 6, 7}, {1, 1}, {1, 1}, {1, 1}},
      {{1, 4, 9, 8}, {6, 2, 3, 2}, {1, 6, 4, 4}, {2, 2}, {1, 0}, {1, 2}, 2},
      {{2, 4, 5, 6}, {4, 1, 3, 3}, {2, 4, 5, 6}, {1, 1}, {1, 1}, {1, 1}, 4},
      // Free sizes: an output one larger than the formula's (asymmetric "same" padding), an input two
      // larger (output_padding: positions no tap reaches), strides 3 whose taps skip input positions.
      {{2, 2, 5, 6}, {3, 2, 2, 3}, {2, 3, 5, 6}, {1, 1}, {0, 1}, {1, 1}},
      {{1, 2, 9, 8}, {2, 2, 3, 3}, {1, 2, 3, 3}, {3, 3}, {1, 0}, {1, 1}},
      {{1, 2, 11, 9}, {2, 2, 2, 2}, {1, 2, 3, 3}, {3, 3}, {0, 0}, {2, 1}},
      {{3, 3, 11}, {5, 3, 4}, {3, 5, 5}, {2}, {2}, {1}},
      {{1, 2, 4, 5, 3}, {2, 2, 2, 3, 2}, {1, 2, 3, 3, 4}, {1, 1, 1}, {0, 1, 1}, {1, 1, 1}},
      {{2, 1, 8, 8}, {5, 1, 3, 3}, {2, 5, 8, 8}, {1, 1}, {1, 1}, {1, 1}},
      // Larger than one register block or tile in every GEMM dim.
      {{3, 20, 9, 10}, {36, 20, 3, 3}, {3, 36, 9, 10}, {1, 1}, {1, 1}, {1, 1}},
  };
  return all;
}

TEST_P(ConvKernelsTest, MatchesTheFormulasEveryDtype) {
  for (const Geometry& g : geometries()) {
    for (DType dtype : {DType::Float32, DType::Float64, DType::Float16, DType::BFloat16}) {
      if (!device->supports(dtype)) continue;
      check(g, dtype, true, to_string(g.input) + " " + to_string(g.weight));
    }
    check(g, DType::Float32, false, "no bias");
  }
}

// Vulkan's kernels and every register block shape, on the same geometries: the storage-buffer register
// kernel, the uniform-buffer one (in every dtype, whose A it reads from packed words), and the tiles.
TEST_P(ConvKernelsTest, EveryVulkanKernelShape) {
  if (GetParam() != "vulkan") GTEST_SKIP() << "the variants are Vulkan's";
  // The last three share A within subgroups (where the device has subgroups of 8 with shuffles), walking
  // K in chunks of 8 that the short K of most geometries leaves partly empty.
  const char* blocks[] = {"8,8,32", "4,4,16", "1,8,64", "8,8,256", "4,4,4", "16,8,32,1", "16,8,64,1", "8,4,8,1"};
  setenv("EMBER_CONV_VARIANT", "register", 1);
  for (const char* texels : {"1", "0"}) {
    setenv("EMBER_TEXEL_READS", texels, 1);
    for (const char* block : blocks) {
      setenv("EMBER_CONV_BLOCK", block, 1);
      for (const Geometry& g : geometries()) {
        check(g, DType::Float32, true, std::string("register ") + block + " texel reads " + texels);
      }
    }
  }
  unsetenv("EMBER_TEXEL_READS");
  const char* uniform_blocks[] = {"16,4", "16,8", "8,8", "32,2", "4,8", "1,8", "16,7"};
  setenv("EMBER_CONV_VARIANT", "uniform", 1);
  for (const char* block : uniform_blocks) {
    setenv("EMBER_CONV_BLOCK", block, 1);
    for (const Geometry& g : geometries()) check(g, DType::Float32, true, std::string("uniform ") + block);
  }
  setenv("EMBER_CONV_BLOCK", "8,8", 1);
  for (const Geometry& g : geometries()) {
    for (DType dtype : {DType::Float16, DType::BFloat16, DType::Float64}) {
      if (device->supports(dtype)) check(g, dtype, true, "uniform 8,8");
    }
  }
  unsetenv("EMBER_CONV_BLOCK");
  setenv("EMBER_CONV_VARIANT", "tiled", 1);
  for (const Geometry& g : geometries()) {
    check(g, DType::Float32, true, "tiled");
    if (device->supports(DType::Float64)) check(g, DType::Float64, true, "tiled");
  }
  unsetenv("EMBER_CONV_VARIANT");
}

// A long reduction: the weight gradient splits it over workgroups and sums the partial results, the bias
// gradient's among them (storage-buffer kernel), or adds launches over chunks of samples into one
// accumulator (uniform-buffer kernel).
TEST_P(ConvKernelsTest, WeightGradientOverALongReduction) {
  for (const char* variant : {"register", "uniform"}) {
    if (GetParam() == "vulkan") setenv("EMBER_CONV_VARIANT", variant, 1);
    const Geometry long_sum{{40, 3, 17, 19}, {4, 3, 3, 3}, {40, 4, 17, 19}, {1, 1}, {1, 1}, {1, 1}};
    check(long_sum, DType::Float32, true, std::string("split ") + variant);
    check(long_sum, DType::Float16, true, std::string("split ") + variant);
    // A uniform window holds part of one sample's positions of 40 channels.
    check({{2, 3, 20, 30}, {40, 3, 3, 3}, {2, 40, 20, 30}, {1, 1}, {1, 1}, {1, 1}}, DType::Float32, true,
          std::string("planes larger than a window ") + variant);
  }
  unsetenv("EMBER_CONV_VARIANT");
}

// Sums longer than one invocation takes (16384 of k): the forward and the input gradient add launches'
// partial sums into their output (the bias once), on both Vulkan kernels; with planes of 9 elements
// (results stored one by one) and of 4 (the register kernel's word stores).
TEST_P(ConvKernelsTest, LongSumsAccumulateOverLaunches) {
  const Geometry forward_heavy{{1, 1900, 3, 3}, {2, 1900, 3, 3}, {1, 2, 3, 3}, {1, 1}, {1, 1}, {1, 1}};
  const Geometry input_grad_heavy{{1, 2, 3, 3}, {1900, 2, 3, 3}, {1, 1900, 3, 3}, {1, 1}, {1, 1}, {1, 1}};
  const Geometry forward_heavy_words{{2, 1900, 2, 2}, {2, 1900, 3, 3}, {2, 2, 2, 2}, {1, 1}, {1, 1}, {1, 1}};
  const Geometry input_grad_heavy_words{{2, 2, 2, 2}, {1900, 2, 3, 3}, {2, 1900, 2, 2}, {1, 1}, {1, 1}, {1, 1}};
  for (const char* variant : {"register", "uniform", "tiled"}) {
    if (GetParam() == "vulkan") setenv("EMBER_CONV_VARIANT", variant, 1);
    check(forward_heavy, DType::Float32, true, std::string("forward ") + variant);
    check(input_grad_heavy, DType::Float32, true, std::string("input gradient ") + variant);
    check(forward_heavy_words, DType::Float32, true, std::string("forward, planes of 4, ") + variant);
    check(input_grad_heavy_words, DType::Float32, true, std::string("input gradient, planes of 4, ") + variant);
  }
  unsetenv("EMBER_CONV_VARIANT");
}

// Depthwise convolutions (groups == in channels), which Vulkan runs with its direct kernel by default
// (conv_depthwise.comp): 1 to 3 spatial dims, stride, dilation, padding, free sizes, a channel multiplier,
// odd sizes, every dtype; against the GEMM kernels' path too, and a weight gradient long enough to split.
TEST_P(ConvKernelsTest, DepthwiseDirectKernel) {
  const std::vector<Geometry> depthwise = {
      // input, weight, output, stride, padding, dilation, groups
      {{2, 5, 7, 9}, {5, 1, 3, 3}, {2, 5, 7, 9}, {1, 1}, {1, 1}, {1, 1}, 5},
      {{1, 3, 11, 13}, {3, 1, 3, 3}, {1, 3, 6, 7}, {2, 2}, {1, 1}, {1, 1}, 3},
      {{3, 4, 10, 9}, {4, 1, 3, 2}, {3, 4, 6, 7}, {1, 1}, {0, 0}, {2, 2}, 4},
      {{2, 3, 9, 8}, {6, 1, 5, 3}, {2, 6, 5, 4}, {2, 2}, {2, 1}, {1, 1}, 3},    // multiplier 2
      {{2, 3, 5, 6}, {3, 1, 2, 3}, {2, 3, 5, 6}, {1, 1}, {0, 1}, {1, 1}, 3},    // "same", asymmetric
      {{1, 2, 11, 9}, {2, 1, 2, 2}, {1, 2, 3, 3}, {3, 3}, {0, 0}, {2, 1}, 2},   // taps skip positions
      {{1, 2, 9, 8}, {4, 1, 3, 3}, {1, 4, 3, 3}, {3, 3}, {1, 0}, {1, 1}, 2},    // input larger than reached
      {{3, 4, 13}, {8, 1, 4}, {3, 8, 6}, {2}, {2}, {1}, 4},
      {{2, 3, 4, 5, 6}, {3, 1, 2, 3, 3}, {2, 3, 3, 3, 3}, {1, 2, 2}, {0, 1, 1}, {1, 1, 1}, 3},
  };
  for (const char* variant : {"", "depthwise", "register", "tiled"}) {
    if (GetParam() == "vulkan") setenv("EMBER_CONV_VARIANT", variant, 1);
    else if (*variant) continue;
    for (const Geometry& g : depthwise) {
      const std::string what = std::string(variant) + " " + to_string(g.input) + " " + to_string(g.weight);
      for (DType dtype : {DType::Float32, DType::Float64, DType::Float16, DType::BFloat16}) {
        if (device->supports(dtype)) check(g, dtype, true, what);
      }
      check(g, DType::Float32, false, what + " no bias");
    }
  }
  // Batch × rows far beyond one workgroup's 256 invocations: the weight gradient splits its sum.
  const Geometry long_sum{{64, 8, 28, 28}, {8, 1, 3, 3}, {64, 8, 28, 28}, {1, 1}, {1, 1}, {1, 1}, 8};
  check(long_sum, DType::Float32, false, "long sum");
  check(long_sum, DType::Float16, false, "long sum");
  unsetenv("EMBER_CONV_VARIANT");
}

// The row kernels, which CPU drivers run for stride-1 float32 forwards and input gradients
// (conv_rows.comp, and conv_rows_few.comp for fewer than 8 channels of out, as in most cases below): rows
// of out narrower than its block of 8 and not a multiple of it, kernels 1 to 9 wide and 1 to 5 tall, 1-d,
// padding beyond the kernel (the input gradient's padded copy then crops grad_output), outputs larger than
// the formula's; more rows than one workgroup's block, sums over more channels than one launch takes (each
// later launch adding to out, the bias once, relu last), and sources off the texel alignment. With fewer
// than 8 channels of out: 1 to 7 of them, words stored, a sum over 7200 taps, and a weight past the uniform
// window that conv_rows_few.comp reads it through (the GEMM kernels take that one).
TEST_P(ConvKernelsTest, RowKernelOnStrideOneFloat32) {
  const std::vector<Geometry> rows = {
      // input, weight, output, stride, padding, dilation
      {{2, 3, 6, 7}, {4, 3, 3, 3}, {2, 4, 6, 7}, {1, 1}, {1, 1}, {1, 1}},
      {{2, 5, 4, 9}, {7, 5, 1, 1}, {2, 7, 4, 9}, {1, 1}, {0, 0}, {1, 1}},
      {{1, 2, 5, 20}, {3, 2, 1, 9}, {1, 3, 5, 20}, {1, 1}, {0, 4}, {1, 1}},
      {{3, 4, 19}, {6, 4, 5}, {3, 6, 17}, {1}, {1}, {1}},
      {{2, 2, 5, 6}, {3, 2, 3, 3}, {2, 3, 9, 10}, {1, 1}, {3, 3}, {1, 1}},
      {{2, 3, 5, 6}, {3, 3, 2, 3}, {2, 3, 6, 6}, {1, 1}, {0, 1}, {1, 1}},
      {{2, 1, 28, 28}, {5, 1, 3, 3}, {2, 5, 28, 28}, {1, 1}, {1, 1}, {1, 1}},
      {{3, 6, 5, 17}, {40, 6, 3, 3}, {3, 40, 5, 17}, {1, 1}, {1, 1}, {1, 1}},
      {{2, 32, 6, 9}, {64, 32, 3, 3}, {2, 64, 6, 9}, {1, 1}, {1, 1}, {1, 1}},
      // A kernel 5 tall, past the rows conv_rows.comp sums at once (its KH), and 3 tall over one channel.
      {{1, 3, 7, 9}, {9, 3, 5, 3}, {1, 9, 7, 9}, {1, 1}, {2, 1}, {1, 1}},
      {{2, 1, 5, 11}, {9, 1, 3, 3}, {2, 9, 5, 11}, {1, 1}, {1, 1}, {1, 1}},
      // More channels than one invocation sums: the forward, then the input gradient, in two launches.
      {{1, 1900, 3, 3}, {8, 1900, 3, 3}, {1, 8, 3, 3}, {1, 1}, {1, 1}, {1, 1}},
      {{1, 8, 3, 3}, {1900, 8, 3, 3}, {1, 1900, 3, 3}, {1, 1}, {1, 1}, {1, 1}},
      // The same with rows of four, which store words (the bias first, relu last, sums added in words).
      {{1, 1900, 2, 4}, {8, 1900, 3, 3}, {1, 8, 2, 4}, {1, 1}, {1, 1}, {1, 1}},
      {{1, 8, 2, 4}, {1900, 8, 3, 3}, {1, 1900, 2, 4}, {1, 1}, {1, 1}, {1, 1}},
      // Fewer than 8 channels of out: the first layer's input gradient (one channel), rows of eight with
      // 2 and 3 channels, 7 channels with a kernel 5 wide; a sum of 800 · 9 taps in one launch, and a
      // weight of 137 KB, past the 64 KiB window.
      {{2, 1, 28, 28}, {32, 1, 3, 3}, {2, 32, 28, 28}, {1, 1}, {1, 1}, {1, 1}},
      {{2, 3, 4, 8}, {2, 3, 3, 3}, {2, 2, 4, 8}, {1, 1}, {1, 1}, {1, 1}},
      {{1, 7, 5, 12}, {7, 7, 3, 5}, {1, 7, 5, 12}, {1, 1}, {1, 2}, {1, 1}},
      {{1, 2, 3, 3}, {800, 2, 3, 3}, {1, 800, 3, 3}, {1, 1}, {1, 1}, {1, 1}},
      {{1, 2, 3, 3}, {1900, 2, 3, 3}, {1, 1900, 3, 3}, {1, 1}, {1, 1}, {1, 1}},
      // conv_rows_few.comp reading sources with rows of a multiple of four directly: runs that start
      // 1 to 3 elements into a texel, padding beyond the kernel (runs before the source's first row and
      // column), and a kernel 7 wide whose runs need five texels (a padded copy instead).
      {{2, 2, 6, 8}, {3, 2, 3, 3}, {2, 3, 10, 12}, {1, 1}, {3, 3}, {1, 1}},
      {{1, 2, 4, 16}, {2, 2, 3, 5}, {1, 2, 4, 14}, {1, 1}, {1, 1}, {1, 1}},
      {{1, 2, 3, 12}, {2, 2, 1, 7}, {1, 2, 3, 8}, {1, 1}, {0, 1}, {1, 1}},
  };
  for (const Geometry& g : rows) {
    check(g, DType::Float32, true, "rows " + to_string(g.input) + " " + to_string(g.weight));
    check(g, DType::Float32, false, "rows, no bias, " + to_string(g.input) + " " + to_string(g.weight));
  }
  // Sources that start inside a texel: the padded copy reads them from the texel below.
  for (int64_t lead : {1, 2, 3, 5}) check(rows[0], DType::Float32, true, "rows, lead " + std::to_string(lead), lead);
  // The first layer's input gradient from a source one texel in (read directly), and one element in (a
  // padded copy).
  for (int64_t lead : {1, 4}) check(rows[15], DType::Float32, true, "few rows, lead " + std::to_string(lead), lead);
  auto* vulkan_device = dynamic_cast<vulkan::VulkanDevice*>(device.get());
  if (vulkan_device != nullptr && device->info().kind == "CPU") {
    EXPECT_TRUE(vulkan_device->pipelines().made("conv_rows_f32"));
    EXPECT_TRUE(vulkan_device->pipelines().made("conv_rows_few_f32"));
    EXPECT_TRUE(vulkan_device->pipelines().made("conv_pad_f32"));
  }
}

// The row kernel's weight gradient (kernels up to 5 wide): full and half
// blocks of 8, kernels 1 to 5 wide, output channels that leave a group of 8 part empty, fewer blocks than
// splits and more, 1-d, and grad_output starting on a texel past its buffer's start or 1 to 3 elements
// into one. Many input channels: groups of 1 to 4 of them per invocation (C = 5, 6, 16, 32), 64 output
// channels with 32 blocks per invocation, a kernel 7 high, and one 7 wide (the GEMM kernels take that one).
// Rows of grad_out whose length is not a multiple of four.
TEST_P(ConvKernelsTest, RowKernelWeightGradient) {
  const std::vector<Geometry> weight_grads = {
      // input, weight, output, stride, padding, dilation
      {{2, 1, 28, 28}, {32, 1, 3, 3}, {2, 32, 28, 28}, {1, 1}, {1, 1}, {1, 1}},
      {{2, 3, 5, 8}, {9, 3, 1, 3}, {2, 9, 5, 8}, {1, 1}, {0, 1}, {1, 1}},
      {{1, 1, 6, 12}, {4, 1, 2, 5}, {1, 4, 7, 12}, {1, 1}, {1, 2}, {1, 1}},
      {{3, 1, 5, 4}, {3, 1, 3, 1}, {3, 3, 3, 4}, {1, 1}, {0, 0}, {1, 1}},
      {{2, 2, 20}, {8, 2, 3}, {2, 8, 20}, {1}, {1}, {1}},
      {{16, 1, 40, 40}, {10, 1, 3, 3}, {16, 10, 40, 40}, {1, 1}, {1, 1}, {1, 1}},
      {{2, 5, 6, 8}, {9, 5, 3, 3}, {2, 9, 6, 8}, {1, 1}, {1, 1}, {1, 1}},
      {{2, 6, 5, 12}, {10, 6, 2, 5}, {2, 10, 4, 12}, {1, 1}, {0, 2}, {1, 1}},
      {{2, 16, 20}, {8, 16, 3}, {2, 8, 20}, {1}, {1}, {1}},
      {{1, 32, 64, 64}, {64, 32, 3, 3}, {1, 64, 64, 64}, {1, 1}, {1, 1}, {1, 1}},
      {{1, 2, 9, 8}, {3, 2, 7, 5}, {1, 3, 5, 8}, {1, 1}, {1, 2}, {1, 1}},
      {{1, 2, 5, 8}, {3, 2, 1, 7}, {1, 3, 5, 8}, {1, 1}, {0, 3}, {1, 1}},
      // Rows of grad_out that do not start on texels: the CNN's second layer at 14 × 14, rows of 7 and 5,
      // and 1-d rows of 17.
      {{2, 32, 14, 14}, {64, 32, 3, 3}, {2, 64, 14, 14}, {1, 1}, {1, 1}, {1, 1}},
      {{3, 4, 7, 7}, {5, 4, 3, 3}, {3, 5, 7, 7}, {1, 1}, {1, 1}, {1, 1}},
      {{2, 1, 6, 4}, {3, 1, 2, 2}, {2, 3, 5, 5}, {1, 1}, {0, 1}, {1, 1}},
      {{3, 6, 19}, {4, 6, 3}, {3, 4, 17}, {1}, {0}, {1}},
  };
  for (const Geometry& g : weight_grads) {
    check(g, DType::Float32, true, "weight gradient " + to_string(g.input) + " " + to_string(g.weight));
    check(g, DType::Float32, false, "weight gradient, no bias, " + to_string(g.input) + " " + to_string(g.weight));
  }
  for (int64_t lead : {1, 4}) check(weight_grads[0], DType::Float32, true, "weight gradient, lead " + std::to_string(lead), lead);
  for (int64_t lead : {1, 2, 3}) check(weight_grads[12], DType::Float32, true, "rows of 14, lead " + std::to_string(lead), lead);
  auto* vulkan_device = dynamic_cast<vulkan::VulkanDevice*>(device.get());
  if (vulkan_device != nullptr && device->info().kind == "CPU") {
    EXPECT_TRUE(vulkan_device->pipelines().made("conv_rows_weight_grad_f32"));
  }
}

// Matches LibTorch's own convolution where the sizes are the formula's.
TEST_P(ConvKernelsTest, MatchesLibTorchConvolution) {
  const at::Tensor x = random_torch({2, 6, 7, 9}, DType::Float32, 7, -1, 1);
  const at::Tensor w = random_torch({4, 3, 3, 2}, DType::Float32, 8, -1, 1);
  const at::Tensor expected = at::conv2d(x, w, {}, {2, 1}, {1, 1}, {1, 2}, 2);
  DeviceStorage xs(*device, *stream, x), ws(*device, *stream, w), ys(*device, *stream, at::zeros_like(expected));
  ConvGeometry g;
  g.groups = 2;
  g.stride = {2, 1, 1};
  g.padding = {1, 1, 0};
  g.dilation = {1, 2, 1};
  kernels().forward(*stream, {ys.ref(expected), xs.ref(x), ws.ref(w), std::nullopt, g});
  EXPECT_TRUE(at::allclose(ys.read(*stream, expected), expected, 1e-5, 1e-5));
}

// Empty batches write nothing; an empty reduction writes the bias alone, or zeros.
TEST_P(ConvKernelsTest, EmptyOperands) {
  check({{0, 3, 5, 5}, {4, 3, 3, 3}, {0, 4, 5, 5}, {1, 1}, {1, 1}, {1, 1}}, DType::Float32, true, "empty batch");
  check({{2, 0, 5, 5}, {4, 0, 3, 3}, {2, 4, 5, 5}, {1, 1}, {1, 1}, {1, 1}}, DType::Float32, true, "no input channels");
  check({{2, 3, 0, 5}, {4, 3, 3, 3}, {2, 4, 2, 5}, {1, 1}, {1, 1}, {1, 1}}, DType::Float32, true, "empty input");
}

TEST_P(ConvKernelsTest, Rejections) {
  const at::Tensor x = at::zeros({2, 3, 5, 5}), w = at::zeros({4, 3, 3, 3}), y = at::zeros({2, 4, 5, 5});
  DeviceStorage xs(*device, *stream, x), ws(*device, *stream, w), ys(*device, *stream, y);
  ConvGeometry g;
  g.padding = {1, 1, 0};
  const ConvForwardArgs good{ys.ref(y), xs.ref(x), ws.ref(w), std::nullopt, g};
  ConvForwardArgs bad = good;
  bad.input = xs.ref(x.transpose(2, 3));
  expect_error<Error>([&] { kernels().forward(*stream, bad); }, "conv kernel: input must be contiguous");
  bad = good;
  bad.geometry.groups = 2;
  expect_error<Error>([&] { kernels().forward(*stream, bad); },
                      "conv kernel: 2 groups do not divide 3 input and 4 output channels");
  bad = good;
  bad.geometry.stride = {0, 1, 1};
  expect_error<Error>([&] { kernels().forward(*stream, bad); },
                      "conv kernel: stride and dilation must be positive and padding non-negative");
  bad = good;
  bad.geometry.spatial = 3;
  expect_error<Error>([&] { kernels().forward(*stream, bad); }, "conv kernel: input has 4 dims [2, 3, 5, 5], expected 5");
  const at::Tensor xd = at::zeros({2, 3, 5, 5}, at::kDouble);
  DeviceStorage xds(*device, *stream, xd);
  bad = good;
  bad.input = xds.ref(xd);
  expect_error<Error>([&] { kernels().forward(*stream, bad); }, "conv kernel: output is float32, the other operands float64");
  const at::Tensor wrong_bias = at::zeros({3});
  DeviceStorage bs(*device, *stream, wrong_bias);
  bad = good;
  bad.bias = bs.ref(wrong_bias);
  expect_error<Error>([&] { kernels().forward(*stream, bad); },
                      "conv kernel: bias [3] must hold one value per channel of the result");
  expect_error<Error>([&] { kernels().weight_grad(*stream, {ws.ref(w), ys.ref(y), xs.ref(x), g, bs.ref(wrong_bias)}); },
                      "conv kernel: grad_bias [3] must hold one value per channel of the result");
  const at::Tensor xi = at::zeros({2, 3, 5, 5}, at::kInt), wi = at::zeros({4, 3, 3, 3}, at::kInt),
                   yi = at::zeros({2, 4, 5, 5}, at::kInt);
  DeviceStorage xis(*device, *stream, xi), wis(*device, *stream, wi), yis(*device, *stream, yi);
  expect_error<Error>([&] { kernels().forward(*stream, {yis.ref(yi), xis.ref(xi), wis.ref(wi), std::nullopt, g}); },
                      "conv kernel: floating operands only, not int32");
}

INSTANTIATE_TEST_SUITE_P(Backends, ConvKernelsTest, testing::Values("vulkan", "cuda"), backend_test_name);

}  // namespace
}  // namespace ember::test
