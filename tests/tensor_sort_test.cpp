// sort, argsort, msort, topk and kthvalue against LibTorch: every dtype, contiguous, transposed, stepped
// and broadcast inputs, negative dims, ties (in the stable order), NaN and infinities, both directions,
// empty and 0-dim tensors, slices longer than one workgroup; gradients (first and second order) with
// PyTorch's node names; and PyTorch's messages for bad dims and k.
//
// ember's order is always stable. LibTorch's topk and kthvalue pick among ties as their algorithm falls,
// so their values are compared with LibTorch's, and their indices with LibTorch's stable sort.
#include <torch/csrc/autograd/function.h>

#include <cmath>

#include "tests/autograd_oracle.h"

namespace ember::test {
namespace {

// Values with many ties: integers in [-3, 4) (halved for floats), and for floats one in 12 replaced
// by NaN, an infinity or -0.0.
at::Tensor tied(at::IntArrayRef sizes, DType dtype, uint64_t seed) {
  at::Generator gen = at::detail::createCPUGenerator(seed);
  if (dtype == DType::Bool) return at::randint(0, 2, sizes, gen, at::kLong).to(at::kBool);
  at::Tensor v = at::randint(-3, 4, sizes, gen, at::kLong);
  if (dtype == DType::UInt8) v = v + 3;
  if (!is_floating_point(dtype)) return v.to(torch_dtype(dtype));
  const at::Tensor picks = at::randint(0, 12, sizes, gen, at::kLong);
  v = v.to(at::kDouble) / 2;
  v.masked_fill_(picks.eq(0), NAN);
  v.masked_fill_(picks.eq(1), INFINITY);
  v.masked_fill_(picks.eq(2), -INFINITY);
  v.masked_fill_(picks.eq(3), -0.0);
  return v.to(torch_dtype(dtype));
}

// x's layouts, and a broadcast one for 2-dim x (its first row expanded over the rows).
std::vector<Layout> layouts_and_broadcast(const at::Tensor& x, const std::shared_ptr<Device>& device,
                                          at::Tensor& broadcast_values) {
  std::vector<Layout> result = layouts_of(x, device);
  broadcast_values = x.narrow(0, 0, 1).expand(x.sizes());
  result.push_back({"broadcast", from_torch(x.narrow(0, 0, 1), device).expand(x.sizes().vec())});
  return result;
}

std::string first_line(const std::string& s) { return s.substr(0, s.find('\n')); }

class TensorSortTest : public BackendTest {
 protected:
  Tensor from(const at::Tensor& t) { return from_torch(t, device); }

