// Gradients of views and joins against LibTorch: every view op over the oracle's layouts, the
// multi-output splits with unused outputs, as_strided over strided and overlapping geometry, cat and
// stack, some second-order cases, node names, and an in-place write through a view (CopySlices).
#include <torch/csrc/autograd/function.h>

#include "tests/autograd_oracle.h"

namespace ember::test {
namespace {

class AutogradViewsTest : public GradTest {
 protected:
  // The output's node has PyTorch's name.
  void expect_node(const at::Tensor& input, const EmberFn& ember_fn, const TorchFn& torch_fn) {
    Tensor e = from_torch(input, device).requires_grad_(true);
    at::Tensor t = input.clone().requires_grad_(true);
    const Tensor out = ember_fn({e});
    const at::Tensor expected = torch_fn({t});
    ASSERT_TRUE(out.grad_fn() && expected.grad_fn());
    EXPECT_EQ(out.grad_fn()->name(), expected.grad_fn()->name());
  }
  static at::Tensor rand(std::vector<int64_t> sizes, uint64_t seed, DType dtype = DType::Float32) {
    return random_torch(std::move(sizes), dtype, seed, -2, 2);
  }
};

TEST_P(AutogradViewsTest, ReshapingViews) {
  const at::Tensor x = rand({4, 3}, 1);
  check({x}, "view", [](const Ins& v) { return v[0].view({2, 2, 3}); },
        [](const TIns& v) { return v[0].view({2, 2, 3}); });
  check({x}, "view_as", [](const Ins& v) { return v[0].view({2, 2, 3}).view({4, 3}); },
        [](const TIns& v) { return v[0].view({2, 2, 3}).view({4, 3}); });
  check({x}, "reshape (a copy where not viewable)", [](const Ins& v) { return v[0].reshape({-1}); },
        [](const TIns& v) { return v[0].reshape({-1}); });
  check({x}, "flatten", [](const Ins& v) { return v[0].flatten(); }, [](const TIns& v) { return v[0].flatten(); });
  check({rand({2, 3, 4}, 2)}, "flatten(1, 2)", [](const Ins& v) { return v[0].flatten(1, 2); },
        [](const TIns& v) { return v[0].flatten(1, 2); });
  check({rand({2, 6}, 3)}, "unflatten", [](const Ins& v) { return v[0].unflatten(1, {2, -1}); },
        [](const TIns& v) { return v[0].unflatten(1, {2, -1}); });
  check({rand({3, 1, 4, 1}, 4)}, "squeeze()", [](const Ins& v) { return v[0].squeeze(); },
        [](const TIns& v) { return v[0].squeeze(); });
  check({rand({3, 1, 4, 1}, 4)}, "squeeze(1)", [](const Ins& v) { return v[0].squeeze(1); },
        [](const TIns& v) { return v[0].squeeze(1); });
  check({rand({3, 1, 4, 1}, 4)}, "squeeze({1, 3})", [](const Ins& v) { return v[0].squeeze(IntArrayRef{1, 3}); },
        [](const TIns& v) { return v[0].squeeze(3).squeeze(1); });
  check({x}, "unsqueeze", [](const Ins& v) { return v[0].unsqueeze(1).unsqueeze(-1); },
        [](const TIns& v) { return v[0].unsqueeze(1).unsqueeze(-1); });
  check({rand({4, 3}, 5, DType::Float64)}, "float64 reshape", [](const Ins& v) { return v[0].reshape({3, 4}); },
        [](const TIns& v) { return v[0].reshape({3, 4}); });
}

TEST_P(AutogradViewsTest, PermutingViews) {
  const at::Tensor x = rand({2, 3, 4}, 6);
  check({x}, "permute", [](const Ins& v) { return v[0].permute({2, 0, 1}); },
        [](const TIns& v) { return v[0].permute({2, 0, 1}); });
  check({x}, "transpose", [](const Ins& v) { return v[0].transpose(0, -1); },
        [](const TIns& v) { return v[0].transpose(0, -1); });
  check({x}, "mT", [](const Ins& v) { return v[0].mT(); }, [](const TIns& v) { return v[0].mT(); });
  check({x}, "T", [](const Ins& v) { return v[0].T(); }, [](const TIns& v) { return v[0].permute({2, 1, 0}); });
  check({x}, "movedim", [](const Ins& v) { return v[0].movedim(0, 2); }, [](const TIns& v) { return v[0].movedim(0, 2); });
  check({rand({5, 3}, 7)}, "t", [](const Ins& v) { return v[0].t(); }, [](const TIns& v) { return v[0].t(); });
  check({rand({5}, 8)}, "t of 1-D", [](const Ins& v) { return v[0].t(); }, [](const TIns& v) { return v[0].t(); });
  check({x}, "alias", [](const Ins& v) { return v[0].alias(); }, [](const TIns& v) { return v[0].alias(); });
}

TEST_P(AutogradViewsTest, ExpandSumsBack) {
  const at::Tensor x = rand({3, 1}, 9);
  check({x}, "expand", [](const Ins& v) { return v[0].expand({2, 3, 5}); },
        [](const TIns& v) { return v[0].expand({2, 3, 5}); });
  check({x}, "broadcast_to", [](const Ins& v) { return broadcast_to(v[0], {4, 3, 2}); },
        [](const TIns& v) { return at::broadcast_to(v[0], {4, 3, 2}); });
  check({x, rand({3, 6}, 10)}, "expand_as", [](const Ins& v) { return v[0].expand_as(v[1]) * v[1]; },
        [](const TIns& v) { return v[0].expand_as(v[1]) * v[1]; });
  check({rand({}, 11)}, "0-dim expand", [](const Ins& v) { return v[0].expand({3, 2}); },
        [](const TIns& v) { return v[0].expand({3, 2}); });
}

TEST_P(AutogradViewsTest, PickingViewsScatterTheGradientBack) {
  const at::Tensor x = rand({5, 8}, 12);
  check({x}, "narrow", [](const Ins& v) { return v[0].narrow(1, 2, 3); },
        [](const TIns& v) { return v[0].narrow(1, 2, 3); });
  check({x}, "slice with step", [](const Ins& v) { return v[0].slice(1, 1, 7, 2); },
        [](const TIns& v) { return v[0].slice(1, 1, 7, 2); });
  check({x}, "slice of dim 0, open end", [](const Ins& v) { return v[0].slice(0, -3); },
        [](const TIns& v) { return v[0].slice(0, -3); });
  check({x}, "empty slice", [](const Ins& v) { return v[0].slice(0, 2, 2); },
        [](const TIns& v) { return v[0].slice(0, 2, 2); });
  check({x}, "select", [](const Ins& v) { return v[0].select(1, -1); }, [](const TIns& v) { return v[0].select(1, -1); });
  check({rand({7}, 13)}, "select to 0-dim", [](const Ins& v) { return v[0].select(0, 3); },
        [](const TIns& v) { return v[0].select(0, 3); });
  check({rand({4, 6}, 14)}, "diagonal", [](const Ins& v) { return v[0].diagonal(); },
        [](const TIns& v) { return v[0].diagonal(); });
  check({rand({4, 6}, 14)}, "diagonal above", [](const Ins& v) { return v[0].diagonal(2); },
        [](const TIns& v) { return v[0].diagonal(2); });
  check({rand({2, 5, 3}, 15)}, "diagonal below, dims 2 and 1", [](const Ins& v) { return v[0].diagonal(-1, 2, 1); },
        [](const TIns& v) { return v[0].diagonal(-1, 2, 1); });
  check({rand({4, 3}, 16, DType::Float64)}, "float64 select then slice",
        [](const Ins& v) { return v[0].select(1, 1).slice(0, 1, 4, 2); },
        [](const TIns& v) { return v[0].select(1, 1).slice(0, 1, 4, 2); });
  check({rand({6, 3}, 17, DType::Float16)}, "float16 narrow", [](const Ins& v) { return v[0].narrow(0, 1, 4); },
        [](const TIns& v) { return v[0].narrow(0, 1, 4); });
}

TEST_P(AutogradViewsTest, UnfoldAddsOverlappingWindows) {
  const at::Tensor x = rand({3, 7}, 18);
  check({x}, "unfold, overlapping", [](const Ins& v) { return v[0].unfold(1, 3, 1); },
        [](const TIns& v) { return v[0].unfold(1, 3, 1); });
  check({x}, "unfold, gaps", [](const Ins& v) { return v[0].unfold(1, 2, 3); },
        [](const TIns& v) { return v[0].unfold(1, 2, 3); });
  check({x}, "unfold of dim 0", [](const Ins& v) { return v[0].unfold(0, 2, 1); },
        [](const TIns& v) { return v[0].unfold(0, 2, 1); });
  check({rand({}, 19)}, "unfold of 0-dim", [](const Ins& v) { return v[0].unfold(0, 1, 1); },
        [](const TIns& v) { return v[0].unfold(0, 1, 1); });
}

TEST_P(AutogradViewsTest, AsStrided) {
  const at::Tensor x = rand({4, 5}, 20);
  // Contiguous inputs: the same storage geometry on both sides.
  check({x}, "as_strided, no overlap", [](const Ins& v) { return v[0].as_strided({3, 2}, {5, 2}, 1); },
        [](const TIns& v) { return v[0].as_strided({3, 2}, {5, 2}, 1); }, {}, false);
  check({x}, "as_strided, overlapping output", [](const Ins& v) { return v[0].as_strided({4, 3}, {2, 1}, 3); },
        [](const TIns& v) { return v[0].as_strided({4, 3}, {2, 1}, 3); }, {}, false);
  check({rand({3}, 21)}, "as_strided of an expanded (overlapping) input",
        [](const Ins& v) { return v[0].expand({4, 3}).as_strided({2, 2}, {1, 1}); },
        [](const TIns& v) { return v[0].expand({4, 3}).as_strided({2, 2}, {1, 1}); }, {}, false);
  check({rand({4, 5}, 22, DType::Float64)}, "float64 as_strided",
        [](const Ins& v) { return v[0].as_strided({2, 2, 2}, {7, 1, 3}, 2); },
        [](const TIns& v) { return v[0].as_strided({2, 2, 2}, {7, 1, 3}, 2); }, {}, false);
  check({x}, "as_strided, empty", [](const Ins& v) { return v[0].as_strided({0, 2}, {1, 1}); },
        [](const TIns& v) { return v[0].as_strided({0, 2}, {1, 1}); }, {}, false);

  // Inputs of every layout: as_strided addresses the storage, so LibTorch's input is given the same
  // storage geometry as ember's (the ember side runs first and reports it).
  struct Seen {
    std::vector<int64_t> sizes, strides;
    int64_t offset = 0, storage = 0;
  };
  auto seen = std::make_shared<Seen>();
  for (auto [sizes, strides, offset] : {std::tuple<std::vector<int64_t>, std::vector<int64_t>, int64_t>{{3, 3}, {4, 1}, 2},
                                        {{3, 4}, {1, 2}, 1}}) {
    check({x}, "as_strided over strided storage " + to_string(sizes) + to_string(strides),
          [=](const Ins& v) {
            *seen = {v[0].sizes().vec(), v[0].strides().vec(), v[0].storage_offset(),
                     static_cast<int64_t>(v[0].storage()->nbytes / v[0].element_size())};
            return v[0].as_strided(sizes, strides, offset);
          },
          [=](const TIns& v) {
            // The input's values written at its storage positions, then seen through that storage.
            const at::Tensor positions =
                at::arange(seen->storage).as_strided(seen->sizes, seen->strides, seen->offset).reshape({-1});
            const at::Tensor storage = at::zeros({seen->storage}, v[0].options())
                                           .index_put({positions}, v[0].reshape({-1}));
            const at::Tensor input = storage.as_strided(seen->sizes, seen->strides, seen->offset);
            return input.as_strided(sizes, strides, offset);
          });
  }
}

TEST_P(AutogradViewsTest, SplitsGiveZerosToUnusedOutputs) {
  const at::Tensor x = rand({3, 7}, 23);
  check({x}, "split, two of four used", [](const Ins& v) {
          auto p = v[0].split(2, 1);
          return p[0] * p[2];
        },
        [](const TIns& v) {
          auto p = v[0].split(2, 1);
          return p[0] * p[2];
        });
  check({x}, "split_with_sizes, one used", [](const Ins& v) { return v[0].split_with_sizes({3, 0, 4}, 1)[2].exp(); },
        [](const TIns& v) { return v[0].split_with_sizes({3, 0, 4}, 1)[2].exp(); });
  check({rand({7, 4}, 24)}, "chunk", [](const Ins& v) {
          auto p = v[0].chunk(3, 0);
          return p[0] + p[1];
        },
        [](const TIns& v) {
          auto p = v[0].chunk(3, 0);
          return p[0] + p[1];
        });
  check({x}, "unbind, the last used", [](const Ins& v) { return v[0].unbind(1)[6]; },
        [](const TIns& v) { return v[0].unbind(1)[6]; });
  check({x}, "unbind, all used", [](const Ins& v) {
          auto p = v[0].unbind(0);
          return p[0] * p[1] + p[2];
        },
        [](const TIns& v) {
          auto p = v[0].unbind(0);
          return p[0] * p[1] + p[2];
        });
  check({rand({0, 3}, 25)}, "split of an empty dim", [](const Ins& v) { return v[0].split(2, 0)[0]; },
        [](const TIns& v) { return v[0].split(2, 0)[0]; });
}

TEST_P(AutogradViewsTest, CatAndStack) {
  const at::Tensor a = rand({2, 3}, 26), b = rand({4, 3}, 27), c = rand({2, 5}, 28);
  check({a, b}, "cat dim 0", [](const Ins& v) { return cat({v[0], v[1]}, 0); },
        [](const TIns& v) { return at::cat({v[0], v[1]}, 0); });
  check({a, c}, "cat dim -1, repeated input", [](const Ins& v) { return cat({v[0], v[1], v[0]}, -1); },
        [](const TIns& v) { return at::cat({v[0], v[1], v[0]}, -1); });
  check({a, rand({0}, 29)}, "cat skips 1-D empties", [](const Ins& v) { return cat({v[1], v[0]}, 1); },
        [](const TIns& v) { return at::cat({v[1], v[0]}, 1); });
  GradCase constant;
  constant.inputs = {a, b};
  constant.constant = {1};
  constant.context = "cat with a constant input";
  expect_grads_match(device, constant, [](const Ins& v) { return cat({v[1], v[0]}, 0); },
                     [](const TIns& v) { return at::cat({v[1], v[0]}, 0); });
  check({a, rand({2, 3}, 30, DType::Float64)}, "cat promotes, gradients cast back",
        [](const Ins& v) { return cat({v[0], v[1]}, 0); }, [](const TIns& v) { return at::cat({v[0], v[1]}, 0); });
  const at::Tensor d = rand({2, 3}, 31);
  check({a, d}, "stack dim 1", [](const Ins& v) { return stack({v[0], v[1]}, 1); },
        [](const TIns& v) { return at::stack({v[0], v[1]}, 1); });
  check({a, d}, "stack dim -1", [](const Ins& v) { return stack({v[0], v[1], v[0]}, -1); },
        [](const TIns& v) { return at::stack({v[0], v[1], v[0]}, -1); });
  check({rand({}, 32), rand({}, 33)}, "stack of 0-dim", [](const Ins& v) { return stack({v[0], v[1]}); },
        [](const TIns& v) { return at::stack({v[0], v[1]}); });
  check({a, d}, "hstack", [](const Ins& v) { return hstack({v[0], v[1]}); },
        [](const TIns& v) { return at::hstack({v[0], v[1]}); });
  check({a, b}, "vstack", [](const Ins& v) { return vstack({v[0], v[1]}); },
        [](const TIns& v) { return at::vstack({v[0], v[1]}); });
  check({rand({3}, 34), rand({3, 2}, 35)}, "column_stack", [](const Ins& v) { return column_stack({v[0], v[1]}); },
        [](const TIns& v) { return at::column_stack({v[0], v[1]}); });
}

TEST_P(AutogradViewsTest, ZeroDimInputs) {
  const at::Tensor s = rand({}, 36);
  check({s}, "unsqueeze", [](const Ins& v) { return v[0].unsqueeze(0); }, [](const TIns& v) { return v[0].unsqueeze(0); });
  check({s}, "reshape", [](const Ins& v) { return v[0].reshape({1, 1}); },
        [](const TIns& v) { return v[0].reshape({1, 1}); });
  check({s}, "flatten", [](const Ins& v) { return v[0].flatten(); }, [](const TIns& v) { return v[0].flatten(); });
  check({s}, "t", [](const Ins& v) { return v[0].t(); }, [](const TIns& v) { return v[0].t(); });
  check({s}, "transpose", [](const Ins& v) { return v[0].transpose(0, -1); },
        [](const TIns& v) { return v[0].transpose(0, -1); });
  check({s}, "squeeze", [](const Ins& v) { return v[0].squeeze(); }, [](const TIns& v) { return v[0].squeeze(); });
}

TEST_P(AutogradViewsTest, SecondOrder) {
  // Products of two views, so that the gradients depend on the input.
  const at::Tensor x = rand({4, 6}, 37);
  check_second_order(
      {x}, "slice * select", [](const Ins& v) { return v[0].slice(1, 0, 4) * v[0].select(1, 5).unsqueeze(1); },
      [](const TIns& v) { return v[0].slice(1, 0, 4) * v[0].select(1, 5).unsqueeze(1); });
  check_second_order({x}, "diagonal * diagonal", [](const Ins& v) { return v[0].diagonal() * v[0].diagonal(2); },
                     [](const TIns& v) { return v[0].diagonal() * v[0].diagonal(2); });
  check_second_order({x}, "unfold * unfold", [](const Ins& v) { return v[0].unfold(1, 3, 1) * v[0].unfold(1, 3, 1); },
                     [](const TIns& v) { return v[0].unfold(1, 3, 1) * v[0].unfold(1, 3, 1); });
  check_second_order(
      {x}, "as_strided * t",
      [](const Ins& v) { return v[0].as_strided({3, 4}, {1, 2}) * v[0].t().slice(0, 0, 3).slice(1, 0, 4); },
      [](const TIns& v) { return v[0].as_strided({3, 4}, {1, 2}) * v[0].t().slice(0, 0, 3).slice(1, 0, 4); });
  check_second_order({x}, "split * expand", [](const Ins& v) {
                       auto p = v[0].split(3, 1);
                       return p[0] * p[1].sum({0}, true).expand({4, 3});
                     },
                     [](const TIns& v) {
                       auto p = v[0].split(3, 1);
                       return p[0] * p[1].sum(0, true).expand({4, 3});
                     });
  check_second_order({x, rand({4, 6}, 38)}, "cat * stack", [](const Ins& v) {
                       return cat({v[0], v[1]}, 0).view({2, 4, 6}) * stack({v[1], v[0]}, 0);
                     },
                     [](const TIns& v) { return at::cat({v[0], v[1]}, 0).view({2, 4, 6}) * at::stack({v[1], v[0]}, 0); });
  check_second_order({x}, "unbind * permute",
                     [](const Ins& v) { return v[0].unbind(0)[1] * v[0].permute({1, 0}).select(1, 2); },
                     [](const TIns& v) { return v[0].unbind(0)[1] * v[0].permute({1, 0}).select(1, 2); });
}

TEST_P(AutogradViewsTest, NodeNamesMatchLibTorch) {
  const at::Tensor x = rand({4, 6}, 39);
  const std::vector<std::pair<EmberFn, TorchFn>> ops = {
      {[](const Ins& v) { return v[0].view({6, 4}); }, [](const TIns& v) { return v[0].view({6, 4}); }},
      {[](const Ins& v) { return v[0].reshape({6, 4}); }, [](const TIns& v) { return v[0].reshape({6, 4}); }},
      {[](const Ins& v) { return v[0].t().reshape({-1}); }, [](const TIns& v) { return v[0].t().reshape({-1}); }},
      {[](const Ins& v) { return v[0].permute({1, 0}); }, [](const TIns& v) { return v[0].permute({1, 0}); }},
      {[](const Ins& v) { return v[0].transpose(0, 1); }, [](const TIns& v) { return v[0].transpose(0, 1); }},
      {[](const Ins& v) { return v[0].t(); }, [](const TIns& v) { return v[0].t(); }},
      {[](const Ins& v) { return v[0].mT(); }, [](const TIns& v) { return v[0].mT(); }},
      {[](const Ins& v) { return v[0].expand({2, 4, 6}); }, [](const TIns& v) { return v[0].expand({2, 4, 6}); }},
      {[](const Ins& v) { return v[0].unsqueeze(0).squeeze(); }, [](const TIns& v) { return v[0].unsqueeze(0).squeeze(); }},
      {[](const Ins& v) { return v[0].unsqueeze(0).squeeze(0); }, [](const TIns& v) { return v[0].unsqueeze(0).squeeze(0); }},
      {[](const Ins& v) { return v[0].unsqueeze(1); }, [](const TIns& v) { return v[0].unsqueeze(1); }},
      {[](const Ins& v) { return v[0].narrow(0, 1, 2); }, [](const TIns& v) { return v[0].narrow(0, 1, 2); }},
      {[](const Ins& v) { return v[0].select(1, 2); }, [](const TIns& v) { return v[0].select(1, 2); }},
      {[](const Ins& v) { return v[0].as_strided({2, 2}, {1, 2}); }, [](const TIns& v) { return v[0].as_strided({2, 2}, {1, 2}); }},
      {[](const Ins& v) { return v[0].unfold(1, 2, 1); }, [](const TIns& v) { return v[0].unfold(1, 2, 1); }},
      {[](const Ins& v) { return v[0].split(4, 1)[1]; }, [](const TIns& v) { return v[0].split(4, 1)[1]; }},
      {[](const Ins& v) { return v[0].split_with_sizes({1, 3}, 0)[1]; }, [](const TIns& v) { return v[0].split_with_sizes({1, 3}, 0)[1]; }},
      {[](const Ins& v) { return v[0].chunk(2, 1)[0]; }, [](const TIns& v) { return v[0].chunk(2, 1)[0]; }},
      {[](const Ins& v) { return v[0].unbind(0)[0]; }, [](const TIns& v) { return v[0].unbind(0)[0]; }},
      {[](const Ins& v) { return v[0].diagonal(); }, [](const TIns& v) { return v[0].diagonal(); }},
      {[](const Ins& v) { return v[0].alias(); }, [](const TIns& v) { return v[0].alias(); }},
      {[](const Ins& v) { return broadcast_to(v[0], {3, 4, 6}); }, [](const TIns& v) { return at::broadcast_to(v[0], {3, 4, 6}); }},
      {[](const Ins& v) { return cat({v[0], v[0]}); }, [](const TIns& v) { return at::cat({v[0], v[0]}); }},
      {[](const Ins& v) { return stack({v[0], v[0]}); }, [](const TIns& v) { return at::stack({v[0], v[0]}); }},
      {[](const Ins& v) { return hstack({v[0], v[0]}); }, [](const TIns& v) { return at::hstack({v[0], v[0]}); }},
  };
  for (size_t i = 0; i < ops.size(); ++i) {
    SCOPED_TRACE("op " + std::to_string(i));
    expect_node(x, ops[i].first, ops[i].second);
  }
}

TEST_P(AutogradViewsTest, DetachAndNoGradViewsRecordNothing) {
  Tensor x = from_torch(rand({3, 4}, 40), device).requires_grad_(true);
  EXPECT_FALSE(x.detach().requires_grad());
  EXPECT_TRUE(x.alias().requires_grad());
  {
    autograd::NoGradGuard no_grad;
    const Tensor v = x.t();
    EXPECT_FALSE(v.requires_grad());
    EXPECT_TRUE(v.impl().view_base != nullptr);
  }
  const Tensor v = x.t().select(0, 1);
  EXPECT_EQ(v.impl().view_base, x.impl_ptr()) << "views of views keep the first base";
}

// An in-place write through a view of a non-leaf: the base's gradient comes through CopySlices.
TEST_P(AutogradViewsTest, InPlaceWriteThroughAView) {
  GradCase test;
  test.inputs = {rand({3, 4}, 41), rand({3, 4}, 42), rand({2}, 43)};
  test.constant = {1};
  test.all_layouts = false;
  test.context = "b = a * c; b[1].scatter_(0, index, s)";
  const at::Tensor index = at::tensor({3, 0}, at::kLong);
  expect_grads_match(
      device, test,
      [&](const Ins& v) {
        Tensor b = v[0] * v[1];
        Tensor row = b.select(0, 1);
        row.scatter_(0, from_torch(index, device), v[2]);
        return b * v[1];
      },
      [&](const TIns& v) {
        at::Tensor b = v[0] * v[1];
        at::Tensor row = b.select(0, 1);
        row.scatter_(0, index, v[2]);
        return b * v[1];
      });
  // An arithmetic in-place write into a view is covered in autograd_elementwise_test.cpp ("view mul_").
}

INSTANTIATE_TEST_SUITE_P(Backends, AutogradViewsTest, testing::Values("vulkan", "cuda"), backend_test_name);

}  // namespace
}  // namespace ember::test
