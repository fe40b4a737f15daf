// Gradients of the matrix products against LibTorch: every rank combination of matmul (with broadcast
// batch dims summed back), mm, bmm, mv, dot, addmm and baddbmm with beta and alpha, in every layout, and
// second order for the products.
#include "tests/autograd_oracle.h"

#include <torch/csrc/autograd/function.h>

namespace ember::test {
namespace {

class AutogradLinalgTest : public BackendTest {
 protected:
  void check(std::vector<at::Tensor> inputs, const std::string& context, const EmberFn& ember_fn,
             const TorchFn& torch_fn, bool second = false, std::vector<size_t> constant = {}) {
    GradCase test;
    test.inputs = std::move(inputs);
    test.constant = std::move(constant);
    test.context = context;
    expect_grads_match(device, test, ember_fn, torch_fn);
    if (second) expect_second_order_match(device, test, ember_fn, torch_fn);
  }

  // a.matmul(b) for operands of the given sizes.
  void check_matmul(std::vector<int64_t> a, std::vector<int64_t> b, bool second = false,
                    DType dtype = DType::Float32) {
    const std::string context = "matmul " + to_string(a) + " @ " + to_string(b) + " " + std::string(dtype_name(dtype));
    check({random_torch(a, dtype, 1, -2, 2), random_torch(b, dtype, 2, -2, 2)}, context,
          [](const std::vector<Tensor>& x) { return x[0].matmul(x[1]); },
          [](const std::vector<at::Tensor>& x) {
            // LibTorch's CPU products take no float16: multiply in float32 and round, as ember does.
            if (x[0].scalar_type() != at::kHalf) return x[0].matmul(x[1]);
            return x[0].to(at::kFloat).matmul(x[1].to(at::kFloat)).to(at::kHalf);
          },
          second);
  }
};

TEST_P(AutogradLinalgTest, MatmulEveryRankCombination) {
  check_matmul({7}, {7}, true);                // dot
  check_matmul({5, 7}, {7});                   // mv
  check_matmul({7}, {7, 4});                   // row vector times matrix
  check_matmul({5, 7}, {7, 4}, true);          // mm
  check_matmul({3, 5, 7}, {7, 4}, true);       // batch folded into rows
  check_matmul({3, 5, 7}, {7});                // folded, then mv
  check_matmul({7}, {3, 7, 4});                // vector times a batch
  check_matmul({5, 7}, {2, 3, 7, 4}, true);    // matrix times a batch: transposed fold
  check_matmul({3, 5, 7}, {3, 7, 4}, true);    // batched
  check_matmul({2, 1, 5, 7}, {3, 7, 4}, true);  // broadcast batch dims on both sides
  check_matmul({1, 5, 7}, {3, 7, 4});          // a batch of one against three
  check_matmul({2, 3, 5, 7}, {7});             // batched matrix times vector
  check_matmul({5, 7}, {7, 4}, false, DType::Float64);
  check_matmul({3, 5, 7}, {1, 7, 4}, false, DType::Float64);
  check_matmul({5, 7}, {7, 4}, false, DType::Float16);
  check_matmul({33, 17}, {17, 9});
  check_matmul({0, 7}, {7, 4});  // empty rows
  check_matmul({5, 0}, {0, 4});  // empty inner dim: zero output, zero gradients of size 0
  // Only one operand differentiated: the other is not saved, and gets no gradient.
  check({random_torch({3, 5, 7}, DType::Float32, 3, -2, 2), random_torch({7, 4}, DType::Float32, 4, -2, 2)},
        "matmul with a constant weight", [](const std::vector<Tensor>& x) { return x[0].matmul(x[1]); },
        [](const std::vector<at::Tensor>& x) { return x[0].matmul(x[1]); }, false, {1});
  check({random_torch({3, 5, 7}, DType::Float32, 5, -2, 2), random_torch({7, 4}, DType::Float32, 6, -2, 2)},
        "matmul with a constant input", [](const std::vector<Tensor>& x) { return x[0].matmul(x[1]); },
        [](const std::vector<at::Tensor>& x) { return x[0].matmul(x[1]); }, false, {0});
}

TEST_P(AutogradLinalgTest, MmBmmMvDot) {
  const auto f = [](std::vector<int64_t> sizes, uint64_t seed) { return random_torch(sizes, DType::Float32, seed, -2, 2); };
  check({f({6, 9}, 11), f({9, 5}, 12)}, "mm", [](const std::vector<Tensor>& x) { return x[0].mm(x[1]); },
        [](const std::vector<at::Tensor>& x) { return x[0].mm(x[1]); }, true);
  check({f({3, 6, 9}, 13), f({3, 9, 5}, 14)}, "bmm", [](const std::vector<Tensor>& x) { return x[0].bmm(x[1]); },
        [](const std::vector<at::Tensor>& x) { return x[0].bmm(x[1]); }, true);
  check({f({6, 9}, 15), f({9}, 16)}, "mv", [](const std::vector<Tensor>& x) { return x[0].mv(x[1]); },
        [](const std::vector<at::Tensor>& x) { return x[0].mv(x[1]); }, true);
  check({f({9}, 17), f({9}, 18)}, "dot", [](const std::vector<Tensor>& x) { return x[0].dot(x[1]); },
        [](const std::vector<at::Tensor>& x) { return x[0].dot(x[1]); }, true);
  check({random_torch({4, 6}, DType::Float64, 19, -2, 2), random_torch({2, 6, 3}, DType::Float64, 20, -2, 2).select(0, 1)},
        "mm float64", [](const std::vector<Tensor>& x) { return x[0].mm(x[1]); },
        [](const std::vector<at::Tensor>& x) { return x[0].mm(x[1]); });
  check({random_torch({2, 4, 6}, DType::Float16, 21, -2, 2), random_torch({2, 6, 3}, DType::Float16, 22, -2, 2)},
        "bmm float16", [](const std::vector<Tensor>& x) { return x[0].bmm(x[1]); },
        [](const std::vector<at::Tensor>& x) { return x[0].to(at::kFloat).bmm(x[1].to(at::kFloat)).to(at::kHalf); });
  check({f({0}, 23), f({0}, 24)}, "dot of empty", [](const std::vector<Tensor>& x) { return x[0].dot(x[1]); },
        [](const std::vector<at::Tensor>& x) { return x[0].dot(x[1]); });
}

TEST_P(AutogradLinalgTest, AddmmAndBaddbmm) {
  const auto f = [](std::vector<int64_t> sizes, uint64_t seed) { return random_torch(sizes, DType::Float32, seed, -2, 2); };
  check({f({6, 5}, 31), f({6, 9}, 32), f({9, 5}, 33)}, "addmm",
        [](const std::vector<Tensor>& x) { return x[0].addmm(x[1], x[2]); },
        [](const std::vector<at::Tensor>& x) { return x[0].addmm(x[1], x[2]); }, true);
  // A broadcast bias (a row), and beta, alpha.
  check({f({5}, 34), f({6, 9}, 35), f({9, 5}, 36)}, "addmm bias row, beta 0.5, alpha -2",
        [](const std::vector<Tensor>& x) { return x[0].addmm(x[1], x[2], 0.5, -2); },
        [](const std::vector<at::Tensor>& x) { return x[0].addmm(x[1], x[2], 0.5, -2); }, true);
  check({f({6, 1}, 37), f({6, 9}, 38), f({9, 5}, 39)}, "addmm bias column, beta 0",
        [](const std::vector<Tensor>& x) { return x[0].addmm(x[1], x[2], 0, 1); },
        [](const std::vector<at::Tensor>& x) { return x[0].addmm(x[1], x[2], 0, 1); });
  check({f({3, 4, 5}, 40), f({3, 4, 6}, 41), f({3, 6, 5}, 42)}, "baddbmm",
        [](const std::vector<Tensor>& x) { return x[0].baddbmm(x[1], x[2]); },
        [](const std::vector<at::Tensor>& x) { return x[0].baddbmm(x[1], x[2]); }, true);
  check({f({4, 1}, 43), f({3, 4, 6}, 44), f({3, 6, 5}, 45)}, "baddbmm broadcast input, beta 2, alpha 0.25",
        [](const std::vector<Tensor>& x) { return x[0].baddbmm(x[1], x[2], 2, 0.25); },
        [](const std::vector<at::Tensor>& x) { return x[0].baddbmm(x[1], x[2], 2, 0.25); });
  check({random_torch({4, 5}, DType::Float64, 46, -2, 2), random_torch({4, 6}, DType::Float64, 47, -2, 2),
         random_torch({6, 5}, DType::Float64, 48, -2, 2)},
        "addmm float64", [](const std::vector<Tensor>& x) { return addmm(x[0], x[1], x[2], 1.5, 0.5); },
        [](const std::vector<at::Tensor>& x) { return at::addmm(x[0], x[1], x[2], 1.5, 0.5); });
  // Only the bias differentiated.
  check({f({6, 5}, 49), f({6, 9}, 50), f({9, 5}, 51)}, "addmm with constant matrices",
        [](const std::vector<Tensor>& x) { return x[0].addmm(x[1], x[2]); },
        [](const std::vector<at::Tensor>& x) { return x[0].addmm(x[1], x[2]); }, false, {1, 2});
}

TEST_P(AutogradLinalgTest, NodeNamesMatchLibTorch) {
  const std::vector<std::pair<std::vector<int64_t>, std::vector<int64_t>>> shapes = {
      {{4}, {4}}, {{3, 4}, {4}}, {{4}, {4, 5}}, {{3, 4}, {4, 5}}, {{2, 3, 4}, {4, 5}}, {{2, 3, 4}, {4}},
      {{4}, {2, 4, 5}}, {{3, 4}, {2, 4, 5}}, {{2, 3, 4}, {2, 4, 5}}, {{2, 1, 3, 4}, {2, 4, 5}}};
  for (const auto& [sa, sb] : shapes) {
    const at::Tensor a = random_torch(sa, DType::Float32, 61), b = random_torch(sb, DType::Float32, 62);
    const Tensor ours = from_torch(a, device).requires_grad_(true).matmul(from_torch(b, device).requires_grad_(true));
    const at::Tensor theirs = a.clone().requires_grad_(true).matmul(b.clone().requires_grad_(true));
    ASSERT_TRUE(ours.grad_fn());
    EXPECT_EQ(ours.grad_fn()->name(), theirs.grad_fn()->name()) << to_string(sa) << " @ " << to_string(sb);
  }
  const at::Tensor m = random_torch({3, 3}, DType::Float32, 63), s = random_torch({2, 3, 3}, DType::Float32, 64);
  const at::Tensor w = random_torch({3}, DType::Float32, 65);
  Tensor x = from_torch(m, device).requires_grad_(true), y = from_torch(s, device).requires_grad_(true);
  Tensor v = from_torch(w, device).requires_grad_(true);
  at::Tensor tx = m.clone().requires_grad_(true), ty = s.clone().requires_grad_(true);
  at::Tensor tv = w.clone().requires_grad_(true);
  const std::vector<std::pair<Tensor, at::Tensor>> cases = {
      {x.mm(x), tx.mm(tx)},
      {y.bmm(y), ty.bmm(ty)},
      {x.mv(v), tx.mv(tv)},
      {v.dot(v), tv.dot(tv)},
      {x.addmm(x, x), tx.addmm(tx, tx)},
      {y.baddbmm(y, y), ty.baddbmm(ty, ty)},
  };
  for (const auto& [ours, theirs] : cases) {
    ASSERT_TRUE(ours.grad_fn());
    EXPECT_EQ(ours.grad_fn()->name(), theirs.grad_fn()->name());
  }
}

INSTANTIATE_TEST_SUITE_P(Backends, AutogradLinalgTest, testing::Values("vulkan", "cuda"), backend_test_name);

}  // namespace
}  // namespace ember::test
