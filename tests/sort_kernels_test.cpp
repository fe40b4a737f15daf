// The sort kernel against LibTorch's stable sort: every dtype with many ties, NaN of both signs, both
// zeros, infinities and each integer dtype's extremes; both directions; rows in one workgroup, many
// short rows per workgroup, and rows longer than a tile (the multi-pass merge); contiguous, transposed,
// stepped, broadcast and 0-dim inputs, rows with more dims than the push constants hold, strided
// outputs; windows of sorted positions (topk's and kthvalue's); no values (argsort); and rejections.
#include <ATen/ATen.h>

#include <cmath>
#include <limits>
#include <optional>
#include <string>
#include <vector>

#include "runtime/error.h"
#include "runtime/kernels/sort.h"
#include "tests/oracle.h"

namespace ember::test {
namespace {

class SortKernelsTest : public BackendTest {
 protected:
  SortKernels& kernels() { return device->kernels().get<SortKernels>(); }
};

bool device_lacks(Device& device, DType dtype) {
  if (device.supports(dtype)) return false;
  std::printf("[  NOTE    ] %s skipped: the device lacks it\n", std::string(dtype_name(dtype)).c_str());
  return true;
}

template <class T>
void put_extremes(at::Tensor& v, const at::Tensor& picks) {
  v.masked_fill_(picks.eq(0), at::Scalar(static_cast<int64_t>(std::numeric_limits<T>::lowest())));
  v.masked_fill_(picks.eq(1), at::Scalar(static_cast<int64_t>(std::numeric_limits<T>::max())));
}

// `count` values of `dtype` with many ties (a handful of distinct values), and one in 16 replaced by an
// edge: NaN of either sign, infinities, -0.0 and a tiny value for floats; the dtype's extremes for
// integers, whose keys are the lowest and highest a key can be.
at::Tensor tied_values(DType dtype, int64_t count, uint64_t seed) {
  at::Generator gen = at::detail::createCPUGenerator(seed);
  if (dtype == DType::Bool) return at::randint(0, 2, {count}, gen, at::kLong).to(at::kBool);
  const at::Tensor picks = at::randint(0, 16, {count}, gen, at::kLong);
  at::Tensor v = at::randint(-3, 4, {count}, gen, at::kLong);
  if (is_floating_point(dtype)) {
    v = v.to(at::kDouble) / 2;
    const double edges[] = {NAN, -NAN, INFINITY, -INFINITY, -0.0, 1e-6, -1e4};
    for (int i = 0; i < 7; ++i) v.masked_fill_(picks.eq(i), edges[i]);
    return v.to(torch_dtype(dtype));
  }
  switch (dtype) {
    case DType::UInt8: v = v + 3; put_extremes<uint8_t>(v, picks); break;
    case DType::Int8: put_extremes<int8_t>(v, picks); break;
    case DType::Int16: put_extremes<int16_t>(v, picks); break;
    case DType::Int32: put_extremes<int32_t>(v, picks); break;
    default: put_extremes<int64_t>(v, picks); break;
  }
  return v.to(torch_dtype(dtype));
}

// A tensor's bits, so that NaN compares equal to itself and -0.0 differs from 0.0.
at::Tensor bits_of(const at::Tensor& t) {
  switch (t.scalar_type()) {
    case at::kFloat: return t.contiguous().view(at::kInt);
    case at::kHalf:
    case at::kBFloat16: return t.contiguous().view(at::kShort);
    case at::kDouble: return t.contiguous().view(at::kLong);
    case at::kBool: return t.to(at::kByte);
    default: return t;
  }
}

void expect_same_bits(const at::Tensor& actual, const at::Tensor& expected, const std::string& what) {
  ASSERT_EQ(actual.sizes(), expected.sizes()) << what;
  EXPECT_TRUE(at::equal(bits_of(actual), bits_of(expected)))
      << what << "\nactual:\n" << actual << "\nexpected:\n" << expected;
}

struct Sorted {
  std::optional<at::Tensor> values;
  at::Tensor indices;
};

// An output of `sizes` whose dims are reversed in memory, so that the kernel's writes are strided.
struct StridedOutput {
  at::Tensor base;
  at::Tensor view;
};
StridedOutput strided_output(at::IntArrayRef sizes, at::ScalarType type) {
  std::vector<int64_t> reversed(sizes.rbegin(), sizes.rend());
  std::vector<int64_t> back(sizes.size());
  for (size_t d = 0; d < sizes.size(); ++d) back[d] = static_cast<int64_t>(sizes.size() - 1 - d);
  at::Tensor base = at::zeros(reversed, type);
  return {base, base.permute(back)};
}

// Sorts `view` (a view of `storage`) along `dim` on the device; writes sorted positions [first, first +
// count) (count < 0: all).
Sorted run_sort(Device& device, Stream& stream, const at::Tensor& storage, const at::Tensor& view, int dim,
                bool descending, int64_t first = 0, int64_t count = -1, bool with_values = true) {
  const int64_t length = view.dim() == 0 ? 1 : view.size(dim);
  std::vector<int64_t> sizes = view.sizes().vec();
  if (view.dim() > 0) sizes[dim] = count < 0 ? length : count;
  const StridedOutput values = strided_output(sizes, view.scalar_type());
  const StridedOutput indices = strided_output(sizes, at::kLong);
  DeviceStorage in(device, stream, storage);
  DeviceStorage values_out(device, stream, values.base);
  DeviceStorage indices_out(device, stream, indices.base);
  SortArgs args{.indices = indices_out.ref(indices.view), .in = in.ref(view), .dim = dim, .descending = descending,
                .first = first};
  if (with_values) args.values = values_out.ref(values.view);
  device.kernels().get<SortKernels>().sort(stream, args);
  Sorted result;
  if (with_values) result.values = values_out.read(stream, values.view);
  result.indices = indices_out.read(stream, indices.view);
  return result;
}

// LibTorch's stable sort of `view`, positions [first, first + count) along dim.
Sorted expected_sort(const at::Tensor& view, int dim, bool descending, int64_t first = 0, int64_t count = -1) {
  auto [values, indices] = at::sort(view, /*stable=*/true, dim, descending);
  if (view.dim() > 0 && count >= 0) {
    values = values.narrow(dim, first, count);
    indices = indices.narrow(dim, first, count);
  }
  return {values, indices};
}

void expect_sorted(const Sorted& actual, const Sorted& expected, const std::string& what) {
  if (actual.values) expect_same_bits(*actual.values, *expected.values, what + " values");
  expect_same_bits(actual.indices, expected.indices, what + " indices");
}

// The views each dtype is sorted over: name, the storage, the view, the dims to sort along.
struct Case {
  std::string name;
  at::Tensor storage;
  at::Tensor view;
  std::vector<int> dims;
};

std::vector<Case> cases_for(DType dtype) {
  std::vector<Case> cases;
  auto add = [&](std::string name, at::Tensor storage, at::Tensor view, std::vector<int> dims) {
    cases.push_back({std::move(name), std::move(storage), std::move(view), std::move(dims)});
  };
  const at::Tensor flat = tied_values(dtype, 5 * 37 * 3, static_cast<uint64_t>(dtype) + 1);
  add("contiguous", flat, flat.view({5, 37, 3}), {0, 1, 2});
  add("transposed", flat, flat.view({37, 15}).t(), {0, 1});
  add("stepped", flat, flat.narrow(0, 3, 400).view({8, 50}).slice(1, 1, 50, 3), {0, 1});
  const at::Tensor row = tied_values(dtype, 300, static_cast<uint64_t>(dtype) + 20);
  add("broadcast", row, row.view({1, 300}).expand({6, 300}), {0, 1});
  add("zero_dim", flat, flat.select(0, 7), {0});
  add("one_element_rows", flat, flat.view({555, 1}), {1});
  add("empty", flat, flat.narrow(0, 0, 0).view({0, 4}), {0, 1});
  const at::Tensor many = tied_values(dtype, 3000 * 3, static_cast<uint64_t>(dtype) + 40);
  add("many_short_rows", many, many.view({3000, 3}), {1});
  add("a_row_of_a_tile", many, many.narrow(0, 0, 2048).view({1, 2048}), {1});
  // Past a tile (2048 elements for 64-bit dtypes, 4096 for the others): the multi-pass merge.
  const at::Tensor longer = tied_values(dtype, 2 * 9000, static_cast<uint64_t>(dtype) + 60);
  add("long_rows", longer, longer.view({2, 9000}), {1});
  add("long_strided_rows", longer, longer.view({9000, 2}), {0});
  return cases;
}

TEST_P(SortKernelsTest, EveryDtypeMatchesLibTorchsStableSort) {
  for (DType dtype : kAllDTypes) {
    if (device_lacks(*device, dtype)) continue;
    for (const Case& c : cases_for(dtype)) {
      for (int dim : c.dims) {
        for (bool descending : {false, true}) {
          const std::string what = std::string(dtype_name(dtype)) + " " + c.name + " dim " + std::to_string(dim) +
                                   (descending ? " descending" : " ascending");
          SCOPED_TRACE(what);
          expect_sorted(run_sort(*device, *stream, c.storage, c.view, dim, descending),
                        expected_sort(c.view, dim, descending), what);
        }
      }
    }
  }
}

TEST_P(SortKernelsTest, LongRowsTakeSeveralMergeLevels) {
  // 2^16 + 3 float32 elements: five levels above a tile, the last one over a partial tile.
  const at::Tensor x = tied_values(DType::Float32, 3 * 65539, 81).view({3, 65539});
  for (bool descending : {false, true}) {
    expect_sorted(run_sort(*device, *stream, x, x, 1, descending), expected_sort(x, 1, descending),
                  descending ? "descending" : "ascending");
  }
  // Distinct values: the order is the values' own, whatever the ties' rule.
  const at::Tensor distinct = at::randperm(20000, at::detail::createCPUGenerator(82), at::kLong).to(at::kDouble);
  expect_sorted(run_sort(*device, *stream, distinct, distinct, 0, false), expected_sort(distinct, 0, false),
                "float64 permutation");
}

TEST_P(SortKernelsTest, WindowsOfSortedPositions) {
  for (DType dtype : {DType::Float32, DType::Int64, DType::Float16}) {
    for (int64_t length : {int64_t{37}, int64_t{5000}}) {
      const at::Tensor x = tied_values(dtype, 4 * length, 90 + length).view({4, length});
      const std::string what = std::string(dtype_name(dtype)) + " length " + std::to_string(length);
      for (bool descending : {false, true}) {
        // topk's first k, kthvalue's k-th, and a window in the middle.
        const std::vector<std::pair<int64_t, int64_t>> windows = {{0, 3}, {length - 1, 1}, {length / 2, length / 3}};
        for (auto [first, count] : windows) {
          SCOPED_TRACE(what + " [" + std::to_string(first) + ", +" + std::to_string(count) + ")");
          expect_sorted(run_sort(*device, *stream, x, x, 1, descending, first, count),
                        expected_sort(x, 1, descending, first, count), what);
          expect_sorted(run_sort(*device, *stream, x, x.t(), 0, descending, first, count),
                        expected_sort(x.t(), 0, descending, first, count), what + " transposed");
        }
      }
    }
  }
}

TEST_P(SortKernelsTest, IndicesWithoutValues) {
  const at::Tensor x = tied_values(DType::Int32, 6 * 5000, 100).view({6, 5000});
  for (int dim : {0, 1}) {
    const Sorted result = run_sort(*device, *stream, x, x, dim, true, 0, -1, /*with_values=*/false);
    EXPECT_FALSE(result.values.has_value());
    expect_same_bits(result.indices, expected_sort(x, dim, true).indices, "dim " + std::to_string(dim));
  }
}

TEST_P(SortKernelsTest, RowsWithMoreDimsThanThePushConstantsHold) {
  // Five row dims that do not merge (every dim permuted in memory), and a sixth to sort along.
  const at::Tensor storage = tied_values(DType::Float32, 2 * 3 * 2 * 3 * 2 * 5, 110);
  const at::Tensor x = storage.view({5, 2, 3, 2, 3, 2}).permute({1, 4, 3, 2, 5, 0});
  for (int dim : {5, 0}) {
    expect_sorted(run_sort(*device, *stream, storage, x, dim, false), expected_sort(x, dim, false),
                  "dim " + std::to_string(dim));
  }
}

TEST_P(SortKernelsTest, DispatchCounts) {
  // A row of up to a tile takes one dispatch, however many rows; a longer row one for its tiles, then per
  // level above the tile one per step at a distance of a tile or more and one for the rest.
  auto dispatches = [&](const at::Tensor& x) {
    DeviceStorage in(*device, *stream, x);
    DeviceStorage out(*device, *stream, at::empty_like(x, at::kLong));
    const uint64_t before = stream->stats().dispatches;
    kernels().sort(*stream, {.indices = out.ref(x), .in = in.ref(x), .dim = 1});
    return stream->stats().dispatches - before;
  };
  EXPECT_EQ(dispatches(at::zeros({300, 1000})), 1u);
  EXPECT_EQ(dispatches(at::zeros({3, 4096})), 1u);
  EXPECT_EQ(dispatches(at::zeros({3, 2048}, at::kDouble)), 1u);
  // 2^16 + 3 float32 elements: tiles of 2^12, then levels 13 to 17 with 1 to 5 steps beyond a tile.
  EXPECT_EQ(dispatches(at::zeros({1, 65539})), 1u + 2 + 3 + 4 + 5 + 6);
}

TEST_P(SortKernelsTest, RejectsWhatItCannotDo) {
  const at::Tensor x = tied_values(DType::Float32, 12, 120).view({3, 4});
  DeviceStorage in(*device, *stream, x);
  DeviceStorage out(*device, *stream, at::zeros({3, 4}, at::kLong));
  DeviceStorage narrow(*device, *stream, at::zeros({3, 2}, at::kLong));
  DeviceStorage floats(*device, *stream, at::zeros({3, 4}, at::kFloat));
  DeviceStorage ints(*device, *stream, at::zeros({3, 4}, at::kInt));
  const TensorRef indices = out.ref(at::zeros({3, 4}, at::kLong));
  EXPECT_THROW(kernels().sort(*stream, {.indices = indices, .in = in.ref(x), .dim = 2}), Error);
  EXPECT_THROW(kernels().sort(*stream, {.indices = floats.ref(at::zeros({3, 4})), .in = in.ref(x), .dim = 1}), Error);
  EXPECT_THROW(kernels().sort(*stream, {.values = ints.ref(at::zeros({3, 4}, at::kInt)), .indices = indices,
                                        .in = in.ref(x), .dim = 1}),
               Error);
  // Sizes differ outside the sorted dim; a window past the row's end.
  EXPECT_THROW(kernels().sort(*stream, {.indices = narrow.ref(at::zeros({3, 2}, at::kLong)), .in = in.ref(x), .dim = 0}),
               Error);
  EXPECT_THROW(kernels().sort(*stream, {.indices = narrow.ref(at::zeros({3, 2}, at::kLong)), .in = in.ref(x), .dim = 1,
                                        .first = 3}),
               Error);
}

INSTANTIATE_TEST_SUITE_P(Backends, SortKernelsTest, testing::Values("vulkan", "cuda"), backend_test_name);

}  // namespace
}  // namespace ember::test
