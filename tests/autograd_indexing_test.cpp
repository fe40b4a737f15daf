// Gradients of the indexing ops against LibTorch: Tensor::index with every kind of index, index_put_
// (in place on a non-leaf), the gather and scatter families, take/put_, masks and triangles, with
// repeated indices where gradients must add up; some second-order cases, node names, and a backward
// that must not wait on the device.
#include <torch/csrc/autograd/function.h>

#include "tests/autograd_oracle.h"

namespace ember::test {
namespace {

using ember::indexing::Ellipsis;
using ember::indexing::None;
using ember::indexing::Slice;
namespace ti = at::indexing;

class AutogradIndexingTest : public GradTest {
 protected:
  static at::Tensor rand(std::vector<int64_t> sizes, uint64_t seed, DType dtype = DType::Float32) {
    return random_torch(std::move(sizes), dtype, seed, -2, 2);
  }
  static at::Tensor longs(std::vector<int64_t> values) { return at::tensor(values, at::kLong); }
  static at::Tensor bools(std::vector<int64_t> values) { return longs(std::move(values)).to(at::kBool); }
};

TEST_P(AutogradIndexingTest, IndexWithTensorsAddsRepeatedPositions) {
  const at::Tensor x = rand({5, 4}, 1);
  const at::Tensor rows = longs({0, 3, 3, -1, 0});
  check({x, rows}, "x[rows]", [](const Ins& v) { return v[0].index({v[1]}); },
        [](const TIns& v) { return v[0].index({v[1]}); });
  check({x, rows}, "x[:, rows[:3]]", [](const Ins& v) { return v[0].index({Slice(), v[1].slice(0, 0, 3)}); },
        [](const TIns& v) { return v[0].index({ti::Slice(), v[1].slice(0, 0, 3)}); });
  const at::Tensor cols = longs({1, 1, 2});
  check({x, longs({2, 2, 0}), cols}, "x[rows, cols]", [](const Ins& v) { return v[0].index({v[1], v[2]}); },
        [](const TIns& v) { return v[0].index({v[1], v[2]}); });
  check({x, longs({4, 1}), cols}, "broadcast indices", [](const Ins& v) {
          return v[0].index({v[1].unsqueeze(1), v[2]});
        },
        [](const TIns& v) { return v[0].index({v[1].unsqueeze(1), v[2]}); });
  const at::Tensor y = rand({3, 4, 5}, 2);
  check({y, longs({0, 2, 0}), longs({4, 1, 4})}, "non-adjacent indices", [](const Ins& v) {
          return v[0].index({v[1], Slice(), v[2]});
        },
        [](const TIns& v) { return v[0].index({v[1], ti::Slice(), v[2]}); });
  check({y, longs({3, 0, 3})}, "ints, slices, None and Ellipsis around a tensor", [](const Ins& v) {
          return v[0].index({1, None, Ellipsis, Slice(1, std::nullopt, 2), v[1]});
        },
        [](const TIns& v) { return v[0].index({1, ti::None, ti::Ellipsis, ti::Slice(1, ti::None, 2), v[1]}); });
  const at::Tensor mask = bools({1, 0, 1, 1, 0});
  check({x, mask}, "bool mask", [](const Ins& v) { return v[0].index({v[1]}); },
        [](const TIns& v) { return v[0].index({v[1]}); });
  check({x}, "basic indices only", [](const Ins& v) { return v[0].index({Slice(1, 4), -1}); },
        [](const TIns& v) { return v[0].index({ti::Slice(1, 4), -1}); });
  check({x, longs({})}, "no positions", [](const Ins& v) { return v[0].index({v[1]}); },
        [](const TIns& v) { return v[0].index({v[1]}); });
  check({rand({6}, 3, DType::Float64), longs({5, 5, 0})}, "float64", [](const Ins& v) { return v[0].index({v[1]}); },
        [](const TIns& v) { return v[0].index({v[1]}); });
}

TEST_P(AutogradIndexingTest, IndexPutInPlaceOnANonLeaf) {
  // b = x * c is a non-leaf; the value v is differentiated too.
  const at::Tensor x = rand({5, 4}, 4), c = rand({5, 4}, 5);
  check({x, c, rand({3, 4}, 6), longs({4, 0, 2})}, "index_put_ rows",
        [](const Ins& v) {
          Tensor b = v[0] * v[1];
          b.index_put_({v[3]}, v[2]);
          return b * v[1];
        },
        [](const TIns& v) {
          at::Tensor b = v[0] * v[1];
          b.index_put_({v[3]}, v[2]);
          return b * v[1];
        },
        {1});
  check({x, c, rand({4}, 7), longs({1, 1, 3, 1})}, "index_put_ accumulate, repeated rows, broadcast value",
        [](const Ins& v) {
          Tensor b = v[0] * v[1];
          b.index_put_({v[3]}, v[2], true);
          return b * v[1];
        },
        [](const TIns& v) {
          at::Tensor b = v[0] * v[1];
          b.index_put_({v[3]}, v[2], true);
          return b * v[1];
        },
        {1});
  check({x, c, rand({1, 2}, 8), longs({0, 3})}, "index_put_ after a slice, value with a leading 1",
        [](const Ins& v) {
          Tensor b = v[0] * v[1];
          b.index_put_({Slice(1), v[3]}, v[2]);
          return b * v[1];
        },
        [](const TIns& v) {
          at::Tensor b = v[0] * v[1];
          b.index_put_({ti::Slice(1), v[3]}, v[2]);
          return b * v[1];
        },
        {1});
  check({x, c, bools({0, 1, 1, 0, 1})}, "index_put_ scalar through a mask",
        [](const Ins& v) {
          Tensor b = v[0] * v[1];
          b.index_put_({v[2]}, 1.5);
          return b * v[1];
        },
        [](const TIns& v) {
          at::Tensor b = v[0] * v[1];
          b.index_put_({v[2]}, 1.5);
          return b * v[1];
        },
        {1});
  check({x, c, rand({2}, 10), longs({3, 1})}, "index_put_ on a view of a non-leaf (CopySlices)",
        [](const Ins& v) {
          Tensor b = v[0] * v[1];
          b.select(0, 2).index_put_({v[3]}, v[2]);
          return b * v[1];
        },
        [](const TIns& v) {
          at::Tensor b = v[0] * v[1];
          b.select(0, 2).index_put_({v[3]}, v[2]);
          return b * v[1];
        },
        {1});
  check({x, c, rand({2, 4}, 9)}, "index_put_ with basic indices only",
        [](const Ins& v) {
          Tensor b = v[0] * v[1];
          b.index_put_({Slice(1, 5, 2)}, v[2]);
          return b * v[1];
        },
        [](const TIns& v) {
          at::Tensor b = v[0] * v[1];
          b.index_put_({ti::Slice(1, 5, 2)}, v[2]);
          return b * v[1];
        },
        {1});
}

TEST_P(AutogradIndexingTest, GatherFamily) {
  const at::Tensor x = rand({5, 4}, 10);
  check({x, longs({4, 0, 4, 2})}, "index_select dim 0, repeated", [](const Ins& v) { return v[0].index_select(0, v[1]); },
        [](const TIns& v) { return v[0].index_select(0, v[1]); });
  check({x, at::tensor({3, 3, 1}, at::kInt)}, "index_select dim 1, int32",
        [](const Ins& v) { return v[0].index_select(1, v[1]); },
        [](const TIns& v) { return v[0].index_select(1, v[1]); });
  check({rand({}, 11), longs({0})}, "index_select of 0-dim", [](const Ins& v) { return v[0].index_select(0, v[1]); },
        [](const TIns& v) { return v[0].index_select(0, v[1]); });
  const at::Tensor g = longs({0, 4, 4, 1, 2, 2}).view({3, 2});
  check({x, g}, "gather dim 0, repeated", [](const Ins& v) { return v[0].gather(0, v[1]); },
        [](const TIns& v) { return v[0].gather(0, v[1]); });
  check({x, g.remainder(4).t().contiguous()}, "gather dim 1", [](const Ins& v) { return v[0].gather(1, v[1]); },
        [](const TIns& v) { return v[0].gather(1, v[1]); });
  check({x, longs({19, -1, 0, 19, 7}).view({5, 1})}, "take, repeated and negative",
        [](const Ins& v) { return v[0].take(v[1]); }, [](const TIns& v) { return v[0].take(v[1]); });
  const at::Tensor mask = bools({1, 0, 0, 1});
  check({x, mask}, "masked_select, broadcast mask", [](const Ins& v) { return v[0].masked_select(v[1]); },
        [](const TIns& v) { return v[0].masked_select(v[1]); });
  check({rand({4}, 12), bools({1, 0, 0, 1, 0, 1, 1, 1}).view({2, 4})},
        "masked_select, broadcast input", [](const Ins& v) { return v[0].masked_select(v[1]); },
        [](const TIns& v) { return v[0].masked_select(v[1]); });
  check({rand({6, 3}, 13, DType::Float64), longs({5, 5, 1})}, "float64 index_select",
        [](const Ins& v) { return v[0].index_select(0, v[1]); }, [](const TIns& v) { return v[0].index_select(0, v[1]); });
}

TEST_P(AutogradIndexingTest, ScatterFamily) {
  const at::Tensor x = rand({4, 5}, 14), src = rand({2, 5}, 15);
  const at::Tensor index = longs({3, 0, 2, 2, 1, 0, 3, 2, 1, 1}).view({2, 5});
  check({x, src, index}, "scatter", [](const Ins& v) { return v[0].scatter(0, v[2], v[1]); },
        [](const TIns& v) { return v[0].scatter(0, v[2], v[1]); });
  check({x, index}, "scatter value", [](const Ins& v) { return v[0].scatter(0, v[1], 2.5); },
        [](const TIns& v) { return v[0].scatter(0, v[1], 2.5); });
  check({x, src, index}, "scatter_add, repeated", [](const Ins& v) { return v[0].scatter_add(0, v[2], v[1]); },
        [](const TIns& v) { return v[0].scatter_add(0, v[2], v[1]); });
  check({x, rand({4, 5}, 16), src, index}, "scatter_ in place", [](const Ins& v) {
          Tensor b = v[0] * v[1];
          b.scatter_(0, v[3], v[2]);
          return b;
        },
        [](const TIns& v) {
          at::Tensor b = v[0] * v[1];
          b.scatter_(0, v[3], v[2]);
          return b;
        },
        {1});
  check({x, rand({4, 5}, 16), src, index}, "scatter_add_ in place, value scatter_", [](const Ins& v) {
          Tensor b = v[0] * v[1];
          b.scatter_add_(0, v[3], v[2]).scatter_(1, v[3].slice(0, 0, 1), -1.0);
          return b;
        },
        [](const TIns& v) {
          at::Tensor b = v[0] * v[1];
          b.scatter_add_(0, v[3], v[2]).scatter_(1, v[3].slice(0, 0, 1), -1.0);
          return b;
        },
        {1});
}

TEST_P(AutogradIndexingTest, IndexAddCopyFillPut) {
  const at::Tensor x = rand({5, 4}, 17), c = rand({5, 4}, 18), source = rand({3, 4}, 19);
  check({x, c, source, longs({4, 1, 4})}, "index_add_ repeated, alpha", [](const Ins& v) {
          Tensor b = v[0] * v[1];
          b.index_add_(0, v[3], v[2], 0.5);
          return b * v[1];
        },
        [](const TIns& v) {
          at::Tensor b = v[0] * v[1];
          b.index_add_(0, v[3], v[2], 0.5);
          return b * v[1];
        },
        {1});
  check({x, c, source, longs({4, 0, 2})}, "index_copy_", [](const Ins& v) {
          Tensor b = v[0] * v[1];
          b.index_copy_(0, v[3], v[2]);
          return b * v[1];
        },
        [](const TIns& v) {
          at::Tensor b = v[0] * v[1];
          b.index_copy_(0, v[3], v[2]);
          return b * v[1];
        },
        {1});
  check({x, c, longs({3, -1})}, "index_fill_ dim 1, negative", [](const Ins& v) {
          Tensor b = v[0] * v[1];
          b.index_fill_(1, v[2], 7.0);
          return b * v[1];
        },
        [](const TIns& v) {
          at::Tensor b = v[0] * v[1];
          b.index_fill_(1, v[2], 7.0);
          return b * v[1];
        },
        {1});
  check({x, c, rand({2, 2}, 20), longs({19, -20, 5, 6}).view({2, 2})}, "put_", [](const Ins& v) {
          Tensor b = v[0] * v[1];
          b.put_(v[3], v[2]);
          return b * v[1];
        },
        [](const TIns& v) {
          at::Tensor b = v[0] * v[1];
          b.put_(v[3], v[2]);
          return b * v[1];
        },
        {1});
  check({x, c, rand({4}, 21), longs({3, 3, -1, 0})}, "put_ accumulate, repeated", [](const Ins& v) {
          Tensor b = v[0] * v[1];
          b.put_(v[3], v[2], true);
          return b * v[1];
        },
        [](const TIns& v) {
          at::Tensor b = v[0] * v[1];
          b.put_(v[3], v[2], true);
          return b * v[1];
        },
        {1});
}

TEST_P(AutogradIndexingTest, Triangles) {
  const at::Tensor x = rand({2, 4, 5}, 22);
  check({x}, "tril", [](const Ins& v) { return v[0].tril(); }, [](const TIns& v) { return v[0].tril(); });
  check({x}, "triu(-1)", [](const Ins& v) { return v[0].triu(-1); }, [](const TIns& v) { return v[0].triu(-1); });
  check({x, rand({2, 4, 5}, 23)}, "tril_(1) and triu_ in place", [](const Ins& v) {
          Tensor b = v[0] * v[1];
          b.tril_(1);
          b.select(0, 1).triu_();
          return b;
        },
        [](const TIns& v) {
          at::Tensor b = v[0] * v[1];
          b.tril_(1);
          b.select(0, 1).triu_();
          return b;
        },
        {1});
}

TEST_P(AutogradIndexingTest, SecondOrder) {
  const at::Tensor x = rand({5, 4}, 24);
  check_second_order({x, longs({4, 0, 4})}, "index * index", [](const Ins& v) {
                       return v[0].index({v[1]}) * v[0].index({v[1], Slice()});
                     },
                     [](const TIns& v) { return v[0].index({v[1]}) * v[0].index({v[1], ti::Slice()}); });
  check_second_order({x, longs({4, 0, 4})}, "index_select * index_select", [](const Ins& v) {
                       return v[0].index_select(0, v[1]) * v[0].index_select(0, v[1]);
                     },
                     [](const TIns& v) { return v[0].index_select(0, v[1]) * v[0].index_select(0, v[1]); });
  const at::Tensor g = longs({0, 4, 4, 1, 2, 2}).view({3, 2});
  check_second_order({x, g}, "gather * take", [](const Ins& v) { return v[0].gather(0, v[1]) * v[0].take(v[1]); },
                     [](const TIns& v) { return v[0].gather(0, v[1]) * v[0].take(v[1]); });
  check_second_order({x, rand({3, 2}, 25), g}, "scatter_add * scatter", [](const Ins& v) {
                       return v[0].scatter_add(0, v[2], v[1]) * v[0].scatter(0, v[2], v[1]);
                     },
                     [](const TIns& v) { return v[0].scatter_add(0, v[2], v[1]) * v[0].scatter(0, v[2], v[1]); });
  check_second_order({x, rand({4}, 26), longs({3, 3})}, "index_put accumulate * tril", [](const Ins& v) {
                       Tensor b = v[0] * v[0];
                       b.index_put_({v[2]}, v[1] * v[1], true);
                       return b.tril() * v[0];
                     },
                     [](const TIns& v) {
                       at::Tensor b = v[0] * v[0];
                       b.index_put_({v[2]}, v[1] * v[1], true);
                       return b.tril() * v[0];
                     });
}

TEST_P(AutogradIndexingTest, NodeNamesMatchLibTorch) {
  const at::Tensor xt = rand({5, 4}, 27);
  const at::Tensor it = longs({0, 3, 3}), gt = longs({0, 3, 1, 1}).view({2, 2});
  const Tensor i = from_torch(it, device), gi = from_torch(gt, device);
  const Tensor mask = from_torch(xt > 0, device);
  using Fns = std::pair<std::function<Tensor(const Tensor&)>, std::function<at::Tensor(const at::Tensor&)>>;
  const std::vector<Fns> ops = {
      {[&](const Tensor& x) { return x.index({i}); }, [&](const at::Tensor& x) { return x.index({it}); }},
      {[&](const Tensor& x) { return x.index_select(0, i); }, [&](const at::Tensor& x) { return x.index_select(0, it); }},
      {[&](const Tensor& x) { return x.gather(1, gi); }, [&](const at::Tensor& x) { return x.gather(1, gt); }},
      {[&](const Tensor& x) { return x.take(i); }, [&](const at::Tensor& x) { return x.take(it); }},
      {[&](const Tensor& x) { return x.masked_select(mask); }, [&](const at::Tensor& x) { return x.masked_select(xt > 0); }},
      {[&](const Tensor& x) { return x.scatter(1, gi, x); }, [&](const at::Tensor& x) { return x.scatter(1, gt, x); }},
      {[&](const Tensor& x) { return x.scatter(1, gi, 1.0); }, [&](const at::Tensor& x) { return x.scatter(1, gt, 1.0); }},
      {[&](const Tensor& x) { return x.scatter_add(1, gi, x); }, [&](const at::Tensor& x) { return x.scatter_add(1, gt, x); }},
      {[&](const Tensor& x) { return x.tril(); }, [&](const at::Tensor& x) { return x.tril(); }},
      {[&](const Tensor& x) { return x.triu(); }, [&](const at::Tensor& x) { return x.triu(); }},
      {[&](const Tensor& x) { return (x * x).index_put_({i}, x.select(0, 0)); },
       [&](const at::Tensor& x) { return (x * x).index_put_({it}, x.select(0, 0)); }},
      {[&](const Tensor& x) { return (x * x).index_add_(0, i, x.slice(0, 0, 3)); },
       [&](const at::Tensor& x) { return (x * x).index_add_(0, it, x.slice(0, 0, 3)); }},
      {[&](const Tensor& x) { return (x * x).index_copy_(0, i, x.slice(0, 0, 3)); },
       [&](const at::Tensor& x) { return (x * x).index_copy_(0, it, x.slice(0, 0, 3)); }},
      {[&](const Tensor& x) { return (x * x).index_fill_(0, i, 1.0); },
       [&](const at::Tensor& x) { return (x * x).index_fill_(0, it, 1.0); }},
      {[&](const Tensor& x) { return (x * x).put_(i, x.select(0, 0).slice(0, 0, 3)); },
       [&](const at::Tensor& x) { return (x * x).put_(it, x.select(0, 0).slice(0, 0, 3)); }},
      {[&](const Tensor& x) { return (x * x).scatter_(1, gi, x); }, [&](const at::Tensor& x) { return (x * x).scatter_(1, gt, x); }},
      {[&](const Tensor& x) { return (x * x).tril_(); }, [&](const at::Tensor& x) { return (x * x).tril_(); }},
  };
  for (size_t k = 0; k < ops.size(); ++k) {
    SCOPED_TRACE("op " + std::to_string(k));
    const Tensor x = from_torch(xt, device).requires_grad_(true);
    const at::Tensor t = xt.clone().requires_grad_(true);
    const Tensor out = ops[k].first(x);
    const at::Tensor expected = ops[k].second(t);
    ASSERT_TRUE(out.grad_fn() && expected.grad_fn());
    EXPECT_EQ(out.grad_fn()->name(), expected.grad_fn()->name());
  }
}

// The forward reads index bounds back once per op; backward formulas must not wait on the device.
TEST_P(AutogradIndexingTest, BackwardDoesNotWaitOnTheDevice) {
  const at::Tensor xt = rand({5, 4}, 28);
  const at::Tensor it = longs({4, 0, 4}), gt = longs({0, 4, 4, 1, 2, 2}).view({3, 2});
  const at::Tensor mt = bools({1, 0, 1, 1, 0});
  const Tensor x = from_torch(xt, device).requires_grad_(true);
  const Tensor i = from_torch(it, device), g = from_torch(gt, device), m = from_torch(mt, device);
  Tensor b = x * x;  // in-place ops on a non-leaf
  b.index_add_(0, i, x.slice(0, 0, 3)).index_copy_(1, i.remainder(4).slice(0, 0, 2), x.slice(1, 0, 2));
  b.index_fill_(0, i, 1.0).put_(i, x.select(1, 2).slice(0, 0, 3)).index_put_({i}, x.select(0, 1), true);
  b.scatter_(0, g, x.slice(0, 0, 3).slice(1, 0, 2));
  const Tensor loss = x.gather(0, g).sum() + x.index_select(0, i).sum() + x.index({i, Slice(1, 3)}).sum() +
                      x.index({m}).sum() + x.take(i).sum() + x.masked_select(m.unsqueeze(1)).sum() +
                      x.as_strided({3, 3}, {1, 1}).sum() + x.unfold(0, 2, 1).sum() +
                      x.scatter_add(0, g, x.slice(0, 0, 3).slice(1, 0, 2)).sum() + (b * b).sum();
  const uint64_t waits = stream->stats().host_waits;
  loss.backward();
  EXPECT_EQ(stream->stats().host_waits, waits);

  at::Tensor t = xt.clone().requires_grad_(true);
  at::Tensor bt = t * t;
  bt.index_add_(0, it, t.slice(0, 0, 3)).index_copy_(1, it.remainder(4).slice(0, 0, 2), t.slice(1, 0, 2));
  bt.index_fill_(0, it, 1.0).put_(it, t.select(1, 2).slice(0, 0, 3)).index_put_({it}, t.select(0, 1), true);
  bt.scatter_(0, gt, t.slice(0, 0, 3).slice(1, 0, 2));
  const at::Tensor expected = t.gather(0, gt).sum() + t.index_select(0, it).sum() +
                              t.index({it, ti::Slice(1, 3)}).sum() + t.index({mt}).sum() + t.take(it).sum() +
                              t.masked_select(mt.unsqueeze(1)).sum() + t.as_strided({3, 3}, {1, 1}).sum() +
                              t.unfold(0, 2, 1).sum() + t.scatter_add(0, gt, t.slice(0, 0, 3).slice(1, 0, 2)).sum() +
                              (bt * bt).sum();
  expected.backward();
  expect_tensor_eq(x.grad(), t.grad(), 1e-5, 1e-5, "gradient");
}

INSTANTIATE_TEST_SUITE_P(Backends, AutogradIndexingTest, testing::Values("vulkan", "cuda"), backend_test_name);

}  // namespace
}  // namespace ember::test
