// The first kernels on every backend, compared with values computed on the host: fill and strided
// copy for every dtype, float32 add and mul with broadcasting, float32 sum.
#include <algorithm>
#include <cmath>
#include <random>

#include "runtime/half.h"
#include "runtime/kernels/elementwise.h"
#include "runtime/vulkan/vulkan_device.h"
#include "shaders/common/contiguous_launch.h"
#include "test_support.h"

namespace ember::test {
namespace {

class KernelsTest : public BackendTest {};

// Host model of a strided view: the element offsets it visits, in row-major order.
std::vector<int64_t> element_offsets(const std::vector<int64_t>& sizes,
                                      const std::vector<int64_t>& strides, int64_t base) {
  std::vector<int64_t> offsets{base};
  for (size_t d = 0; d < sizes.size(); ++d) {
    std::vector<int64_t> next;
    for (int64_t offset : offsets) {
      for (int64_t i = 0; i < sizes[d]; ++i) next.push_back(offset + i * strides[d]);
    }
    offsets = std::move(next);
  }
  return offsets;
}

struct ViewCase {
  const char* name;
  std::vector<int64_t> sizes;
  std::vector<int64_t> strides;
  int64_t offset;  // elements
  int64_t storage;  // elements the source storage needs
};

// Non-contiguous, broadcast, empty, 0-dim, and sizes that are not a multiple of the workgroup size.
const std::vector<ViewCase> kViews = {
    {"contiguous", {1000}, {1}, 0, 1000},
    {"zero_dim", {}, {}, 5, 6},
    {"empty", {3, 0, 4}, {0, 4, 1}, 0, 1},
    {"transposed", {33, 17}, {1, 33}, 0, 33 * 17},
    {"stepped_slice", {7, 9}, {40, 3}, 2, 7 * 40},
    {"broadcast_rows", {5, 300}, {0, 1}, 1, 301},
    {"seven_dims", {2, 3, 2, 3, 2, 3, 2}, {1, 2, 6, 12, 36, 72, 216}, 0, 432},
    {"odd_size", {257, 3}, {3, 1}, 0, 771},
    // Rows of a multiple of four elements: the rows layouts take the 4-byte dtypes (Vulkan).
    {"transposed_rows", {40, 36}, {1, 40}, 0, 40 * 36},
    {"padded_rows", {6, 32}, {40, 1}, 4, 6 * 40},
    {"heads_moved", {2, 3, 5, 8}, {120, 8, 24, 1}, 0, 2 * 3 * 5 * 8},  // [2, 5, 3, 8] to [2, 3, 5, 8]
};

std::vector<uint8_t> random_bytes(size_t count, uint32_t seed) {
  std::mt19937 rng(seed);
  std::vector<uint8_t> bytes(count);
  for (auto& b : bytes) b = static_cast<uint8_t>(rng());
  return bytes;
}

TEST_P(KernelsTest, StridedCopyToContiguousForEveryDtype) {
  for (DType dtype : kAllDTypes) {
    if (!device->supports(dtype)) {
      std::printf("[  NOTE    ] %s skipped: the device cannot store it\n",
                  std::string(dtype_name(dtype)).c_str());
      continue;
    }
    const size_t size = element_size(dtype);
    for (const ViewCase& c : kViews) {
      SCOPED_TRACE(std::string(dtype_name(dtype)) + " " + c.name);
      std::vector<uint8_t> source = random_bytes(c.storage * size, 17);
      auto src = upload(*device, *stream, source);
      const auto offsets = element_offsets(c.sizes, c.strides, c.offset);
      auto dst = device->allocate(std::max<size_t>(offsets.size() * size, 1));
      std::vector<int64_t> contiguous(c.sizes.size());
      int64_t stride = 1;
      for (int d = static_cast<int>(c.sizes.size()) - 1; d >= 0; --d) {
        contiguous[d] = stride;
        stride *= c.sizes[d];
      }
      device->kernels().get<MemoryKernels>().copy(*stream, {view(dst.get(), dtype, c.sizes, contiguous), view(src.get(), dtype, c.sizes, c.strides, c.offset * size)});
      std::vector<uint8_t> result = download<uint8_t>(*stream, dst, offsets.size() * size);
      for (size_t i = 0; i < offsets.size(); ++i) {
        ASSERT_EQ(std::memcmp(&result[i * size], &source[offsets[i] * size], size), 0)
            << "element " << i;
      }
    }
  }
  // On Vulkan the three row cases went through the elementwise cast as int32, which keeps every bit.
  auto* vulkan_device = dynamic_cast<vulkan::VulkanDevice*>(device.get());
  if (vulkan_device != nullptr) {
    const uint32_t cast = static_cast<uint32_t>(UnaryOp::Cast), i32 = static_cast<uint32_t>(DType::Int32);
    for (vulkan::Layout layout : {vulkan::Layout::Rows, vulkan::Layout::RowsGather, vulkan::Layout::FourDimRows}) {
      EXPECT_TRUE(vulkan_device->pipelines().made("unary_i32", {cast, i32, i32, static_cast<uint32_t>(layout)}))
          << "layout " << static_cast<int>(layout);
    }
  }
}

TEST_P(KernelsTest, CopyIntoStridedDestinationLeavesOtherElements) {
  std::vector<int16_t> sentinel(64, -7);
  auto dst = upload(*device, *stream, sentinel);
  std::vector<int16_t> values(16);
  for (int i = 0; i < 16; ++i) values[i] = static_cast<int16_t>(i + 1);
  auto src = upload(*device, *stream, values);
  // dst viewed as 4x4 with row stride 16 and column stride 2.
  device->kernels().get<MemoryKernels>().copy(*stream, {view(dst.get(), DType::Float16, {4, 4}, {16, 2}), view(src.get(), DType::Float16, {4, 4}, {4, 1})});
  std::vector<int16_t> result = download<int16_t>(*stream, dst, 64);
  for (int i = 0; i < 64; ++i) {
    const bool written = (i % 16) % 2 == 0 && (i % 16) < 8;
    const int16_t expected = written ? static_cast<int16_t>((i / 16) * 4 + (i % 16) / 2 + 1) : -7;
    ASSERT_EQ(result[i], expected) << "element " << i;
  }
}

double decode(DType dtype, const uint8_t* bytes) {
  switch (dtype) {
    case DType::Float32: { float v; std::memcpy(&v, bytes, 4); return v; }
    case DType::Float64: { double v; std::memcpy(&v, bytes, 8); return v; }
    case DType::Float16: { uint16_t v; std::memcpy(&v, bytes, 2); return half_bits_to_float(v); }
    case DType::BFloat16: { uint16_t v; std::memcpy(&v, bytes, 2); return bfloat16_bits_to_float(v); }
    case DType::Int8: return static_cast<int8_t>(bytes[0]);
    case DType::UInt8: return bytes[0];
    case DType::Bool: return bytes[0];
    case DType::Int16: { int16_t v; std::memcpy(&v, bytes, 2); return v; }
    case DType::Int32: { int32_t v; std::memcpy(&v, bytes, 4); return v; }
    case DType::Int64: { int64_t v; std::memcpy(&v, bytes, 8); return static_cast<double>(v); }
  }
  return NAN;
}

TEST_P(KernelsTest, FillEveryDtypeThroughAStridedView) {
  for (DType dtype : kAllDTypes) {
    if (!device->supports(dtype)) continue;
    SCOPED_TRACE(std::string(dtype_name(dtype)));
    const size_t size = element_size(dtype);
    const double value = dtype == DType::Bool ? 1.0 : (is_floating_point(dtype) ? -2.5 : 100.0);
    std::vector<uint8_t> zeros(300 * size, 0);
    auto a = upload(*device, *stream, zeros);
    // Every third element of the first 299.
    device->kernels().get<MemoryKernels>().fill(*stream, {view(a.get(), dtype, {100}, {3}), value});
    std::vector<uint8_t> result = download<uint8_t>(*stream, a, 300 * size);
    for (int i = 0; i < 300; ++i) {
      const double expected = (i % 3 == 0 && i < 300) ? value : 0.0;
      ASSERT_EQ(decode(dtype, &result[i * size]), expected) << "element " << i;
    }
  }
}

// Contiguous runs: on Vulkan, those of whole 4-byte words whose value repeats every word are buffer fills
// (zero and -2.5 in float32, any 8- or 16-bit value, zero in 64 bits), the others the fill shader. Each
// case fills elements [first, first + count) of a zeroed buffer and must leave the rest alone.
TEST_P(KernelsTest, FillContiguousRunsAtEveryOffset) {
  const std::pair<int64_t, int64_t> runs[] = {{0, 64}, {1, 63}, {3, 5}, {0, 1}, {2, 2}, {4, 60}};
  for (DType dtype : kAllDTypes) {
    if (!device->supports(dtype)) continue;
    const size_t size = element_size(dtype);
    for (const double value : {dtype == DType::Bool ? 1.0 : (is_floating_point(dtype) ? -2.5 : 100.0), 0.0}) {
      for (const auto& [first, count] : runs) {
        SCOPED_TRACE(std::string(dtype_name(dtype)) + " value " + std::to_string(value) + " elements " +
                     std::to_string(first) + " + " + std::to_string(count));
        std::vector<uint8_t> background(64 * size, 0);
        if (value == 0.0) std::fill(background.begin(), background.end(), uint8_t{0x5a});
        auto a = upload(*device, *stream, background);
        device->kernels().get<MemoryKernels>().fill(*stream, {view(a.get(), dtype, {count}, {1}, first * size), value});
        const std::vector<uint8_t> result = download<uint8_t>(*stream, a, 64 * size);
        for (int64_t i = 0; i < 64; ++i) {
          const bool inside = i >= first && i < first + count;
          const double want = inside ? value : decode(dtype, &background[i * size]);
          ASSERT_EQ(decode(dtype, &result[i * size]), want) << "element " << i;
        }
      }
    }
  }
}

TEST_P(KernelsTest, AddAndMulFloat32WithBroadcastAndStrides) {
  std::mt19937 rng(5);
  std::uniform_real_distribution<float> uniform(-10.0f, 10.0f);
  const int64_t rows = 37, cols = 261;
  std::vector<float> a_values(rows * cols), b_values(cols);
  for (float& v : a_values) v = uniform(rng);
  for (float& v : b_values) v = uniform(rng);
  auto a = upload(*device, *stream, a_values);
  auto b = upload(*device, *stream, b_values);
  auto out = device->allocate(rows * cols * sizeof(float));
  // out (cols x rows) = a transposed + b broadcast along rows.
  TensorRef out_ref = view(out.get(), DType::Float32, {cols, rows}, {rows, 1});
  TensorRef a_t = view(a.get(), DType::Float32, {cols, rows}, {1, cols});
  TensorRef b_col = view(b.get(), DType::Float32, {cols, rows}, {1, 0});
  for (BinaryOp op : {BinaryOp::Add, BinaryOp::Mul}) {
    device->kernels().get<ElementwiseKernels>().binary(*stream, {.op = op, .out = out_ref, .a = a_t, .b = b_col, .compute = DType::Float32});
    std::vector<float> result = download<float>(*stream, out, rows * cols);
    for (int64_t c = 0; c < cols; ++c) {
      for (int64_t r = 0; r < rows; ++r) {
        const float x = a_values[r * cols + c], y = b_values[c];
        const float expected = op == BinaryOp::Add ? x + y : x * y;
        ASSERT_EQ(result[c * rows + r], expected) << c << "," << r;
      }
    }
  }
}

TEST_P(KernelsTest, BinaryRejectsMismatchedShapes) {
  auto a = device->allocate(64);
  TensorRef f = TensorRef::contiguous(*a, DType::Float32, {4});
  TensorRef i = TensorRef::contiguous(*a, DType::Int32, {4});
  TensorRef g = TensorRef::contiguous(*a, DType::Float32, {5});
  EXPECT_THROW(device->kernels().get<ElementwiseKernels>().binary(*stream, {.op = BinaryOp::Add, .out = f, .a = f, .b = g, .compute = DType::Float32}), Error);
  EXPECT_THROW(device->kernels().get<MemoryKernels>().copy(*stream, {f, i}), Error);
}

TEST_P(KernelsTest, SumFloat32MatchesHostForManySizes) {
  std::mt19937 rng(11);
  std::uniform_real_distribution<float> uniform(-1.0f, 1.0f);
  for (int64_t n : {0, 1, 7, 255, 256, 257, 4099, 100'003, 1'000'000}) {
    SCOPED_TRACE(n);
    std::vector<float> values(std::max<int64_t>(n, 1));
    for (float& v : values) v = uniform(rng) + 0.25f;
    auto a = upload(*device, *stream, values);
    auto out = device->allocate(sizeof(float));
    sum_all(*device, *stream, TensorRef::contiguous(*out, DType::Float32, {}),
            TensorRef::contiguous(*a, DType::Float32, {n}));
    double expected = 0.0;
    for (int64_t i = 0; i < n; ++i) expected += values[i];
    const float result = download<float>(*stream, out, 1)[0];
    EXPECT_NEAR(result, expected, 1e-6 * std::abs(expected) + 1e-6);
  }
}

TEST_P(KernelsTest, SumOfStridedAndBroadcastViews) {
  std::vector<float> values(50 * 40);
  for (size_t i = 0; i < values.size(); ++i) values[i] = static_cast<float>(i % 97) * 0.5f;
  auto a = upload(*device, *stream, values);
  auto out = device->allocate(sizeof(float));
  TensorRef out_ref = TensorRef::contiguous(*out, DType::Float32, {1});
  // Columns 1, 3, 5, ... of the 50x40 matrix, transposed.
  sum_all(*device, *stream, out_ref, view(a.get(), DType::Float32, {20, 50}, {2, 40}, sizeof(float)));
  double expected = 0.0;
  for (int r = 0; r < 50; ++r) {
    for (int c = 1; c < 40; c += 2) expected += values[r * 40 + c];
  }
  EXPECT_FLOAT_EQ(download<float>(*stream, out, 1)[0], static_cast<float>(expected));
  // One element broadcast a million times.
  sum_all(*device, *stream, out_ref, view(a.get(), DType::Float32, {1000, 1000}, {0, 0}, 4 * sizeof(float)));
  EXPECT_FLOAT_EQ(download<float>(*stream, out, 1)[0], values[4] * 1e6f);
}

INSTANTIATE_TEST_SUITE_P(Backends, KernelsTest, testing::Values("vulkan", "cuda"), backend_test_name);

}  // namespace
}  // namespace ember::test
