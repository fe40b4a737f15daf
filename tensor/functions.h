#pragma once
// Free functions of the tensor API, as LibTorch's torch:: namespace has them: creation, the functional
// forms of the ops, joining, type promotion and random generation.
#include <cstdint>
#include <initializer_list>
#include <mutex>
#include <optional>
#include <string_view>
#include <variant>
#include <vector>

#include "runtime/kernels/random.h"
#include "tensor/tensor.h"

namespace ember {

// ---- creation ----
Tensor empty(IntArrayRef sizes, const TensorOptions& options = {});
Tensor empty_strided(IntArrayRef sizes, IntArrayRef strides, const TensorOptions& options = {});
Tensor zeros(IntArrayRef sizes, const TensorOptions& options = {});
Tensor ones(IntArrayRef sizes, const TensorOptions& options = {});
Tensor full(IntArrayRef sizes, Scalar value, const TensorOptions& options = {});
Tensor empty_like(const Tensor& like, const TensorOptions& options = {});
Tensor zeros_like(const Tensor& like, const TensorOptions& options = {});
Tensor ones_like(const Tensor& like, const TensorOptions& options = {});
Tensor full_like(const Tensor& like, Scalar value, const TensorOptions& options = {});
Tensor arange(Scalar end, const TensorOptions& options = {});
Tensor arange(Scalar start, Scalar end, const TensorOptions& options = {});
Tensor arange(Scalar start, Scalar end, Scalar step, const TensorOptions& options = {});
Tensor linspace(Scalar start, Scalar end, int64_t steps, const TensorOptions& options = {});
Tensor eye(int64_t n, const TensorOptions& options = {});
Tensor eye(int64_t n, int64_t m, const TensorOptions& options = {});
// Copies `data` (laid out row-major as `dtype` elements) to a new device tensor.
Tensor from_blob(const void* data, IntArrayRef sizes, const TensorOptions& options = {});

// Nested braces of numbers, as torch::tensor takes them: {{1, 2}, {3, 4}}. Integers give int64,
// any floating value gives the default dtype, bools give bool.
class TensorData {
 public:
  TensorData(double value) : scalar_(value), kind_(Kind::Floating) {}
  TensorData(float value) : scalar_(static_cast<double>(value)), kind_(Kind::Floating) {}
  TensorData(int value) : scalar_(static_cast<int64_t>(value)), kind_(Kind::Integral) {}
  TensorData(int64_t value) : scalar_(value), kind_(Kind::Integral) {}
  TensorData(bool value) : scalar_(value), kind_(Kind::Boolean) {}
  TensorData(std::initializer_list<TensorData> list) : list_(list), is_list_(true) {}
  template <class T>
  TensorData(const std::vector<T>& values) : is_list_(true) {
    for (const T& v : values) list_.emplace_back(v);
  }

  enum class Kind { Boolean, Integral, Floating };
  bool is_list() const { return is_list_; }
  const std::vector<TensorData>& list() const { return list_; }
  Scalar scalar() const { return scalar_; }
  Kind kind() const { return kind_; }

