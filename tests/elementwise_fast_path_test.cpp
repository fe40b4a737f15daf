// The contiguous fast paths of the elementwise kernels (shaders/common/contiguous.glsl) and of the copy
// kernel: the host plan that covers a contiguous launch with blocks of four elements and single
// elements, then ops through it compared with LibTorch at the plan's edges: sizes that are not a
// multiple of four, on both sides of the split threshold, views whose storage offset starts no block,
// 0 and 1 elements, every dtype in and out, NaN and infinities, and the elements around an in-place
// view left as they were. Past one binding: tests/binding_size_test.cpp (ElementwiseAndCopies).
#include <ATen/ATen.h>

#include <limits>
#include <string>
#include <vector>

#include "runtime/allocator.h"
#include "runtime/scoped_environment.h"
#include "runtime/vulkan/vulkan_device.h"
#include "shaders/common/contiguous_launch.h"
#include "tests/oracle.h"

namespace ember::test {
namespace {

using vulkan::ContiguousLimits;
using vulkan::Groups;
using vulkan::Layout;

// ---- the plan (Vulkan's host side, with made-up device limits) ----

class ContiguousPlanTest : public BackendTest {
 protected:
  void SetUp() override {
    BackendTest::SetUp();
    if (IsSkipped()) return;
    if (!dynamic_cast<vulkan::VulkanDevice*>(device.get())) GTEST_SKIP() << "the contiguous layouts are Vulkan's";
    storage_ = device->allocate(1 << 20);
  }

  TensorRef f32(int64_t numel, uint64_t byte_offset) const {
    return TensorRef::contiguous(*storage_, DType::Float32, {numel}, byte_offset);
  }

