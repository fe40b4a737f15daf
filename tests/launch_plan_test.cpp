// Host-side launch planning: merging dims and splitting launches that a binding cannot reach.
#include <gtest/gtest.h>

#include <set>

#include "runtime/error.h"
#include "runtime/launch_plan.h"
#include "test_support.h"

namespace ember {
namespace {

TensorRef ref(std::vector<int64_t> sizes, std::vector<int64_t> strides) {
  return test::view(nullptr, DType::Float32, std::move(sizes), std::move(strides));
}

TEST(LaunchPlan, MergesDimsEveryOperandTraversesContiguously) {
  TensorRef out = ref({4, 5, 6}, {30, 6, 1});
  TensorRef in = ref({4, 5, 6}, {30, 6, 1});
  LaunchShape shape = plan_launch({&out, &in});
  EXPECT_EQ(shape.ndim, 1);
  EXPECT_EQ(shape.sizes[0], 120);
  TensorRef inner_pair_contiguous = ref({4, 5, 6}, {1, 24, 4});
  shape = plan_launch({&out, &inner_pair_contiguous});
  EXPECT_EQ(shape.ndim, 2);
  EXPECT_EQ(shape.sizes[1], 30);
  TensorRef reversed = ref({4, 5, 6}, {1, 4, 20});
  shape = plan_launch({&out, &reversed});
  EXPECT_EQ(shape.ndim, 3);
  TensorRef with_ones = ref({1, 4, 1, 6}, {99, 6, 99, 1});
  TensorRef plain = ref({1, 4, 1, 6}, {24, 6, 6, 1});
  shape = plan_launch({&with_ones, &plain});
  EXPECT_EQ(shape.ndim, 1);
  EXPECT_EQ(shape.sizes[0], 24);
}

TEST(LaunchPlan, RejectsOperandsOfDifferentSizes) {
  TensorRef a = ref({4, 5}, {5, 1});
  TensorRef b = ref({4, 6}, {6, 1});
  EXPECT_THROW(plan_launch({&a, &b}), Error);
}

TEST(LaunchPlan, SplitsSoEveryPieceFitsAndCoversEveryElementOnce) {
  TensorRef a = ref({10, 7, 3}, {1, 10, 70});  // column-major: nothing merges
  LaunchShape shape = plan_launch({&a});
  std::multiset<uint64_t> visited;
  int pieces = 0;
  for_each_window(shape, 2, 64, [&](const LaunchShape& piece) {
    ++pieces;
    EXPECT_LE(piece.ndim, 2);
    EXPECT_LE(piece.extent_bytes(0), 64u);
    std::vector<uint64_t> offsets{piece.operands[0].byte_offset};
    for (int d = 0; d < piece.ndim; ++d) {
      std::vector<uint64_t> next;
      for (uint64_t o : offsets) {
        for (int64_t i = 0; i < piece.sizes[d]; ++i) next.push_back(o + 4 * i * piece.operands[0].strides[d]);
      }
      offsets = next;
    }
    visited.insert(offsets.begin(), offsets.end());
  });
  EXPECT_GT(pieces, 1);
  ASSERT_EQ(visited.size(), 210u);
  for (uint64_t i = 0; i < 210; ++i) EXPECT_EQ(visited.count(4 * i), 1u) << i;
}

TEST(LaunchPlan, EmptyLaunchHasNoPieces) {
  TensorRef a = ref({3, 0}, {0, 1});
  int pieces = 0;
  for_each_window(plan_launch({&a}), 6, 1 << 20, [&](const LaunchShape&) { ++pieces; });
  EXPECT_EQ(pieces, 0);
}

}  // namespace
}  // namespace ember