 private:
  Scalar scalar_ = 0;
  Kind kind_ = Kind::Integral;
  std::vector<TensorData> list_;
  bool is_list_ = false;
};
Tensor tensor(const TensorData& data, const TensorOptions& options = {});

// ---- type promotion (PyTorch's rules, scalars included) ----
DType promote_types(DType a, DType b);
DType result_type(const Tensor& a, const Tensor& b);
DType result_type(const Tensor& a, Scalar b);
DType result_type(Scalar a, const Tensor& b);
bool can_cast(DType from, DType to);
// Throws PyTorch's error when an op's result of dtype `result` cannot be written into a tensor of dtype
// `out` (an in-place op or copy-back), as can_cast() says.
void check_can_cast(DType result, DType out);

// ---- functional forms ----
Tensor add(const Tensor& a, const Tensor& b, Scalar alpha = 1);
Tensor sub(const Tensor& a, const Tensor& b, Scalar alpha = 1);
Tensor mul(const Tensor& a, const Tensor& b);
Tensor div(const Tensor& a, const Tensor& b);
Tensor pow(const Tensor& a, const Tensor& b);
Tensor pow(const Tensor& a, Scalar b);
Tensor pow(Scalar a, const Tensor& b);
Tensor where(const Tensor& condition, const Tensor& a, const Tensor& b);
Tensor where(const Tensor& condition, Scalar a, const Tensor& b);
Tensor where(const Tensor& condition, const Tensor& a, Scalar b);
Tensor where(const Tensor& condition, Scalar a, Scalar b);
// torch::clamp and its relatives as functions: the methods of the same names (clip is clamp's alias).
Tensor clamp(const Tensor& x, std::optional<Scalar> min, std::optional<Scalar> max = std::nullopt);
Tensor clamp(const Tensor& x, const std::optional<Tensor>& min, const std::optional<Tensor>& max);
Tensor clamp_min(const Tensor& x, Scalar min);
Tensor clamp_min(const Tensor& x, const Tensor& min);
Tensor clamp_max(const Tensor& x, Scalar max);
Tensor clamp_max(const Tensor& x, const Tensor& max);
Tensor clip(const Tensor& x, std::optional<Scalar> min, std::optional<Scalar> max = std::nullopt);
Tensor clip(const Tensor& x, const std::optional<Tensor>& min, const std::optional<Tensor>& max);
Tensor& clamp_(Tensor& x, std::optional<Scalar> min, std::optional<Scalar> max = std::nullopt);
Tensor& clamp_(Tensor& x, const std::optional<Tensor>& min, const std::optional<Tensor>& max);
Tensor& clamp_min_(Tensor& x, Scalar min);
Tensor& clamp_min_(Tensor& x, const Tensor& min);
Tensor& clamp_max_(Tensor& x, Scalar max);
Tensor& clamp_max_(Tensor& x, const Tensor& max);
Tensor& clip_(Tensor& x, std::optional<Scalar> min, std::optional<Scalar> max = std::nullopt);
Tensor& clip_(Tensor& x, const std::optional<Tensor>& min, const std::optional<Tensor>& max);
Tensor maximum(const Tensor& a, const Tensor& b);
Tensor minimum(const Tensor& a, const Tensor& b);
Tensor hypot(const Tensor& a, const Tensor& b);
Tensor copysign(const Tensor& a, const Tensor& b);
Tensor bitwise_left_shift(const Tensor& a, const Tensor& b);
Tensor bitwise_right_shift(const Tensor& a, const Tensor& b);
Tensor lerp(const Tensor& start, const Tensor& end, const Tensor& weight);
Tensor lerp(const Tensor& start, const Tensor& end, Scalar weight);
Tensor addcmul(const Tensor& x, const Tensor& a, const Tensor& b, Scalar value = 1);
Tensor addcdiv(const Tensor& x, const Tensor& a, const Tensor& b, Scalar value = 1);
Tensor abs(const Tensor& x);
Tensor neg(const Tensor& x);
Tensor exp(const Tensor& x);
Tensor log(const Tensor& x);
Tensor sqrt(const Tensor& x);
Tensor sin(const Tensor& x);
Tensor cos(const Tensor& x);
Tensor tanh(const Tensor& x);
Tensor sigmoid(const Tensor& x);
Tensor relu(const Tensor& x);
// x where x > 0, negative_slope * x elsewhere (torch.nn.functional.leaky_relu).
Tensor leaky_relu(const Tensor& x, Scalar negative_slope = 0.01);
Tensor& leaky_relu_(Tensor& x, Scalar negative_slope = 0.01);
// value where x <= threshold, x elsewhere (torch.threshold).
Tensor threshold(const Tensor& x, Scalar threshold, Scalar value);
Tensor& threshold_(Tensor& x, Scalar threshold, Scalar value);
// The activations of torch.nn.functional that are tensor ops in LibTorch (PyTorch 1.13's formulas;
// https://pytorch.org/docs/1.13/nn.functional.html#non-linear-activation-functions).
// elu: x > 0 ? scale x : alpha scale (exp(input_scale x) - 1); selu and celu are elus.
Tensor elu(const Tensor& x, Scalar alpha = 1, Scalar scale = 1, Scalar input_scale = 1);
Tensor& elu_(Tensor& x, Scalar alpha = 1, Scalar scale = 1, Scalar input_scale = 1);
Tensor selu(const Tensor& x);
Tensor& selu_(Tensor& x);
Tensor celu(const Tensor& x, Scalar alpha = 1.0);
Tensor& celu_(Tensor& x, Scalar alpha = 1.0);
// clamp(x, min_val, max_val), integral inputs too; relu6 is hardtanh(x, 0, 6).
Tensor hardtanh(const Tensor& x, Scalar min_val = -1, Scalar max_val = 1);
Tensor& hardtanh_(Tensor& x, Scalar min_val = -1, Scalar max_val = 1);
Tensor relu6(const Tensor& x);
Tensor& relu6_(Tensor& x);
Tensor hardsigmoid(const Tensor& x);  // min(max(x + 3, 0), 6) / 6
Tensor& hardsigmoid_(Tensor& x);
Tensor hardswish(const Tensor& x);  // x hardsigmoid(x)
Tensor& hardswish_(Tensor& x);
Tensor hardshrink(const Tensor& x, Scalar lambd = 0.5);
Tensor softshrink(const Tensor& x, Scalar lambd = 0.5);  // x -+ lambd outside [-lambd, lambd], 0 inside
// log(1 + exp(beta x)) / beta, and x where beta x > threshold.
Tensor softplus(const Tensor& x, Scalar beta = 1, Scalar threshold = 20);
Tensor log_sigmoid(const Tensor& x);
Tensor mish(const Tensor& x);  // x tanh(softplus(x))
Tensor& mish_(Tensor& x);
Tensor prelu(const Tensor& x, const Tensor& weight);
// x where x > 0; elsewhere x times a slope: drawn from U[lower, upper) per element in training, their
// mean in eval.
Tensor rrelu(const Tensor& x, Scalar lower = 0.125, Scalar upper = 1.0 / 3.0, bool training = false,
             Generator* generator = nullptr);
Tensor& rrelu_(Tensor& x, Scalar lower = 0.125, Scalar upper = 1.0 / 3.0, bool training = false,
               Generator* generator = nullptr);
// a sigmoid(b), a and b the first and second halves of `dim`.
Tensor glu(const Tensor& x, int64_t dim = -1);
// The methods of the same names, as functions (torch::heaviside, logaddexp, xlogy, ...).
Tensor heaviside(const Tensor& x, const Tensor& values);
Tensor logaddexp(const Tensor& a, const Tensor& b);
Tensor logaddexp2(const Tensor& a, const Tensor& b);
Tensor xlogy(const Tensor& x, const Tensor& y);
Tensor xlogy(Scalar x, const Tensor& y);
Tensor xlogy(const Tensor& x, Scalar y);
Tensor isnan(const Tensor& x);
Tensor isinf(const Tensor& x);
Tensor isclose(const Tensor& a, const Tensor& b, double rtol = 1e-5, double atol = 1e-8, bool equal_nan = false);
bool equal(const Tensor& a, const Tensor& b);  // same sizes and elements
bool allclose(const Tensor& a, const Tensor& b, double rtol = 1e-5, double atol = 1e-8,
              bool equal_nan = false);

// ---- joining and splitting ----
Tensor cat(const std::vector<Tensor>& tensors, int64_t dim = 0);
Tensor stack(const std::vector<Tensor>& tensors, int64_t dim = 0);
Tensor hstack(const std::vector<Tensor>& tensors);
Tensor vstack(const std::vector<Tensor>& tensors);
Tensor column_stack(const std::vector<Tensor>& tensors);
Tensor one_hot(const Tensor& indices, int64_t num_classes = -1);
Tensor narrow_copy(const Tensor& self, int64_t dim, int64_t start, int64_t length);
Tensor flip(const Tensor& self, IntArrayRef dims);
Tensor fliplr(const Tensor& self);
Tensor flipud(const Tensor& self);
Tensor roll(const Tensor& self, IntArrayRef shifts, IntArrayRef dims = {});
Tensor rot90(const Tensor& self, int64_t k = 1, IntArrayRef dims = {0, 1});
Tensor diff(const Tensor& self, int64_t n = 1, int64_t dim = -1, const std::optional<Tensor>& prepend = std::nullopt,
            const std::optional<Tensor>& append = std::nullopt);

// ---- repeating, splitting and logspace (torch.repeat_interleave, tile, tensor_split, h/v/dsplit, logspace) ----
Tensor tile(const Tensor& self, IntArrayRef dims);
Tensor repeat_interleave(const Tensor& self, const Tensor& repeats, std::optional<int64_t> dim = std::nullopt,
                         std::optional<int64_t> output_size = std::nullopt);
Tensor repeat_interleave(const Tensor& self, int64_t repeats, std::optional<int64_t> dim = std::nullopt,
                         std::optional<int64_t> output_size = std::nullopt);
// The index of the element each output position repeats: [0] * repeats[0] + [1] * repeats[1] + ..., in
// repeats' dtype (int32 or int64). Without output_size its length is read back from the device.
Tensor repeat_interleave(const Tensor& repeats, std::optional<int64_t> output_size = std::nullopt);
std::vector<Tensor> tensor_split(const Tensor& self, int64_t sections, int64_t dim = 0);
std::vector<Tensor> tensor_split(const Tensor& self, IntArrayRef indices, int64_t dim = 0);
std::vector<Tensor> tensor_split(const Tensor& self, const Tensor& indices_or_sections, int64_t dim = 0);
std::vector<Tensor> hsplit(const Tensor& self, int64_t sections);
std::vector<Tensor> hsplit(const Tensor& self, IntArrayRef indices);
std::vector<Tensor> vsplit(const Tensor& self, int64_t sections);
std::vector<Tensor> vsplit(const Tensor& self, IntArrayRef indices);
std::vector<Tensor> dsplit(const Tensor& self, int64_t sections);
std::vector<Tensor> dsplit(const Tensor& self, IntArrayRef indices);
// base ** linspace(start, end, steps), computed in float64 where the device has it, as PyTorch does.
Tensor logspace(Scalar start, Scalar end, int64_t steps, double base = 10.0, const TensorOptions& options = {});

// ---- out-of-place forms of the in-place index ops ----
Tensor index_add(const Tensor& self, int64_t dim, const Tensor& index, const Tensor& source, Scalar alpha = 1);
Tensor index_copy(const Tensor& self, int64_t dim, const Tensor& index, const Tensor& source);
Tensor index_fill(const Tensor& self, int64_t dim, const Tensor& index, Scalar value);
Tensor put(const Tensor& self, const Tensor& index, const Tensor& source, bool accumulate = false);
Tensor broadcast_to(const Tensor& x, IntArrayRef sizes);
std::vector<int64_t> broadcast_shapes(IntArrayRef a, IntArrayRef b);

// ---- scatter with a reduction (torch.scatter_reduce and torch.scatter's reduce argument, PyTorch 1.13) ----
Tensor scatter_reduce(const Tensor& self, int64_t dim, const Tensor& index, const Tensor& src, std::string_view reduce,
                      bool include_self = true);
Tensor index_reduce(const Tensor& self, int64_t dim, const Tensor& index, const Tensor& source, std::string_view reduce,
                    bool include_self = true);
Tensor scatter(const Tensor& self, int64_t dim, const Tensor& index, const Tensor& src, std::string_view reduce);
Tensor scatter(const Tensor& self, int64_t dim, const Tensor& index, Scalar value, std::string_view reduce);

// ---- linear algebra ----
Tensor matmul(const Tensor& a, const Tensor& b);
Tensor mm(const Tensor& a, const Tensor& b);
Tensor bmm(const Tensor& a, const Tensor& b);
Tensor addmm(const Tensor& input, const Tensor& mat1, const Tensor& mat2, Scalar beta = 1,
             Scalar alpha = 1);
Tensor baddbmm(const Tensor& input, const Tensor& batch1, const Tensor& batch2, Scalar beta = 1,
               Scalar alpha = 1);
Tensor outer(const Tensor& vec1, const Tensor& vec2);
Tensor ger(const Tensor& vec1, const Tensor& vec2);
Tensor addmv(const Tensor& input, const Tensor& mat, const Tensor& vec, Scalar beta = 1, Scalar alpha = 1);
Tensor addr(const Tensor& input, const Tensor& vec1, const Tensor& vec2, Scalar beta = 1, Scalar alpha = 1);
Tensor kron(const Tensor& a, const Tensor& b);
Tensor trace(const Tensor& x);
Tensor diag_embed(const Tensor& x, int64_t offset = 0, int64_t dim1 = -2, int64_t dim2 = -1);
Tensor cross(const Tensor& a, const Tensor& b, std::optional<int64_t> dim = std::nullopt);
Tensor linalg_cross(const Tensor& a, const Tensor& b, int64_t dim = -1);
// Sums of products over dims_a of a paired with dims_b of b; the rest of a's dims, then b's, remain.
Tensor tensordot(const Tensor& a, const Tensor& b, IntArrayRef dims_a, IntArrayRef dims_b);
Tensor tensordot(const Tensor& a, const Tensor& b, int64_t dims = 2);  // a's last dims with b's first

// ---- reductions in pairs (torch.var_mean, std_mean, aminmax): one call, both results ----
std::tuple<Tensor, Tensor> var_mean(const Tensor& x, IntArrayRef dims = {}, int64_t correction = 1,
                                    bool keepdim = false);
std::tuple<Tensor, Tensor> std_mean(const Tensor& x, IntArrayRef dims = {}, int64_t correction = 1,
                                    bool keepdim = false);
std::tuple<Tensor, Tensor> aminmax(const Tensor& x, std::optional<int64_t> dim = std::nullopt,
                                   bool keepdim = false);

// ---- sorting (PyTorch's sort, argsort, msort, topk, kthvalue; stable order, NaN largest) ----
std::tuple<Tensor, Tensor> sort(const Tensor& x, int64_t dim = -1, bool descending = false);
std::tuple<Tensor, Tensor> sort(const Tensor& x, std::optional<bool> stable, int64_t dim = -1,
                                bool descending = false);
Tensor argsort(const Tensor& x, int64_t dim = -1, bool descending = false);
Tensor argsort(const Tensor& x, bool stable, int64_t dim = -1, bool descending = false);
Tensor msort(const Tensor& x);
std::tuple<Tensor, Tensor> topk(const Tensor& x, int64_t k, int64_t dim = -1, bool largest = true,
                                bool sorted = true);
std::tuple<Tensor, Tensor> kthvalue(const Tensor& x, int64_t k, int64_t dim = -1, bool keepdim = false);
Tensor median(const Tensor& x);
std::tuple<Tensor, Tensor> median(const Tensor& x, int64_t dim, bool keepdim = false);
Tensor nanmedian(const Tensor& x);
std::tuple<Tensor, Tensor> nanmedian(const Tensor& x, int64_t dim, bool keepdim = false);
std::tuple<Tensor, Tensor> mode(const Tensor& x, int64_t dim = -1, bool keepdim = false);
Tensor quantile(const Tensor& x, const Tensor& q, std::optional<int64_t> dim = std::nullopt, bool keepdim = false,
                std::string_view interpolation = "linear");
Tensor quantile(const Tensor& x, double q, std::optional<int64_t> dim = std::nullopt, bool keepdim = false,
                std::string_view interpolation = "linear");
Tensor nanquantile(const Tensor& x, const Tensor& q, std::optional<int64_t> dim = std::nullopt,
                   bool keepdim = false, std::string_view interpolation = "linear");
Tensor nanquantile(const Tensor& x, double q, std::optional<int64_t> dim = std::nullopt, bool keepdim = false,
                   std::string_view interpolation = "linear");

// ---- distinct values (torch.unique, unique_consecutive; Tensor::unique says more) ----
std::tuple<Tensor, Tensor, Tensor> unique(const Tensor& x, bool sorted = true, bool return_inverse = false,
                                          bool return_counts = false, std::optional<int64_t> dim = std::nullopt);
std::tuple<Tensor, Tensor, Tensor> unique_consecutive(const Tensor& x, bool return_inverse = false,
                                                      bool return_counts = false,
                                                      std::optional<int64_t> dim = std::nullopt);

// ---- searching and counting (torch.searchsorted, bucketize, isin, bincount, histc); no gradients ----
// The index at which each value would go into the sorted last dim of `sorted_sequence` (whose leading
// dims match the values', or which is 1-D): the first such (side "left") or the last ("right").
// `sorter` sorts an unsorted sequence (argsort's result). Results are int64, or int32 with out_int32.
Tensor searchsorted(const Tensor& sorted_sequence, const Tensor& values, bool out_int32 = false, bool right = false,
                    std::optional<std::string_view> side = std::nullopt,
                    const std::optional<Tensor>& sorter = std::nullopt);
Tensor searchsorted(const Tensor& sorted_sequence, Scalar value, bool out_int32 = false, bool right = false,
                    std::optional<std::string_view> side = std::nullopt,
                    const std::optional<Tensor>& sorter = std::nullopt);
// searchsorted with 1-D boundaries and the values first.
Tensor bucketize(const Tensor& values, const Tensor& boundaries, bool out_int32 = false, bool right = false);
Tensor bucketize(Scalar value, const Tensor& boundaries, bool out_int32 = false, bool right = false);
// Whether each element is among test_elements (bool, elements' shape); `invert` negates.
// assume_unique is accepted for PyTorch's signature and changes nothing.
Tensor isin(const Tensor& elements, const Tensor& test_elements, bool assume_unique = false, bool invert = false);
Tensor isin(const Tensor& elements, Scalar test_element, bool assume_unique = false, bool invert = false);
Tensor isin(Scalar element, const Tensor& test_elements, bool assume_unique = false, bool invert = false);
Tensor bincount(const Tensor& x, const std::optional<Tensor>& weights = std::nullopt, int64_t minlength = 0);
Tensor histc(const Tensor& x, int64_t bins = 100, Scalar min = 0, Scalar max = 0);

// ---- random ----
// A counter-based (Philox) generator: draws depend only on the seed and how many came before. Threads may
// share one (a DataLoader worker's random transform beside the training loop's dropout), as LibTorch's
// random ops lock theirs: no two draws get the same offsets.
class Generator {
 public:
  explicit Generator(uint64_t seed = 67280421310721ull) : seed_(seed) {}
  void manual_seed(uint64_t seed);
  uint64_t initial_seed() const;
  // The state for a launch of `numel` draws, advancing past them.
  PhiloxState advance(uint64_t numel);
  uint64_t offset() const;
  void set_offset(uint64_t offset);

