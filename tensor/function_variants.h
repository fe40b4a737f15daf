#pragma once
// The function variants of Tensor's methods: torch::sum(x, 1) beside x.sum(1), as LibTorch declares most
// ops both ways. Code ported from LibTorch or from Python's torch.* calls these as often as the methods,
// so each forwards to the method of the same name with LibTorch's argument order and defaults. Ops whose
// functions do more than forward (add with an alpha, where, clamp, sort, ...) are in tensor/functions.h.
#include <optional>
#include <string_view>
#include <tuple>
#include <vector>

#include "tensor/functions.h"
#include "tensor/tensor.h"

namespace ember {

// ---- the tensor itself ----
inline int64_t numel(const Tensor& x) { return x.numel(); }
inline Tensor clone(const Tensor& x) { return x.clone(); }
inline Tensor detach(const Tensor& x) { return x.detach(); }

// ---- shapes and views ----
inline Tensor reshape(const Tensor& x, IntArrayRef shape) { return x.reshape(shape); }
inline Tensor permute(const Tensor& x, IntArrayRef dims) { return x.permute(dims); }
inline Tensor transpose(const Tensor& x, int64_t dim0, int64_t dim1) { return x.transpose(dim0, dim1); }
inline Tensor swapaxes(const Tensor& x, int64_t dim0, int64_t dim1) { return x.swapaxes(dim0, dim1); }
inline Tensor t(const Tensor& x) { return x.t(); }
inline Tensor squeeze(const Tensor& x) { return x.squeeze(); }
inline Tensor squeeze(const Tensor& x, int64_t dim) { return x.squeeze(dim); }
inline Tensor squeeze(const Tensor& x, IntArrayRef dims) { return x.squeeze(dims); }
inline Tensor unsqueeze(const Tensor& x, int64_t dim) { return x.unsqueeze(dim); }
inline Tensor flatten(const Tensor& x, int64_t start_dim = 0, int64_t end_dim = -1) {
  return x.flatten(start_dim, end_dim);
}
inline Tensor unflatten(const Tensor& x, int64_t dim, IntArrayRef sizes) { return x.unflatten(dim, sizes); }
inline Tensor narrow(const Tensor& x, int64_t dim, int64_t start, int64_t length) {
  return x.narrow(dim, start, length);
}
inline Tensor select(const Tensor& x, int64_t dim, int64_t index) { return x.select(dim, index); }
inline Tensor movedim(const Tensor& x, IntArrayRef source, IntArrayRef destination) {
  return x.movedim(source, destination);
}
inline Tensor movedim(const Tensor& x, int64_t source, int64_t destination) { return x.movedim(source, destination); }
inline Tensor moveaxis(const Tensor& x, int64_t source, int64_t destination) { return x.movedim(source, destination); }
inline Tensor as_strided(const Tensor& x, IntArrayRef sizes, IntArrayRef strides,
                         std::optional<int64_t> storage_offset = std::nullopt) {
  return x.as_strided(sizes, strides, storage_offset);
}
inline Tensor diagonal(const Tensor& x, int64_t offset = 0, int64_t dim1 = 0, int64_t dim2 = 1) {
  return x.diagonal(offset, dim1, dim2);
}
inline std::vector<Tensor> split(const Tensor& x, int64_t split_size, int64_t dim = 0) {
  return x.split(split_size, dim);
}
inline std::vector<Tensor> split(const Tensor& x, IntArrayRef split_sizes, int64_t dim = 0) {
  return x.split(split_sizes, dim);
}
inline std::vector<Tensor> split_with_sizes(const Tensor& x, IntArrayRef split_sizes, int64_t dim = 0) {
  return x.split_with_sizes(split_sizes, dim);
}
inline std::vector<Tensor> chunk(const Tensor& x, int64_t chunks, int64_t dim = 0) { return x.chunk(chunks, dim); }
inline std::vector<Tensor> unbind(const Tensor& x, int64_t dim = 0) { return x.unbind(dim); }
inline Tensor tril(const Tensor& x, int64_t diagonal = 0) { return x.tril(diagonal); }
inline Tensor triu(const Tensor& x, int64_t diagonal = 0) { return x.triu(diagonal); }

// ---- indexing ----
inline Tensor index_select(const Tensor& x, int64_t dim, const Tensor& index) { return x.index_select(dim, index); }
inline Tensor gather(const Tensor& x, int64_t dim, const Tensor& index) { return x.gather(dim, index); }
inline Tensor scatter(const Tensor& x, int64_t dim, const Tensor& index, const Tensor& src) {
  return x.scatter(dim, index, src);
}
inline Tensor scatter(const Tensor& x, int64_t dim, const Tensor& index, Scalar value) {
  return x.scatter(dim, index, value);
}
inline Tensor scatter_add(const Tensor& x, int64_t dim, const Tensor& index, const Tensor& src) {
  return x.scatter_add(dim, index, src);
}
inline Tensor masked_fill(const Tensor& x, const Tensor& mask, Scalar value) { return x.masked_fill(mask, value); }
inline Tensor masked_fill(const Tensor& x, const Tensor& mask, const Tensor& value) {
  return x.masked_fill(mask, value);
}
inline Tensor masked_select(const Tensor& x, const Tensor& mask) { return x.masked_select(mask); }
inline Tensor nonzero(const Tensor& x) { return x.nonzero(); }
inline Tensor argwhere(const Tensor& x) { return x.argwhere(); }
inline Tensor take(const Tensor& x, const Tensor& index) { return x.take(index); }

// ---- arithmetic with a scalar, and the other binary ops ----
inline Tensor add(const Tensor& a, Scalar b, Scalar alpha = 1) { return a.add(b, alpha); }
inline Tensor sub(const Tensor& a, Scalar b, Scalar alpha = 1) { return a.sub(b, alpha); }
inline Tensor mul(const Tensor& a, Scalar b) { return a.mul(b); }
inline Tensor div(const Tensor& a, Scalar b) { return a.div(b); }
inline Tensor div(const Tensor& a, const Tensor& b, std::string_view rounding_mode) {
  return a.div(b, rounding_mode);
}
inline Tensor floor_divide(const Tensor& a, const Tensor& b) { return a.floor_divide(b); }
inline Tensor floor_divide(const Tensor& a, Scalar b) { return a.floor_divide(b); }
inline Tensor remainder(const Tensor& a, const Tensor& b) { return a.remainder(b); }
inline Tensor remainder(const Tensor& a, Scalar b) { return a.remainder(b); }
inline Tensor fmod(const Tensor& a, const Tensor& b) { return a.fmod(b); }
inline Tensor fmod(const Tensor& a, Scalar b) { return a.fmod(b); }
inline Tensor atan2(const Tensor& a, const Tensor& b) { return a.atan2(b); }
// torch::max(a, b) and torch::min(a, b) are maximum and minimum.
inline Tensor max(const Tensor& a, const Tensor& b) { return a.maximum(b); }
inline Tensor min(const Tensor& a, const Tensor& b) { return a.minimum(b); }

// ---- comparisons and logic ----
#define EMBER_COMPARISON_FUNCTION(NAME)                                          \
  inline Tensor NAME(const Tensor& a, const Tensor& b) { return a.NAME(b); } \
  inline Tensor NAME(const Tensor& a, Scalar b) { return a.NAME(b); }
EMBER_COMPARISON_FUNCTION(eq)
EMBER_COMPARISON_FUNCTION(ne)
EMBER_COMPARISON_FUNCTION(lt)
EMBER_COMPARISON_FUNCTION(le)
EMBER_COMPARISON_FUNCTION(gt)
EMBER_COMPARISON_FUNCTION(ge)
#undef EMBER_COMPARISON_FUNCTION
inline Tensor logical_and(const Tensor& a, const Tensor& b) { return a.logical_and(b); }
inline Tensor logical_or(const Tensor& a, const Tensor& b) { return a.logical_or(b); }
inline Tensor logical_xor(const Tensor& a, const Tensor& b) { return a.logical_xor(b); }
inline Tensor logical_not(const Tensor& x) { return x.logical_not(); }
inline Tensor bitwise_and(const Tensor& a, const Tensor& b) { return a.bitwise_and(b); }
inline Tensor bitwise_or(const Tensor& a, const Tensor& b) { return a.bitwise_or(b); }
inline Tensor bitwise_xor(const Tensor& a, const Tensor& b) { return a.bitwise_xor(b); }
inline Tensor bitwise_not(const Tensor& x) { return x.bitwise_not(); }

// ---- elementwise functions ----
#define EMBER_UNARY_FUNCTION(NAME) \
  inline Tensor NAME(const Tensor& x) { return x.NAME(); }
EMBER_UNARY_FUNCTION(sign)
EMBER_UNARY_FUNCTION(reciprocal)
EMBER_UNARY_FUNCTION(square)
EMBER_UNARY_FUNCTION(exp2)
EMBER_UNARY_FUNCTION(log2)
EMBER_UNARY_FUNCTION(log10)
EMBER_UNARY_FUNCTION(log1p)
EMBER_UNARY_FUNCTION(expm1)
EMBER_UNARY_FUNCTION(rsqrt)
EMBER_UNARY_FUNCTION(tan)
EMBER_UNARY_FUNCTION(asin)
EMBER_UNARY_FUNCTION(acos)
EMBER_UNARY_FUNCTION(atan)
EMBER_UNARY_FUNCTION(sinh)
EMBER_UNARY_FUNCTION(cosh)
EMBER_UNARY_FUNCTION(erf)
EMBER_UNARY_FUNCTION(erfc)
EMBER_UNARY_FUNCTION(floor)
EMBER_UNARY_FUNCTION(ceil)
EMBER_UNARY_FUNCTION(round)
EMBER_UNARY_FUNCTION(trunc)
EMBER_UNARY_FUNCTION(frac)
EMBER_UNARY_FUNCTION(isfinite)
EMBER_UNARY_FUNCTION(isposinf)
EMBER_UNARY_FUNCTION(isneginf)
EMBER_UNARY_FUNCTION(silu)
#undef EMBER_UNARY_FUNCTION
inline Tensor gelu(const Tensor& x, std::string_view approximate = "none") { return x.gelu(approximate); }
inline Tensor nan_to_num(const Tensor& x, std::optional<double> nan = std::nullopt,
                         std::optional<double> posinf = std::nullopt, std::optional<double> neginf = std::nullopt) {
  return x.nan_to_num(nan, posinf, neginf);
}

// ---- reductions ----
inline Tensor sum(const Tensor& x, std::optional<DType> dtype = std::nullopt) { return x.sum(dtype); }
inline Tensor sum(const Tensor& x, IntArrayRef dims, bool keepdim = false, std::optional<DType> dtype = std::nullopt) {
  return x.sum(dims, keepdim, dtype);
}
inline Tensor nansum(const Tensor& x, IntArrayRef dims = {}, bool keepdim = false) { return x.nansum(dims, keepdim); }
inline Tensor mean(const Tensor& x, std::optional<DType> dtype = std::nullopt) { return x.mean(dtype); }
inline Tensor mean(const Tensor& x, IntArrayRef dims, bool keepdim = false,
                   std::optional<DType> dtype = std::nullopt) {
  return x.mean(dims, keepdim, dtype);
}
inline Tensor nanmean(const Tensor& x, IntArrayRef dims = {}, bool keepdim = false) {
  return x.nanmean(dims, keepdim);
}
inline Tensor prod(const Tensor& x, std::optional<DType> dtype = std::nullopt) { return x.prod(dtype); }
inline Tensor prod(const Tensor& x, int64_t dim, bool keepdim = false, std::optional<DType> dtype = std::nullopt) {
  return x.prod(dim, keepdim, dtype);
}
inline Tensor max(const Tensor& x) { return x.max(); }
inline std::tuple<Tensor, Tensor> max(const Tensor& x, int64_t dim, bool keepdim = false) {
  return x.max(dim, keepdim);
}
inline Tensor min(const Tensor& x) { return x.min(); }
inline std::tuple<Tensor, Tensor> min(const Tensor& x, int64_t dim, bool keepdim = false) {
  return x.min(dim, keepdim);
}
inline Tensor amax(const Tensor& x, IntArrayRef dims = {}, bool keepdim = false) { return x.amax(dims, keepdim); }
inline Tensor amin(const Tensor& x, IntArrayRef dims = {}, bool keepdim = false) { return x.amin(dims, keepdim); }
inline Tensor argmax(const Tensor& x, std::optional<int64_t> dim = std::nullopt, bool keepdim = false) {
  return x.argmax(dim, keepdim);
}
inline Tensor argmin(const Tensor& x, std::optional<int64_t> dim = std::nullopt, bool keepdim = false) {
  return x.argmin(dim, keepdim);
}
// `correction` also takes LibTorch's `unbiased`: true is a correction of 1, false of 0.
inline Tensor var(const Tensor& x, IntArrayRef dims = {}, int64_t correction = 1, bool keepdim = false) {
  return x.var(dims, correction, keepdim);
}
inline Tensor std(const Tensor& x, IntArrayRef dims = {}, int64_t correction = 1, bool keepdim = false) {
  return x.std(dims, correction, keepdim);
}
inline Tensor var(const Tensor& x, bool unbiased) { return x.var(unbiased); }
inline Tensor var(const Tensor& x, int64_t dim) { return x.var(dim); }
inline Tensor var(const Tensor& x, int dim) { return x.var(dim); }
inline Tensor std(const Tensor& x, bool unbiased) { return x.std(unbiased); }
inline Tensor std(const Tensor& x, int64_t dim) { return x.std(dim); }
inline Tensor std(const Tensor& x, int dim) { return x.std(dim); }
inline Tensor norm(const Tensor& x, Scalar p = 2) { return x.norm(p); }
inline Tensor norm(const Tensor& x, Scalar p, IntArrayRef dims, bool keepdim = false) {
  return x.norm(p, dims, keepdim);
}
inline Tensor logsumexp(const Tensor& x, IntArrayRef dims, bool keepdim = false) { return x.logsumexp(dims, keepdim); }
inline Tensor all(const Tensor& x) { return x.all(); }
inline Tensor all(const Tensor& x, int64_t dim, bool keepdim = false) { return x.all(dim, keepdim); }
inline Tensor any(const Tensor& x) { return x.any(); }
inline Tensor any(const Tensor& x, int64_t dim, bool keepdim = false) { return x.any(dim, keepdim); }
inline Tensor count_nonzero(const Tensor& x, IntArrayRef dims = {}) { return x.count_nonzero(dims); }
inline Tensor cumsum(const Tensor& x, int64_t dim, std::optional<DType> dtype = std::nullopt) {
  return x.cumsum(dim, dtype);
}
inline Tensor cumprod(const Tensor& x, int64_t dim, std::optional<DType> dtype = std::nullopt) {
  return x.cumprod(dim, dtype);
}
inline std::tuple<Tensor, Tensor> cummax(const Tensor& x, int64_t dim) { return x.cummax(dim); }
inline std::tuple<Tensor, Tensor> cummin(const Tensor& x, int64_t dim) { return x.cummin(dim); }
inline Tensor logcumsumexp(const Tensor& x, int64_t dim) { return x.logcumsumexp(dim); }
inline Tensor softmax(const Tensor& x, int64_t dim, std::optional<DType> dtype = std::nullopt) {
  return x.softmax(dim, dtype);
}
inline Tensor log_softmax(const Tensor& x, int64_t dim, std::optional<DType> dtype = std::nullopt) {
  return x.log_softmax(dim, dtype);
}

// ---- products ----
inline Tensor mv(const Tensor& mat, const Tensor& vec) { return mat.mv(vec); }
inline Tensor dot(const Tensor& a, const Tensor& b) { return a.dot(b); }

}  // namespace ember
