// gather, scatter, tril / triu and nonzero against LibTorch: every dtype, colliding scatter indices,
// non-contiguous and broadcast operands, 0-dim and empty tensors.
#include <map>
#include <set>

#include "runtime/scoped_environment.h"
#include "runtime/vulkan/vulkan_device.h"
#include "tests/oracle.h"

namespace ember::test {
namespace {

class IndexKernelsTest : public BackendTest {
 protected:
  IndexKernels& kernels() { return device->kernels().get<IndexKernels>(); }

  // A probe operand: no elements, so a backend that has the kernel returns at once.
  TensorRef empty(DType dtype) {
    if (!probe_memory_) probe_memory_ = device->allocate(64);
    return view(probe_memory_.get(), dtype, {0}, {1});
  }

  bool supported(DType dtype) {
    if (device->supports(dtype)) return true;
    std::printf("[  NOTE    ] %s skipped: the device cannot store it\n",
                std::string(dtype_name(dtype)).c_str());
    return false;
  }

 private:
  std::shared_ptr<Allocation> probe_memory_;
};

// The same values as `t` in one of three layouts: contiguous, the dims' order reversed in memory, or
// every other element of a storage twice as long in the last dim.
at::Tensor in_layout(const at::Tensor& t, int layout) {
  if (layout == 0 || t.dim() == 0) return t.contiguous();
  if (layout == 1) {
    std::vector<int64_t> reversed(t.sizes().rbegin(), t.sizes().rend());
    std::vector<int64_t> order(t.dim());
    for (int64_t d = 0; d < t.dim(); ++d) order[d] = t.dim() - 1 - d;
    return at::empty(reversed, t.options()).permute(order).copy_(t);
  }
  std::vector<int64_t> wide(t.sizes().begin(), t.sizes().end());
  wide.back() = wide.back() * 2 + 1;
  return at::empty(wide, t.options()).slice(t.dim() - 1, 1, wide.back(), 2).copy_(t);
}

double tolerance(DType dtype) {
  switch (dtype) {
    case DType::Float16: return 2e-3;
    case DType::BFloat16: return 1.6e-2;
    case DType::Float32: return 2e-6;
    case DType::Float64: return 1e-12;
    default: return 0;
  }
}

// Exact for integers and bool; for floats, the dtype's relative tolerance and an absolute one of
// `scale` times it. NaN passes only where NaN is expected.
void expect_tensor_eq(const at::Tensor& actual, const at::Tensor& expected, DType dtype, double scale = 1) {
  ASSERT_EQ(actual.sizes(), expected.sizes());
  if (!is_floating_point(dtype)) {
    EXPECT_TRUE(at::equal(actual, expected)) << "actual\n" << actual << "\nexpected\n" << expected;
    return;
  }
  const at::Tensor a = actual.to(at::kDouble), e = expected.to(at::kDouble);
  EXPECT_TRUE(at::allclose(a, e, tolerance(dtype), tolerance(dtype) * scale, /*equal_nan=*/true))
      << "largest difference " << (a - e).abs().nan_to_num(1e300).max().item<double>()
      << "\nactual\n" << actual << "\nexpected\n" << expected;
}

// ---- gather ----

TEST_P(IndexKernelsTest, GatherMatchesAtenForEveryDtypeDimAndLayout) {
  REQUIRE_KERNEL(kernels().gather(*stream, {empty(DType::Float32), empty(DType::Float32), 0, empty(DType::Int64)}));
  at::manual_seed(1);
  const std::vector<int64_t> in_sizes = {6, 7, 5};
  // 32- and 64-bit elements read index and in through texel views on Vulkan where the windows allow, and
  // through storage buffers with EMBER_TEXEL_READS=0: both.
  for (const std::string texel_reads : {"1", "0"})
  for (DType dtype : kAllDTypes) {
    if (!supported(dtype)) continue;
    ScopedEnvironment scoped_texels("EMBER_TEXEL_READS", texel_reads);
    for (int dim = 0; dim < 3; ++dim) {
      for (int layout = 0; layout < 3; ++layout) {
        SCOPED_TRACE(std::string(dtype_name(dtype)) + " dim " + std::to_string(dim) + " layout " +
                     std::to_string(layout) + " EMBER_TEXEL_READS=" + texel_reads);
        // out is smaller than in off dim (in is then narrowed), and longer along it.
        std::vector<int64_t> out_sizes = {4, 5, 3};
        out_sizes[dim] = 9;
        const at::Tensor in = in_layout(random_torch(in_sizes, dtype, 101, -100, 100), layout);
        // Negative indices count from the end; at::gather takes them normalised.
        const at::Tensor index = in_layout(
            at::randint(-in_sizes[dim], in_sizes[dim], out_sizes, at::kLong), 2 - layout);
        const at::Tensor expected =
            at::gather(in, dim, at::where(index < 0, index + in_sizes[dim], index));
        at::Tensor in_view = in;
        for (int d = 0; d < 3; ++d) {
          if (d != dim) in_view = in_view.narrow(d, 0, out_sizes[d]);
        }
        const at::Tensor out = in_layout(at::zeros(out_sizes, in.options()), (layout + 1) % 3);
        DeviceStorage in_device(*device, *stream, in), index_device(*device, *stream, index),
            out_device(*device, *stream, out);
        kernels().gather(*stream, {out_device.ref(out), in_device.ref(in_view), dim, index_device.ref(index)});
        expect_tensor_eq(out_device.read(*stream, out), expected, dtype);
      }
    }
  }
}

TEST_P(IndexKernelsTest, GatherOfManyElementsAndOutOfRangeIndices) {
  REQUIRE_KERNEL(kernels().gather(*stream, {empty(DType::Float32), empty(DType::Float32), 0, empty(DType::Int64)}));
  at::manual_seed(2);
  for (const std::string texel_reads : {"1", "0"})
  for (DType dtype : {DType::Float32, DType::Int64, DType::UInt8}) {
    if (!supported(dtype)) continue;
    ScopedEnvironment scoped_texels("EMBER_TEXEL_READS", texel_reads);
    SCOPED_TRACE(std::string(dtype_name(dtype)) + " EMBER_TEXEL_READS=" + texel_reads);
    const at::Tensor in = random_torch({300, 41}, dtype, 102, -100, 100);
    // Indices beyond [-300, 300) read zero.
    const at::Tensor index = at::randint(-305, 305, {517, 41}, at::kLong);
    const at::Tensor in_range = (index >= -300) & (index < 300);
    const at::Tensor normalised = at::where(index < 0, index + 300, index).clamp(0, 299);
    const at::Tensor expected =
        at::where(in_range, at::gather(in, 0, normalised), at::zeros({}, in.options()));
    const at::Tensor out = at::full({517, 41}, 7, in.options());
    DeviceStorage in_device(*device, *stream, in), index_device(*device, *stream, index),
        out_device(*device, *stream, out);
    kernels().gather(*stream, {out_device.ref(out), in_device.ref(in), 0, index_device.ref(index)});
    expect_tensor_eq(out_device.read(*stream, out), expected, dtype);
  }
}

// Launches of one or two dims with rows of at least four elements take the kernels' ROWS path (runs of
// four that may cross into the next row); shorter rows and more dims take the general one. Both, at
// row lengths around the run's four and in one and two dims, against ATen.
TEST_P(IndexKernelsTest, GatherAndScatterAddAcrossRunsAndRows) {
  REQUIRE_KERNEL(kernels().gather(*stream, {empty(DType::Float32), empty(DType::Float32), 0, empty(DType::Int64)}));
  at::manual_seed(6);
  ScopedEnvironment storage_reads("EMBER_TEXEL_READS", "0");  // the pipelines' names below
  const std::vector<std::vector<int64_t>> shapes = {{3, 3}, {3, 4}, {5, 5}, {6, 7}, {2, 9}, {4}, {11}, {2, 3, 5}};
  for (const std::vector<int64_t>& sizes : shapes) {
    const int dim = static_cast<int>(sizes.size()) - 1;
    SCOPED_TRACE("sizes " + to_string(IntArrayRef(sizes)));
    const at::Tensor in = at::randint(-100, 100, sizes, at::kLong).to(at::kFloat);
    const at::Tensor index = at::randint(0, sizes.back(), sizes, at::kLong);
    const at::Tensor out = at::zeros(sizes, at::kFloat);
    DeviceStorage in_device(*device, *stream, in), index_device(*device, *stream, index),
        out_device(*device, *stream, out);
    kernels().gather(*stream, {out_device.ref(out), in_device.ref(in), dim, index_device.ref(index)});
    expect_tensor_eq(out_device.read(*stream, out), at::gather(in, dim, index), DType::Float32);
    DeviceStorage sums_device(*device, *stream, out);
    kernels().scatter(*stream,
                      {ScatterMode::Add, sums_device.ref(out), dim, index_device.ref(index), in_device.ref(in)});
    expect_tensor_eq(sums_device.read(*stream, out), out.scatter_add(dim, index, in), DType::Float32);
  }
  auto* vulkan_device = dynamic_cast<vulkan::VulkanDevice*>(device.get());
  if (vulkan_device == nullptr) return;
  const auto f32 = static_cast<uint32_t>(DType::Float32), add = static_cast<uint32_t>(ScatterMode::Add);
  for (const uint32_t rows : {0u, 1u}) {
    EXPECT_TRUE(vulkan_device->pipelines().made("gather_32", {rows})) << "ROWS " << rows;
    EXPECT_TRUE(vulkan_device->pipelines().made("scatter_f32", {f32, add, f32, 0, rows})) << "ROWS " << rows;
  }
}

TEST_P(IndexKernelsTest, IndexSelectIsGatherWithABroadcastIndex) {
  REQUIRE_KERNEL(kernels().gather(*stream, {empty(DType::Float32), empty(DType::Float32), 0, empty(DType::Int64)}));
  at::manual_seed(3);
  for (DType dtype : {DType::Float32, DType::BFloat16, DType::Int8}) {
    SCOPED_TRACE(std::string(dtype_name(dtype)));
    const at::Tensor table = random_torch({10, 33}, dtype, 103, -100, 100);
    const at::Tensor ids = at::randint(0, 10, {17}, at::kLong);
    DeviceStorage table_device(*device, *stream, table), ids_device(*device, *stream, ids);
    // Rows (an embedding lookup): the index repeats each id across the row with stride 0.
    const at::Tensor rows = at::zeros({17, 33}, table.options());
    DeviceStorage rows_device(*device, *stream, rows);
    kernels().gather(*stream, {rows_device.ref(rows), table_device.ref(table), 0, ids_device.ref(ids.unsqueeze(1).expand({17, 33}))});
    expect_tensor_eq(rows_device.read(*stream, rows), at::index_select(table, 0, ids), dtype);
    // Columns of the transposed table.
    const at::Tensor columns = at::zeros({33, 17}, table.options());
    DeviceStorage columns_device(*device, *stream, columns);
    kernels().gather(*stream, {columns_device.ref(columns), table_device.ref(table.t()), 1, ids_device.ref(ids.unsqueeze(0).expand({33, 17}))});
    expect_tensor_eq(columns_device.read(*stream, columns), at::index_select(table.t(), 1, ids), dtype);
  }
}

TEST_P(IndexKernelsTest, GatherOfZeroDimAndEmptyTensors) {
  REQUIRE_KERNEL(kernels().gather(*stream, {empty(DType::Float32), empty(DType::Float32), 0, empty(DType::Int64)}));
  const at::Tensor in = at::full({}, 4.5f);
  for (int64_t i : {0, -1}) {
    const at::Tensor index = at::full({}, i, at::kLong);
    const at::Tensor out = at::zeros({});
    DeviceStorage in_device(*device, *stream, in), index_device(*device, *stream, index),
        out_device(*device, *stream, out);
    kernels().gather(*stream, {out_device.ref(out), in_device.ref(in), 0, index_device.ref(index)});
    EXPECT_EQ(out_device.read(*stream, out).item<float>(), 4.5f);
  }
  // No elements to write, and an in with nothing along dim (every index reads zero).
  const at::Tensor nothing = at::zeros({0, 3});
  const at::Tensor no_index = at::zeros({0, 3}, at::kLong);
  DeviceStorage nothing_device(*device, *stream, nothing), no_index_device(*device, *stream, no_index);
  kernels().gather(*stream, {nothing_device.ref(nothing), nothing_device.ref(nothing), 0, no_index_device.ref(no_index)});
  const at::Tensor out = at::full({2, 3}, 9.0f);
  const at::Tensor index = at::zeros({2, 3}, at::kLong);
  DeviceStorage out_device(*device, *stream, out), index_device(*device, *stream, index);
  kernels().gather(*stream, {out_device.ref(out), nothing_device.ref(nothing), 0, index_device.ref(index)});
  expect_tensor_eq(out_device.read(*stream, out), at::zeros({2, 3}), DType::Float32);
}

// ---- scatter ----

const char* mode_name(ScatterMode mode) {
  switch (mode) {
    case ScatterMode::Assign: return "assign";
    case ScatterMode::Add: return "add";
    case ScatterMode::Multiply: return "multiply";
    case ScatterMode::Amax: return "amax";
    case ScatterMode::Amin: return "amin";
  }
  return "";
}

at::Tensor scatter_oracle(ScatterMode mode, const at::Tensor& out, int dim, const at::Tensor& index,
                          const at::Tensor& src, double alpha) {
  switch (mode) {
    case ScatterMode::Add:
      return at::scatter_add(out, dim, index, (src.to(at::kDouble) * alpha).to(src.scalar_type()));
    case ScatterMode::Multiply: return at::scatter_reduce(out, dim, index, src, "prod", true);
    case ScatterMode::Amax: return at::scatter_reduce(out, dim, index, src, "amax", true);
    case ScatterMode::Amin: return at::scatter_reduce(out, dim, index, src, "amin", true);
    case ScatterMode::Assign: break;
  }
  return at::scatter(out, dim, index, src);
}

// With colliding indices Assign keeps any one of the values sent to an element: checks that each
// element holds its old value when nothing was sent to it, and one of the values sent otherwise.
void expect_one_of_the_assigned(const at::Tensor& actual, const at::Tensor& before, int dim,
                                const at::Tensor& index, const at::Tensor& src) {
  const at::Tensor a = actual.to(at::kDouble).contiguous(), b = before.to(at::kDouble).contiguous();
  const at::Tensor s = src.to(at::kDouble).contiguous(), idx = index.contiguous();
  std::map<int64_t, std::set<double>> sent;
  const auto out_strides = a.strides();
  for (int64_t flat = 0; flat < idx.numel(); ++flat) {
    int64_t rest = flat, target = 0;
    for (int64_t d = idx.dim() - 1; d >= 0; --d) {
      const int64_t coordinate = rest % idx.size(d);
      rest /= idx.size(d);
      target += (d == dim ? idx.data_ptr<int64_t>()[flat] : coordinate) * out_strides[d];
    }
    sent[target].insert(s.data_ptr<double>()[flat]);
  }
  for (int64_t e = 0; e < a.numel(); ++e) {
    const double value = a.data_ptr<double>()[e];
    auto it = sent.find(e);
    if (it == sent.end()) {
      ASSERT_EQ(value, b.data_ptr<double>()[e]) << "element " << e << " was not sent anything";
    } else {
      ASSERT_TRUE(it->second.count(value)) << "element " << e << " holds " << value
                                           << ", which was not sent to it";
    }
  }
}

// Values whose sums (of a few, doubled) and products are exact in every dtype, so that colliding
// updates give at::'s result in any order: small integers, and signed powers of two to multiply.
at::Tensor exactly_combining_values(at::IntArrayRef sizes, DType dtype, ScatterMode mode) {
  if (dtype == DType::Bool) return at::rand(sizes) < 0.5;
  if (mode != ScatterMode::Multiply) return at::randint(-8, 8, sizes, at::kLong).to(torch_dtype(dtype));
  if (!is_floating_point(dtype)) return at::randint(-3, 4, sizes, at::kLong).to(torch_dtype(dtype));
  const at::Tensor sign = at::randint(0, 2, sizes, at::kLong) * 2 - 1;
  return (at::pow(2.0, at::randint(-1, 2, sizes, at::kLong).to(at::kDouble)) * sign).to(torch_dtype(dtype));
}

TEST_P(IndexKernelsTest, ScatterEveryModeAndDtypeWithCollisions) {
  REQUIRE_KERNEL(kernels().scatter(*stream, {ScatterMode::Add, empty(DType::Float32), 0, empty(DType::Int64), empty(DType::Float32), 1}));
  at::manual_seed(4);
  const std::vector<int64_t> out_sizes = {5, 7, 4};
  int round = 0;
  for (DType dtype : kAllDTypes) {
    if (!supported(dtype)) continue;
    for (ScatterMode mode : {ScatterMode::Assign, ScatterMode::Add, ScatterMode::Multiply,
                             ScatterMode::Amax, ScatterMode::Amin}) {
      const int dim = round % 3;
      const int layout = round % 3;
      ++round;
      SCOPED_TRACE(std::string(dtype_name(dtype)) + " " + mode_name(mode) + " dim " +
                   std::to_string(dim));
      // 13 positions along dim land on at most 7 elements: every element sees collisions.
      std::vector<int64_t> index_sizes = {4, 6, 3};
      index_sizes[dim] = 13;
      const at::Tensor out =
          in_layout(exactly_combining_values(out_sizes, dtype, mode), layout);
      const at::Tensor index =
          in_layout(at::randint(0, out_sizes[dim], index_sizes, at::kLong), (layout + 1) % 3);
      const at::Tensor src =
          in_layout(exactly_combining_values(index_sizes, dtype, mode), (layout + 2) % 3);
      const double alpha = dtype == DType::Bool ? 1 : 2;
      DeviceStorage out_device(*device, *stream, out), index_device(*device, *stream, index),
          src_device(*device, *stream, src);
      kernels().scatter(*stream, {mode, out_device.ref(out), dim, index_device.ref(index), src_device.ref(src), dtype == DType::Bool ? Scalar(true) : Scalar(static_cast<int64_t>(alpha))});
      const at::Tensor actual = out_device.read(*stream, out);
      if (mode == ScatterMode::Assign) {
        expect_one_of_the_assigned(actual, out, dim, index, src);
      } else {
        expect_tensor_eq(actual, scatter_oracle(mode, out, dim, index, src, alpha), dtype, 0);
      }
    }
  }
}

TEST_P(IndexKernelsTest, ScatterAScalarIntoEveryDtype) {
  REQUIRE_KERNEL(kernels().scatter(*stream, {ScatterMode::Add, empty(DType::Float32), 0, empty(DType::Int64), Scalar(1.0), 1}));
  at::manual_seed(5);
  for (DType dtype : kAllDTypes) {
    if (!supported(dtype)) continue;
    for (ScatterMode mode : {ScatterMode::Assign, ScatterMode::Add, ScatterMode::Amax}) {
      SCOPED_TRACE(std::string(dtype_name(dtype)) + " " + mode_name(mode));
      const at::Tensor out = random_torch({6, 9}, dtype, 104, -20, 20);
      const at::Tensor index = at::randint(0, 9, {6, 30}, at::kLong);
      const Scalar value = dtype == DType::Bool ? Scalar(true) : Scalar(int64_t{3});
      const at::Tensor src = at::full({6, 30}, 3, out.options());
      DeviceStorage out_device(*device, *stream, out), index_device(*device, *stream, index);
      kernels().scatter(*stream, {mode, out_device.ref(out), 1, index_device.ref(index), value, dtype == DType::Bool ? Scalar(true) : Scalar(int64_t{1})});
      expect_tensor_eq(out_device.read(*stream, out), scatter_oracle(mode, out, 1, index, src, 1),
                     dtype, 0);
    }
  }
}

TEST_P(IndexKernelsTest, ScatterSkipsOutOfRangeAndWrapsNegativeIndices) {
  REQUIRE_KERNEL(kernels().scatter(*stream, {ScatterMode::Add, empty(DType::Float32), 0, empty(DType::Int64), empty(DType::Float32), 1}));
  at::manual_seed(6);
  const at::Tensor out = at::rand({8, 300});
  const at::Tensor index = at::randint(-10, 10, {40, 300}, at::kLong);
  const at::Tensor src = at::rand({40, 300});
  const at::Tensor in_range = (index >= -8) & (index < 8);
  const at::Tensor expected = at::scatter_add(out, 0, at::where(index < 0, index + 8, index).clamp(0, 7),
                                              at::where(in_range, src * 0.5, at::zeros({})));
  DeviceStorage out_device(*device, *stream, out), index_device(*device, *stream, index),
      src_device(*device, *stream, src);
  kernels().scatter(*stream, {ScatterMode::Add, out_device.ref(out), 0, index_device.ref(index), src_device.ref(src), 0.5});
  expect_tensor_eq(out_device.read(*stream, out), expected, DType::Float32, 10);
}

TEST_P(IndexKernelsTest, ScatterNaNWinsAmaxAndZeroDim) {
  REQUIRE_KERNEL(kernels().scatter(*stream, {ScatterMode::Add, empty(DType::Float32), 0, empty(DType::Int64), empty(DType::Float32), 1}));
  const at::Tensor out = at::tensor({1.0f, 2.0f, NAN, 4.0f});
  const at::Tensor index = at::tensor({0, 0, 2, 3, 1}, at::kLong);
  const at::Tensor src = at::tensor({5.0f, NAN, 1.0f, 0.5f, -1.0f});
  for (ScatterMode mode : {ScatterMode::Amax, ScatterMode::Amin}) {
    DeviceStorage out_device(*device, *stream, out), index_device(*device, *stream, index),
        src_device(*device, *stream, src);
    kernels().scatter(*stream, {mode, out_device.ref(out), 0, index_device.ref(index), src_device.ref(src), 1});
    expect_tensor_eq(out_device.read(*stream, out), scatter_oracle(mode, out, 0, index, src, 1),
                   DType::Float32);
  }
  const at::Tensor scalar = at::full({}, 5, at::kInt);
  const at::Tensor zero = at::zeros({}, at::kLong);
  const at::Tensor two = at::full({}, 2, at::kInt);
  DeviceStorage scalar_device(*device, *stream, scalar), zero_device(*device, *stream, zero),
      two_device(*device, *stream, two);
  kernels().scatter(*stream, {ScatterMode::Add, scalar_device.ref(scalar), 0, zero_device.ref(zero), two_device.ref(two), int64_t{1}});
  EXPECT_EQ(scalar_device.read(*stream, scalar).item<int>(), 7);
}

// Assign with colliding indices keeps the position last along dim, as LibTorch's CPU kernels do (the
// Vulkan and CUDA backends order it in two passes): 40 positions along dim onto four targets, negative
// ones among them, every dtype, dim and layout. On lavapipe, which runs invocations in order, a single
// pass passes too; OrderedScatterIsAFillAndTwoDispatchesPerRun shows that the ordered path runs.
TEST_P(IndexKernelsTest, ScatterAssignKeepsTheLastOfCollidingPositions) {
  REQUIRE_KERNEL(kernels().scatter(*stream, {ScatterMode::Assign, empty(DType::Float32), 0, empty(DType::Int64), empty(DType::Float32), 1}));
  at::manual_seed(11);
  const std::vector<int64_t> out_sizes = {5, 6, 4};
  int round = 0;
  for (DType dtype : kAllDTypes) {
    if (!supported(dtype)) continue;
    for (int dim = 0; dim < 3; ++dim) {
      const int layout = round++ % 3;
      SCOPED_TRACE(std::string(dtype_name(dtype)) + " dim " + std::to_string(dim) + " layout " +
                   std::to_string(layout));
      std::vector<int64_t> index_sizes = {4, 5, 3};
      index_sizes[dim] = 40;
      const at::Tensor out = in_layout(random_torch(out_sizes, dtype, 200 + round, -100, 100), layout);
      const at::Tensor index = in_layout(at::randint(-2, 2, index_sizes, at::kLong), (layout + 1) % 3);
      const at::Tensor src = in_layout(random_torch(index_sizes, dtype, 300 + round, -100, 100), (layout + 2) % 3);
      const at::Tensor expected =
          at::scatter(out, dim, at::where(index < 0, index + out_sizes[dim], index), src);
      DeviceStorage out_device(*device, *stream, out), index_device(*device, *stream, index),
          src_device(*device, *stream, src);
      kernels().scatter(*stream, {ScatterMode::Assign, out_device.ref(out), dim, index_device.ref(index),
                                  src_device.ref(src), dtype == DType::Bool ? Scalar(true) : Scalar(int64_t{1})});
      expect_tensor_eq(out_device.read(*stream, out), expected, dtype, 0);
    }
  }
}

// Vulkan's ordered Assign is, per run of at most 2^20 positions, a fill of the table of claims and two
// dispatches (claim, store); every other scatter is one dispatch. A launch of more positions is split
// into runs along dim, and a later run's stores still come last.
TEST_P(IndexKernelsTest, OrderedScatterIsAFillAndTwoDispatchesPerRun) {
  REQUIRE_KERNEL(kernels().scatter(*stream, {ScatterMode::Assign, empty(DType::Float32), 0, empty(DType::Int64), empty(DType::Float32), 1}));
  if (device->backend() != Backend::Vulkan) GTEST_SKIP() << "counts the Vulkan stream's recorded commands";
  at::manual_seed(12);
  const auto commands_of = [&](const ScatterArgs& args) {
    const StreamStats before = stream->stats();
    kernels().scatter(*stream, args);
    const StreamStats after = stream->stats();
    return std::make_pair(after.dispatches - before.dispatches, after.barriers - before.barriers);
  };
  const at::Tensor out = at::randint(-100, 100, {3, 8}, at::kInt);
  const at::Tensor index = at::randint(0, 8, {3, 50}, at::kLong);
  const at::Tensor src = at::randint(-100, 100, {3, 50}, at::kInt);
  {
    DeviceStorage out_device(*device, *stream, out), index_device(*device, *stream, index),
        src_device(*device, *stream, src);
    const auto [dispatches, barriers] = commands_of(
        {ScatterMode::Assign, out_device.ref(out), 1, index_device.ref(index), src_device.ref(src), int64_t{1}});
    EXPECT_EQ(dispatches, 3u) << "the ordered path is a fill and two dispatches";
    EXPECT_GE(barriers, 2u) << "the claims are filled before the claiming pass, and claimed before the storing one";
    expect_tensor_eq(out_device.read(*stream, out), at::scatter(out, 1, index, src), DType::Int32);
  }
  // One dispatch each: a combining mode, a scalar src, one position along dim.
  for (int single = 0; single < 3; ++single) {
    SCOPED_TRACE("single pass " + std::to_string(single));
    const at::Tensor narrow_index = single == 2 ? index.narrow(1, 0, 1).contiguous() : index;
    const at::Tensor narrow_src = single == 2 ? src.narrow(1, 0, 1).contiguous() : src;
    DeviceStorage out_device(*device, *stream, out), index_device(*device, *stream, narrow_index),
        src_device(*device, *stream, narrow_src);
    const ScatterMode mode = single == 0 ? ScatterMode::Add : ScatterMode::Assign;
    const Operand source = single == 1 ? Operand(Scalar(int64_t{7})) : Operand(src_device.ref(narrow_src));
    EXPECT_EQ(commands_of({mode, out_device.ref(out), 1, index_device.ref(narrow_index), source, int64_t{1}}).first, 1u);
    const at::Tensor expected = single == 0   ? at::scatter_add(out, 1, narrow_index, narrow_src)
                                : single == 1 ? at::scatter(out, 1, narrow_index, at::Scalar(7))
                                              : at::scatter(out, 1, narrow_index, narrow_src);
    expect_tensor_eq(out_device.read(*stream, out), expected, DType::Int32);
  }
  // 1200 x 1000 positions onto 4 x 1000 elements: two runs of 600 rows each.
  {
    const at::Tensor big_out = at::randint(-100, 100, {4, 1000}, at::kInt);
    const at::Tensor big_index = at::randint(0, 4, {1200, 1000}, at::kLong);
    const at::Tensor big_src = at::randint(-100000, 100000, {1200, 1000}, at::kInt);
    DeviceStorage out_device(*device, *stream, big_out), index_device(*device, *stream, big_index),
        src_device(*device, *stream, big_src);
    EXPECT_EQ(commands_of({ScatterMode::Assign, out_device.ref(big_out), 0, index_device.ref(big_index),
                           src_device.ref(big_src), int64_t{1}})
                  .first,
              6u);
    expect_tensor_eq(out_device.read(*stream, big_out), at::scatter(big_out, 0, big_index, big_src), DType::Int32);
  }
}

// ---- tril / triu ----

TEST_P(IndexKernelsTest, TriangleMatchesTrilAndTriu) {
  REQUIRE_KERNEL(kernels().triangle(*stream, {view(nullptr, DType::Float32, {0, 0}, {0, 1}), view(nullptr, DType::Float32, {0, 0}, {0, 1}), 0, false}));
  at::manual_seed(7);
  struct Case {
    std::vector<int64_t> sizes;
    std::vector<int64_t> diagonals;
  };
  const std::vector<Case> cases = {{{2, 3, 5, 4}, {-2, -1, 0, 1, 2}},
                                   {{7, 3}, {-10, 0, 10}},
                                   {{1, 6}, {-1, 3}},
                                   {{3, 1, 300}, {0, 250}}};
  for (DType dtype : kAllDTypes) {
    if (!supported(dtype)) continue;
    for (size_t c = 0; c < cases.size(); ++c) {
      // Every dtype on the first case; float32 on the rest.
      if (c > 0 && dtype != DType::Float32) continue;
      for (int64_t diagonal : cases[c].diagonals) {
        for (bool upper : {false, true}) {
          const int layout = static_cast<int>((c + diagonal + 10) % 3);
          SCOPED_TRACE(std::string(dtype_name(dtype)) + " case " + std::to_string(c) + " diagonal " +
                       std::to_string(diagonal) + (upper ? " upper" : " lower"));
          const at::Tensor in = in_layout(random_torch(cases[c].sizes, dtype, 105, -9, 9), layout);
          const at::Tensor out = at::full(cases[c].sizes, 1, in.options());
          DeviceStorage in_device(*device, *stream, in), out_device(*device, *stream, out);
          kernels().triangle(*stream, {out_device.ref(out), in_device.ref(in), diagonal, upper});
          expect_tensor_eq(out_device.read(*stream, out),
                         upper ? at::triu(in, diagonal) : at::tril(in, diagonal), dtype);
        }
      }
    }
  }
}

TEST_P(IndexKernelsTest, TriangleInPlace) {
  REQUIRE_KERNEL(kernels().triangle(*stream, {view(nullptr, DType::Float32, {0, 0}, {0, 1}), view(nullptr, DType::Float32, {0, 0}, {0, 1}), 0, false}));
  at::manual_seed(8);
  const at::Tensor storage = at::rand({4, 9, 11});
  const at::Tensor matrices = storage.transpose(1, 2);  // in-place on a non-contiguous view
  DeviceStorage device_storage(*device, *stream, storage);
  kernels().triangle(*stream, {device_storage.ref(matrices), device_storage.ref(matrices), -1, false});
  expect_tensor_eq(device_storage.read(*stream, matrices), at::tril(matrices, -1), DType::Float32);
}

// ---- nonzero ----

TEST_P(IndexKernelsTest, NonzeroMatchesAtenForEveryDtypeAndShape) {
  REQUIRE_KERNEL(kernels().nonzero(*stream, {view(nullptr, DType::Int64, {0, 1}, {1, 1}), empty(DType::Float32), empty(DType::Int64)}));
  at::manual_seed(9);
  const std::vector<std::vector<int64_t>> shapes = {
      {}, {0}, {5}, {3, 4, 5}, {2, 1, 3, 1, 4}, {300, 7},
      {2, 1, 2, 1, 1, 2, 1, 1, 1, 2, 1, 1, 1, 1, 2, 3}};
  for (DType dtype : kAllDTypes) {
    if (!supported(dtype)) continue;
    for (size_t s = 0; s < shapes.size(); ++s) {
      const int layout = static_cast<int>((s + 1) % 3);
      SCOPED_TRACE(std::string(dtype_name(dtype)) + " shape " + std::to_string(s));
      at::Tensor values = random_torch(shapes[s], dtype, 106, -3, 3);
      values = at::where(at::rand(shapes[s]) < 0.4, values, at::zeros({}, values.options()));
      if (is_floating_point(dtype) && values.numel() > 3) {
        // -0.0 is zero; NaN is not.
        values.view(-1)[0] = -0.0;
        values.view(-1)[2] = NAN;
      }
      const at::Tensor in = in_layout(values, layout);
      const at::Tensor positions = at::cumsum(in.ne(0).reshape(-1).to(at::kLong), 0);
      const int64_t count = positions.numel() > 0 ? positions[-1].item<int64_t>() : 0;
      const at::Tensor out = in_layout(at::full({count, in.dim()}, -1, at::kLong), 2 - layout % 2);
      DeviceStorage in_device(*device, *stream, in), positions_device(*device, *stream, positions),
          out_device(*device, *stream, out);
      kernels().nonzero(*stream, {out_device.ref(out), in_device.ref(in), positions_device.ref(positions)});
      expect_tensor_eq(out_device.read(*stream, out), at::nonzero(in), DType::Int64);
    }
  }
}

// Eight dims that do not merge: more than a launch's push constants hold, so launches split into
// pieces, and triangle's rows and columns come from each piece's first position.
TEST_P(IndexKernelsTest, ManyDimsSplitIntoSeveralLaunches) {
  REQUIRE_KERNEL(kernels().gather(*stream, {empty(DType::Float32), empty(DType::Float32), 0, empty(DType::Int64)}));
  at::manual_seed(10);
  const std::vector<int64_t> sizes = {2, 3, 2, 3, 2, 2, 3, 5};
  std::vector<int64_t> in_sizes = sizes;
  in_sizes[3] = 5;
  {
    const at::Tensor in = in_layout(at::rand(in_sizes), 1);
    const at::Tensor index = in_layout(at::randint(0, 5, sizes, at::kLong), 2);
    const at::Tensor out = in_layout(at::zeros(sizes), 1);
    DeviceStorage in_device(*device, *stream, in), index_device(*device, *stream, index),
        out_device(*device, *stream, out);
    kernels().gather(*stream, {out_device.ref(out), in_device.ref(in), 3, index_device.ref(index)});
    expect_tensor_eq(out_device.read(*stream, out), at::gather(in, 3, index), DType::Float32);
  }
  {
    const at::Tensor out = in_layout(at::randint(-9, 9, in_sizes, at::kInt), 1);
    const at::Tensor index = in_layout(at::randint(0, 5, sizes, at::kLong), 1);
    const at::Tensor src = in_layout(at::randint(-9, 9, sizes, at::kInt), 2);
    DeviceStorage out_device(*device, *stream, out), index_device(*device, *stream, index),
        src_device(*device, *stream, src);
    kernels().scatter(*stream, {ScatterMode::Add, out_device.ref(out), 3, index_device.ref(index), src_device.ref(src), int64_t{1}});
    expect_tensor_eq(out_device.read(*stream, out), at::scatter_add(out, 3, index, src), DType::Int32);
  }
  for (int64_t diagonal : {-1, 2}) {
    const at::Tensor in = in_layout(at::rand(sizes), 1);
    const at::Tensor out = in_layout(at::zeros(sizes), 2);
    DeviceStorage in_device(*device, *stream, in), out_device(*device, *stream, out);
    kernels().triangle(*stream, {out_device.ref(out), in_device.ref(in), diagonal, diagonal > 0});
    expect_tensor_eq(out_device.read(*stream, out),
                   diagonal > 0 ? at::triu(in, diagonal) : at::tril(in, diagonal), DType::Float32);
  }
}

INSTANTIATE_TEST_SUITE_P(Backends, IndexKernelsTest, testing::Values("vulkan", "cuda"),
                         backend_test_name);

}  // namespace
}  // namespace ember::test