 private:
  mutable std::mutex mutex_;
  uint64_t seed_;
  uint64_t offset_ = 0;
};
Generator& default_generator();
void manual_seed(uint64_t seed);

Tensor rand(IntArrayRef sizes, const TensorOptions& options = {}, Generator* generator = nullptr);
Tensor randn(IntArrayRef sizes, const TensorOptions& options = {}, Generator* generator = nullptr);
Tensor randint(int64_t low, int64_t high, IntArrayRef sizes, const TensorOptions& options = {},
               Generator* generator = nullptr);
Tensor randint(int64_t high, IntArrayRef sizes, const TensorOptions& options = {},
               Generator* generator = nullptr);
Tensor randperm(int64_t n, const TensorOptions& options = {}, Generator* generator = nullptr);
Tensor bernoulli(const Tensor& probabilities, Generator* generator = nullptr);
Tensor bernoulli(const Tensor& like, double p, Generator* generator = nullptr);
Tensor multinomial(const Tensor& probabilities, int64_t num_samples, bool replacement = false,
                   Generator* generator = nullptr);
Tensor normal(double mean, double std, IntArrayRef sizes, const TensorOptions& options = {},
              Generator* generator = nullptr);

// ---- einsum and selection by a condition ----
// torch.einsum, torch.where(condition) (one index tensor per dim) and torch.masked_scatter.
Tensor einsum(std::string_view equation, const std::vector<Tensor>& tensors);
std::vector<Tensor> where(const Tensor& condition);
Tensor masked_scatter(const Tensor& self, const Tensor& mask, const Tensor& source);

// ---- printing ----
struct PrintOptions {
  int precision = 4;
  int64_t threshold = 1000;
  int64_t edgeitems = 3;
  int64_t linewidth = 80;
  std::optional<bool> sci_mode;  // nullopt: decide per tensor, as PyTorch does
};
void set_printoptions(const PrintOptions& options);
const PrintOptions& get_printoptions();

}  // namespace ember
