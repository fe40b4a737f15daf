// Calls written as LibTorch code writes them give LibTorch's results: the function variants
// (tensor/function_variants.h) against at:: functions of the same names with the same arguments, defaults
// left out where LibTorch has them; to()'s non_blocking before copy; hooks that return nothing.
#include <functional>

#include "ember.h"
#include "tests/oracle.h"

namespace ember::test {
namespace {

class LibTorchSignaturesTest : public BackendTest {
 protected:
  Tensor from(const at::Tensor& t) { return from_torch(t, device); }
};

struct Case {
  const char* name;
  std::function<Tensor(const Tensor&)> ember;
  std::function<at::Tensor(const at::Tensor&)> torch;
};

// Ops of one float32 tensor of sizes [2, 3, 4] with values in [-2, 2).
std::vector<Case> unary_cases() {
  return {
      {"clone", [](const Tensor& x) { return clone(x); }, [](const at::Tensor& x) { return at::clone(x); }},
      {"detach", [](const Tensor& x) { return detach(x); }, [](const at::Tensor& x) { return at::detach(x); }},
      {"reshape", [](const Tensor& x) { return reshape(x, {4, -1}); },
       [](const at::Tensor& x) { return at::reshape(x, {4, -1}); }},
      {"permute", [](const Tensor& x) { return permute(x, {2, 0, 1}); },
       [](const at::Tensor& x) { return at::permute(x, {2, 0, 1}); }},
      {"transpose", [](const Tensor& x) { return transpose(x, 0, 2); },
       [](const at::Tensor& x) { return at::transpose(x, 0, 2); }},
      {"swapaxes", [](const Tensor& x) { return swapaxes(x, -1, 0); },
       [](const at::Tensor& x) { return at::swapaxes(x, -1, 0); }},
      {"t", [](const Tensor& x) { return t(x[0]); }, [](const at::Tensor& x) { return at::t(x[0]); }},
      {"squeeze", [](const Tensor& x) { return squeeze(x.narrow(1, 0, 1)); },
       [](const at::Tensor& x) { return at::squeeze(x.narrow(1, 0, 1)); }},
      {"squeeze dim", [](const Tensor& x) { return squeeze(x.narrow(1, 0, 1), 1); },
       [](const at::Tensor& x) { return at::squeeze(x.narrow(1, 0, 1), 1); }},
      {"unsqueeze", [](const Tensor& x) { return unsqueeze(x, -2); },
       [](const at::Tensor& x) { return at::unsqueeze(x, -2); }},
      {"flatten", [](const Tensor& x) { return flatten(x); }, [](const at::Tensor& x) { return at::flatten(x); }},
      {"flatten from 1", [](const Tensor& x) { return flatten(x, 1); },
       [](const at::Tensor& x) { return at::flatten(x, 1); }},
      {"unflatten", [](const Tensor& x) { return unflatten(x, 2, {2, 2}); },
       [](const at::Tensor& x) { return at::unflatten(x, 2, {2, 2}); }},
      {"narrow", [](const Tensor& x) { return narrow(x, 2, 1, 2); },
       [](const at::Tensor& x) { return at::narrow(x, 2, 1, 2); }},
      {"select", [](const Tensor& x) { return select(x, 1, -1); },
       [](const at::Tensor& x) { return at::select(x, 1, -1); }},
      {"movedim", [](const Tensor& x) { return movedim(x, 0, -1); },
       [](const at::Tensor& x) { return at::movedim(x, 0, -1); }},
      {"movedim lists", [](const Tensor& x) { return movedim(x, {0, 1}, {2, 0}); },
       [](const at::Tensor& x) { return at::movedim(x, {0, 1}, {2, 0}); }},
      {"moveaxis", [](const Tensor& x) { return moveaxis(x, 2, 0); },
       [](const at::Tensor& x) { return at::moveaxis(x, 2, 0); }},
      {"as_strided", [](const Tensor& x) { return as_strided(x, {3, 2}, {1, 3}, 2); },
       [](const at::Tensor& x) { return at::as_strided(x, {3, 2}, {1, 3}, 2); }},
      {"diagonal", [](const Tensor& x) { return diagonal(x); }, [](const at::Tensor& x) { return at::diagonal(x); }},
      {"diagonal offset dims", [](const Tensor& x) { return diagonal(x, 1, 1, 2); },
       [](const at::Tensor& x) { return at::diagonal(x, 1, 1, 2); }},
      {"tril", [](const Tensor& x) { return tril(x); }, [](const at::Tensor& x) { return at::tril(x); }},
      {"triu -1", [](const Tensor& x) { return triu(x, -1); }, [](const at::Tensor& x) { return at::triu(x, -1); }},
      {"add scalar alpha", [](const Tensor& x) { return add(x, 2.5, 2); },
       [](const at::Tensor& x) { return at::add(x, 2.5, 2); }},
      {"sub scalar", [](const Tensor& x) { return sub(x, 1.5); }, [](const at::Tensor& x) { return at::sub(x, 1.5); }},
      {"mul scalar", [](const Tensor& x) { return mul(x, 3); }, [](const at::Tensor& x) { return at::mul(x, 3); }},
      {"div scalar", [](const Tensor& x) { return div(x, 4); }, [](const at::Tensor& x) { return at::div(x, 4); }},
      {"div floor", [](const Tensor& x) { return div(x, x.flip({2}), "floor"); },
       [](const at::Tensor& x) { return at::div(x, x.flip({2}), "floor"); }},
      {"floor_divide", [](const Tensor& x) { return floor_divide(x, 0.75); },
       [](const at::Tensor& x) { return at::floor_divide(x, 0.75); }},
      {"remainder", [](const Tensor& x) { return remainder(x, x.flip({1})); },
       [](const at::Tensor& x) { return at::remainder(x, x.flip({1})); }},
      {"fmod scalar", [](const Tensor& x) { return fmod(x, 0.75); },
       [](const at::Tensor& x) { return at::fmod(x, 0.75); }},
      {"atan2", [](const Tensor& x) { return atan2(x, x.flip({0})); },
       [](const at::Tensor& x) { return at::atan2(x, x.flip({0})); }},
      {"max of two", [](const Tensor& x) { return max(x, x.flip({2})); },
       [](const at::Tensor& x) { return at::max(x, x.flip({2})); }},
      {"min of two", [](const Tensor& x) { return min(x, x.flip({2})); },
       [](const at::Tensor& x) { return at::min(x, x.flip({2})); }},
      {"eq", [](const Tensor& x) { return eq(x, x.flip({0})); },
       [](const at::Tensor& x) { return at::eq(x, x.flip({0})); }},
      {"ne scalar", [](const Tensor& x) { return ne(x.round(), 1); },
       [](const at::Tensor& x) { return at::ne(x.round(), 1); }},
      {"lt", [](const Tensor& x) { return lt(x, x.flip({1})); },
       [](const at::Tensor& x) { return at::lt(x, x.flip({1})); }},
      {"le scalar", [](const Tensor& x) { return le(x, 0.5); }, [](const at::Tensor& x) { return at::le(x, 0.5); }},
      {"gt scalar", [](const Tensor& x) { return gt(x, -0.5); }, [](const at::Tensor& x) { return at::gt(x, -0.5); }},
      {"ge", [](const Tensor& x) { return ge(x, x.flip({2})); },
       [](const at::Tensor& x) { return at::ge(x, x.flip({2})); }},
      {"logical_and", [](const Tensor& x) { return logical_and(x.gt(0), x.flip({2}).gt(0)); },
       [](const at::Tensor& x) { return at::logical_and(x.gt(0), x.flip({2}).gt(0)); }},
      {"logical_or", [](const Tensor& x) { return logical_or(x.gt(1), x.lt(-1)); },
       [](const at::Tensor& x) { return at::logical_or(x.gt(1), x.lt(-1)); }},
      {"logical_xor", [](const Tensor& x) { return logical_xor(x.gt(0), x.flip({1}).gt(0)); },
       [](const at::Tensor& x) { return at::logical_xor(x.gt(0), x.flip({1}).gt(0)); }},
      {"logical_not", [](const Tensor& x) { return logical_not(x.gt(0)); },
       [](const at::Tensor& x) { return at::logical_not(x.gt(0)); }},
      {"bitwise ops", [](const Tensor& x) {
         const Tensor a = x.mul(20).to(kInt32), b = x.flip({2}).mul(20).to(kInt32);
         return bitwise_not(bitwise_xor(bitwise_or(bitwise_and(a, b), b), a));
       },
       [](const at::Tensor& x) {
         const at::Tensor a = x.mul(20).to(at::kInt), b = x.flip({2}).mul(20).to(at::kInt);
         return at::bitwise_not(at::bitwise_xor(at::bitwise_or(at::bitwise_and(a, b), b), a));
       }},
      {"sign", [](const Tensor& x) { return sign(x); }, [](const at::Tensor& x) { return at::sign(x); }},
      {"reciprocal", [](const Tensor& x) { return reciprocal(x); },
       [](const at::Tensor& x) { return at::reciprocal(x); }},
      {"square", [](const Tensor& x) { return square(x); }, [](const at::Tensor& x) { return at::square(x); }},
      {"exp2", [](const Tensor& x) { return exp2(x); }, [](const at::Tensor& x) { return at::exp2(x); }},
      {"log2", [](const Tensor& x) { return log2(x.abs()); }, [](const at::Tensor& x) { return at::log2(x.abs()); }},
      {"log10", [](const Tensor& x) { return log10(x.abs()); },
       [](const at::Tensor& x) { return at::log10(x.abs()); }},
      {"log1p", [](const Tensor& x) { return log1p(x.abs()); },
       [](const at::Tensor& x) { return at::log1p(x.abs()); }},
      {"expm1", [](const Tensor& x) { return expm1(x); }, [](const at::Tensor& x) { return at::expm1(x); }},
      {"rsqrt", [](const Tensor& x) { return rsqrt(x.abs()); }, [](const at::Tensor& x) { return at::rsqrt(x.abs()); }},
      {"tan", [](const Tensor& x) { return tan(x); }, [](const at::Tensor& x) { return at::tan(x); }},
      {"asin", [](const Tensor& x) { return asin(x.div(2)); }, [](const at::Tensor& x) { return at::asin(x.div(2)); }},
      {"acos", [](const Tensor& x) { return acos(x.div(2)); }, [](const at::Tensor& x) { return at::acos(x.div(2)); }},
      {"atan", [](const Tensor& x) { return atan(x); }, [](const at::Tensor& x) { return at::atan(x); }},
      {"sinh", [](const Tensor& x) { return sinh(x); }, [](const at::Tensor& x) { return at::sinh(x); }},
      {"cosh", [](const Tensor& x) { return cosh(x); }, [](const at::Tensor& x) { return at::cosh(x); }},
      {"erf", [](const Tensor& x) { return erf(x); }, [](const at::Tensor& x) { return at::erf(x); }},
      {"erfc", [](const Tensor& x) { return erfc(x); }, [](const at::Tensor& x) { return at::erfc(x); }},
      {"floor", [](const Tensor& x) { return floor(x); }, [](const at::Tensor& x) { return at::floor(x); }},
      {"ceil", [](const Tensor& x) { return ceil(x); }, [](const at::Tensor& x) { return at::ceil(x); }},
      {"round", [](const Tensor& x) { return round(x); }, [](const at::Tensor& x) { return at::round(x); }},
      {"trunc", [](const Tensor& x) { return trunc(x); }, [](const at::Tensor& x) { return at::trunc(x); }},
      {"frac", [](const Tensor& x) { return frac(x); }, [](const at::Tensor& x) { return at::frac(x); }},
      {"isfinite", [](const Tensor& x) { return isfinite(x.log()); },
       [](const at::Tensor& x) { return at::isfinite(x.log()); }},
      {"isposinf", [](const Tensor& x) { return isposinf(x.reciprocal().mul(1e38).mul(1e10)); },
       [](const at::Tensor& x) { return at::isposinf(x.reciprocal().mul(1e38).mul(1e10)); }},
      {"isneginf", [](const Tensor& x) { return isneginf(x.mul(1e38).mul(1e10)); },
       [](const at::Tensor& x) { return at::isneginf(x.mul(1e38).mul(1e10)); }},
      {"silu", [](const Tensor& x) { return silu(x); }, [](const at::Tensor& x) { return at::silu(x); }},
      {"gelu", [](const Tensor& x) { return gelu(x); }, [](const at::Tensor& x) { return at::gelu(x); }},
      {"gelu tanh", [](const Tensor& x) { return gelu(x, "tanh"); },
       [](const at::Tensor& x) { return at::gelu(x, "tanh"); }},
      {"nan_to_num", [](const Tensor& x) { return nan_to_num(x.log()); },
       [](const at::Tensor& x) { return at::nan_to_num(x.log()); }},
      {"nan_to_num given", [](const Tensor& x) { return nan_to_num(x.log(), 7.0, 8.0, -9.0); },
       [](const at::Tensor& x) { return at::nan_to_num(x.log(), 7.0, 8.0, -9.0); }},
      {"sum", [](const Tensor& x) { return sum(x); }, [](const at::Tensor& x) { return at::sum(x); }},
      {"sum dtype", [](const Tensor& x) { return sum(x, kFloat64); },
       [](const at::Tensor& x) { return at::sum(x, at::kDouble); }},
      {"sum dim", [](const Tensor& x) { return sum(x, 1); }, [](const at::Tensor& x) { return at::sum(x, 1); }},
      {"sum dims keepdim", [](const Tensor& x) { return sum(x, {0, 2}, true); },
       [](const at::Tensor& x) { return at::sum(x, at::IntArrayRef{0, 2}, true); }},
      {"nansum", [](const Tensor& x) { return nansum(x.log()); },
       [](const at::Tensor& x) { return at::nansum(x.log()); }},
      {"mean", [](const Tensor& x) { return mean(x); }, [](const at::Tensor& x) { return at::mean(x); }},
      {"mean dims", [](const Tensor& x) { return mean(x, {-1}, true); },
       [](const at::Tensor& x) { return at::mean(x, at::IntArrayRef{-1}, true); }},
      {"nanmean dim", [](const Tensor& x) { return nanmean(x.log(), 2); },
       [](const at::Tensor& x) { return at::nanmean(x.log(), 2); }},
      {"prod", [](const Tensor& x) { return prod(x); }, [](const at::Tensor& x) { return at::prod(x); }},
      {"prod dim", [](const Tensor& x) { return prod(x, 1, true); },
       [](const at::Tensor& x) { return at::prod(x, 1, true); }},
      {"max", [](const Tensor& x) { return max(x); }, [](const at::Tensor& x) { return at::max(x); }},
      {"max dim", [](const Tensor& x) { return std::get<0>(max(x, 1)); },
       [](const at::Tensor& x) { return std::get<0>(at::max(x, 1)); }},
      {"max dim indices", [](const Tensor& x) { return std::get<1>(max(x, 2, true)); },
       [](const at::Tensor& x) { return std::get<1>(at::max(x, 2, true)); }},
      {"min", [](const Tensor& x) { return min(x); }, [](const at::Tensor& x) { return at::min(x); }},
      {"min dim indices", [](const Tensor& x) { return std::get<1>(min(x, 0)); },
       [](const at::Tensor& x) { return std::get<1>(at::min(x, 0)); }},
      {"amax", [](const Tensor& x) { return amax(x, 1); }, [](const at::Tensor& x) { return at::amax(x, 1); }},
      {"amin", [](const Tensor& x) { return amin(x, {0, 2}, true); },
       [](const at::Tensor& x) { return at::amin(x, at::IntArrayRef{0, 2}, true); }},
      {"argmax", [](const Tensor& x) { return argmax(x); }, [](const at::Tensor& x) { return at::argmax(x); }},
      {"argmax dim", [](const Tensor& x) { return argmax(x, 2, true); },
       [](const at::Tensor& x) { return at::argmax(x, 2, true); }},
      {"argmin dim", [](const Tensor& x) { return argmin(x, 1); },
       [](const at::Tensor& x) { return at::argmin(x, 1); }},
      {"var", [](const Tensor& x) { return var(x); }, [](const at::Tensor& x) { return at::var(x); }},
      {"var biased", [](const Tensor& x) { return var(x, false); },
       [](const at::Tensor& x) { return at::var(x, false); }},
      {"var int dim", [](const Tensor& x) { return var(x, 1); }, [](const at::Tensor& x) { return at::var(x, 1); }},
      {"var dims unbiased keepdim", [](const Tensor& x) { return var(x, {0, 2}, false, true); },
       [](const at::Tensor& x) { return at::var(x, at::IntArrayRef{0, 2}, false, true); }},
      {"std", [](const Tensor& x) { return std(x); }, [](const at::Tensor& x) { return at::std(x); }},
      {"std biased", [](const Tensor& x) { return std(x, false); },
       [](const at::Tensor& x) { return at::std(x, false); }},
      {"std int dim", [](const Tensor& x) { return std(x, 0); }, [](const at::Tensor& x) { return at::std(x, 0); }},
      {"var method biased", [](const Tensor& x) { return x.var(false); },
       [](const at::Tensor& x) { return x.var(false); }},
      {"std method int dim", [](const Tensor& x) { return x.std(2); }, [](const at::Tensor& x) { return x.std(2); }},
      {"norm", [](const Tensor& x) { return norm(x); }, [](const at::Tensor& x) { return at::norm(x); }},
      {"norm p dim", [](const Tensor& x) { return norm(x, 1, 2, true); },
       [](const at::Tensor& x) { return at::norm(x, 1, 2, true); }},
      {"logsumexp", [](const Tensor& x) { return logsumexp(x, {1, 2}); },
       [](const at::Tensor& x) { return at::logsumexp(x, at::IntArrayRef{1, 2}); }},
      {"all", [](const Tensor& x) { return all(x.gt(-1.5)); }, [](const at::Tensor& x) { return at::all(x.gt(-1.5)); }},
      {"all dim", [](const Tensor& x) { return all(x.gt(-1), 1, true); },
       [](const at::Tensor& x) { return at::all(x.gt(-1), 1, true); }},
      {"any", [](const Tensor& x) { return any(x.gt(1.9)); }, [](const at::Tensor& x) { return at::any(x.gt(1.9)); }},
      {"any dim", [](const Tensor& x) { return any(x.gt(1), 2); },
       [](const at::Tensor& x) { return at::any(x.gt(1), 2); }},
      {"count_nonzero", [](const Tensor& x) { return count_nonzero(x.round()); },
       [](const at::Tensor& x) { return at::count_nonzero(x.round()); }},
      {"count_nonzero dims", [](const Tensor& x) { return count_nonzero(x.round(), {0, 1}); },
       [](const at::Tensor& x) { return at::count_nonzero(x.round(), at::IntArrayRef{0, 1}); }},
      {"cumsum", [](const Tensor& x) { return cumsum(x, 1); }, [](const at::Tensor& x) { return at::cumsum(x, 1); }},
      {"cumprod dtype", [](const Tensor& x) { return cumprod(x, -1, kFloat64); },
       [](const at::Tensor& x) { return at::cumprod(x, -1, at::kDouble); }},
      {"cummax", [](const Tensor& x) { return std::get<1>(cummax(x, 2)); },
       [](const at::Tensor& x) { return std::get<1>(at::cummax(x, 2)); }},
      {"cummin", [](const Tensor& x) { return std::get<0>(cummin(x, 0)); },
       [](const at::Tensor& x) { return std::get<0>(at::cummin(x, 0)); }},
      {"logcumsumexp", [](const Tensor& x) { return logcumsumexp(x, 1); },
       [](const at::Tensor& x) { return at::logcumsumexp(x, 1); }},
      {"softmax", [](const Tensor& x) { return softmax(x, 1); }, [](const at::Tensor& x) { return at::softmax(x, 1); }},
      {"log_softmax dtype", [](const Tensor& x) { return log_softmax(x, -1, kFloat64); },
       [](const at::Tensor& x) { return at::log_softmax(x, -1, at::kDouble); }},
      {"mv", [](const Tensor& x) { return mv(x[0], x[1][0]); },
       [](const at::Tensor& x) { return at::mv(x[0], x[1][0]); }},
      {"dot", [](const Tensor& x) { return dot(x[0][0], x[1][2]); },
       [](const at::Tensor& x) { return at::dot(x[0][0], x[1][2]); }},
  };
}

TEST_P(LibTorchSignaturesTest, EachMatchesLibTorchsFunction) {
  const at::Tensor t = random_torch({2, 3, 4}, DType::Float32, 11, -2, 2);
  const Tensor x = from(t);
  for (const Case& c : unary_cases()) {
    SCOPED_TRACE(c.name);
    expect_tensor_eq(c.ember(x), c.torch(t));
  }
}

TEST_P(LibTorchSignaturesTest, ListsAndIndicesMatchLibTorchsFunctions) {
  const at::Tensor t = random_torch({4, 6}, DType::Float32, 12, -2, 2);
  const Tensor x = from(t);
  EXPECT_EQ(numel(x), at::numel(t));
  auto expect_parts = [](const std::vector<Tensor>& actual, const std::vector<at::Tensor>& expected) {
    ASSERT_EQ(actual.size(), expected.size());
    for (size_t i = 0; i < actual.size(); ++i) expect_tensor_eq(actual[i], expected[i]);
  };
  expect_parts(split(x, 4, 1), at::split(t, 4, 1));
  expect_parts(split(x, {1, 3}), at::split(t, {1, 3}));
  expect_parts(split_with_sizes(x, {2, 4}, 1), at::split_with_sizes(t, {2, 4}, 1));
  expect_parts(chunk(x, 3, -1), at::chunk(t, 3, -1));
  expect_parts(unbind(x), at::unbind(t));
  expect_parts(unbind(x, 1), at::unbind(t, 1));

  const at::Tensor index = at::tensor(std::vector<int64_t>{3, 0, 3});
  const at::Tensor gather_index = random_torch({2, 6}, DType::Int64, 14, 0, 4);
  const at::Tensor mask = t.gt(0);
  EXPECT_TENSOR_EQ(index_select(x, 0, from(index)), at::index_select(t, 0, index));
  EXPECT_TENSOR_EQ(gather(x, 0, from(gather_index)), at::gather(t, 0, gather_index));
  const at::Tensor scatter_index = at::tensor(std::vector<int64_t>{1, 0, 3, 2, 1, 0}).reshape({1, 6});
  const at::Tensor src = random_torch({1, 6}, DType::Float32, 13, -2, 2);
  EXPECT_TENSOR_EQ(scatter(x, 0, from(scatter_index), from(src)), at::scatter(t, 0, scatter_index, src));
  EXPECT_TENSOR_EQ(scatter(x, 0, from(scatter_index), 5.0), at::scatter(t, 0, scatter_index, 5.0));
  EXPECT_TENSOR_EQ(scatter_add(x, 0, from(scatter_index), from(src)), at::scatter_add(t, 0, scatter_index, src));
  EXPECT_TENSOR_EQ(masked_fill(x, from(mask), -3.0), at::masked_fill(t, mask, -3.0));
  const at::Tensor fill = at::scalar_tensor(4.5);
  EXPECT_TENSOR_EQ(masked_fill(x, from(mask), from(fill)), at::masked_fill(t, mask, fill));
  EXPECT_TENSOR_EQ(masked_select(x, from(mask)), at::masked_select(t, mask));
  EXPECT_TENSOR_EQ(nonzero(from(mask)), at::nonzero(mask));
  EXPECT_TENSOR_EQ(argwhere(from(mask)), at::argwhere(mask));
  const at::Tensor flat_index = at::tensor(std::vector<int64_t>{23, 0, 7});
  EXPECT_TENSOR_EQ(take(x, from(flat_index)), at::take(t, flat_index));
  const at::Tensor squeezable = t.reshape({4, 1, 6, 1});
  EXPECT_TENSOR_EQ(squeeze(from(squeezable), {1, 3}), squeezable.squeeze(1).squeeze(2));
}

TEST_P(LibTorchSignaturesTest, ToTakesNonBlockingBeforeCopy) {
  const at::Tensor t = random_torch({3, 2}, DType::Float32, 15, -2, 2);
  const Tensor x = from(t);
  // A second bool alone is non_blocking: nothing to change, so the same tensor comes back.
  EXPECT_EQ(t.to(at::kFloat, true).is_same(t), x.to(kFloat32, true).is_same(x));
  EXPECT_EQ(t.to(at::kFloat, false, true).is_same(t), x.to(kFloat32, false, true).is_same(x));
  EXPECT_EQ(t.to(t.options(), true).is_same(t), x.to(x.options(), true).is_same(x));
  EXPECT_EQ(t.to(t.options(), false, true).is_same(t), x.to(x.options(), false, true).is_same(x));
  EXPECT_EQ(t.to(t.device(), at::kFloat, true).is_same(t), x.to(x.device(), kFloat32, true).is_same(x));
  EXPECT_EQ(t.to(t.device(), at::kFloat, false, true).is_same(t), x.to(x.device(), kFloat32, false, true).is_same(x));
  const at::Tensor copied = t.to(at::kFloat, false, true);
  EXPECT_TENSOR_EQ(x.to(kFloat32, false, true), copied);
  // to(other) takes other's dtype (and device).
  const at::Tensor other = at::zeros({1}, at::kDouble);
  EXPECT_TENSOR_EQ(x.to(from(other)), t.to(other));
  EXPECT_EQ(x.to(from(other)).device(), x.device());
  // options() carries the dtype and device, not requires_grad, as LibTorch's does.
  const Tensor like = zeros({2}, x.to(kFloat64).requires_grad_(true).options());
  EXPECT_EQ(like.dtype(), kFloat64);
  EXPECT_EQ(like.device(), x.device());
  EXPECT_FALSE(like.requires_grad());
}

TEST_P(LibTorchSignaturesTest, HooksThatReturnNothingSeeTheGradientAndKeepIt) {
  const at::Tensor t = random_torch({4}, DType::Float32, 16, -2, 2).requires_grad_(true);
  const Tensor x = from(t.detach()).requires_grad_(true);
  at::Tensor torch_seen;
  Tensor seen;
  t.register_hook([&](const at::Tensor& grad) { torch_seen = grad.clone(); });
  x.register_hook([&](const Tensor& grad) { seen = grad.clone(); });
  (t * t).sum().backward();
  (x * x).sum().backward();
  ASSERT_TRUE(seen.defined());
  EXPECT_TENSOR_EQ(seen, torch_seen);
  EXPECT_TENSOR_EQ(x.grad(), t.grad());
}

INSTANTIATE_TEST_SUITE_P(Backends, LibTorchSignaturesTest, testing::Values("vulkan", "cuda"), backend_test_name);

}  // namespace
}  // namespace ember::test