  // `ember_call` throws E with the first line of LibTorch's message for `torch_call`.
  template <class E>
  void expect_same_error(const std::function<void()>& ember_call, const std::function<void()>& torch_call) {
    expect_error<E>(ember_call, first_line(torch_error(torch_call)));
  }
};

TEST_P(TensorSortTest, SortEveryDtypeLayoutAndDim) {
  for (DType dtype : kAllDTypes) {
    if (!device->supports(dtype)) continue;
    const at::Tensor x = tied({6, 9}, dtype, 1 + static_cast<uint64_t>(dtype));
    at::Tensor broadcast;
    for (const auto& [name, t] : layouts_and_broadcast(x, device, broadcast)) {
      const at::Tensor expected_in = name == "broadcast" ? broadcast : x;
      for (int64_t dim : {-1, 0, 1, -2}) {
        for (bool descending : {false, true}) {
          SCOPED_TRACE(std::string(dtype_name(dtype)) + " " + name + " dim " + std::to_string(dim) +
                       (descending ? " descending" : ""));
          const auto [values, indices] = at::sort(expected_in, /*stable=*/true, dim, descending);
          const auto [stable_values, stable_indices] = t.sort(std::optional<bool>(true), dim, descending);
          EXPECT_TENSOR_EQ(stable_values, values);
          EXPECT_TENSOR_EQ(stable_indices, indices);
          // Without `stable` PyTorch leaves ties in any order; ember's is the stable one.
          const auto [plain_values, plain_indices] = ember::sort(t, dim, descending);
          EXPECT_TENSOR_EQ(plain_values, values);
          EXPECT_TENSOR_EQ(plain_indices, indices);
          EXPECT_TRUE(plain_values.is_contiguous());
        }
      }
    }
  }
}

TEST_P(TensorSortTest, NaNInfinitiesAndZerosSortAsInPyTorch) {
  const at::Tensor x = at::tensor({1.0, NAN, -0.0, INFINITY, 0.0, -INFINITY, NAN, 1.0, -2.0, 0.0}, at::kFloat);
  for (at::ScalarType type : {at::kFloat, at::kDouble, at::kHalf, at::kBFloat16}) {
    const at::Tensor typed = x.to(type);
    for (bool descending : {false, true}) {
      SCOPED_TRACE(std::string(c10::toString(type)) + (descending ? " descending" : " ascending"));
      const auto [values, indices] = from(typed).sort(std::optional<bool>(true), 0, descending);
      const auto [expected_values, expected_indices] = at::sort(typed, true, 0, descending);
      EXPECT_TENSOR_EQ(values, expected_values);
      EXPECT_TENSOR_EQ(indices, expected_indices);
    }
  }
}

TEST_P(TensorSortTest, LongSlicesBeyondOneWorkgroup) {
  // Past a tile of the kernel's shared memory (4096 elements, 2048 for 64-bit dtypes).
  for (DType dtype : {DType::Float32, DType::Int64, DType::Float16}) {
    const at::Tensor x = tied({3, 5000}, dtype, 10 + static_cast<uint64_t>(dtype));
    const Tensor t = from(x);
    for (bool descending : {false, true}) {
      SCOPED_TRACE(std::string(dtype_name(dtype)) + (descending ? " descending" : ""));
      const auto [values, indices] = at::sort(x, true, 1, descending);
      const auto [v, i] = t.sort(1, descending);
      EXPECT_TENSOR_EQ(v, values);
      EXPECT_TENSOR_EQ(i, indices);
      const auto [tv, ti] = t.t().sort(0, descending);  // along a strided dim
      EXPECT_TENSOR_EQ(tv, values.t());
      EXPECT_TENSOR_EQ(ti, indices.t());
      EXPECT_TENSOR_EQ(t.argsort(1, descending), indices);
    }
    EXPECT_TENSOR_EQ(std::get<0>(t.topk(7)), std::get<0>(at::sort(x, true, 1, true)).narrow(1, 0, 7));
    EXPECT_TENSOR_EQ(std::get<0>(t.kthvalue(2500)), std::get<0>(at::sort(x, true, 1, false)).select(1, 2499));
  }
}

TEST_P(TensorSortTest, ArgsortAndMsort) {
  const at::Tensor x = tied({5, 4, 3}, DType::Int32, 20);
  const Tensor t = from(x);
  for (int64_t dim : {0, 1, 2, -1}) {
    for (bool descending : {false, true}) {
      const at::Tensor expected = std::get<1>(at::sort(x, true, dim, descending));
      EXPECT_TENSOR_EQ(t.argsort(dim, descending), expected);
      EXPECT_TENSOR_EQ(t.argsort(/*stable=*/true, dim, descending), at::argsort(x, true, dim, descending));
      EXPECT_TENSOR_EQ(ember::argsort(t, dim, descending), expected);
      EXPECT_TENSOR_EQ(ember::argsort(t, true, dim, descending), expected);
    }
  }
  EXPECT_TENSOR_EQ(t.argsort(), std::get<1>(at::sort(x, true, -1, false)));
  EXPECT_TENSOR_EQ(t.msort(), at::msort(x));
  EXPECT_TENSOR_EQ(ember::msort(t.transpose(0, 2)), at::msort(x.transpose(0, 2)));
  const at::Tensor f = tied({7, 3}, DType::Float32, 21);
  EXPECT_TENSOR_EQ(ember::msort(from(f)), at::msort(f));
}

TEST_P(TensorSortTest, TopkLargestAndSmallest) {
  for (DType dtype : {DType::Float32, DType::Float64, DType::Int64, DType::UInt8, DType::Int8, DType::Float16,
                      DType::BFloat16}) {
    if (!device->supports(dtype)) continue;
    const at::Tensor x = tied({5, 8}, dtype, 30 + static_cast<uint64_t>(dtype));
    // LibTorch's CPU topk lacks float16: its values are float32's.
    const bool half = dtype == DType::Float16;
    at::Tensor broadcast;
    for (const auto& [name, t] : layouts_and_broadcast(x, device, broadcast)) {
      const at::Tensor in = name == "broadcast" ? broadcast : x;
      const at::Tensor in_oracle = half ? in.to(at::kFloat) : in;
      for (int64_t dim : {-1, 0}) {
        for (int64_t k : {int64_t{0}, int64_t{1}, int64_t{3}, in.size(dim)}) {
          for (bool largest : {true, false}) {
            SCOPED_TRACE(std::string(dtype_name(dtype)) + " " + name + " dim " + std::to_string(dim) + " k " +
                         std::to_string(k) + (largest ? " largest" : " smallest"));
            const auto [values, indices] = t.topk(k, dim, largest);
            const at::Tensor expected = std::get<0>(at::topk(in_oracle, k, dim, largest));
            EXPECT_TENSOR_EQ(values, half ? expected.to(at::kHalf) : expected);
            EXPECT_TENSOR_EQ(indices, std::get<1>(at::sort(in, true, dim, largest)).narrow(dim, 0, k));
            // sorted=false allows any order: the same elements, and indices that point at them.
            const auto [any_values, any_indices] = ember::topk(t, k, dim, largest, /*sorted=*/false);
            EXPECT_TENSOR_EQ(std::get<0>(any_values.sort(dim)), std::get<0>(expected.sort(dim)).to(in.scalar_type()));
            EXPECT_TENSOR_EQ(t.gather(dim, any_indices), to_torch(any_values));
          }
        }
      }
    }
  }
}

TEST_P(TensorSortTest, KthvalueWithAndWithoutKeepdim) {
  for (DType dtype : {DType::Float32, DType::Float64, DType::Int32, DType::Int16, DType::BFloat16, DType::Float16}) {
    if (!device->supports(dtype)) continue;
    const at::Tensor x = tied({4, 7, 3}, dtype, 40 + static_cast<uint64_t>(dtype));
    const bool half = dtype == DType::Float16;  // LibTorch's CPU kthvalue lacks float16
    for (const auto& [name, t] : layouts_of(x, device)) {
      for (int64_t dim : {0, 1, -1}) {
        for (int64_t k : {int64_t{1}, int64_t{2}, x.size(dim)}) {
          for (bool keepdim : {false, true}) {
            SCOPED_TRACE(std::string(dtype_name(dtype)) + " " + name + " dim " + std::to_string(dim) + " k " +
                         std::to_string(k) + (keepdim ? " keepdim" : ""));
            const auto [values, indices] = t.kthvalue(k, dim, keepdim);
            const at::Tensor expected = std::get<0>(at::kthvalue(half ? x.to(at::kFloat) : x, k, dim, keepdim));
            EXPECT_TENSOR_EQ(values, half ? expected.to(at::kHalf) : expected);
            at::Tensor stable = std::get<1>(at::sort(x, true, dim, false)).narrow(dim, k - 1, 1);
            EXPECT_TENSOR_EQ(indices, keepdim ? stable : stable.squeeze(dim));
            EXPECT_TRUE(values.is_contiguous());
          }
        }
      }
    }
  }
  const at::Tensor x = tied({6, 5}, DType::Float32, 49);
  const auto [v, i] = ember::kthvalue(from(x), 3);
  EXPECT_TENSOR_EQ(v, std::get<0>(at::kthvalue(x, 3)));
}

TEST_P(TensorSortTest, EmptyAndZeroDimTensors) {
  const at::Tensor empty = at::zeros({3, 0});
  const Tensor e = from(empty);
  for (int64_t dim : {0, 1}) {
    const auto [v, i] = e.sort(dim);
    EXPECT_TENSOR_EQ(v, std::get<0>(empty.sort(dim)));
    EXPECT_TENSOR_EQ(i, std::get<1>(empty.sort(dim)));
    EXPECT_TENSOR_EQ(e.argsort(dim), empty.argsort(dim));
  }
  EXPECT_TENSOR_EQ(std::get<0>(e.topk(0)), std::get<0>(empty.topk(0)));
  EXPECT_TENSOR_EQ(std::get<1>(e.topk(2, 0)), std::get<1>(empty.topk(2, 0)));
  EXPECT_TENSOR_EQ(std::get<0>(e.kthvalue(3, 0)), std::get<0>(empty.kthvalue(3, 0)));
  EXPECT_TENSOR_EQ(e.msort(), empty.msort());
  EXPECT_TENSOR_EQ(std::get<0>(from(at::zeros({0})).sort()), std::get<0>(at::zeros({0}).sort()));

  const at::Tensor scalar = at::scalar_tensor(2.5, at::kFloat);
  const Tensor s = from(scalar);
  for (int64_t dim : {0, -1}) {
    EXPECT_TENSOR_EQ(std::get<0>(s.sort(dim, true)), std::get<0>(scalar.sort(dim, true)));
    EXPECT_TENSOR_EQ(std::get<1>(s.sort(dim)), std::get<1>(scalar.sort(dim)));
    EXPECT_TENSOR_EQ(s.argsort(dim), scalar.argsort(dim));
    for (int64_t k : {0, 1}) {
      EXPECT_TENSOR_EQ(std::get<0>(s.topk(k, dim)), std::get<0>(scalar.topk(k, dim)));
      EXPECT_TENSOR_EQ(std::get<1>(s.topk(k, dim)), std::get<1>(scalar.topk(k, dim)));
    }
    for (bool keepdim : {false, true}) {
      EXPECT_TENSOR_EQ(std::get<0>(s.kthvalue(1, dim, keepdim)), std::get<0>(scalar.kthvalue(1, dim, keepdim)));
      EXPECT_TENSOR_EQ(std::get<1>(s.kthvalue(1, dim, keepdim)), std::get<1>(scalar.kthvalue(1, dim, keepdim)));
    }
  }
  EXPECT_TENSOR_EQ(s.msort(), scalar.msort());
}

TEST_P(TensorSortTest, BadDimsAndKAreRefusedWithPyTorchsMessages) {
  const at::Tensor x = tied({3, 4}, DType::Float32, 50);
  const Tensor t = from(x);
  expect_same_error<IndexError>([&] { t.sort(2); }, [&] { x.sort(2); });
  expect_same_error<IndexError>([&] { t.sort(std::optional<bool>(true), -3); }, [&] { x.sort(c10::optional<bool>(true), -3); });
  expect_same_error<IndexError>([&] { t.argsort(int64_t{5}); }, [&] { x.argsort(int64_t{5}); });
  expect_same_error<IndexError>([&] { t.topk(1, 2); }, [&] { x.topk(1, 2); });
  expect_same_error<IndexError>([&] { t.kthvalue(1, -3); }, [&] { x.kthvalue(1, -3); });
  for (int64_t k : {-1, 5}) {
    expect_same_error<Error>([&] { t.topk(k); }, [&] { x.topk(k); });
    expect_same_error<Error>([&] { t.kthvalue(k); }, [&] { x.kthvalue(k); });
  }
  expect_same_error<Error>([&] { t.topk(4, 0); }, [&] { x.topk(4, 0); });
  expect_same_error<Error>([&] { t.kthvalue(0, 0); }, [&] { x.kthvalue(0, 0); });
  expect_same_error<Error>([&] { t.kthvalue(4, 0); }, [&] { x.kthvalue(4, 0); });
  const at::Tensor scalar = at::scalar_tensor(1.0);
  const Tensor s = from(scalar);
  expect_same_error<IndexError>([&] { s.sort(1); }, [&] { scalar.sort(1); });
  expect_same_error<Error>([&] { s.topk(2); }, [&] { scalar.topk(2); });
  expect_same_error<Error>([&] { s.kthvalue(2); }, [&] { scalar.kthvalue(2); });
  // kthvalue of an empty dim; topk and kthvalue of bool (no kernel in PyTorch).
  const at::Tensor empty = at::zeros({3, 0});
  expect_same_error<IndexError>([&] { from(empty).kthvalue(1); }, [&] { empty.kthvalue(1); });
  expect_same_error<IndexError>([&] { from(at::zeros({0})).kthvalue(1); }, [&] { at::zeros({0}).kthvalue(1); });
  const at::Tensor flags = x.gt(0);
  expect_same_error<Error>([&] { from(flags).topk(1); }, [&] { flags.topk(1); });
  expect_same_error<Error>([&] { from(flags).kthvalue(1); }, [&] { flags.kthvalue(1); });
  expect_same_error<Error>([&] { from(flags).topk(9); }, [&] { flags.topk(9); });  // k is checked first
  // sort and argsort take bool.
  EXPECT_TENSOR_EQ(std::get<1>(from(flags).sort(std::optional<bool>(true), 1, true)),
                   std::get<1>(flags.sort(true, 1, true)));
}

std::string grad_fn_name(const Tensor& t) { return t.grad_fn() ? t.grad_fn()->name() : "none"; }
std::string grad_fn_name(const at::Tensor& t) { return t.grad_fn() ? t.grad_fn()->name() : "none"; }

TEST_P(TensorSortTest, NodeNamesAreLibTorchs) {
  const at::Tensor x = random_torch({3, 4}, DType::Float32, 60).requires_grad_(true);
  const Tensor t = from(x.detach()).requires_grad_(true);
  EXPECT_EQ(grad_fn_name(std::get<0>(t.sort())), grad_fn_name(std::get<0>(x.sort())));
  EXPECT_EQ(grad_fn_name(std::get<0>(t.sort(std::optional<bool>(true), 0))), grad_fn_name(std::get<0>(x.sort(c10::optional<bool>(true), 0))));
  EXPECT_EQ(grad_fn_name(t.msort()), grad_fn_name(x.msort()));
  EXPECT_EQ(grad_fn_name(std::get<0>(t.topk(2))), grad_fn_name(std::get<0>(x.topk(2))));
  EXPECT_EQ(grad_fn_name(std::get<0>(t.kthvalue(2))), grad_fn_name(std::get<0>(x.kthvalue(2))));
  EXPECT_EQ(grad_fn_name(std::get<0>(t.sort())), "SortBackward0");
  // Indices carry no gradient.
  EXPECT_FALSE(std::get<1>(t.sort()).requires_grad());
  EXPECT_FALSE(std::get<1>(t.topk(2)).requires_grad());
  EXPECT_FALSE(t.argsort().requires_grad());
}

class TensorSortGradTest : public GradTest {
 protected:
  // Distinct values (no ties), so that LibTorch's topk and kthvalue pick the same elements.
  static at::Tensor rand(std::vector<int64_t> sizes, uint64_t seed, DType dtype = DType::Float32) {
    return random_torch(std::move(sizes), dtype, seed, -2, 2);
  }
};

TEST_P(TensorSortGradTest, SortTopkKthvalueAndMsort) {
  const at::Tensor x = rand({4, 6}, 1);
  check({x}, "sort dim -1", [](const Ins& v) { return std::get<0>(v[0].sort()); },
        [](const TIns& v) { return std::get<0>(v[0].sort()); });
  check({x}, "sort dim 0 descending, stable", [](const Ins& v) { return std::get<0>(v[0].sort(std::optional<bool>(true), 0, true)); },
        [](const TIns& v) { return std::get<0>(v[0].sort(true, 0, true)); });
  check({x}, "sorted values times their indices", [](const Ins& v) {
          auto [values, indices] = v[0].sort(1, true);
          return values * indices.to(kFloat32);
        },
        [](const TIns& v) {
          auto [values, indices] = v[0].sort(1, true);
          return values * indices.to(at::kFloat);
        });
  check({x}, "msort", [](const Ins& v) { return v[0].msort(); }, [](const TIns& v) { return v[0].msort(); });
  for (int64_t dim : {0, 1}) {
    for (bool largest : {true, false}) {
      check({x}, "topk 3 dim " + std::to_string(dim), [=](const Ins& v) { return std::get<0>(v[0].topk(3, dim, largest)); },
            [=](const TIns& v) { return std::get<0>(v[0].topk(3, dim, largest)); });
    }
    for (bool keepdim : {false, true}) {
      check({x}, "kthvalue 2 dim " + std::to_string(dim), [=](const Ins& v) { return std::get<0>(v[0].kthvalue(2, dim, keepdim)); },
            [=](const TIns& v) { return std::get<0>(v[0].kthvalue(2, dim, keepdim)); });
    }
  }
  check({rand({3, 5}, 2, DType::Float64)}, "float64 topk", [](const Ins& v) { return std::get<0>(v[0].topk(2)); },
        [](const TIns& v) { return std::get<0>(v[0].topk(2)); });
  check({rand({}, 3)}, "0-dim sort", [](const Ins& v) { return std::get<0>(v[0].sort()); },
        [](const TIns& v) { return std::get<0>(v[0].sort()); });
  check({rand({}, 4)}, "0-dim kthvalue", [](const Ins& v) { return std::get<0>(v[0].kthvalue(1)); },
        [](const TIns& v) { return std::get<0>(v[0].kthvalue(1)); });
  check({rand({2, 5000}, 5)}, "long slices", [](const Ins& v) { return std::get<0>(v[0].topk(10)); },
        [](const TIns& v) { return std::get<0>(v[0].topk(10)); }, {}, false);
}

TEST_P(TensorSortGradTest, SecondOrder) {
  const at::Tensor x = rand({3, 5}, 10, DType::Float64);
  check_second_order({x}, "sort", [](const Ins& v) { return std::get<0>(v[0].sort(0)).pow(2); },
                     [](const TIns& v) { return std::get<0>(v[0].sort(0)).pow(2); });
  check_second_order({x}, "topk", [](const Ins& v) { return std::get<0>(v[0].topk(2)).pow(3); },
                     [](const TIns& v) { return std::get<0>(v[0].topk(2)).pow(3); });
  check_second_order({x}, "kthvalue", [](const Ins& v) { return std::get<0>(v[0].kthvalue(3)).exp(); },
                     [](const TIns& v) { return std::get<0>(v[0].kthvalue(3)).exp(); });
}

INSTANTIATE_TEST_SUITE_P(Backends, TensorSortTest, testing::Values("vulkan", "cuda"), backend_test_name);
INSTANTIATE_TEST_SUITE_P(Backends, TensorSortGradTest, testing::Values("vulkan", "cuda"), backend_test_name);

}  // namespace
}  // namespace ember::test
