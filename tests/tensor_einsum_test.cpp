// einsum against LibTorch's at::einsum: matmul, bmm, outer products, traces and diagonals (repeated labels),
// transposes, ellipses that broadcast, sums, three and four operands, implicit outputs, size-1 and empty
// dims, 0-dim operands, every layout; dtypes (float16 against LibTorch in float32, integers where no bmm is
// needed, or where the backend multiplies integers); gradients and second order; and LibTorch's own error
// messages, read from LibTorch for each bad equation.
#include <c10/util/Exception.h>

#include "tests/autograd_oracle.h"

namespace ember::test {
namespace {

struct Case {
  std::string equation;
  std::vector<std::vector<int64_t>> shapes;
};

// The equations every dtype runs.
const std::vector<Case>& cases() {
  static const std::vector<Case> all = {
      {"ij,jk->ik", {{2, 3}, {3, 4}}},            // matmul
      {"ij,jk", {{3, 5}, {5, 2}}},                // implicit output
      {"bij,bjk->bik", {{2, 3, 4}, {2, 4, 5}}},   // bmm
      {"bij,bjk", {{1, 3, 4}, {3, 4, 2}}},        // a summed label that broadcasts
      {"i,j->ij", {{3}, {4}}},                    // outer
      {"ij,kl->ijkl", {{2, 3}, {1, 2}}},
      {"ii", {{4, 4}}},                           // trace
      {"ii->i", {{4, 4}}},                        // diagonal
      {"iji->j", {{3, 2, 3}}},                    // repeated, not adjacent
      {"iii->i", {{3, 3, 3}}},
      {"jii->ij", {{2, 3, 3}}},
      {"ij->ji", {{2, 5}}},                       // transpose
      {"ij->", {{3, 4}}},                         // sum all
      {"ijk->j", {{2, 3, 4}}},
      {"i,i->", {{7}, {7}}},                      // dot
      {"ij,j->i", {{3, 4}, {4}}},                 // mv
      {"ij,ij->ij", {{3, 4}, {3, 4}}},            // product without a sum
      {"ij,ij->", {{3, 4}, {3, 4}}},
      {"ij,ij->i", {{3, 4}, {1, 4}}},             // broadcast size-1 dim
      {"Ab,bC", {{2, 3}, {3, 4}}},                // upper case labels come first
      {"ba,ab", {{3, 2}, {2, 3}}},
      {"bA", {{2, 3}}},                           // implicit: A before b, a transpose
      {"ij,jK", {{2, 3}, {3, 4}}},                // implicit: K before i
      {"...ij,...jk->...ik", {{2, 1, 3, 4}, {5, 4, 2}}},  // batch ellipsis that broadcasts
      {"...ij,...jk", {{3, 2, 4}, {4, 2}}},
      {"b...i,b...i->b...", {{2, 3, 4}, {2, 1, 4}}},
      {"...,...", {{2, 3}, {3}}},
      {"...->", {{2, 3, 4}}},
      {"i...->...", {{3, 2, 2}}},
      {"...ii->...i", {{2, 3, 3}}},
      {"i...i", {{3, 2, 3}}},
      {"bn,anm,bm->ba", {{2, 3}, {4, 3, 5}, {2, 5}}},  // bilinear
      {"a,b,c->abc", {{2}, {3}, {4}}},
      {"ab,bc,cd->ad", {{2, 3}, {3, 4}, {4, 5}}},
      {"ab,bc,cd,de->ae", {{2, 3}, {3, 4}, {4, 2}, {2, 3}}},
      {"ij,jk,kl->", {{2, 3}, {3, 4}, {4, 2}}},
      {"ab,cd,bc->ad", {{2, 3}, {4, 5}, {3, 4}}},  // a later operand joins the first two
      {"ij,jk->ik", {{2, 1}, {1, 4}}},             // summed label of size 1
      {" i j , j k -> i k ", {{2, 3}, {3, 2}}},    // spaces
      {"", {{}}},                                   // 0-dim operands
      {",->", {{}, {}}},
      {"i,->i", {{3}, {}}},
      {"ij,jk->ik", {{2, 0}, {0, 3}}},             // empty dims
      {"ij,jk->ik", {{0, 3}, {3, 4}}},
      {"i,j->ij", {{0}, {2}}},
      {"ij->", {{0, 3}}},
      {"ii->i", {{0, 0}}},
  };
  return all;
}

class TensorEinsumTest : public GradTest {
 protected:
  std::vector<Tensor> from(const std::vector<at::Tensor>& ts) {
    std::vector<Tensor> out;
    for (const at::Tensor& t : ts) out.push_back(from_torch(t, device));
    return out;
  }
  static std::vector<at::Tensor> inputs(const Case& c, DType dtype, uint64_t seed = 1) {
    std::vector<at::Tensor> ins;
    for (const auto& shape : c.shapes) ins.push_back(random_torch(shape, dtype, seed++, -2, 2));
    return ins;
  }
  // einsum must throw LibTorch's message for the same call.
  void expect_libtorch_error(const std::string& equation, const std::vector<at::Tensor>& ins) {
    SCOPED_TRACE(equation);
    std::string message;
    try {
      at::einsum(equation, ins);
      ADD_FAILURE() << "LibTorch accepts " << equation;
      return;
    } catch (const c10::Error& e) {
      message = e.what_without_backtrace();
    }
    const std::vector<Tensor> ours = from(ins);
    expect_error<Error>([&] { einsum(equation, ours); }, message);
  }
};

TEST_P(TensorEinsumTest, EquationsInFloat32AndFloat64) {
  for (DType dtype : {DType::Float32, DType::Float64}) {
    for (const Case& c : cases()) {
      SCOPED_TRACE(c.equation + " " + std::string(dtype_name(dtype)));
      const std::vector<at::Tensor> ins = inputs(c, dtype);
      EXPECT_TENSOR_EQ(einsum(c.equation, from(ins)), at::einsum(c.equation, ins));
    }
  }
}

// LibTorch's CPU bmm has no float16 or bfloat16: it computes in float32 and rounds once.
TEST_P(TensorEinsumTest, HalfPrecisionAgainstFloat32) {
  for (DType dtype : {DType::Float16, DType::BFloat16}) {
    for (const Case& c : cases()) {
      SCOPED_TRACE(c.equation + " " + std::string(dtype_name(dtype)));
      const std::vector<at::Tensor> ins = inputs(c, dtype);
      std::vector<at::Tensor> wide;
      for (const at::Tensor& t : ins) wide.push_back(t.to(at::kFloat));
      const at::Tensor expected = at::einsum(c.equation, wide).to(torch_dtype(dtype));
      const Tolerance tol = tolerance_for(dtype);
      EXPECT_TENSOR_EQ(einsum(c.equation, from(ins)), expected, tol.rtol * 2, tol.atol * 2);
    }
  }
}

// Without a contraction einsum is views, sums and products, which keep integers (sums widen to int64).
TEST_P(TensorEinsumTest, IntegersWithoutContraction) {
  const std::vector<Case> exact = {{"ii", {{3, 3}}},        {"ij->i", {{3, 4}}},      {"ij->ji", {{3, 4}}},
                                   {"ii->i", {{3, 3}}},     {"ij", {{2, 5}}},         {"ij,ij->ij", {{2, 3}, {2, 3}}},
                                   {"i,j->ij", {{2}, {3}}}, {"...->", {{2, 3}}},      {"...", {{4}}},
                                   {"ij->", {{2, 2}}}};
  for (DType dtype : {DType::Int32, DType::Int64, DType::UInt8, DType::Bool}) {
    for (const Case& c : exact) {
      if (dtype == DType::Bool && c.shapes.size() > 1) continue;  // bool * bool is logical and
      SCOPED_TRACE(c.equation + " " + std::string(dtype_name(dtype)));
      const std::vector<at::Tensor> ins = inputs(c, dtype);
      EXPECT_TENSOR_EQ(einsum(c.equation, from(ins)), at::einsum(c.equation, ins));
    }
  }
}

TEST_P(TensorEinsumTest, IntegerContractions) {
  REQUIRE_KERNEL(mm(empty({0, 0}, TensorOptions().dtype(kInt32).device(device)),
                    empty({0, 0}, TensorOptions().dtype(kInt32).device(device))));
  for (const Case& c : std::vector<Case>{{"ij,jk", {{2, 3}, {3, 4}}}, {"i,i", {{5}, {5}}}, {"bij,bjk", {{2, 2, 3}, {2, 3, 2}}}}) {
    SCOPED_TRACE(c.equation);
    const std::vector<at::Tensor> ins = inputs(c, DType::Int32);
    EXPECT_TENSOR_EQ(einsum(c.equation, from(ins)), at::einsum(c.equation, ins));
  }
}

TEST_P(TensorEinsumTest, EveryLayoutAndExpandedOperands) {
  const at::Tensor a = random_torch({4, 5}, DType::Float32, 3, -2, 2);
  const at::Tensor b = random_torch({5, 3}, DType::Float32, 4, -2, 2);
  const at::Tensor square = random_torch({4, 4}, DType::Float32, 5, -2, 2);
  for (const auto& [name, x] : layouts_of(a, device)) {
    SCOPED_TRACE(name);
    for (const auto& [name_b, y] : layouts_of(b, device)) {
      SCOPED_TRACE(name_b);
      EXPECT_TENSOR_EQ(einsum("ij,jk->ik", {x, y}), at::einsum("ij,jk->ik", {a, b}));
      EXPECT_TENSOR_EQ(einsum("ij,jk->ki", {x, y}), at::einsum("ij,jk->ki", {a, b}));
    }
    EXPECT_TENSOR_EQ(einsum("ij->j", {x}), at::einsum("ij->j", {a}));
    EXPECT_TENSOR_EQ(einsum("ij,ij->i", {x, x}), at::einsum("ij,ij->i", {a, a}));
  }
  for (const auto& [name, x] : layouts_of(square, device)) {
    SCOPED_TRACE(name);
    EXPECT_TENSOR_EQ(einsum("ii", {x}), at::einsum("ii", {square}));
    EXPECT_TENSOR_EQ(einsum("ii->i", {x}), at::einsum("ii->i", {square}));
  }
  // Operands with stride-0 dims.
  const at::Tensor row = random_torch({1, 5}, DType::Float32, 6, -2, 2);
  const Tensor wide = from_torch(row, device).expand({4, 5});
  EXPECT_TENSOR_EQ(einsum("ij,jk->ik", {wide, from_torch(b, device)}), at::einsum("ij,jk->ik", {row.expand({4, 5}), b}));
  EXPECT_TENSOR_EQ(einsum("bij,bjk->bik", {from_torch(a, device).expand({3, 4, 5}), from_torch(b, device).expand({3, 5, 3})}),
                   at::einsum("bij,bjk->bik", {a.expand({3, 4, 5}), b.expand({3, 5, 3})}));
}

TEST_P(TensorEinsumTest, Gradients) {
  auto run = [this](const std::string& equation, std::vector<at::Tensor> ins) {
    check(std::move(ins), equation, [equation](const Ins& v) { return einsum(equation, v); },
          [equation](const TIns& v) { return at::einsum(equation, v); });
  };
  auto rand = [](std::vector<int64_t> shape, uint64_t seed) { return random_torch(shape, DType::Float32, seed, -2, 2); };
  run("ij,jk->ik", {rand({3, 4}, 1), rand({4, 2}, 2)});
  run("bij,bjk", {rand({2, 3, 4}, 3), rand({2, 4, 2}, 4)});
  run("i,j->ij", {rand({3}, 5), rand({4}, 6)});
  run("ii", {rand({4, 4}, 7)});
  run("ii->i", {rand({4, 4}, 8)});
  run("iij->j", {rand({3, 3, 2}, 9)});
  run("ij->ji", {rand({3, 5}, 10)});
  run("ij->", {rand({3, 5}, 11)});
  run("...ij,...jk->...ik", {rand({2, 1, 3, 4}, 12), rand({3, 4, 2}, 13)});
  run("bn,anm,bm->ba", {rand({2, 3}, 14), rand({4, 3, 5}, 15), rand({2, 5}, 16)});
  run("ij,ij->i", {rand({3, 4}, 17), rand({1, 4}, 18)});
  run("ab,bc,cd->ad", {rand({2, 3}, 19), rand({3, 4}, 20), rand({4, 2}, 21)});
  run("i,->i", {rand({3}, 22), rand({}, 23)});
  check({random_torch({3, 4}, DType::Float64, 24, -2, 2), random_torch({4, 3}, DType::Float64, 25, -2, 2)},
        "float64 trace of a product", [](const Ins& v) { return einsum("ij,ji", v); },
        [](const TIns& v) { return at::einsum("ij,ji", v); });
  check_second_order({rand({3, 4}, 26), rand({4, 2}, 27)}, "ij,jk->ik second order",
                     [](const Ins& v) { return einsum("ij,jk->ik", v).square(); },
                     [](const TIns& v) { return at::einsum("ij,jk->ik", v).square(); });
  check_second_order({rand({2, 3, 3}, 28)}, "bii->b second order",
                     [](const Ins& v) { return einsum("bii->b", v).square(); },
                     [](const TIns& v) { return at::einsum("bii->b", v).square(); });
}

TEST_P(TensorEinsumTest, ErrorsAreLibTorchs) {
  auto rand = [](std::vector<int64_t> shape) { return random_torch(shape, DType::Float32, 1); };
  const at::Tensor m = rand({2, 3});
  const std::vector<std::pair<std::string, std::vector<at::Tensor>>> bad = {
      {"ij,jk", {m}},                      // fewer operands than the equation names
      {"ij", {m, m}},                      // more
      {"ij...,", {m}},
      {"i.j", {m}},                        // a lone '.'
      {"i..", {m}},
      {"i.....j", {m}},                    // two ellipses
      {"i...j...", {m}},
      {"i1", {m}},                         // not a letter
      {"i-j", {m}},
      {"i", {m}},                          // too few subscripts
      {"ijk", {m}},                        // too many
      {"...ijk", {m}},                     // too many beside an ellipsis
      {"ij->k", {m}},                      // an output label no input has
      {"ij->ii", {m}},                     // twice in the output
      {"ij->i1", {m}},
      {"ij->...i...", {m}},
      {"ij->i..", {m}},
      {"ij->i.", {m}},
      {"ij->j->i", {m}},
      {"ij,jk", {m, rand({4, 4})}},        // sizes that do not broadcast
      {"ij,j", {m, rand({2})}},
      {"ii", {m}},                         // a repeated label of two sizes
      {"...i,...i", {rand({2, 3}), rand({4, 3})}},
      {"...i,...i", {rand({2, 5, 3}), rand({4, 3})}},
      {"ij,jk", {m, rand({3, 4}).to(at::kDouble)}},  // bmm's dtype check
      {"", {}},
  };
  for (const auto& [equation, ins] : bad) expect_libtorch_error(equation, ins);
}

INSTANTIATE_TEST_SUITE_P(Backends, TensorEinsumTest, testing::Values("vulkan", "cuda"), backend_test_name);

}  // namespace
}  // namespace ember::test
