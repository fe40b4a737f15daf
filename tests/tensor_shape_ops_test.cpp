// repeat, tile, repeat_interleave and the tensor_split family against LibTorch: every dtype, every
// layout (contiguous, transposed, strided, expanded), empty and 0-dim inputs, negative dims, PyTorch's
// error messages, gradients (first and second order) and node names.
#include <torch/csrc/autograd/function.h>

#include "tests/autograd_oracle.h"

namespace ember::test {
namespace {

class TensorShapeOpsTest : public GradTest {
 protected:
  Tensor from(const at::Tensor& t) { return from_torch(t, device); }
  static at::Tensor longs(std::vector<int64_t> values, at::ScalarType type = at::kLong) {
    return at::tensor(values, at::kLong).to(type);
  }
  static at::Tensor rand(std::vector<int64_t> sizes, uint64_t seed, DType dtype = DType::Float32) {
    return random_torch(std::move(sizes), dtype, seed, -2, 2);
  }
  // Same parts, each a view of `base` (splits never copy).
  static void expect_parts_eq(const std::vector<Tensor>& actual, const std::vector<at::Tensor>& expected,
                              const Tensor& base) {
    ASSERT_EQ(actual.size(), expected.size());
    for (size_t i = 0; i < actual.size(); ++i) {
      SCOPED_TRACE("part " + std::to_string(i));
      expect_tensor_eq(actual[i], expected[i]);
      EXPECT_EQ(actual[i].storage().get(), base.storage().get());
    }
  }
  // The parts flattened end to end, so one output carries every part's gradient.
  template <class T>
  static T joined(const std::vector<T>& parts) {
    std::vector<T> flat;
    for (const T& p : parts) flat.push_back(p.reshape({-1}));
    if constexpr (std::is_same_v<T, Tensor>) {
      return ember::cat(flat);
    } else {
      return at::cat(flat);
    }
  }
};

TEST_P(TensorShapeOpsTest, RepeatAndTileEveryDtypeAndLayout) {
  const std::vector<std::vector<int64_t>> repeats = {{2, 1},    {1, 3}, {2, 2, 3},   {0, 2},
                                                     {3, 1, 1}, {1, 1}, {2, 1, 2, 1}};
  const std::vector<std::vector<int64_t>> tiles = {{2}, {3, 1}, {}, {2, 1, 2}, {0}};
  for (DType dtype : kAllDTypes) {
    SCOPED_TRACE(std::string(dtype_name(dtype)));
    const at::Tensor t = random_torch({3, 4}, dtype, 1);
    for (const Layout& x : layouts_of(t, device)) {
      SCOPED_TRACE(x.name);
      for (const auto& r : repeats) EXPECT_TENSOR_EQ(x.tensor.repeat(r), t.repeat(r));
      for (const auto& r : tiles) {
        EXPECT_TENSOR_EQ(x.tensor.tile(r), t.tile(r));
        EXPECT_TENSOR_EQ(tile(x.tensor, r), at::tile(t, r));
      }
    }
  }
  const at::Tensor row = random_torch({1, 4}, DType::Float32, 2);
  EXPECT_TENSOR_EQ(from(row).expand({3, 4}).repeat({2, 2}), row.expand({3, 4}).repeat({2, 2}));
  const at::Tensor scalar = at::scalar_tensor(2.5);
  EXPECT_TENSOR_EQ(from(scalar).repeat({}), scalar.repeat({}));
  EXPECT_TENSOR_EQ(from(scalar).repeat({2, 3}), scalar.repeat({2, 3}));
  EXPECT_TENSOR_EQ(from(scalar).tile({}), scalar.tile({}));
  const at::Tensor empty = at::zeros({0, 3});
  EXPECT_TENSOR_EQ(from(empty).repeat({2, 2}), empty.repeat({2, 2}));
  EXPECT_TENSOR_EQ(from(empty).tile({4, 1, 1}), empty.tile({4, 1, 1}));
  // A result that repeat writes in one copy is a new tensor, even when nothing repeats.
  const Tensor x = from(row);
  EXPECT_NE(x.repeat({1, 1}).storage().get(), x.storage().get());
}

TEST_P(TensorShapeOpsTest, RepeatPastTheKernelDimLimit) {
  // 9 dims, 8 of them repeated: split into [r, p] per dim, 17 dims, more than one strided copy takes.
  const std::vector<int64_t> sizes(9, 2);
  const std::vector<int64_t> repeats = {2, 2, 2, 2, 1, 2, 2, 2, 2};
  const at::Tensor t = random_torch(sizes, DType::Float32, 3);
  for (const Layout& x : layouts_of(t, device)) {
    SCOPED_TRACE(x.name);
    EXPECT_TENSOR_EQ(x.tensor.repeat(repeats), t.repeat(repeats));
  }
  check({t}, "repeat of 9 dims", [&](const Ins& v) { return v[0].repeat(repeats); },
        [&](const TIns& v) { return v[0].repeat(repeats); }, {}, false);
}

TEST_P(TensorShapeOpsTest, RepeatInterleaveByANumber) {
  for (DType dtype : kAllDTypes) {
    SCOPED_TRACE(std::string(dtype_name(dtype)));
    const at::Tensor t = random_torch({3, 4}, dtype, 4);
    for (const Layout& x : layouts_of(t, device)) {
      SCOPED_TRACE(x.name);
      EXPECT_TENSOR_EQ(x.tensor.repeat_interleave(2), t.repeat_interleave(2));
      EXPECT_TENSOR_EQ(x.tensor.repeat_interleave(3, 0), t.repeat_interleave(3, 0));
      EXPECT_TENSOR_EQ(x.tensor.repeat_interleave(2, -1), t.repeat_interleave(2, -1));
      EXPECT_TENSOR_EQ(repeat_interleave(x.tensor, 1, 1), at::repeat_interleave(t, 1, 1));
      EXPECT_TENSOR_EQ(x.tensor.repeat_interleave(0, 1), t.repeat_interleave(0, 1));
      EXPECT_TENSOR_EQ(x.tensor.repeat_interleave(2, 1, 8), t.repeat_interleave(2, 1, 8));
    }
  }
  const at::Tensor scalar = at::scalar_tensor(1.5);
  EXPECT_TENSOR_EQ(from(scalar).repeat_interleave(3), scalar.repeat_interleave(3));
  const at::Tensor empty = at::zeros({0, 3});
  EXPECT_TENSOR_EQ(from(empty).repeat_interleave(2, 0), empty.repeat_interleave(2, 0));
  EXPECT_TENSOR_EQ(from(empty).repeat_interleave(2, 1), empty.repeat_interleave(2, 1));
  EXPECT_TENSOR_EQ(from(empty).repeat_interleave(-1, 0), empty.repeat_interleave(-1, 0));
  const at::Tensor row = random_torch({1, 3}, DType::Float32, 5);
  EXPECT_TENSOR_EQ(from(row).expand({2, 3}).repeat_interleave(2, 0), row.expand({2, 3}).repeat_interleave(2, 0));
  // Never a view of the input, even when every element appears once.
  const Tensor x = from(row);
  EXPECT_NE(x.repeat_interleave(1, 0).storage().get(), x.storage().get());
}

TEST_P(TensorShapeOpsTest, RepeatInterleaveByCounts) {
  const std::vector<at::Tensor> counts = {longs({2, 0, 1, 3}), longs({0, 0, 2, 1}), longs({1, 2, 0, 0}),
                                          longs({0, 0, 0, 0}), longs({1, 1, 1, 1}), longs({5, 1, 0, 2}, at::kInt)};
  for (DType dtype : {DType::Float32, DType::Float64, DType::BFloat16, DType::Int64, DType::Int8, DType::Bool}) {
    SCOPED_TRACE(std::string(dtype_name(dtype)));
    const at::Tensor t = random_torch({3, 4}, dtype, 6);
    for (const Layout& x : layouts_of(t, device)) {
      SCOPED_TRACE(x.name);
      for (const at::Tensor& c : counts) {
        SCOPED_TRACE(c.toString());
        for (const Layout& r : layouts_of(c, device)) {
          SCOPED_TRACE("repeats " + r.name);
          EXPECT_TENSOR_EQ(x.tensor.repeat_interleave(r.tensor, 1), t.repeat_interleave(c, 1));
          EXPECT_TENSOR_EQ(x.tensor.repeat_interleave(r.tensor, -1), t.repeat_interleave(c, -1));
        }
        EXPECT_TENSOR_EQ(x.tensor.t().repeat_interleave(from(c), 0), t.t().repeat_interleave(c, 0));
      }
      EXPECT_TENSOR_EQ(x.tensor.repeat_interleave(from(longs({2, 0, 1})), 0), t.repeat_interleave(longs({2, 0, 1}), 0));
      const at::Tensor flat = longs({1, 0, 2, 1, 0, 0, 3, 1, 1, 0, 2, 1});
      EXPECT_TENSOR_EQ(x.tensor.repeat_interleave(from(flat)), t.repeat_interleave(flat));
      EXPECT_TENSOR_EQ(repeat_interleave(x.tensor, from(flat), std::nullopt, 12),
                       at::repeat_interleave(t, flat, c10::nullopt, 12));
    }
  }
  const at::Tensor t = rand({3, 4}, 7);
  // One count for every element: a 0-dim or one-element tensor.
  EXPECT_TENSOR_EQ(from(t).repeat_interleave(from(at::scalar_tensor(2, at::kLong)), 0),
                   t.repeat_interleave(at::scalar_tensor(2, at::kLong), 0));
  EXPECT_TENSOR_EQ(from(t).repeat_interleave(from(longs({3})), 1), t.repeat_interleave(longs({3}), 1));
  EXPECT_TENSOR_EQ(from(t).repeat_interleave(from(longs({3}, at::kInt)), 1, 12),
                   t.repeat_interleave(longs({3}, at::kInt), 1, 12));
  EXPECT_TENSOR_EQ(from(t).repeat_interleave(from(longs({2}))), t.repeat_interleave(longs({2})));
  const at::Tensor scalar = at::scalar_tensor(1.5);
  EXPECT_TENSOR_EQ(from(scalar).repeat_interleave(from(longs({3}))), scalar.repeat_interleave(longs({3})));
  const at::Tensor empty = at::zeros({0, 3});
  EXPECT_TENSOR_EQ(from(empty).repeat_interleave(from(longs({})), 0), empty.repeat_interleave(longs({}), 0));
  EXPECT_TENSOR_EQ(from(empty).repeat_interleave(from(longs({4})), 0), empty.repeat_interleave(longs({4}), 0));
}

TEST_P(TensorShapeOpsTest, RepeatInterleaveIndicesOfCounts) {
  const std::vector<at::Tensor> counts = {longs({2, 0, 1, 3}), longs({0, 3}), longs({4}), longs({0}),
                                          longs({0, 0, 1}), longs({3, 1, 2}, at::kInt), longs({})};
  for (const at::Tensor& c : counts) {
    SCOPED_TRACE(c.toString());
    for (const Layout& r : layouts_of(c, device)) {
      SCOPED_TRACE(r.name);
      EXPECT_TENSOR_EQ(repeat_interleave(r.tensor), at::repeat_interleave(c));
      const int64_t total = c.sum().item<int64_t>();
      EXPECT_TENSOR_EQ(repeat_interleave(r.tensor, std::optional<int64_t>(total)),
                       at::repeat_interleave(c, c10::optional<int64_t>(total)));
    }
  }
  EXPECT_TENSOR_EQ(repeat_interleave(from(longs({}, at::kInt)), std::optional<int64_t>(3)),
                   at::repeat_interleave(longs({}, at::kInt), c10::optional<int64_t>(3)));
  // output_size is trusted (no read-back): a wrong one gives a prefix of the right result, or repeats the
  // last element, and never reads out of range.
  const at::Tensor c = longs({2, 0, 3, 1});
  const at::Tensor right = at::repeat_interleave(c);
  EXPECT_TENSOR_EQ(repeat_interleave(from(c), std::optional<int64_t>(4)), right.narrow(0, 0, 4));
  EXPECT_TENSOR_EQ(repeat_interleave(from(c), std::optional<int64_t>(9)),
                   at::cat({right, at::full({3}, 3, at::kLong)}));
}

TEST_P(TensorShapeOpsTest, RepeatErrors) {
  const Tensor m = ones({2, 3}, TensorOptions().device(device));
  const Tensor s = full({}, 1.0, TensorOptions().device(device));
  const Tensor counts = from(longs({1, 2}));
  expect_error<Error>([&] { m.repeat({2}); },
                      "Number of dimensions of repeat dims can not be smaller than number of dimensions of tensor");
  expect_error<Error>([&] { m.repeat({-1, 2}); }, "Trying to create tensor with negative dimension -2: [-2, 6]");
  expect_error<Error>([&] { m.tile({-1}); }, "Trying to create tensor with negative dimension -3: [2, -3]");
  expect_error<Error>([&] { m.repeat_interleave(-1); }, "repeats can not be negative");
  expect_error<Error>([&] { m.repeat_interleave(2, std::nullopt, 3); }, "allocated size does not match required size");
  expect_error<IndexError>([&] { m.repeat_interleave(2, 2); },
                           "Dimension out of range (expected to be in range of [-2, 1], but got 2)");
  expect_error<IndexError>([&] { s.repeat_interleave(2, 0); }, "Dimension specified as 0 but tensor has no dimensions");
  expect_error<IndexError>([&] { s.repeat_interleave(counts, -1); },
                           "Dimension specified as -1 but tensor has no dimensions");
  expect_error<Error>([&] { m.repeat_interleave(from(longs({1, 2, 3})), 0); },
                      "repeats must have the same size as input along dim");
  expect_error<Error>([&] { m.repeat_interleave(from(longs({1, 2})).reshape({1, 2}), 0); },
                      "repeats must be 0-dim or 1-dim tensor");
  expect_error<Error>([&] { m.repeat_interleave(ones({2}, TensorOptions().device(device)), 0); },
                      "\"repeat_interleave_cpu\" not implemented for 'Float'");
  expect_error<Error>([&] { m.repeat_interleave(from(longs({1, -2})), 0); }, "repeats can not be negative");
  expect_error<Error>([&] { repeat_interleave(from(longs({1, -2}, at::kInt))); }, "repeats can not be negative");
  expect_error<Error>([&] { repeat_interleave(from(longs({1, 2}, at::kShort))); },
                      "\"repeat_interleave_cpu\" not implemented for 'Short'");
  expect_error<Error>([&] { repeat_interleave(from(longs({1, 2})).to(kBool)); },
                      "\"repeat_interleave_cpu\" not implemented for 'Bool'");
  expect_error<Error>([&] { repeat_interleave(from(at::scalar_tensor(2, at::kLong))); },
                      "repeat_interleave only accept 1D vector as repeat");
  expect_error<Error>([&] { repeat_interleave(counts, std::optional<int64_t>(-1)); },
                      "Trying to create tensor with negative dimension -1: [-1]");
}

TEST_P(TensorShapeOpsTest, TensorSplitSectionsIndicesAndTensors) {
  for (DType dtype : {DType::Float32, DType::Float16, DType::Int64, DType::Bool}) {
    SCOPED_TRACE(std::string(dtype_name(dtype)));
    const at::Tensor t = random_torch({4, 5}, dtype, 8);
    for (const Layout& x : layouts_of(t, device)) {
      SCOPED_TRACE(x.name);
      const Tensor& e = x.tensor;
      for (int64_t sections : {1, 2, 3, 5, 7}) {
        SCOPED_TRACE("sections " + std::to_string(sections));
        expect_parts_eq(e.tensor_split(sections, 1), t.tensor_split(sections, 1), e);
        expect_parts_eq(e.tensor_split(sections, -2), t.tensor_split(sections, -2), e);
        expect_parts_eq(tensor_split(e, sections), at::tensor_split(t, sections), e);
      }
      for (const std::vector<int64_t>& indices :
           std::vector<std::vector<int64_t>>{{}, {2}, {1, 3}, {3, 1, 7, -1}, {-4, -9}, {0, 0, 5, 5}}) {
        SCOPED_TRACE("indices " + to_string(indices));
        expect_parts_eq(e.tensor_split(indices, 1), t.tensor_split(indices, 1), e);
        expect_parts_eq(tensor_split(e, indices, -1), at::tensor_split(t, indices, -1), e);
        const at::Tensor as_tensor = longs(indices);
        expect_parts_eq(e.tensor_split(from(as_tensor), 1), t.tensor_split(as_tensor, 1), e);
      }
      const at::Tensor three = at::scalar_tensor(3, at::kLong);
      expect_parts_eq(tensor_split(e, from(three), 0), at::tensor_split(t, three, 0), e);
    }
  }
  const at::Tensor empty = at::zeros({0, 3});
  const Tensor e = from(empty);
  expect_parts_eq(e.tensor_split(3), empty.tensor_split(3), e);
  expect_parts_eq(e.tensor_split({1, 2}, 1), empty.tensor_split({1, 2}, 1), e);
  const at::Tensor column = random_torch({1, 4}, DType::Float32, 9).expand({3, 4});
  const Tensor expanded = from(column.narrow(0, 0, 1)).expand({3, 4});
  expect_parts_eq(expanded.tensor_split(2, 0), column.tensor_split(2, 0), expanded);
}

TEST_P(TensorShapeOpsTest, HorizontalVerticalAndDepthSplits) {
  const at::Tensor v = random_torch({6}, DType::Float32, 10);
  const at::Tensor m = random_torch({4, 6}, DType::Int32, 11);
  const at::Tensor c = random_torch({2, 6, 6}, DType::Float64, 12);
  for (const auto& t : {v, m, c}) {
    SCOPED_TRACE(t.sizes().vec().size());
    for (const Layout& x : layouts_of(t, device)) {
      SCOPED_TRACE(x.name);
      const Tensor& e = x.tensor;
      expect_parts_eq(e.hsplit(2), t.hsplit(2), e);
      expect_parts_eq(hsplit(e, 3), at::hsplit(t, 3), e);
      expect_parts_eq(e.hsplit({1, 4}), t.hsplit({1, 4}), e);
      if (t.dim() >= 2) {
        expect_parts_eq(e.vsplit(2), t.vsplit(2), e);
        expect_parts_eq(vsplit(e, {1, -1}), at::vsplit(t, {1, -1}), e);
      }
      if (t.dim() >= 3) {
        expect_parts_eq(e.dsplit(3), t.dsplit(3), e);
        expect_parts_eq(dsplit(e, {2, 9}), at::dsplit(t, {2, 9}), e);
      }
    }
  }
}

TEST_P(TensorShapeOpsTest, SplitErrors) {
  const Tensor v = ones({5}, TensorOptions().device(device));
  const Tensor m = ones({2, 5}, TensorOptions().device(device));
  const Tensor s = full({}, 1.0, TensorOptions().device(device));
  const std::string zero_dim = "tensor_split expected at least a 1-dimensional tensor, but got a tensor with 0 dims";
  expect_error<Error>([&] { s.tensor_split(2); }, zero_dim);
  expect_error<Error>([&] { s.tensor_split(std::vector<int64_t>{1}); }, zero_dim);
  expect_error<Error>([&] { s.tensor_split(from(longs({1}))); }, zero_dim);
  expect_error<Error>([&] { m.tensor_split(0); }, "number of sections must be larger than 0, got 0");
  expect_error<Error>([&] { m.tensor_split(-1, 1); }, "number of sections must be larger than 0, got -1");
  expect_error<Error>([&] { m.tensor_split(from(at::scalar_tensor(0, at::kLong)), 1); },
                      "number of sections must be larger than 0, got 0");
  expect_error<IndexError>([&] { m.tensor_split(2, 2); },
                           "Dimension out of range (expected to be in range of [-2, 1], but got 2)");
  expect_error<Error>([&] { m.tensor_split(from(longs({1})).to(kFloat32), 1); },
                      "tensor_split expected tensor_indices_or_sections to have dtype of long, but got Float");
  expect_error<Error>([&] { m.tensor_split(from(longs({1}, at::kInt)), 1); },
                      "tensor_split expected tensor_indices_or_sections to have dtype of long, but got Int");
  expect_error<Error>([&] { m.tensor_split(from(longs({1, 2})).reshape({1, 2}), 1); },
                      "tensor_split expected tensor_indices_or_sections to be a zero-dimensional or one-dimensional "
                      "tensor, but got a tensor with 2 dims");
  expect_error<Error>([&] { m.hsplit(2); },
                      "torch.hsplit attempted to split along dimension 1, but the size of the dimension 5 is not "
                      "divisible by the split_size 2!");
  expect_error<Error>([&] { v.hsplit(0); },
                      "torch.hsplit attempted to split along dimension 0, but the size of the dimension 5 is not "
                      "divisible by the split_size 0!");
  expect_error<Error>([&] { m.vsplit(3); },
                      "torch.vsplit attempted to split along dimension 0, but the size of the dimension 2 is not "
                      "divisible by the split_size 3!");
  expect_error<Error>([&] { m.hsplit(-1); }, "number of sections must be larger than 0, got -1");
  expect_error<Error>([&] { s.hsplit(1); },
                      "torch.hsplit requires a tensor with at least 1 dimension, but got a tensor with 0 dimensions!");
  expect_error<Error>([&] { s.hsplit(std::vector<int64_t>{1}); },
                      "torch.hsplit requires a tensor with at least 1 dimension, but got a tensor with 0 dimensions!");
  expect_error<Error>([&] { v.vsplit(1); },
                      "torch.vsplit requires a tensor with at least 2 dimension, but got a tensor with 1 dimensions!");
  expect_error<Error>([&] { v.vsplit(std::vector<int64_t>{1}); },
                      "torch.vsplit requires a tensor with at least 2 dimension, but got a tensor with 1 dimensions!");
  expect_error<Error>([&] { m.dsplit(1); },
                      "torch.dsplit requires a tensor with at least 3 dimension, but got a tensor with 2 dimensions!");
  expect_error<Error>([&] { m.dsplit(std::vector<int64_t>{1}); },
                      "torch.dsplit requires a tensor with at least 3 dimension, but got a tensor with 2 dimensions!");
}

TEST_P(TensorShapeOpsTest, Gradients) {
  const at::Tensor x = rand({3, 4}, 13);
  check({x}, "repeat", [](const Ins& v) { return v[0].repeat({2, 1, 3}); },
        [](const TIns& v) { return v[0].repeat({2, 1, 3}); });
  check({x}, "repeat with zero copies", [](const Ins& v) { return v[0].repeat({0, 2}); },
        [](const TIns& v) { return v[0].repeat({0, 2}); });
  check({rand({2, 3}, 14, DType::Float64)}, "tile, float64", [](const Ins& v) { return v[0].tile({2}); },
        [](const TIns& v) { return v[0].tile({2}); });
  check({at::scalar_tensor(0.5)}, "repeat of a 0-dim tensor", [](const Ins& v) { return v[0].repeat({3, 2}); },
        [](const TIns& v) { return v[0].repeat({3, 2}); });
  check({x}, "repeat_interleave by a number", [](const Ins& v) { return v[0].repeat_interleave(3, 1); },
        [](const TIns& v) { return v[0].repeat_interleave(3, 1); });
  check({x}, "repeat_interleave flattened", [](const Ins& v) { return v[0].repeat_interleave(2); },
        [](const TIns& v) { return v[0].repeat_interleave(2); });
  check({x, longs({2, 0, 3})}, "repeat_interleave by counts",
        [](const Ins& v) { return v[0].repeat_interleave(v[1], 0); },
        [](const TIns& v) { return v[0].repeat_interleave(v[1], 0); });
  check({x, longs({1, 0, 2, 4})}, "repeat_interleave by counts with output_size",
        [](const Ins& v) { return v[0].repeat_interleave(v[1], -1, 7); },
        [](const TIns& v) { return v[0].repeat_interleave(v[1], -1, 7); });
  check({x}, "tensor_split sections", [](const Ins& v) { return joined(v[0].tensor_split(3, 1)); },
        [](const TIns& v) { return joined(v[0].tensor_split(3, 1)); });
  check({x}, "tensor_split indices", [](const Ins& v) { return joined(v[0].tensor_split({1, -1}, 0)); },
        [](const TIns& v) { return joined(v[0].tensor_split({1, -1}, 0)); });
  check({x}, "one part of hsplit", [](const Ins& v) { return v[0].hsplit(2)[1] * 2; },
        [](const TIns& v) { return v[0].hsplit(2)[1] * 2; });
  check_second_order({x}, "repeat squared", [](const Ins& v) { return v[0].repeat({2, 2}) * v[0].repeat({2, 2}); },
                     [](const TIns& v) { return v[0].repeat({2, 2}) * v[0].repeat({2, 2}); });
  check_second_order({x}, "repeat_interleave squared", [](const Ins& v) {
                       const Tensor r = v[0].repeat_interleave(2, 0);
                       return r * r;
                     },
                     [](const TIns& v) {
                       const at::Tensor r = v[0].repeat_interleave(2, 0);
                       return r * r;
                     });
}

TEST_P(TensorShapeOpsTest, NodeNames) {
  const at::Tensor t = rand({2, 3}, 15).requires_grad_();
  const Tensor x = from(t.detach()).requires_grad_();
  const auto same = [](const Tensor& e, const at::Tensor& a) {
    ASSERT_TRUE(e.grad_fn() && a.grad_fn());
    EXPECT_EQ(e.grad_fn()->name(), a.grad_fn()->name());
  };
  same(x.repeat({2, 1}), t.repeat({2, 1}));
  same(x.tile({2}), t.tile({2}));
  same(x.repeat_interleave(from(longs({1, 2})), 0), t.repeat_interleave(longs({1, 2}), 0));
  same(x.tensor_split(2, 1)[0], t.tensor_split(2, 1)[0]);
  same(x.hsplit({1, 2})[1], t.hsplit({1, 2})[1]);
  same(x.vsplit(2)[1], t.vsplit(2)[1]);
}

INSTANTIATE_TEST_SUITE_P(Backends, TensorShapeOpsTest, testing::Values("vulkan", "cuda"), backend_test_name);

}  // namespace
}  // namespace ember::test
