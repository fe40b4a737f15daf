// Tensor indexing against LibTorch: Tensor::index / index_put_ with every kind of TensorIndex (the
// rule that separated advanced indices move to the front included), the gather and scatter family,
// masks, nonzero, take/put_, tril/triu and one_hot, on contiguous, transposed, stepped and broadcast
// tensors, 0-dim and empty ones, every dtype, and PyTorch's error messages.
#include "tests/oracle.h"

namespace ember::test {
namespace {

using namespace ember::indexing;
using D = std::vector<int64_t>;

class TensorIndexingTest : public BackendTest {
 protected:
  Tensor from(const at::Tensor& t) { return from_torch(t, device); }
  Tensor longs(const D& values) { return from(at::tensor(values, at::kLong)); }
  Tensor longs(const D& values, const D& shape) { return from(at::tensor(values, at::kLong).reshape(shape)); }
};

// An int64 LibTorch tensor (at::tensor of ints makes int32).
at::Tensor L(const D& values, const D& shape = {}) {
  const at::Tensor t = at::tensor(values, at::kLong);
  return shape.empty() ? t : t.reshape(shape);
}

// Appends the LibTorch spelling of an ember index to `out`, constructed in place. LibTorch 1.13's
// TensorIndex leaves its bool member uninitialised unless it holds a bool, so copying or moving one
// reads an indeterminate bool (UndefinedBehaviorSanitizer reports it): nothing here copies one.
void append_at_index(std::vector<at::indexing::TensorIndex>& out, const TensorIndex& index) {
  const auto& v = index.value();
  if (std::holds_alternative<NoneIndex>(v)) {
    out.emplace_back(at::indexing::None);
  } else if (std::holds_alternative<EllipsisIndex>(v)) {
    out.emplace_back(at::indexing::Ellipsis);
  } else if (const int64_t* i = std::get_if<int64_t>(&v)) {
    out.emplace_back(*i);
  } else if (const bool* b = std::get_if<bool>(&v)) {
    out.emplace_back(*b);
  } else if (const Slice* s = std::get_if<Slice>(&v)) {
    auto opt = [](std::optional<int64_t> o) { return o ? c10::optional<int64_t>(*o) : c10::nullopt; };
    out.emplace_back(at::indexing::Slice(opt(s->start()), opt(s->stop()), s->step()));
  } else {
    out.emplace_back(to_torch(std::get<Tensor>(v)));
  }
}

// The reserved capacity keeps the vector from moving its elements as it grows (returning it moves its
// buffer, not the elements).
std::vector<at::indexing::TensorIndex> to_at_indices(const std::vector<TensorIndex>& indices) {
  std::vector<at::indexing::TensorIndex> out;
  out.reserve(indices.size());
  for (const TensorIndex& i : indices) append_at_index(out, i);
  return out;
}

TEST_P(TensorIndexingTest, BasicIndicesAreViews) {
  const at::Tensor t = random_torch({4, 5, 6}, DType::Float32, 1);
  const Tensor x = from(t);
  const std::vector<std::vector<TensorIndex>> cases = {
      {1},
      {-1, Slice(), Slice(1, std::nullopt, 3)},
      {Slice(1, 3), None, Ellipsis, 2},
      {"...", Slice(std::nullopt, std::nullopt, 2)},
      {None, 0, None, Slice(-3)},
      {Slice(10, 20)},
      {2, 3, 4},
  };
  for (const auto& indices : cases) {
    const Tensor result = x.index(indices);
    EXPECT_TRUE(result.storage() == x.storage());
    EXPECT_TENSOR_EQ(result, t.index(to_at_indices(indices)));
  }
}

TEST_P(TensorIndexingTest, AdvancedIndices) {
  const at::Tensor t = random_torch({4, 5, 6}, DType::Float32, 2);
  const Tensor mask2 = from(random_torch({4, 5}, DType::Bool, 3));
  const Tensor mask1 = from(random_torch({5}, DType::Bool, 4));
  const Tensor mask4 = from(L({1, 0, 0, 1}).to(at::kBool));  // two true: broadcasts with 2 indices
  const std::vector<std::vector<TensorIndex>> cases = {
      {longs({0, 3, -1, 2})},
      {longs({0, 2}, {2, 1}), longs({1, -2, 4})},                  // adjacent, broadcast to 2x3
      {longs({0, 3}), Slice(), longs({5, 0})},                     // separated: index dims go first
      {Slice(), longs({4, 0, 1}), longs({2})},                     // adjacent after a slice
      {longs({1, 2}), None, longs({0, 4})},                        // None between makes them separated
      {longs({1, 2}), 3, longs({0, 4})},                           // an integer keeps them adjacent
      {longs({1, 2}), Slice(1, 2), longs({0, 4})},
      {mask2},
      {Slice(), mask1, Slice(1, 4)},
      {mask4, longs({1, 0})},
      {true},
      {false, Slice()},
      {longs({0, 1}), true},
      {from(at::scalar_tensor(1, at::kLong)), longs({0, 2})},      // 0-dim int tensor selects
      {from(at::scalar_tensor(true, at::kBool))},
      {Ellipsis, longs({1, 1, 5})},
      {longs({}), Slice()},
      {longs({0, 1, 2, 3, 0, 1}, {2, 3}), Slice(), longs({0, 5, 5}, {1, 3})},
      {longs({0, 1, 2, 3, 0, 1}, {2, 3}).t()},                    // a non-contiguous index
  };
  for (const auto& [name, x] : layouts_of(t, device)) {
    SCOPED_TRACE(name);
    for (size_t c = 0; c < cases.size(); ++c) {
      SCOPED_TRACE("case " + std::to_string(c));
      EXPECT_TENSOR_EQ(x.index(cases[c]), t.index(to_at_indices(cases[c])));
    }
  }
  // A broadcast (stride 0) source.
  const at::Tensor row = random_torch({1, 6}, DType::Float32, 5);
  EXPECT_TENSOR_EQ(from(row).expand({4, 6}).index({longs({3, 0}), longs({5, 1})}),
                   row.expand({4, 6}).index({L({3, 0}), L({5, 1})}));
}

TEST_P(TensorIndexingTest, AdvancedIndexEveryDtypeAndEdges) {
  for (DType dtype : kAllDTypes) {
    SCOPED_TRACE(std::string(dtype_name(dtype)));
    const at::Tensor t = random_torch({3, 7}, dtype, 6);
    EXPECT_TENSOR_EQ(from(t).index({Slice(), longs({6, 0, -3})}), t.index({at::indexing::Slice(), L({6, 0, -3})}));
  }
  const at::Tensor s = at::scalar_tensor(2.5, at::kFloat);
  EXPECT_TENSOR_EQ(from(s).index({None}), s.index({at::indexing::None}));
  EXPECT_TENSOR_EQ(from(s).index({true}), s.index({true}));
  EXPECT_TENSOR_EQ(from(s).index({from(at::scalar_tensor(false, at::kBool))}),
                   s.index({at::scalar_tensor(false, at::kBool)}));
  const at::Tensor e = at::zeros({0, 3});
  EXPECT_TENSOR_EQ(from(e).index({longs({})}), e.index({L({})}));
  EXPECT_TENSOR_EQ(from(e).index({Slice(), longs({2, 0})}), e.index({at::indexing::Slice(), L({2, 0})}));
}

TEST_P(TensorIndexingTest, IndexPut) {
  const at::Tensor t = random_torch({4, 5, 6}, DType::Float32, 7);
  const Tensor mask2 = from(random_torch({4, 5}, DType::Bool, 8));
  struct Case {
    std::vector<TensorIndex> indices;
    std::vector<int64_t> value_shape;
  };
  const std::vector<Case> cases = {
      {{longs({0, 3, -1})}, {3, 5, 6}},
      {{longs({0, 3, -1})}, {1, 6}},                                // broadcast value
      {{longs({0, 2}, {2, 1}), longs({1, -2, 4})}, {2, 3, 6}},
      {{longs({0, 3}), Slice(), longs({5, 0})}, {2, 5}},            // separated
      {{Slice(), longs({4, 0, 1}), 2}, {4, 3}},
      {{mask2}, {6}},
      {{1, Slice(1, 3)}, {1, 2, 6}},                                // basic only: copy_
      {{Ellipsis, longs({1, 5})}, {2}},
      {{longs({0, 3, 1, 2}, {2, 2}).t()}, {2, 1, 5, 6}},          // index and value both reordered by copies
  };
  for (const Case& c : cases) {
    for (const bool transposed : {false, true}) {
      SCOPED_TRACE(transposed ? "transposed" : "contiguous");
      at::Tensor expected = t.clone();
      Tensor x = transposed ? from(t.permute({2, 1, 0}).contiguous()).permute({2, 1, 0}) : from(t);
      const at::Tensor value = random_torch(c.value_shape, DType::Float32, 9);
      x.index_put_(c.indices, from(value));
      expected.index_put_(to_at_indices(c.indices), value);
      EXPECT_TENSOR_EQ(x, expected);
      x.index_put_(c.indices, -7.5);
      expected.index_put_(to_at_indices(c.indices), -7.5);
      EXPECT_TENSOR_EQ(x, expected);
    }
  }
  // accumulate: repeated positions add up.
  for (DType dtype : {DType::Float32, DType::Int64, DType::Float64}) {
    const at::Tensor base = random_torch({5, 3}, dtype, 10);
    const at::Tensor values = random_torch({6, 3}, dtype, 11);
    const at::Tensor index = L({0, 4, 0, 2, 0, -1});
    Tensor x = from(base);
    x.index_put_({from(index)}, from(values), true);
    EXPECT_TENSOR_EQ(x, base.clone().index_put_({index}, values, true));
  }
}

TEST_P(TensorIndexingTest, IndexSelectGatherTake) {
  for (DType dtype : kAllDTypes) {
    SCOPED_TRACE(std::string(dtype_name(dtype)));
    const at::Tensor t = random_torch({5, 7}, dtype, 12);
    const Tensor x = from(t);
    const at::Tensor index = L({6, 0, 3, 3});
    EXPECT_TENSOR_EQ(x.index_select(1, from(index)), t.index_select(1, index));
    const at::Tensor gather_index = at::randint(0, 5, {3, 7}, at::kLong);
    EXPECT_TENSOR_EQ(x.gather(0, from(gather_index)), t.gather(0, gather_index));
    EXPECT_TENSOR_EQ(x.take(from(index.neg())), t.take(index.neg()));
  }
  const at::Tensor t = random_torch({6, 5, 4}, DType::Float32, 13);
  for (const auto& [name, x] : layouts_of(t, device)) {
    SCOPED_TRACE(name);
    const at::Tensor i32 = at::tensor({4, 1, 0}, at::kInt);
    EXPECT_TENSOR_EQ(x.index_select(-2, from(i32)), t.index_select(-2, i32));
    EXPECT_TENSOR_EQ(x.index_select(0, longs({})), t.index_select(0, L({})));
    const at::Tensor gi = at::randint(0, 4, {3, 5, 2}, at::kLong);  // smaller than self in other dims
    EXPECT_TENSOR_EQ(x.gather(2, from(gi)), t.gather(2, gi));
    const at::Tensor ti = L({119, -1, 0, 57}, {2, 2});
    EXPECT_TENSOR_EQ(x.take(from(ti)), t.take(ti));
  }
  // Broadcast index (stride 0) and 0-dim cases.
  const at::Tensor t2 = random_torch({4, 3}, DType::Float32, 14);
  const at::Tensor row = L({2, 0, 1}, {1, 3});
  EXPECT_TENSOR_EQ(from(t2).gather(0, from(row).expand({4, 3})), t2.gather(0, row.expand({4, 3})));
  const at::Tensor s = at::scalar_tensor(3.5, at::kFloat);
  EXPECT_TENSOR_EQ(from(s).index_select(0, longs({0})), s.index_select(0, L({0})));
  EXPECT_TENSOR_EQ(from(s).gather(0, from(at::scalar_tensor(0, at::kLong))), s.gather(0, at::scalar_tensor(0, at::kLong)));
  EXPECT_TENSOR_EQ(from(s).take(longs({0, 0})), s.take(L({0, 0})));
}

TEST_P(TensorIndexingTest, ScatterFamily) {
  for (DType dtype : kAllDTypes) {
    SCOPED_TRACE(std::string(dtype_name(dtype)));
    const at::Tensor t = random_torch({4, 6}, dtype, 15);
    const at::Tensor src = random_torch({4, 6}, dtype, 16);
    const at::Tensor perm = at::stack({at::randperm(6), at::randperm(6), at::randperm(6)}).narrow(1, 0, 4);
    EXPECT_TENSOR_EQ(from(t).scatter(1, from(perm), from(src)), t.scatter(1, perm, src));
    EXPECT_TENSOR_EQ(from(t).scatter(1, from(perm), 1), t.scatter(1, perm, 1));
    if (dtype != DType::Bool) {
      const at::Tensor dup = at::randint(0, 4, {5, 6}, at::kLong);
      const at::Tensor src5 = random_torch({5, 6}, dtype, 17);
      const double tol = std::max(tolerance_for(dtype).rtol * 4, 0.0);
      EXPECT_TENSOR_EQ(from(t).scatter_add(0, from(dup), from(src5)), t.scatter_add(0, dup, src5), tol);
    }
  }
  const at::Tensor t = random_torch({5, 4}, DType::Float32, 18);
  // Non-contiguous self, index and src.
  Tensor x = from(t.t().contiguous()).t();
  const at::Tensor src = random_torch({6, 3}, DType::Float32, 19);
  const at::Tensor index = L({4, 0, 2, 1, 3, 0}, {2, 3});
  x.scatter_(0, from(index), from(src).slice(0, 0, std::nullopt, 3));
  EXPECT_TENSOR_EQ(x, t.clone().scatter_(0, index, src.slice(0, 0, c10::nullopt, 3)));
  x.scatter_add_(1, from(index.t().contiguous()).t().narrow(0, 1, 1), from(src).narrow(0, 0, 1));
  at::Tensor expected = t.clone().scatter_(0, index, src.slice(0, 0, c10::nullopt, 3));
  expected.scatter_add_(1, index.narrow(0, 1, 1), src.narrow(0, 0, 1));
  EXPECT_TENSOR_EQ(x, expected);
  const at::Tensor s = at::scalar_tensor(1.0, at::kFloat);
  EXPECT_TENSOR_EQ(from(s).scatter(0, from(at::scalar_tensor(0, at::kLong)), from(at::scalar_tensor(4.0, at::kFloat))),
                   s.scatter(0, at::scalar_tensor(0, at::kLong), at::scalar_tensor(4.0, at::kFloat)));
}

TEST_P(TensorIndexingTest, IndexAddCopyFill) {
  for (DType dtype : {DType::Float32, DType::Float16, DType::Int32, DType::Int64, DType::Float64}) {
    SCOPED_TRACE(std::string(dtype_name(dtype)));
    const at::Tensor t = random_torch({5, 4}, dtype, 20);
    const at::Tensor source = random_torch({3, 4}, dtype, 21);
    const at::Tensor dup = L({4, 0, 4});
    const at::Tensor unique = L({4, 0, 2});
    Tensor x = from(t);
    x.index_add_(0, from(dup), from(source), 2);
    EXPECT_TENSOR_EQ(x, t.clone().index_add_(0, dup, source, 2), tolerance_for(dtype).rtol * 4);
    x = from(t);
    x.index_copy_(0, from(unique), from(source));
    EXPECT_TENSOR_EQ(x, t.clone().index_copy_(0, unique, source));
    x = from(t);
    x.index_fill_(1, longs({-1, 1}), 3);
    EXPECT_TENSOR_EQ(x, t.clone().index_fill_(1, L({-1, 1}), 3));
  }
  // Non-contiguous self; int32 index for index_add_; a broadcast source slice; 0-dim self.
  const at::Tensor t = random_torch({4, 6}, DType::Float32, 22);
  Tensor x = from(t.t().contiguous()).t();
  x.index_add_(1, from(at::tensor({5}, at::kInt)), from(at::ones({1, 1})));
  EXPECT_TENSOR_EQ(x, t.clone().index_add_(1, at::tensor({5}, at::kInt), at::ones({1, 1})));
  const at::Tensor s = at::scalar_tensor(1.0, at::kFloat);
  Tensor y = from(s);
  y.index_fill_(0, longs({0}), 3);
  EXPECT_TENSOR_EQ(y, s.clone().index_fill_(0, L({0}), 3));
  y.index_add_(0, longs({0}), from(at::scalar_tensor(2.0, at::kFloat)));
  EXPECT_TENSOR_EQ(y, at::scalar_tensor(5.0, at::kFloat));
  // Along a dim of size 0 with nothing to fill, a negative index is never looked at.
  const at::Tensor none = at::empty({0, 0});
  Tensor z = from(none);
  z.index_fill_(0, longs({-1}), 3);
  EXPECT_TENSOR_EQ(z, none.clone().index_fill_(0, L({-1}), 3));
}

TEST_P(TensorIndexingTest, MasksNonzeroPut) {
  for (DType dtype : kAllDTypes) {
    SCOPED_TRACE(std::string(dtype_name(dtype)));
    const at::Tensor t = random_torch({5, 7}, dtype, 23, -1, 2);
    EXPECT_TENSOR_EQ(from(t).nonzero(), t.nonzero());
    EXPECT_TENSOR_EQ(from(t).argwhere(), t.argwhere());
    const at::Tensor mask = random_torch({5, 7}, DType::Bool, 24);
    EXPECT_TENSOR_EQ(from(t).masked_select(from(mask)), t.masked_select(mask));
  }
  const at::Tensor t = random_torch({3, 4, 5}, DType::Float32, 25, -1, 2).round();
  for (const auto& [name, x] : layouts_of(t, device)) {
    SCOPED_TRACE(name);
    EXPECT_TENSOR_EQ(x.nonzero(), t.nonzero());
    const at::Tensor mask = random_torch({4, 1}, DType::Bool, 26);  // broadcast
    EXPECT_TENSOR_EQ(x.masked_select(from(mask)), t.masked_select(mask));
    const at::Tensor umask = random_torch({5}, DType::UInt8, 27, 0, 2);
    EXPECT_TENSOR_EQ(x.masked_select(from(umask)), t.masked_select(umask));
  }
  const at::Tensor s = at::scalar_tensor(3.0, at::kFloat);
  EXPECT_TENSOR_EQ(from(s).nonzero(), s.nonzero());
  EXPECT_TENSOR_EQ(from(at::zeros({})).nonzero(), at::zeros({}).nonzero());
  EXPECT_TENSOR_EQ(from(at::zeros({2, 0})).nonzero(), at::zeros({2, 0}).nonzero());
  EXPECT_TENSOR_EQ(from(at::zeros({4})).nonzero(), at::zeros({4}).nonzero());
  const at::Tensor two = L({1, 0}).to(at::kBool);
  EXPECT_TENSOR_EQ(from(s).masked_select(from(two)), s.masked_select(two));

  // put_: flat row-major indices, negatives from the end, accumulate, non-contiguous self.
  const at::Tensor index = L({0, -1, 7, 7}, {2, 2});
  const at::Tensor source = random_torch({4}, DType::Float32, 28);
  Tensor x = from(t.permute({2, 1, 0}).contiguous()).permute({2, 1, 0});
  x.put_(from(index), from(source), true);
  EXPECT_TENSOR_EQ(x, t.clone().put_(index, source, true));
  Tensor y = from(t);
  y.put_(from(L({3, 59, -2})), from(source.narrow(0, 0, 3)));
  EXPECT_TENSOR_EQ(y, t.clone().put_(L({3, 59, -2}), source.narrow(0, 0, 3)));
}

TEST_P(TensorIndexingTest, TrianglesAndOneHot) {
  for (DType dtype : {DType::Float32, DType::Int64, DType::Bool, DType::Float16}) {
    SCOPED_TRACE(std::string(dtype_name(dtype)));
    const at::Tensor t = random_torch({2, 5, 7}, dtype, 29);
    for (int64_t diagonal : {-2, 0, 3, 9}) {
      EXPECT_TENSOR_EQ(from(t).tril(diagonal), t.tril(diagonal));
      EXPECT_TENSOR_EQ(from(t).triu(diagonal), t.triu(diagonal));
    }
  }
  const at::Tensor t = random_torch({6, 4}, DType::Float32, 30);
  for (const auto& [name, x] : layouts_of(t, device)) {
    SCOPED_TRACE(name);
    EXPECT_TENSOR_EQ(x.triu(1), t.triu(1));
    Tensor y = x.clone();
    y.tril_(-1);
    EXPECT_TENSOR_EQ(y, t.tril(-1));
  }
  Tensor z = from(t.t().contiguous()).t();
  z.triu_();
  EXPECT_TENSOR_EQ(z, t.triu());
  EXPECT_TENSOR_EQ(from(at::zeros({0, 3})).tril(), at::zeros({0, 3}).tril());

  const at::Tensor classes = L({3, 0, 1, 3}, {2, 2});
  EXPECT_TENSOR_EQ(one_hot(from(classes)), at::one_hot(classes));
  EXPECT_TENSOR_EQ(one_hot(from(classes), 6), at::one_hot(classes, 6));
  EXPECT_TENSOR_EQ(one_hot(from(at::scalar_tensor(2, at::kLong)), 3), at::one_hot(at::scalar_tensor(2, at::kLong), 3));
  EXPECT_TENSOR_EQ(one_hot(longs({}), 4), at::one_hot(L({}), 4));
}

TEST_P(TensorIndexingTest, ErrorMessages) {
  const Tensor x = from(at::arange(24.).reshape({2, 3, 4}));
  const Tensor m = from(at::ones({3, 4}).to(at::kFloat));
  const Tensor mask = from(at::ones({2, 3}, at::kBool));
  const Tensor floats = from(at::tensor({0.0f, 1.0f}));
  const Tensor ints = from(at::tensor({0, 1}, at::kInt));
  expect_error<IndexError>([&] { x.index({mask, 0}); },
                           "The shape of the mask [2, 3] at index 1 does not match the shape of the indexed tensor "
                           "[2, 4] at index 1");
  expect_error<IndexError>([&] { x.index({longs({0, 5})}); }, "index 5 is out of bounds for dimension 0 with size 2");
  expect_error<IndexError>([&] { x.index({Slice(), longs({0, 5})}); },
                           "index 5 is out of bounds for dimension 0 with size 3");
  expect_error<IndexError>([&] { x.index({longs({0, 1}), Slice(), longs({1, 7})}); },
                           "index 7 is out of bounds for dimension 1 with size 4");
  expect_error<IndexError>([&] { x.index({longs({-3})}); }, "index -3 is out of bounds for dimension 0 with size 2");
  // select() and operator[] are LibTorch's select, with select's own text; index() checks first, as above.
  const at::Tensor xt = at::arange(24.).reshape({2, 3, 4});
  EXPECT_EQ(torch_error([&] { xt.select(0, 5); }), "select(): index 5 out of range for tensor of size [2, 3, 4] at dimension 0");
  for (const auto& [dim, index] : std::vector<std::pair<int64_t, int64_t>>{{0, 5}, {-1, 7}, {1, -4}, {2, -5}}) {
    expect_error<IndexError>([&] { x.select(dim, index); }, torch_error([&] { xt.select(dim, index); }));
  }
  expect_error<IndexError>([&] { x[2]; }, torch_error([&] { xt[2]; }));
  // Several indices out of bounds: PyTorch names the first in row-major order, not the smallest or largest.
  const at::Tensor grid = at::arange(12., at::kFloat).reshape({3, 4});
  const at::Tensor several = at::tensor({0, 9, 7, -6, 1, 2}, at::kLong).reshape({3, 2});
  for (const int64_t dim : {0, 1}) {
    expect_error<Error>([&] { from(grid).gather(dim, from(several)); }, torch_error([&] { grid.gather(dim, several); }));
    expect_error<Error>([&] { from(grid).scatter(dim, from(several), 1.0); },
                        torch_error([&] { grid.scatter(dim, several, 1.0); }));
  }
  const at::Tensor flat = at::tensor({1, 8, -9, 2}, at::kLong);
  expect_error<IndexError>([&] { from(grid).index({from(flat)}); }, torch_error([&] { grid.index({flat}); }));
  expect_error<IndexError>([&] { from(grid).take(from(flat * 3)); }, torch_error([&] { grid.take(flat * 3); }));
  expect_error<IndexError>([&] { x.index({ints}); }, "tensors used as indices must be long, byte or bool tensors");
  expect_error<IndexError>([&] { x.index({floats}); }, "tensors used as indices must be long, byte or bool tensors");
  expect_error<IndexError>([&] { x.index({longs({0, 1}), longs({0, 1, 2})}); },
                           "shape mismatch: indexing tensors could not be broadcast together with shapes [2], [3]");
  expect_error<IndexError>([&] { x.index({0, 0, 0, 0}); }, "too many indices for tensor of dimension 3");
  expect_error<IndexError>([&] { x.index({Ellipsis, 5}); }, "index 5 is out of bounds for dimension 1 with size 4");
  expect_error<IndexError>([&] { from(at::scalar_tensor(1.0)).index({0}); },
                           "invalid index of a 0-dim tensor. Use `tensor.item()` in Python or `tensor.item<T>()` in "
                           "C++ to convert a 0-dim tensor to a number");
  expect_error<IndexError>([&] { from(at::zeros({0, 3})).index({longs({0})}); },
                           "index is out of bounds for dimension with size 0");
  Tensor y = x.clone();
  expect_error<Error>([&] { y.index_put_({longs({0, 1})}, from(at::ones({3, 3}))); },
                      "shape mismatch: value tensor of shape [3, 3] cannot be broadcast to indexing result of shape "
                      "[2, 3, 4]");
  expect_error<Error>([&] { y.index_put_({longs({0, 1})}, from(at::ones({3, 4}, at::kDouble))); },
                      "Index put requires the source and destination dtypes match, got Float for the destination "
                      "and Double for the source.");
  expect_error<IndexError>([&] { y.index_put_({longs({0, 7})}, from(at::ones({4}))); },
                           "index 7 is out of bounds for dimension 0 with size 2");
  expect_error<IndexError>([&] { x.index_select(0, longs({0, 5})); }, "index out of range in self");
  expect_error<IndexError>([&] { x.index_select(0, longs({0, 1}, {1, 2})); },
                           "index_select(): Index is supposed to be a vector");
  expect_error<Error>([&] { x.index_select(0, floats); }, "index_select(): Expected dtype int32 or int64 for index");
  expect_error<Error>([&] { m.gather(1, longs({5, 0}, {1, 2})); }, "index 5 is out of bounds for dimension 1 with size 4");
  expect_error<Error>([&] { m.gather(1, longs({-1}, {1, 1})); }, "index -1 is out of bounds for dimension 1 with size 4");
  expect_error<Error>([&] { m.gather(1, from(at::zeros({1, 1}, at::kInt))); }, "gather(): Expected dtype int64 for index");
  expect_error<Error>([&] { m.gather(1, longs({0})); }, "Index tensor must have the same number of dimensions as input tensor");
  expect_error<Error>([&] { m.gather(1, from(at::zeros({4, 1}, at::kLong))); },
                      "Size does not match at dimension 0 expected index [4, 1] to be smaller than self [3, 4] apart "
                      "from dimension 1");
  expect_error<Error>([&] { m.scatter(1, longs({0}, {1, 1}), from(at::ones({1, 1}, at::kDouble))); },
                      "scatter(): Expected self.dtype to be equal to src.dtype");
  expect_error<Error>([&] { m.scatter(1, longs({5}, {1, 1}), 1.0); }, "index 5 is out of bounds for dimension 1 with size 4");
  expect_error<Error>([&] { m.scatter(1, from(at::zeros({2, 2}, at::kLong)), from(at::ones({2, 1}))); },
                      "Expected index [2, 2] to be smaller than self [3, 4] apart from dimension 1 and to be smaller "
                      "size than src [2, 1]");
  expect_error<Error>([&] { m.scatter_add(1, from(at::zeros({1, 1}, at::kInt)), from(at::ones({1, 1}))); },
                      "scatter(): Expected dtype int64 for index");
  expect_error<Error>([&] { m.scatter(1, longs({0}), from(at::ones({2, 2}))); },
                      "Index tensor must have the same number of dimensions as self tensor");
  Tensor z = m.clone();
  expect_error<Error>([&] { z.index_add_(0, longs({0, 0}), from(at::ones({2, 4}, at::kDouble))); },
                      "index_add_(): self (Float) and source (Double) must have the same scalar type");
  expect_error<Error>([&] { z.index_add_(0, longs({0, 0}), from(at::ones({3, 4}))); },
                      "index_add_(): Number of indices (2) should be equal to source.size(dim): (3), for dim: 0");
  expect_error<IndexError>([&] { z.index_add_(0, longs({0, 5}), from(at::ones({2, 4}))); }, "index out of range in self");
  expect_error<IndexError>([&] { z.index_add_(0, longs({0, 0}, {1, 2}), from(at::ones({2, 4}))); },
                           "index_add_(): Index is supposed to be a vector, but got dim: 2 with type: Long and size: "
                           "[1, 2]");
  expect_error<Error>([&] { z.index_add_(0, floats, from(at::ones({2, 4}))); },
                      "index_add_(): Expected dtype int32/int64 for index but got: Float");
  expect_error<IndexError>([&] { z.index_copy_(0, longs({0, 5}), from(at::ones({2, 4}))); },
                           "index_copy_(): index 5 is out of bounds for dimension 0 with size 3");
  expect_error<Error>([&] { z.index_copy_(0, longs({0, 1}), from(at::ones({2, 4}, at::kDouble))); },
                      "index_copy_(): self and source expected to have the same dtype, but got (self) Float and "
                      "(source) Double");
  expect_error<IndexError>([&] { z.index_copy_(0, longs({0, 1}), from(at::ones({3, 4}))); },
                           "index_copy_(): Number of indices (2) should be equal to source.size(dim) (3)");
  expect_error<Error>([&] { z.index_copy_(0, longs({0, 1}), from(at::ones({2, 5}))); },
                      "index_copy_(): Source/destination tensor must have same slice shapes. Destination slice shape: "
                      "4 at dimension 0 and source slice shape: 5 at dimension 0.");
  expect_error<IndexError>([&] { z.index_copy_(0, longs({0, 1}, {1, 2}), from(at::ones({2, 4}))); },
                           "index_copy_(): Index should have dimension 1 or 0 (got 2)");
  expect_error<Error>([&] { z.index_copy_(0, ints, from(at::ones({2, 4}))); },
                      "index_copy_(): Expected a long tensor for index, but got Int");
  expect_error<IndexError>([&] { z.index_copy_(0, longs({0}), from(at::ones({4}))); },
                           "index_copy_(): When source and destination are not scalars, their dimensionality must "
                           "match. Source dimensionality (1), destination dimensionality (2)");
  expect_error<IndexError>([&] { z.index_fill_(0, longs({0, -4}), 1); }, "index -4 is out of bounds for dimension 0 with size 3");
  expect_error<Error>([&] { z.index_fill_(0, longs({0, 1}, {1, 2}), 1); }, "Index has to be a vector/scalar");
  expect_error<IndexError>([&] { z.index_fill_(0, ints, 1); }, "index_fill_(): Expected dtype int64 for index.");
  expect_error<Error>([&] { m.masked_select(floats.narrow(0, 0, 1)); },
                      "masked_select: expected BoolTensor or ByteTensor for mask");
  // The mask is broadcast with self, mask first, so that it is "tensor a" of the message, as in LibTorch.
  for (const std::vector<int64_t>& self_sizes : {std::vector<int64_t>{2}, std::vector<int64_t>{2, 3}}) {
    const at::Tensor t = at::ones(self_sizes), mask = at::ones({self_sizes.size() == 1 ? 3 : 2}).gt(0);
    expect_error<Error>([&] { from(t).masked_select(from(mask)); }, torch_error([&] { t.masked_select(mask); }));
  }
  expect_error<IndexError>([&] { x.take(longs({0, 30})); }, "out of range: tried to access index 30 on a tensor of 24 elements.");
  expect_error<IndexError>([&] { x.take(longs({-30})); }, "out of range: tried to access index -30 on a tensor of 24 elements.");
  expect_error<Error>([&] { x.take(ints); }, "take(): Expected a long tensor for index, but got Int");
  expect_error<IndexError>([&] { z.put_(longs({0, 30}), from(at::ones({2}))); },
                           "out of range: tried to access index 30 on a tensor of 12 elements.");
  expect_error<IndexError>([&] { z.put_(longs({0, 3}), from(at::ones({3}))); },
                           "put_(): Expected source and index to have the same number of elements, but got "
                           "source.numel() = 3, index.numel() = 2");
  expect_error<Error>([&] { z.put_(longs({0, 3}), from(at::ones({2}, at::kDouble))); },
                      "put_(): self and source expected to have the same dtype, but got self.dtype = Float and "
                      "source.dtype = Double");
  expect_error<Error>([&] { z.put_(ints, from(at::ones({2}))); }, "put_(): Expected a long tensor for index, but got Int");
  expect_error<IndexError>([&] { from(at::ones({3})).tril(); },
                           "Dimension out of range (expected to be in range of [-1, 0], but got -2)");
  expect_error<Error>([&] { one_hot(longs({0, 3}), 3); }, "Class values must be smaller than num_classes.");
  expect_error<Error>([&] { one_hot(longs({0, -1}), 3); }, "Class values must be non-negative.");
  expect_error<Error>([&] { one_hot(floats); }, "one_hot is only applicable to index tensor.");
  expect_error<Error>([&] { one_hot(longs({})); }, "Can not infer total number of classes from empty tensor.");
  expect_error<Error>([&] { (void)TensorIndex("..,"); }, "Expected \"...\" to represent an ellipsis index, but got \"..,\"");
}

INSTANTIATE_TEST_SUITE_P(Backends, TensorIndexingTest, testing::Values("vulkan", "cuda"), backend_test_name);

}  // namespace
}  // namespace ember::test