  std::shared_ptr<Allocation> storage_;
};

struct Dispatch {
  Layout layout;
  int64_t numel;
  std::vector<uint64_t> byte_offsets;
  Groups groups;
};

std::vector<Dispatch> plan(const ContiguousLimits& limits, std::initializer_list<const TensorRef*> operands) {
  const LaunchShape shape = plan_launch(operands);
  EXPECT_TRUE(vulkan::is_contiguous(shape));
  std::vector<Dispatch> dispatches;
  vulkan::for_each_contiguous_dispatch(limits, shape, [&](Layout layout, const LaunchShape& piece, Groups groups) {
    Dispatch dispatch{layout, piece.numel(), {}, groups};
    for (int i = 0; i < piece.noperands; ++i) {
      dispatch.byte_offsets.push_back(piece.operands[i].byte_offset);
      const vulkan::Window window = vulkan::contiguous_window(limits, piece, i, i == 0);
      EXPECT_LE(window.binding.range, limits.max_window_bytes) << "operand " << i;
      EXPECT_EQ(window.binding.offset % limits.window_alignment, 0u) << "operand " << i;
      if (layout == Layout::Blocks) {
        EXPECT_EQ(window.first_element, 0u) << "operand " << i;
      }
    }
    dispatches.push_back(dispatch);
  });
  return dispatches;
}

constexpr ContiguousLimits kLimits{.window_alignment = 16, .max_window_bytes = 1 << 20, .max_groups_x = 65535};

TEST_P(ContiguousPlanTest, AlignedWholeBlocksTakeOneBlocksDispatch) {
  const TensorRef out = f32(1024, 0), in = f32(1024, 4096);
  const std::vector<Dispatch> d = plan(kLimits, {&out, &in});
  ASSERT_EQ(d.size(), 1u);
  EXPECT_EQ(d[0].layout, Layout::Blocks);
  EXPECT_EQ(d[0].numel, 1024);
  EXPECT_EQ(d[0].groups.x, 1u);  // 256 blocks
  EXPECT_EQ(d[0].byte_offsets, (std::vector<uint64_t>{0, 4096}));
}

TEST_P(ContiguousPlanTest, AnOperandOffTheBlocksTakesElements) {
  const TensorRef out = f32(1024, 0), in = f32(1024, 4100);
  const std::vector<Dispatch> d = plan(kLimits, {&out, &in});
  ASSERT_EQ(d.size(), 1u);
  EXPECT_EQ(d[0].layout, Layout::Elements);
  EXPECT_EQ(d[0].numel, 1024);
  EXPECT_EQ(d[0].groups.x, 4u);
}

TEST_P(ContiguousPlanTest, ShortRaggedLaunchesTakeElementsAlone) {
  const TensorRef out = f32(1027, 0), in = f32(1027, 8192);
  const std::vector<Dispatch> d = plan(kLimits, {&out, &in});
  ASSERT_EQ(d.size(), 1u);
  EXPECT_EQ(d[0].layout, Layout::Elements);
  EXPECT_EQ(d[0].numel, 1027);
}

TEST_P(ContiguousPlanTest, LongRaggedLaunchesSplitTheirLastElements) {
  const TensorRef out = f32(65539, 0), in = f32(65539, 262160);
  const std::vector<Dispatch> d = plan(kLimits, {&out, &in});
  ASSERT_EQ(d.size(), 2u);
  EXPECT_EQ(d[0].layout, Layout::Blocks);
  EXPECT_EQ(d[0].numel, 65536);
  EXPECT_EQ(d[0].groups.x, 64u);
  EXPECT_EQ(d[1].layout, Layout::Elements);
  EXPECT_EQ(d[1].numel, 3);
  EXPECT_EQ(d[1].byte_offsets, (std::vector<uint64_t>{262144, 262160 + 262144}));
}

TEST_P(ContiguousPlanTest, PiecesFitAWindowAndStayAligned) {
  ContiguousLimits limits = kLimits;
  limits.max_window_bytes = 64 << 10;
  const TensorRef out = f32(40000, 0), in = f32(40000, 1 << 19);
  const std::vector<Dispatch> d = plan(limits, {&out, &in});
  int64_t covered = 0;
  for (const Dispatch& dispatch : d) {
    EXPECT_EQ(dispatch.layout, Layout::Blocks);
    EXPECT_EQ(dispatch.byte_offsets[0], static_cast<uint64_t>(covered) * 4);
    covered += dispatch.numel;
  }
  EXPECT_EQ(covered, 40000);
  EXPECT_GE(d.size(), 3u);
  // The widest operand decides: float64 out of int8 in.
  const TensorRef wide = TensorRef::contiguous(*storage_, DType::Float64, {20000}, 0);
  const TensorRef narrow = TensorRef::contiguous(*storage_, DType::Int8, {20000}, 1 << 19);
  covered = 0;
  for (const Dispatch& dispatch : plan(limits, {&wide, &narrow})) covered += dispatch.numel;
  EXPECT_EQ(covered, 20000);
}

TEST_P(ContiguousPlanTest, WorkgroupsWrapIntoRows) {
  ContiguousLimits limits = kLimits;
  limits.max_groups_x = 3;
  const TensorRef out = f32(2000, 4), in = f32(2000, 1 << 16);
  const std::vector<Dispatch> d = plan(limits, {&out, &in});
  ASSERT_EQ(d.size(), 1u);
  EXPECT_EQ(d[0].layout, Layout::Elements);
  EXPECT_EQ(d[0].groups.x, 3u);
  EXPECT_EQ(d[0].groups.y, 3u);  // 8 workgroups of 256 in rows of 3
}

TEST_P(ContiguousPlanTest, EmptyOneElementAndStridedLaunches) {
  const TensorRef empty_out = f32(0, 0), empty_in = f32(0, 64);
  EXPECT_TRUE(plan(kLimits, {&empty_out, &empty_in}).empty());
  const TensorRef one = TensorRef::contiguous(*storage_, DType::Float32, {1, 1}, 16);
  const std::vector<Dispatch> d = plan(kLimits, {&one, &one});
  ASSERT_EQ(d.size(), 1u);
  EXPECT_EQ(d[0].layout, Layout::Elements);
  EXPECT_EQ(d[0].numel, 1);
  TensorRef transposed = TensorRef::contiguous(*storage_, DType::Float32, {8, 8}, 0);
  transposed.strides = {1, 8};
  const TensorRef square = TensorRef::contiguous(*storage_, DType::Float32, {8, 8}, 1024);
  EXPECT_FALSE(vulkan::is_contiguous(plan_launch({&square, &transposed})));
  TensorRef broadcast = square;
  broadcast.strides = {0, 1};
  EXPECT_FALSE(vulkan::is_contiguous(plan_launch({&square, &broadcast})));
}

// The rows layouts (strided launches whose output's rows step by one element): which pieces take which.
TEST_P(ContiguousPlanTest, RowsTakeBroadcastsAndRowStridedViews) {
  const vulkan::Context& context = static_cast<vulkan::VulkanDevice&>(*device).context();
  const auto layout = [&](std::initializer_list<const TensorRef*> operands) {
    return vulkan::rows_layout(context, plan_launch(operands));
  };
  const auto rows = [&](std::initializer_list<const TensorRef*> operands) {
    return layout(operands) == Layout::Rows;
  };
  const TensorRef out = TensorRef::contiguous(*storage_, DType::Float32, {64, 1000}, 0);
  const TensorRef in = TensorRef::contiguous(*storage_, DType::Float32, {64, 1000}, 256000);
  TensorRef per_row = TensorRef::contiguous(*storage_, DType::Float32, {64, 1000}, 512000);
  per_row.strides = {1, 0};  // [64, 1] expanded
  TensorRef per_column = per_row;
  per_column.strides = {0, 1};  // [1000] expanded
  EXPECT_TRUE(rows({&out, &in, &per_row}));
  EXPECT_TRUE(rows({&out, &per_column, &in}));
  TensorRef padded_rows = in;  // a [64, 1000] slice of [64, 1004] and of [64, 1002]
  padded_rows.strides = {1004, 1};
  EXPECT_TRUE(rows({&out, &padded_rows}));
  padded_rows.strides = {1002, 1};
  EXPECT_FALSE(rows({&out, &padded_rows}));
  TensorRef off_block = per_row;
  off_block.byte_offset += 4;  // its broadcast values may start anywhere
  EXPECT_TRUE(rows({&out, &in, &off_block}));
  off_block = in;
  off_block.byte_offset += 4;
  EXPECT_FALSE(rows({&out, &in, &off_block}));
  TensorRef every_other = in;  // inputs that step by other than one load element by element
  every_other.strides = {2000, 2};
  EXPECT_EQ(layout({&out, &every_other}), Layout::RowsGather);
  TensorRef transposed = in;
  transposed.strides = {1, 64};
  EXPECT_EQ(layout({&out, &transposed, &per_row}), Layout::RowsGather);
  TensorRef written_every_other = out;
  written_every_other.strides = {2000, 2};
  EXPECT_EQ(layout({&written_every_other, &in}), std::nullopt);
  TensorRef written_broadcast = out;
  written_broadcast.strides = {1, 0};
  EXPECT_FALSE(rows({&written_broadcast, &per_row}));
  const TensorRef ragged_out = TensorRef::contiguous(*storage_, DType::Float32, {64, 1002}, 0);
  TensorRef ragged_row = ragged_out;
  ragged_row.byte_offset = 512000;
  ragged_row.strides = {1, 0};
  EXPECT_FALSE(rows({&ragged_out, &ragged_row}));
  // Three dims (a channel bias over [8, 16, 4, 4]) fit, and four that do not merge (attention's heads
  // moved in front of the tokens, [2, 3, 5, 8] from [2, 5, 3, 8]); five do not.
  const TensorRef images = TensorRef::contiguous(*storage_, DType::Float32, {8, 16, 4, 4}, 0);
  TensorRef channels = TensorRef::contiguous(*storage_, DType::Float32, {8, 16, 4, 4}, 512000);
  channels.strides = {0, 1, 0, 0};
  EXPECT_TRUE(rows({&images, &images, &channels}));
  TensorRef crossed = channels;
  crossed.strides = {1, 0, 0, 1};
  EXPECT_FALSE(rows({&images, &images, &crossed}));
  const TensorRef heads_first = TensorRef::contiguous(*storage_, DType::Float32, {2, 3, 5, 8}, 0);
  TensorRef tokens_first = TensorRef::contiguous(*storage_, DType::Float32, {2, 3, 5, 8}, 512000);
  tokens_first.strides = {120, 8, 24, 1};
  EXPECT_EQ(layout({&heads_first, &tokens_first}), Layout::FourDimRows);
  TensorRef scattered = tokens_first;
  scattered.strides = {24, 1, 48, 3};  // stored as [5, 2, 8, 3]
  EXPECT_EQ(layout({&heads_first, &scattered}), Layout::FourDimRowsGather);
  const TensorRef five = TensorRef::contiguous(*storage_, DType::Float32, {2, 3, 4, 5, 8}, 0);
  TensorRef five_moved = TensorRef::contiguous(*storage_, DType::Float32, {2, 3, 4, 5, 8}, 512000);
  five_moved.strides = {32, 320, 8, 64, 1};  // stored as [3, 5, 2, 4, 8]
  EXPECT_FALSE(rows({&five, &five_moved}));
}

INSTANTIATE_TEST_SUITE_P(Backends, ContiguousPlanTest, testing::Values("vulkan", "cuda"), backend_test_name);

// ---- ops through the fast paths, against LibTorch ----

class ElementwiseFastPathTest : public BackendTest {};

// Empty, one element, below and at one block, and ragged sizes on both sides of the split threshold
// (65536 elements).
const std::vector<int64_t> kSizes = {0, 1, 3, 4, 5, 1023, 1024, 65539};
// Element offsets of views into a larger storage: 0 and 8 start blocks on 16 bytes (8 only for dtypes
// of 2 bytes or more), 1 starts none.
const std::vector<int64_t> kOffsets = {0, 1, 8};

// Seeded values of `dtype` for a storage of `numel` elements; floating ones get NaN and infinities.
at::Tensor storage_values(int64_t numel, DType dtype, uint64_t seed, bool specials = true) {
  at::Tensor t = random_torch({numel}, dtype, seed);
  if (specials && is_floating_point(dtype) && numel >= 16) {
    t[3] = std::numeric_limits<double>::quiet_NaN();
    t[numel / 2] = std::numeric_limits<double>::infinity();
    t[numel - 2] = -std::numeric_limits<double>::infinity();
  }
  return t;
}

// The same view, `length` elements from `offset`, of a storage on the device and in LibTorch.
struct Views {
  Tensor base;
  at::Tensor torch_base;
  Tensor view() const { return base.narrow(0, offset, length); }
  at::Tensor torch_view() const { return torch_base.narrow(0, offset, length); }
  int64_t offset, length;
};

Views views_of(const at::Tensor& storage, int64_t offset, int64_t length, const std::shared_ptr<Device>& device) {
  return {from_torch(storage, device), storage.clone(), offset, length};
}

// Float32 inputs of whole blocks come through texel views on Vulkan where their windows allow
// (contiguous.glsl's TEXEL_READS), and through storage buffers with EMBER_TEXEL_READS=0: both.
TEST_P(ElementwiseFastPathTest, Float32OpsAtEveryEdge) {
  uint64_t seed = 1;
  for (const char* texel_reads : {"1", "0"})
  for (int64_t n : kSizes) {
    for (int64_t offset : kOffsets) {
      ScopedEnvironment scoped_texels("EMBER_TEXEL_READS", texel_reads);
      const std::string what =
          "size " + std::to_string(n) + " offset " + std::to_string(offset) + " EMBER_TEXEL_READS=" + texel_reads;
      SCOPED_TRACE(what);
      const Views a = views_of(storage_values(n + 8, DType::Float32, seed++), offset, n, device);
      const Views b = views_of(storage_values(n + 8, DType::Float32, seed++), offset == 1 ? 0 : 1, n, device);
      const Views c = views_of(storage_values(n + 8, DType::Float32, seed++), 8 - offset, n, device);
      const Tensor x = a.view(), y = b.view(), z = c.view();
      const at::Tensor tx = a.torch_view(), ty = b.torch_view(), tz = c.torch_view();
      EXPECT_TENSOR_EQ(x.relu(), tx.relu());
      EXPECT_TENSOR_EQ(x.exp(), tx.exp());
      EXPECT_TENSOR_EQ(x.mul(2.5), tx.mul(2.5));
      EXPECT_TENSOR_EQ(x.add(y, 2), tx.add(ty, 2));
      EXPECT_TENSOR_EQ(x.maximum(y), tx.maximum(ty));
      EXPECT_TENSOR_EQ(x.gt(y), tx.gt(ty));
      EXPECT_TENSOR_EQ(x.addcmul(y, z, 0.5), tx.addcmul(ty, tz, 0.5));
      EXPECT_TENSOR_EQ(ember::where(x.gt(0), y, z), at::where(tx.gt(0), ty, tz));
      EXPECT_TENSOR_EQ(x.to(DType::Float16), tx.to(at::kHalf));
      // Inputs that all start on blocks where x does (z at 8 - offset).
      EXPECT_TENSOR_EQ(x.sub(z, 2), tx.sub(tz, 2));
      EXPECT_TENSOR_EQ(x.addcdiv(z, x, 0.5), tx.addcdiv(tz, tx, 0.5));
    }
  }
  auto* vulkan_device = dynamic_cast<vulkan::VulkanDevice*>(device.get());
  if (vulkan_device != nullptr && device->info().driver.find("llvmpipe") != std::string::npos) {
    for (const char* shader : {"unary_f32_texel", "binary_f32_texel", "ternary_f32_texel"}) {
      EXPECT_TRUE(vulkan_device->pipelines().made(shader)) << shader;
    }
  }
}

// Broadcasts, transposed inputs and views whose rows start on blocks take LAYOUT_ROWS on Vulkan, float32
// with and without texel reads, and other dtypes through storage words; each against LibTorch, NaN and
// infinities included, and written views leave the elements around them.
TEST_P(ElementwiseFastPathTest, BroadcastsAndRowStridedViews) {
  uint64_t seed = 500;
  const auto values = [&](at::IntArrayRef sizes, DType dtype) {
    return storage_values(c10::multiply_integers(sizes), dtype, seed++).reshape(sizes);
  };
  for (const char* texel_reads : {"1", "0"}) {
    ScopedEnvironment scoped_texels("EMBER_TEXEL_READS", texel_reads);
    SCOPED_TRACE(std::string("EMBER_TEXEL_READS=") + texel_reads);
    const at::Tensor x = values({33, 1004}, DType::Float32), row = values({33, 1}, DType::Float32);
    const at::Tensor column = values({1000}, DType::Float32), wide = values({33, 1008}, DType::Float32);
    const at::Tensor tx = x.narrow(1, 0, 1000), tw = wide.narrow(1, 8, 1000);  // rows of 1004 and 1008
    const Tensor ex = from_torch(x, device).narrow(1, 0, 1000), erow = from_torch(row, device);
    const Tensor ecolumn = from_torch(column, device), ew = from_torch(wide, device).narrow(1, 8, 1000);
    EXPECT_TENSOR_EQ(ex.sub(erow), tx.sub(row));
    EXPECT_TENSOR_EQ(erow.sub(ex), row.sub(tx));
    EXPECT_TENSOR_EQ(ex.mul(ecolumn), tx.mul(column));
    EXPECT_TENSOR_EQ(ex.div(ew), tx.div(tw));
    EXPECT_TENSOR_EQ(ex.exp(), tx.exp());
    EXPECT_TENSOR_EQ(ex.addcmul(erow, ecolumn, 0.5), tx.addcmul(row, column, 0.5));
    EXPECT_TENSOR_EQ(ember::where(ex.gt(erow), ecolumn, ew), at::where(tx.gt(row), column, tw));
    // Transposed inputs, whose rows step by 33 elements.
    const at::Tensor columns = values({1000, 33}, DType::Float32);
    const Tensor ecolumns = from_torch(columns, device);
    EXPECT_TENSOR_EQ(ex.add(ecolumns.t(), 3), tx.add(columns.t(), 3));
    EXPECT_TENSOR_EQ(ecolumns.t().exp(), columns.t().exp());
    EXPECT_TENSOR_EQ(ecolumns.t().addcmul(erow, ex), columns.t().addcmul(row, tx));
    // A channel's value over [8, 12, 5, 4] images, and a row's over a batch of matrices.
    const at::Tensor images = values({8, 12, 5, 4}, DType::Float32), channel = values({1, 12, 1, 1}, DType::Float32);
    const at::Tensor mats = values({6, 7, 12}, DType::Float32), per_mat_row = values({6, 7, 1}, DType::Float32);
    EXPECT_TENSOR_EQ(from_torch(images, device).add(from_torch(channel, device), 2), images.add(channel, 2));
    EXPECT_TENSOR_EQ(from_torch(mats, device).maximum(from_torch(per_mat_row, device)), mats.maximum(per_mat_row));
    // Four dims that do not merge: attention's [batch, tokens, heads, 8] with its heads moved in front,
    // plus a per-head bias, a ternary op, and an input whose rows are scattered (gathered by element).
    const at::Tensor tokens = values({3, 7, 5, 8}, DType::Float32), head_bias = values({1, 5, 1, 8}, DType::Float32);
    const at::Tensor heads = tokens.permute({0, 2, 1, 3});
    const Tensor eheads = from_torch(tokens, device).permute({0, 2, 1, 3}), ehead_bias = from_torch(head_bias, device);
    EXPECT_TENSOR_EQ(eheads.contiguous(), heads.contiguous());
    EXPECT_TENSOR_EQ(eheads.add(ehead_bias), heads.add(head_bias));
    EXPECT_TENSOR_EQ(eheads.addcmul(ehead_bias, eheads, 0.5), heads.addcmul(head_bias, heads, 0.5));
    const at::Tensor stored = values({8, 5, 3, 7}, DType::Float32);  // rows 105 elements apart
    const at::Tensor scattered = stored.permute({2, 1, 3, 0});
    EXPECT_TENSOR_EQ(eheads.mul(from_torch(stored, device).permute({2, 1, 3, 0})), heads.mul(scattered));
    // In place, into a view whose rows are padded: the padding stays.
    Tensor target = from_torch(x, device);
    target.narrow(1, 0, 1000).mul_(erow);
    at::Tensor expected = x.clone();
    expected.narrow(1, 0, 1000).mul_(row);
    EXPECT_TENSOR_EQ(target, expected);
  }
  for (DType dtype : {DType::Float64, DType::Float16, DType::BFloat16, DType::Int8, DType::UInt8, DType::Int32,
                      DType::Int64, DType::Bool}) {
    if (!device->supports(dtype)) continue;
    SCOPED_TRACE(std::string(dtype_name(dtype)));
    const at::Tensor x = values({9, 36}, dtype).narrow(1, 4, 32), row = values({9, 1}, dtype);
    const Tensor ex = from_torch(x.contiguous(), device), erow = from_torch(row, device);
    const Tensor padded = from_torch(values({9, 40}, dtype), device);
    EXPECT_TENSOR_EQ(ex.add(erow), x.add(row));
    EXPECT_TENSOR_EQ(ex.mul(erow), x.mul(row));
    EXPECT_TENSOR_EQ(padded.narrow(1, 4, 32).eq(erow), to_torch(padded).narrow(1, 4, 32).eq(row));
  }
  auto* vulkan_device = dynamic_cast<vulkan::VulkanDevice*>(device.get());
  if (vulkan_device != nullptr) {
    const uint32_t f32 = static_cast<uint32_t>(DType::Float32), rows = static_cast<uint32_t>(Layout::Rows);
    const uint32_t sub = static_cast<uint32_t>(BinaryOp::Sub);
    for (const char* shader : {"binary_f32", "binary_f32_texel"}) {
      EXPECT_TRUE(vulkan_device->pipelines().made(shader, {sub, f32, f32, f32, 0, 0, rows})) << shader;
    }
    const uint32_t mul = static_cast<uint32_t>(BinaryOp::Mul);
    const uint32_t gather4 = static_cast<uint32_t>(Layout::FourDimRowsGather);
    EXPECT_TRUE(vulkan_device->pipelines().made("binary_f32_texel", {mul, f32, f32, f32, 0, 0, gather4}));
  }
}

TEST_P(ElementwiseFastPathTest, InPlaceViewsLeaveTheirNeighbours) {
  uint64_t seed = 100;
  for (int64_t n : {int64_t{5}, int64_t{1024}, int64_t{65539}}) {
    for (int64_t offset : kOffsets) {
      SCOPED_TRACE("size " + std::to_string(n) + " offset " + std::to_string(offset));
      const Views a = views_of(storage_values(n + 16, DType::Float32, seed++), offset, n, device);
      const at::Tensor other = storage_values(n, DType::Float32, seed++);
      Tensor x = a.view();
      x.add_(from_torch(other, device), 3);
      a.torch_view().add_(other, 3);
      EXPECT_TENSOR_EQ(a.base, a.torch_base);
      Tensor bytes_view = from_torch(a.torch_base.to(at::kByte), device);
      bytes_view.narrow(0, offset, n).mul_(3);
      at::Tensor expected = a.torch_base.to(at::kByte);
      expected.narrow(0, offset, n).mul_(3);
      EXPECT_TENSOR_EQ(bytes_view, expected);
    }
  }
}

TEST_P(ElementwiseFastPathTest, CastsBetweenEveryDtype) {
  uint64_t seed = 200;
  for (DType from : kAllDTypes) {
    if (!device->supports(from)) continue;
    for (DType to : kAllDTypes) {
      if (!device->supports(to)) continue;
      // PyTorch leaves float NaN and infinities to integers undefined.
      const bool specials = is_floating_point(to) || to == DType::Bool;
      for (auto [n, offset] : {std::pair<int64_t, int64_t>{1024, 0}, {1027, 0}, {1024, 1}, {65539, 8}}) {
        if (n > 2000 && from != DType::Float32 && to != DType::Float32) continue;  // one big row each way
        SCOPED_TRACE(std::string(dtype_name(from)) + " to " + std::string(dtype_name(to)) + ", size " +
                     std::to_string(n) + " offset " + std::to_string(offset));
        const Views a = views_of(storage_values(n + 8, from, seed++, specials), offset, n, device);
        EXPECT_TENSOR_EQ(a.view().to(to), a.torch_view().to(torch_dtype(to)));
      }
    }
  }
}

TEST_P(ElementwiseFastPathTest, MixedDtypesAndIntegerOps) {
  const std::vector<std::pair<DType, DType>> pairs = {
      {DType::Int8, DType::Float32},  {DType::UInt8, DType::Int64},    {DType::Float16, DType::BFloat16},
      {DType::Int16, DType::Float64}, {DType::Bool, DType::Int32},     {DType::Float16, DType::Float16},
      {DType::Int8, DType::Int8},     {DType::BFloat16, DType::Float32}};
  uint64_t seed = 300;
  for (auto [da, db] : pairs) {
    if (!device->supports(da) || !device->supports(db)) continue;
    for (auto [n, offset] : {std::pair<int64_t, int64_t>{1024, 0}, {1024, 8}, {1031, 1}}) {
      SCOPED_TRACE(std::string(dtype_name(da)) + " and " + std::string(dtype_name(db)) + ", size " +
                   std::to_string(n) + " offset " + std::to_string(offset));
      const Views a = views_of(storage_values(n + 8, da, seed++), offset, n, device);
      const Views b = views_of(storage_values(n + 8, db, seed++), 0, n, device);
      EXPECT_TENSOR_EQ(a.view().add(b.view()), a.torch_view().add(b.torch_view()));
      EXPECT_TENSOR_EQ(a.view().mul(b.view()), a.torch_view().mul(b.torch_view()));
      EXPECT_TENSOR_EQ(a.view().eq(b.view()), a.torch_view().eq(b.torch_view()));
    }
  }
  for (DType dtype : {DType::Int8, DType::Int32, DType::Int64}) {
    SCOPED_TRACE(std::string(dtype_name(dtype)));
    const at::Tensor a = random_torch({1024}, dtype, seed++);
    const at::Tensor b = random_torch({1024}, dtype, seed++, 1, 9);
    const Tensor x = from_torch(a, device), y = from_torch(b, device);
    EXPECT_TENSOR_EQ(x.remainder(y), a.remainder(b));
    EXPECT_TENSOR_EQ(x.bitwise_and(y), a.bitwise_and(b));
    EXPECT_TENSOR_EQ(x.mul(y).mul(7), a.mul(b).mul(7));  // int8 wraps as LibTorch's does
  }
}

TEST_P(ElementwiseFastPathTest, CopiesOfContiguousViews) {
  uint64_t seed = 400;
  for (DType dtype : {DType::Float32, DType::Float16, DType::Int8, DType::Float64}) {
    if (!device->supports(dtype)) continue;
    for (int64_t n : {int64_t{0}, int64_t{1}, int64_t{1027}}) {
      for (int64_t offset : {int64_t{0}, int64_t{1}, int64_t{3}}) {
        SCOPED_TRACE(std::string(dtype_name(dtype)) + ", size " + std::to_string(n) + " offset " +
                     std::to_string(offset));
        const Views a = views_of(storage_values(n + 8, dtype, seed++), offset, n, device);
        EXPECT_TENSOR_EQ(a.view().clone(), a.torch_view().clone());
        // Into a view of a larger tensor: the elements around it stay.
        const Views into = views_of(storage_values(n + 8, dtype, seed++), 7 - offset, n, device);
        Tensor target = into.view();
        target.copy_(a.view());
        into.torch_view().copy_(a.torch_view());
        EXPECT_TENSOR_EQ(into.base, into.torch_base);
      }
    }
  }
}

INSTANTIATE_TEST_SUITE_P(Backends, ElementwiseFastPathTest, testing::Values("vulkan", "cuda"), backend_test_name);

}  // namespace
}  // namespace ember::test
