#pragma once
// ember::Tensor: a handle with shared ownership of its implementation (storage, sizes, strides, storage
// offset, dtype). Views share storage. Methods follow LibTorch's names and argument order; the op
// semantics (broadcasting, type promotion, shape checks with PyTorch's messages) live in tensor/*.cpp.
// Each section names the PyTorch documentation it follows (https://pytorch.org/docs/1.13/tensors.html).
//
// Where ember deviates from PyTorch:
// - Random numbers come from a counter-based Philox generator on the device, so a seed gives other
//   values than PyTorch's CPU generator (the distributions are the same; see tensor/random.cpp).
// - A dtype the device lacks (float64 or int64 without shaderFloat64/shaderInt64, float16 storage) is
//   refused with UnsupportedError naming the device, never emulated on the host.
// - float16 and bfloat16 compute in float32 and round once, as PyTorch's CUDA kernels do; PyTorch's CPU
//   rounds some intermediates (a quotient before trunc), so results can differ from CPU in the last bit.
// - Nothing waits on the host unless its result is read (item, to_vector, printing) or its output size
//   depends on values (nonzero, masked_select, repeat_interleave without output_size).
#include <cstdint>
#include <functional>
#include <memory>
#include <optional>
#include <ostream>
#include <string>
#include <tuple>
#include <type_traits>
#include <vector>

#include "autograd/grad_mode.h"
#include "runtime/device.h"
#include "runtime/kernels/tensor_ref.h"
#include "tensor/types.h"

namespace ember {

class Tensor;
class TensorIndex;
class TensorData;  // tensor/functions.h
class Generator;
struct AutogradMeta;  // defined by autograd/
namespace autograd {
class Node;
class RemovableHandle;
}  // namespace autograd
namespace detail {
struct KnownValues;  // tensor/known_values.h
}  // namespace detail

// Device memory of one or more tensors. The version counts in-place writes through any view.
struct Storage {
  std::shared_ptr<Device> device;
  std::shared_ptr<Allocation> allocation;
  uint64_t nbytes = 0;
  uint64_t version = 0;
  // Bounds of an integer storage's values that the host knows without reading (tensor/known_values.h).
  std::shared_ptr<const detail::KnownValues> known_values;
};

struct TensorImpl {
  std::shared_ptr<Storage> storage;
  std::vector<int64_t> sizes;
  std::vector<int64_t> strides;
  int64_t storage_offset = 0;  // in elements
  DType dtype = DType::Float32;
  bool requires_grad = false;  // set on leaves; a non-leaf requires grad through its grad_fn
  std::shared_ptr<AutogradMeta> autograd;
  // The tensor whose memory this one views (views of views point at the first base), for autograd's
  // in-place handling. Null for tensors that own their memory and for detach()'s results.
  std::shared_ptr<TensorImpl> view_base;
  bool inference = autograd::InferenceMode::is_enabled();  // made inside InferenceMode
};

class Tensor {
 public:
  Tensor() = default;
  explicit Tensor(std::shared_ptr<TensorImpl> impl) : impl_(std::move(impl)) {}

  bool defined() const { return impl_ != nullptr; }
  TensorImpl& impl() const;
  const std::shared_ptr<TensorImpl>& impl_ptr() const { return impl_; }
  bool is_same(const Tensor& other) const { return impl_ == other.impl_; }

  // ---- metadata (torch.Tensor attributes: size, stride, dtype, device, is_contiguous) ----
  DType dtype() const { return impl().dtype; }
  DType scalar_type() const { return dtype(); }
  const std::shared_ptr<Device>& device() const { return impl().storage->device; }
  // This tensor's dtype and device, for making others like it: zeros(sizes, x.options()).
  TensorOptions options() const { return TensorOptions(dtype()).device(device()); }
  // The device's index within its backend (vulkan:1 → 1), as Tensor.get_device(); ember has no CPU tensors.
  int64_t get_device() const;
  IntArrayRef sizes() const { return impl().sizes; }
  IntArrayRef shape() const { return sizes(); }
  IntArrayRef strides() const { return impl().strides; }
  int64_t size(int64_t dim) const;
  int64_t stride(int64_t dim) const;
  int64_t dim() const { return static_cast<int64_t>(impl().sizes.size()); }
  int64_t ndimension() const { return dim(); }
  int64_t numel() const;
  int64_t storage_offset() const { return impl().storage_offset; }
  size_t element_size() const { return ember::element_size(dtype()); }
  size_t nbytes() const { return static_cast<size_t>(numel()) * element_size(); }
  bool is_contiguous() const;
  bool is_floating_point() const { return ember::is_floating_point(dtype()); }
  bool is_complex() const { return false; }
  bool is_signed() const;
  const std::shared_ptr<Storage>& storage() const { return impl().storage; }
  uint64_t _version() const { return impl().storage->version; }
  // A kernel argument describing this tensor (or its broadcast to `shape`).
  TensorRef ref() const;
  TensorRef ref(IntArrayRef shape) const;

  // ---- conversion and host access (Tensor.to, item, tolist; reads wait for the device) ----
  // LibTorch's argument order, non_blocking before copy. Copies are ordered on the device's stream and
  // never block the host, so non_blocking changes nothing; copy = true copies even when nothing changes.
  Tensor to(DType dtype, bool non_blocking = false, bool copy = false) const;
  Tensor to(std::shared_ptr<Device> device, std::optional<DType> dtype = std::nullopt, bool non_blocking = false,
            bool copy = false) const;
  Tensor to(const TensorOptions& options, bool non_blocking = false, bool copy = false) const;
  Tensor to(const Tensor& other, bool non_blocking = false, bool copy = false) const;  // other's device and dtype
  Tensor clone() const;
  Tensor contiguous() const;
  Tensor& copy_(const Tensor& src);  // broadcasts src and converts its dtype
  template <class T> T item() const;
  Scalar item() const;
  template <class T> std::vector<T> to_vector() const;  // row-major elements converted to T
  // ---- autograd (torch.autograd: requires_grad, grad, backward, hooks; autograd/variable.cpp) ----
  bool requires_grad() const;
  // Only floating-point leaves can require grad; a non-leaf can only be set to require it.
  Tensor& requires_grad_(bool requires_grad = true);
  Tensor& set_requires_grad(bool requires_grad) { return requires_grad_(requires_grad); }
  // The accumulated gradient of a leaf (or of a non-leaf after retain_grad()); undefined before.
  const Tensor& grad() const;
  Tensor& mutable_grad();  // assign an undefined tensor to drop it, or zero_() it
  std::shared_ptr<autograd::Node> grad_fn() const;
  bool is_leaf() const;
  int64_t output_nr() const;
  void retain_grad() const;
  bool retains_grad() const;
  bool is_inference() const { return impl().inference; }
  // Shares storage (and the version counter) but not history.
  Tensor detach() const;
  Tensor& detach_();
  Tensor data() const { return detach(); }
  // Tensor.data = new_data: this tensor (every handle to it) now views new_data's memory, with its
  // sizes, dtype and device; its autograd state (requires_grad, grad, hooks) stays. Module::to uses it
  // so that handles to a parameter held elsewhere see the moved parameter.
  void set_data(const Tensor& new_data) const;
  void backward(const Tensor& gradient = {}, std::optional<bool> retain_graph = std::nullopt,
                bool create_graph = false) const;
  // `hook` sees this tensor's gradient during backward and may return a replacement (or an undefined
  // tensor to keep it).
  autograd::RemovableHandle register_hook(std::function<Tensor(const Tensor&)> hook) const;
  // A hook that returns nothing only looks at the gradient, as LibTorch's void hooks do (autograd/node.h).
  template <class Hook>
    requires std::is_void_v<std::invoke_result_t<Hook&, const Tensor&>>
  autograd::RemovableHandle register_hook(Hook hook) const;

  Tensor to_float() const { return to(kFloat32); }
  Tensor to_double() const { return to(kFloat64); }
  Tensor to_long() const { return to(kInt64); }
  Tensor to_int() const { return to(kInt32); }
  Tensor to_half() const { return to(kFloat16); }
  Tensor to_bool() const { return to(kBool); }

  // ---- views (PyTorch's view semantics: the result shares storage; tensor_view.html) ----
  Tensor view(IntArrayRef shape) const;
  Tensor reshape(IntArrayRef shape) const;
  Tensor view_as(const Tensor& other) const { return view(other.sizes()); }
  Tensor reshape_as(const Tensor& other) const { return reshape(other.sizes()); }
  Tensor permute(IntArrayRef dims) const;
  Tensor transpose(int64_t dim0, int64_t dim1) const;
  Tensor swapaxes(int64_t dim0, int64_t dim1) const { return transpose(dim0, dim1); }
  Tensor t() const;
  Tensor mT() const;
  Tensor T() const;
  Tensor expand(IntArrayRef sizes) const;
  Tensor expand_as(const Tensor& other) const { return expand(other.sizes()); }
  Tensor squeeze() const;
  Tensor squeeze(int64_t dim) const;
  Tensor squeeze(IntArrayRef dims) const;
  Tensor unsqueeze(int64_t dim) const;
  // In-place views (tensor/inplace_views.cpp): this tensor itself takes the new sizes and strides, for
  // every handle that shares it; the memory and its values stay as they are.
  Tensor& t_();
  Tensor& transpose_(int64_t dim0, int64_t dim1);
  Tensor& swapaxes_(int64_t dim0, int64_t dim1);
  Tensor& squeeze_();
  Tensor& squeeze_(int64_t dim);
  Tensor& squeeze_(IntArrayRef dims);
  Tensor& unsqueeze_(int64_t dim);
  Tensor narrow(int64_t dim, int64_t start, int64_t length) const;
  // narrow's elements as a new contiguous tensor. As in PyTorch 1.13 it has no derivative: a backward
  // through it fails with PyTorch's message.
  Tensor narrow_copy(int64_t dim, int64_t start, int64_t length) const;
  Tensor slice(int64_t dim = 0, std::optional<int64_t> start = std::nullopt,
               std::optional<int64_t> end = std::nullopt, int64_t step = 1) const;
  Tensor select(int64_t dim, int64_t index) const;
  Tensor flatten(int64_t start_dim = 0, int64_t end_dim = -1) const;
  Tensor unflatten(int64_t dim, IntArrayRef sizes) const;
  Tensor as_strided(IntArrayRef sizes, IntArrayRef strides,
                    std::optional<int64_t> storage_offset = std::nullopt) const;
  Tensor movedim(IntArrayRef source, IntArrayRef destination) const;
  Tensor movedim(int64_t source, int64_t destination) const;
  Tensor moveaxis(int64_t source, int64_t destination) const { return movedim(source, destination); }
  Tensor unfold(int64_t dim, int64_t size, int64_t step) const;
  std::vector<Tensor> split(int64_t split_size, int64_t dim = 0) const;
  std::vector<Tensor> split(IntArrayRef split_sizes, int64_t dim = 0) const;
  std::vector<Tensor> split_with_sizes(IntArrayRef split_sizes, int64_t dim = 0) const;
  std::vector<Tensor> chunk(int64_t chunks, int64_t dim = 0) const;
  std::vector<Tensor> unbind(int64_t dim = 0) const;
  Tensor diagonal(int64_t offset = 0, int64_t dim1 = 0, int64_t dim2 = 1) const;
  Tensor alias() const;
  // Reversing, rotating and differencing (tensor/flipping.cpp, tensor/diff.cpp). flip copies: ember's
  // views take no negative strides (PyTorch's flip copies too).
  Tensor flip(IntArrayRef dims) const;
  Tensor fliplr() const;  // flip({1})
  Tensor flipud() const;  // flip({0})
  // Elements shifted by shifts[i] along dims[i], wrapping around; without dims, along the flattened tensor.
  Tensor roll(IntArrayRef shifts, IntArrayRef dims = {}) const;
  // k quarter turns in the plane of dims, from the first dim's direction toward the second's.
  Tensor rot90(int64_t k = 1, IntArrayRef dims = {0, 1}) const;
  // The n-th forward difference along dim, after prepend and append are joined to it.
  Tensor diff(int64_t n = 1, int64_t dim = -1, const std::optional<Tensor>& prepend = std::nullopt,
              const std::optional<Tensor>& append = std::nullopt) const;

  // ---- repeating, splitting, new tensors like this one (PyTorch's Tensor methods of these names) ----
  Tensor repeat(IntArrayRef repeats) const;
  Tensor tile(IntArrayRef dims) const;
  // Tensor repeats: without output_size the output's length is read back from the device.
  Tensor repeat_interleave(const Tensor& repeats, std::optional<int64_t> dim = std::nullopt,
                           std::optional<int64_t> output_size = std::nullopt) const;
  Tensor repeat_interleave(int64_t repeats, std::optional<int64_t> dim = std::nullopt,
                           std::optional<int64_t> output_size = std::nullopt) const;
  std::vector<Tensor> tensor_split(int64_t sections, int64_t dim = 0) const;
  std::vector<Tensor> tensor_split(IntArrayRef indices, int64_t dim = 0) const;
  // A 0-dim (sections) or 1-D (indices) int64 tensor, read back from the device.
  std::vector<Tensor> tensor_split(const Tensor& indices_or_sections, int64_t dim = 0) const;
  std::vector<Tensor> hsplit(int64_t sections) const;
  std::vector<Tensor> hsplit(IntArrayRef indices) const;
  std::vector<Tensor> vsplit(int64_t sections) const;
  std::vector<Tensor> vsplit(IntArrayRef indices) const;
  std::vector<Tensor> dsplit(int64_t sections) const;
  std::vector<Tensor> dsplit(IntArrayRef indices) const;
  // `start` is a 0-dim integer tensor, read back from the device.
  Tensor narrow(int64_t dim, const Tensor& start, int64_t length) const;
  bool is_nonzero() const;
  // This tensor's dtype and device unless `options` say otherwise.
  Tensor new_empty(IntArrayRef size, const TensorOptions& options = {}) const;
  Tensor new_zeros(IntArrayRef size, const TensorOptions& options = {}) const;
  Tensor new_ones(IntArrayRef size, const TensorOptions& options = {}) const;
  Tensor new_full(IntArrayRef size, Scalar fill_value, const TensorOptions& options = {}) const;
  Tensor new_tensor(const TensorData& data, const TensorOptions& options = {}) const;

  // ---- indexing (Tensor.index / index_put_ as LibTorch's TensorIndex; gather, scatter, index_*) ----
  Tensor operator[](int64_t index) const { return select(0, index); }
  Tensor index(std::initializer_list<TensorIndex> indices) const;
  Tensor index(const std::vector<TensorIndex>& indices) const;
  // accumulate: values at repeated positions add up (and add to what is there), as PyTorch's.
  Tensor& index_put_(std::initializer_list<TensorIndex> indices, const Tensor& value, bool accumulate = false);
  Tensor& index_put_(std::initializer_list<TensorIndex> indices, Scalar value);
  Tensor& index_put_(const std::vector<TensorIndex>& indices, const Tensor& value, bool accumulate = false);
  Tensor& index_put_(const std::vector<TensorIndex>& indices, Scalar value);
  Tensor index_select(int64_t dim, const Tensor& index) const;
  Tensor gather(int64_t dim, const Tensor& index) const;
  Tensor scatter(int64_t dim, const Tensor& index, const Tensor& src) const;
  Tensor scatter(int64_t dim, const Tensor& index, Scalar value) const;
  Tensor& scatter_(int64_t dim, const Tensor& index, const Tensor& src);
  Tensor& scatter_(int64_t dim, const Tensor& index, Scalar value);
  Tensor scatter_add(int64_t dim, const Tensor& index, const Tensor& src) const;
  Tensor& scatter_add_(int64_t dim, const Tensor& index, const Tensor& src);
  Tensor& index_add_(int64_t dim, const Tensor& index, const Tensor& source, Scalar alpha = 1);
  Tensor& index_copy_(int64_t dim, const Tensor& index, const Tensor& source);
  Tensor& index_fill_(int64_t dim, const Tensor& index, Scalar value);
  Tensor index_add(int64_t dim, const Tensor& index, const Tensor& source, Scalar alpha = 1) const;
  Tensor index_copy(int64_t dim, const Tensor& index, const Tensor& source) const;
  Tensor index_fill(int64_t dim, const Tensor& index, Scalar value) const;
  Tensor masked_fill(const Tensor& mask, Scalar value) const;
  Tensor masked_fill(const Tensor& mask, const Tensor& value) const;
  Tensor& masked_fill_(const Tensor& mask, Scalar value);
  Tensor& masked_fill_(const Tensor& mask, const Tensor& value);
  Tensor masked_select(const Tensor& mask) const;
  Tensor nonzero() const;
  Tensor argwhere() const;
  Tensor take(const Tensor& index) const;
  Tensor& put_(const Tensor& index, const Tensor& source, bool accumulate = false);
  Tensor put(const Tensor& index, const Tensor& source, bool accumulate = false) const;
  Tensor tril(int64_t diagonal = 0) const;
  Tensor triu(int64_t diagonal = 0) const;
  Tensor& tril_(int64_t diagonal = 0);
  Tensor& triu_(int64_t diagonal = 0);

  // ---- elementwise (broadcasting and type promotion as torch's; in-place forms end in _) ----
  Tensor add(const Tensor& other, Scalar alpha = 1) const;
  Tensor add(Scalar other, Scalar alpha = 1) const;
  Tensor sub(const Tensor& other, Scalar alpha = 1) const;
  Tensor sub(Scalar other, Scalar alpha = 1) const;
  Tensor mul(const Tensor& other) const;
  Tensor mul(Scalar other) const;
  Tensor div(const Tensor& other) const;
  Tensor div(Scalar other) const;
  Tensor div(const Tensor& other, std::string_view rounding_mode) const;  // "trunc" or "floor"
  Tensor floor_divide(const Tensor& other) const;
  Tensor floor_divide(Scalar other) const;
  Tensor remainder(const Tensor& other) const;
  Tensor remainder(Scalar other) const;
  Tensor fmod(const Tensor& other) const;
  Tensor fmod(Scalar other) const;
  Tensor pow(const Tensor& exponent) const;
  Tensor pow(Scalar exponent) const;
  Tensor& add_(const Tensor& other, Scalar alpha = 1);
  Tensor& add_(Scalar other, Scalar alpha = 1);
  Tensor& sub_(const Tensor& other, Scalar alpha = 1);
  Tensor& sub_(Scalar other, Scalar alpha = 1);
  Tensor& mul_(const Tensor& other);
  Tensor& mul_(Scalar other);
  Tensor& div_(const Tensor& other);
  Tensor& div_(Scalar other);
  Tensor& floor_divide_(const Tensor& other);
  Tensor& floor_divide_(Scalar other);
  Tensor& remainder_(const Tensor& other);
  Tensor& remainder_(Scalar other);
  Tensor& fmod_(const Tensor& other);
  Tensor& fmod_(Scalar other);
  Tensor& pow_(const Tensor& exponent);
  Tensor& pow_(Scalar exponent);
  Tensor& atan2_(const Tensor& other);
  Tensor& hypot_(const Tensor& other);
  Tensor& copysign_(const Tensor& other);
  Tensor& copysign_(Scalar other);
  Tensor maximum(const Tensor& other) const;
  Tensor minimum(const Tensor& other) const;
  Tensor atan2(const Tensor& other) const;
  Tensor hypot(const Tensor& other) const;
  Tensor copysign(const Tensor& other) const;
  Tensor copysign(Scalar other) const;

  Tensor eq(const Tensor& other) const;
  Tensor eq(Scalar other) const;
  Tensor ne(const Tensor& other) const;
  Tensor ne(Scalar other) const;
  Tensor lt(const Tensor& other) const;
  Tensor lt(Scalar other) const;
  Tensor le(const Tensor& other) const;
  Tensor le(Scalar other) const;
  Tensor gt(const Tensor& other) const;
  Tensor gt(Scalar other) const;
  Tensor ge(const Tensor& other) const;
  Tensor ge(Scalar other) const;
  Tensor logical_and(const Tensor& other) const;
  Tensor logical_or(const Tensor& other) const;
  Tensor logical_xor(const Tensor& other) const;
  Tensor logical_not() const;
  Tensor bitwise_and(const Tensor& other) const;
  Tensor bitwise_or(const Tensor& other) const;
  Tensor bitwise_xor(const Tensor& other) const;
  Tensor bitwise_not() const;
  Tensor bitwise_left_shift(const Tensor& other) const;
  Tensor bitwise_left_shift(Scalar other) const;
  Tensor bitwise_right_shift(const Tensor& other) const;
  Tensor bitwise_right_shift(Scalar other) const;
  // In place: self gets the result in its own dtype (a comparison's true as 1), and must hold the
  // broadcast shape. Comparisons and logical ops take any dtype; bitwise ops and shifts integral and bool.
  Tensor& eq_(const Tensor& other);
  Tensor& eq_(Scalar other);
  Tensor& ne_(const Tensor& other);
  Tensor& ne_(Scalar other);
  Tensor& lt_(const Tensor& other);
  Tensor& lt_(Scalar other);
  Tensor& le_(const Tensor& other);
  Tensor& le_(Scalar other);
  Tensor& gt_(const Tensor& other);
  Tensor& gt_(Scalar other);
  Tensor& ge_(const Tensor& other);
  Tensor& ge_(Scalar other);
  Tensor& logical_and_(const Tensor& other);
  Tensor& logical_or_(const Tensor& other);
  Tensor& logical_xor_(const Tensor& other);
  Tensor& logical_not_();
  Tensor& bitwise_and_(const Tensor& other);
  Tensor& bitwise_and_(Scalar other);
  Tensor& bitwise_or_(const Tensor& other);
  Tensor& bitwise_or_(Scalar other);
  Tensor& bitwise_xor_(const Tensor& other);
  Tensor& bitwise_xor_(Scalar other);
  Tensor& bitwise_not_();
  Tensor& bitwise_left_shift_(const Tensor& other);
  Tensor& bitwise_left_shift_(Scalar other);
  Tensor& bitwise_right_shift_(const Tensor& other);
  Tensor& bitwise_right_shift_(Scalar other);

  Tensor neg() const;
  Tensor abs() const;
  Tensor sign() const;
  Tensor reciprocal() const;
  Tensor square() const;
  Tensor exp() const;
  Tensor exp2() const;
  Tensor log() const;
  Tensor log2() const;
  Tensor log10() const;
  Tensor log1p() const;
  Tensor expm1() const;
  Tensor sqrt() const;
  Tensor rsqrt() const;
  Tensor sin() const;
  Tensor cos() const;
  Tensor tan() const;
  Tensor asin() const;
  Tensor acos() const;
  Tensor atan() const;
  Tensor sinh() const;
  Tensor cosh() const;
  Tensor tanh() const;
  Tensor sigmoid() const;
  Tensor relu() const;
  Tensor gelu(std::string_view approximate = "none") const;
  Tensor silu() const;
  Tensor hardshrink(Scalar lambd = 0.5) const;  // 0 on [-lambd, lambd], x elsewhere
  Tensor prelu(const Tensor& weight) const;      // x > 0 ? x : weight x, weight per channel (dim 1)
  Tensor erf() const;
  Tensor erfc() const;
  Tensor floor() const;
  Tensor ceil() const;
  Tensor round() const;
  Tensor trunc() const;
  Tensor frac() const;
  Tensor isnan() const;
  Tensor isinf() const;
  Tensor isposinf() const;
  Tensor isneginf() const;
  Tensor isfinite() const;
  // Elementwise |self - other| <= atol + rtol |other| (or equal), as torch.isclose.
  Tensor isclose(const Tensor& other, double rtol = 1e-5, double atol = 1e-8, bool equal_nan = false) const;
  // Tensor.equal and Tensor.allclose: one answer for the whole tensor (waits for the device).
  bool equal(const Tensor& other) const;
  bool allclose(const Tensor& other, double rtol = 1e-5, double atol = 1e-8, bool equal_nan = false) const;
  Tensor nan_to_num(std::optional<double> nan = std::nullopt, std::optional<double> posinf = std::nullopt,
                    std::optional<double> neginf = std::nullopt) const;
  Tensor clamp(std::optional<Scalar> min, std::optional<Scalar> max = std::nullopt) const;
  Tensor clamp(const std::optional<Tensor>& min, const std::optional<Tensor>& max) const;
  Tensor clamp_min(Scalar min) const;
  Tensor clamp_min(const Tensor& min) const;
  Tensor clamp_max(Scalar max) const;
  Tensor clamp_max(const Tensor& max) const;
  Tensor& clamp_(std::optional<Scalar> min, std::optional<Scalar> max = std::nullopt);
  Tensor& clamp_(const std::optional<Tensor>& min, const std::optional<Tensor>& max);
  Tensor& clamp_min_(Scalar min);
  Tensor& clamp_min_(const Tensor& min);
  Tensor& clamp_max_(Scalar max);
  Tensor& clamp_max_(const Tensor& max);
  // clip is PyTorch's alias of clamp (the same node, ClampBackward).
  Tensor clip(std::optional<Scalar> min, std::optional<Scalar> max = std::nullopt) const { return clamp(min, max); }
  Tensor clip(const std::optional<Tensor>& min, const std::optional<Tensor>& max) const { return clamp(min, max); }
  Tensor& clip_(std::optional<Scalar> min, std::optional<Scalar> max = std::nullopt) { return clamp_(min, max); }
  Tensor& clip_(const std::optional<Tensor>& min, const std::optional<Tensor>& max) { return clamp_(min, max); }
  Tensor lerp(const Tensor& end, Scalar weight) const;
  Tensor lerp(const Tensor& end, const Tensor& weight) const;
  Tensor& lerp_(const Tensor& end, Scalar weight);
  Tensor& lerp_(const Tensor& end, const Tensor& weight);
  Tensor addcmul(const Tensor& tensor1, const Tensor& tensor2, Scalar value = 1) const;
  Tensor addcdiv(const Tensor& tensor1, const Tensor& tensor2, Scalar value = 1) const;
  Tensor& addcmul_(const Tensor& tensor1, const Tensor& tensor2, Scalar value = 1);
  Tensor& addcdiv_(const Tensor& tensor1, const Tensor& tensor2, Scalar value = 1);
  Tensor where(const Tensor& condition, const Tensor& other) const;
  // Binary functions composed of the ops above (tensor/binary_composites.cpp). heaviside: 0 below zero,
  // values at zero, 1 above, with no derivative as in PyTorch. logaddexp(2): log(exp(a) + exp(b)) (base 2),
  // without overflow. xlogy: x log(y), and 0 where x is 0 unless y is NaN.
  Tensor heaviside(const Tensor& values) const;
  Tensor& heaviside_(const Tensor& values);
  Tensor logaddexp(const Tensor& other) const;
  Tensor logaddexp2(const Tensor& other) const;
  Tensor xlogy(const Tensor& other) const;
  Tensor xlogy(Scalar other) const;
  Tensor& xlogy_(const Tensor& other);
  Tensor& xlogy_(Scalar other);

  Tensor& neg_();
  Tensor& abs_();
  Tensor& exp_();
  Tensor& log_();
  Tensor& sqrt_();
  Tensor& tanh_();
  Tensor& sigmoid_();
  Tensor& relu_();
  // The in-place forms of the unary math functions above; floating ones refuse integer tensors, whose
  // results would not fit them, with PyTorch's message.
  Tensor& reciprocal_();
  Tensor& exp2_();
  Tensor& expm1_();
  Tensor& log2_();
  Tensor& log10_();
  Tensor& log1p_();
  Tensor& rsqrt_();
  Tensor& sin_();
  Tensor& cos_();
  Tensor& tan_();
  Tensor& asin_();
  Tensor& acos_();
  Tensor& atan_();
  Tensor& sinh_();
  Tensor& cosh_();
  Tensor& erf_();
  Tensor& erfc_();
  Tensor& sign_();
  Tensor& square_();
  Tensor& floor_();
  Tensor& ceil_();
  Tensor& round_();
  Tensor& trunc_();
  Tensor& frac_();
  Tensor& nan_to_num_(std::optional<double> nan = std::nullopt, std::optional<double> posinf = std::nullopt,
                      std::optional<double> neginf = std::nullopt);
  Tensor& zero_();
  Tensor& fill_(Scalar value);
  Tensor& fill_(const Tensor& value);  // value is 0-dim

  // ---- reductions (torch.sum, mean, max, ...: dims wrap, keepdim, integer sums widen to int64) ----
  Tensor sum(std::optional<DType> dtype = std::nullopt) const;
  Tensor sum(IntArrayRef dims, bool keepdim = false, std::optional<DType> dtype = std::nullopt) const;
  Tensor nansum(IntArrayRef dims = {}, bool keepdim = false) const;
  Tensor mean(std::optional<DType> dtype = std::nullopt) const;
  Tensor mean(IntArrayRef dims, bool keepdim = false, std::optional<DType> dtype = std::nullopt) const;
  Tensor nanmean(IntArrayRef dims = {}, bool keepdim = false) const;
  Tensor prod(std::optional<DType> dtype = std::nullopt) const;
  Tensor prod(int64_t dim, bool keepdim = false, std::optional<DType> dtype = std::nullopt) const;
  Tensor max() const;
  std::tuple<Tensor, Tensor> max(int64_t dim, bool keepdim = false) const;
  Tensor min() const;
  std::tuple<Tensor, Tensor> min(int64_t dim, bool keepdim = false) const;
  Tensor amax(IntArrayRef dims = {}, bool keepdim = false) const;
  Tensor amin(IntArrayRef dims = {}, bool keepdim = false) const;
  Tensor argmax(std::optional<int64_t> dim = std::nullopt, bool keepdim = false) const;
  Tensor argmin(std::optional<int64_t> dim = std::nullopt, bool keepdim = false) const;
  Tensor var(IntArrayRef dims = {}, int64_t correction = 1, bool keepdim = false) const;
  Tensor std(IntArrayRef dims = {}, int64_t correction = 1, bool keepdim = false) const;
  // LibTorch's var(bool unbiased) over every element, and var(dim) for one dim: a bool alone is the
  // correction and an integer alone a dim, as in LibTorch, instead of both binding to dims.
  Tensor var(bool unbiased) const { return var({}, unbiased ? 1 : 0); }
  Tensor var(int64_t dim) const { return var(IntArrayRef(dim)); }
  Tensor var(int dim) const { return var(int64_t{dim}); }
  Tensor std(bool unbiased) const { return std({}, unbiased ? 1 : 0); }
  Tensor std(int64_t dim) const { return std(IntArrayRef(dim)); }
  Tensor std(int dim) const { return std(int64_t{dim}); }
  Tensor norm(Scalar p = 2) const;
  Tensor norm(Scalar p, IntArrayRef dims, bool keepdim = false) const;
  Tensor logsumexp(IntArrayRef dims, bool keepdim = false) const;
  // amin and amax in one call (tensor/reduction_pairs.cpp); no derivative, as in PyTorch 1.13.
  std::tuple<Tensor, Tensor> aminmax(std::optional<int64_t> dim = std::nullopt, bool keepdim = false) const;
  Tensor all() const;
  Tensor all(int64_t dim, bool keepdim = false) const;
  Tensor any() const;
  Tensor any(int64_t dim, bool keepdim = false) const;
  Tensor count_nonzero(IntArrayRef dims = {}) const;
  Tensor cumsum(int64_t dim, std::optional<DType> dtype = std::nullopt) const;
  Tensor cumprod(int64_t dim, std::optional<DType> dtype = std::nullopt) const;
  // The running maximum (minimum) and the index where it was last reached.
  std::tuple<Tensor, Tensor> cummax(int64_t dim) const;
  std::tuple<Tensor, Tensor> cummin(int64_t dim) const;
  Tensor logcumsumexp(int64_t dim) const;
  Tensor softmax(int64_t dim, std::optional<DType> dtype = std::nullopt) const;
  Tensor log_softmax(int64_t dim, std::optional<DType> dtype = std::nullopt) const;

  // ---- linear algebra (torch.matmul's broadcasting rules; mm, bmm, addmm) ----
  Tensor matmul(const Tensor& other) const;
  Tensor mm(const Tensor& mat2) const;
  Tensor bmm(const Tensor& mat2) const;
  Tensor mv(const Tensor& vec) const;
  Tensor dot(const Tensor& other) const;
  Tensor addmm(const Tensor& mat1, const Tensor& mat2, Scalar beta = 1, Scalar alpha = 1) const;
  Tensor baddbmm(const Tensor& batch1, const Tensor& batch2, Scalar beta = 1, Scalar alpha = 1) const;
  // Products and diagonals of vectors and matrices (tensor/products.cpp). beta 0 ignores self, NaN
  // included, as in PyTorch; cross without dim takes the first dim of size 3.
  Tensor outer(const Tensor& vec2) const;
  Tensor ger(const Tensor& vec2) const { return outer(vec2); }
  Tensor addmv(const Tensor& mat, const Tensor& vec, Scalar beta = 1, Scalar alpha = 1) const;
  Tensor addr(const Tensor& vec1, const Tensor& vec2, Scalar beta = 1, Scalar alpha = 1) const;
  Tensor kron(const Tensor& other) const;
  Tensor trace() const;
  Tensor diag_embed(int64_t offset = 0, int64_t dim1 = -2, int64_t dim2 = -1) const;
  Tensor cross(const Tensor& other, std::optional<int64_t> dim = std::nullopt) const;

  // ---- sorting (PyTorch's sort, argsort, msort, topk, kthvalue; stable order, NaN largest) ----
  std::tuple<Tensor, Tensor> sort(int64_t dim = -1, bool descending = false) const;
  std::tuple<Tensor, Tensor> sort(std::optional<bool> stable, int64_t dim = -1, bool descending = false) const;
  Tensor argsort(int64_t dim = -1, bool descending = false) const;
  Tensor argsort(bool stable, int64_t dim = -1, bool descending = false) const;
  Tensor msort() const;
  std::tuple<Tensor, Tensor> topk(int64_t k, int64_t dim = -1, bool largest = true, bool sorted = true) const;
  std::tuple<Tensor, Tensor> kthvalue(int64_t k, int64_t dim = -1, bool keepdim = false) const;
  // The lower median ((n - 1) / 2-th smallest): NaN where a NaN is (median), or of the other values
  // (nanmedian). The dim forms also give its index.
  Tensor median() const;
  std::tuple<Tensor, Tensor> median(int64_t dim, bool keepdim = false) const;
  Tensor nanmedian() const;
  std::tuple<Tensor, Tensor> nanmedian(int64_t dim, bool keepdim = false) const;
  // The most frequent value of each slice (the smallest of equally frequent ones) and the index of its
  // last occurrence. Each NaN counts as a value of its own.
  std::tuple<Tensor, Tensor> mode(int64_t dim = -1, bool keepdim = false) const;
  // The q-th quantiles (q in [0, 1]: a number, or a 0-dim or 1-D tensor whose values lead the result's
  // dims) of all elements or of each slice along dim, between the two nearest elements as
  // `interpolation` says: "linear", "lower", "higher", "midpoint" or "nearest". quantile is NaN where a
  // slice holds NaN; nanquantile leaves NaN out. float32 and float64, as PyTorch.
  Tensor quantile(const Tensor& q, std::optional<int64_t> dim = std::nullopt, bool keepdim = false,
                  std::string_view interpolation = "linear") const;
  Tensor quantile(double q, std::optional<int64_t> dim = std::nullopt, bool keepdim = false,
                  std::string_view interpolation = "linear") const;
  Tensor nanquantile(const Tensor& q, std::optional<int64_t> dim = std::nullopt, bool keepdim = false,
                     std::string_view interpolation = "linear") const;
  Tensor nanquantile(double q, std::optional<int64_t> dim = std::nullopt, bool keepdim = false,
                     std::string_view interpolation = "linear") const;

  // ---- distinct values (PyTorch's unique, unique_consecutive) ----
  // (values, inverse, counts): the distinct elements in ascending order (or the distinct slices along
  // dim, in lexicographic order), each element's (or slice's) index into them, and how often each
  // occurs. unique_consecutive merges only neighbours and keeps their order. NaN is never equal to
  // NaN, and ember always sorts (sorted=false leaves the order open in PyTorch). Outputs not asked for
  // are empty. The count of distinct values is read back.
  std::tuple<Tensor, Tensor, Tensor> unique(bool sorted = true, bool return_inverse = false,
                                            bool return_counts = false,
                                            std::optional<int64_t> dim = std::nullopt) const;
  std::tuple<Tensor, Tensor, Tensor> unique_consecutive(bool return_inverse = false, bool return_counts = false,
                                                        std::optional<int64_t> dim = std::nullopt) const;

  // ---- counting (PyTorch's bincount, histc) ----
  // Occurrences (or summed weights) of each value of a 1-D non-negative integer tensor; reads the
  // largest value back, as PyTorch's size depends on it.
  Tensor bincount(const std::optional<Tensor>& weights = std::nullopt, int64_t minlength = 0) const;
  // Counts in `bins` equal bins over [min, max]; min == max takes the data's range (a read-back).
  Tensor histc(int64_t bins = 100, Scalar min = 0, Scalar max = 0) const;

  // ---- random, in place (Tensor.uniform_, normal_, bernoulli_, random_, exponential_, geometric_,
  // log_normal_, cauchy_; Philox, see above) ----
  Tensor& uniform_(double from = 0, double to = 1, Generator* generator = nullptr);
  Tensor& normal_(double mean = 0, double std = 1, Generator* generator = nullptr);
  Tensor& bernoulli_(double p = 0.5, Generator* generator = nullptr);
  Tensor& random_(int64_t from, int64_t to, Generator* generator = nullptr);
  Tensor& random_(int64_t to, Generator* generator = nullptr) { return random_(0, to, generator); }
  Tensor& exponential_(double lambd = 1, Generator* generator = nullptr);
  Tensor& geometric_(double p, Generator* generator = nullptr);  // any dtype but bool: trials, 1 or more
  Tensor& log_normal_(double mean = 1, double std = 2, Generator* generator = nullptr);
  Tensor& cauchy_(double median = 0, double sigma = 1, Generator* generator = nullptr);
  Tensor bernoulli(Generator* generator = nullptr) const;

  // ---- masked scatter, diagonal fill, nonzero as index tensors ----
  // PyTorch's masked_scatter(_), fill_diagonal_ and nonzero_numpy (nonzero(as_tuple=True)).
  Tensor& masked_scatter_(const Tensor& mask, const Tensor& source);
  Tensor masked_scatter(const Tensor& mask, const Tensor& source) const;
  Tensor& fill_diagonal_(Scalar fill_value, bool wrap = false);
  std::vector<Tensor> nonzero_numpy() const;

  // ---- scatter with a reduction (PyTorch 1.13's scatter_reduce and scatter's reduce argument) ----
  // reduce: "sum", "prod", "mean", "amax" or "amin"; include_self = false leaves self's values at the
  // scattered positions out of the reduction.
  Tensor scatter_reduce(int64_t dim, const Tensor& index, const Tensor& src, std::string_view reduce,
                        bool include_self = true) const;
  Tensor& scatter_reduce_(int64_t dim, const Tensor& index, const Tensor& src, std::string_view reduce,
                          bool include_self = true);
  // index_reduce: source's slices along dim reduced into self's slices index[i] (reduce: "prod", "mean",
  // "amax" or "amin"), PyTorch 1.13's beta op.
  Tensor index_reduce(int64_t dim, const Tensor& index, const Tensor& source, std::string_view reduce,
                      bool include_self = true) const;
  Tensor& index_reduce_(int64_t dim, const Tensor& index, const Tensor& source, std::string_view reduce,
                        bool include_self = true);
  // reduce: "add" or "multiply". Not differentiable, as in PyTorch.
  Tensor scatter(int64_t dim, const Tensor& index, const Tensor& src, std::string_view reduce) const;
  Tensor scatter(int64_t dim, const Tensor& index, Scalar value, std::string_view reduce) const;
  Tensor& scatter_(int64_t dim, const Tensor& index, const Tensor& src, std::string_view reduce);
  Tensor& scatter_(int64_t dim, const Tensor& index, Scalar value, std::string_view reduce);

  // ---- printing (PyTorch's repr format and print options) ----
  std::string toString() const;

  // ---- operators (Python's operator semantics: `2 / x` is true division) ----
  Tensor operator-() const { return neg(); }
  Tensor operator~() const { return bitwise_not(); }
  Tensor& operator+=(const Tensor& other) { return add_(other); }
  Tensor& operator+=(Scalar other) { return add_(other); }
  Tensor& operator-=(const Tensor& other) { return sub_(other); }
  Tensor& operator-=(Scalar other) { return sub_(other); }
  Tensor& operator*=(const Tensor& other) { return mul_(other); }
  Tensor& operator*=(Scalar other) { return mul_(other); }
  Tensor& operator/=(const Tensor& other) { return div_(other); }
  Tensor& operator/=(Scalar other) { return div_(other); }
  Tensor& operator&=(const Tensor& other) { return bitwise_and_(other); }
  Tensor& operator&=(Scalar other) { return bitwise_and_(other); }
  Tensor& operator|=(const Tensor& other) { return bitwise_or_(other); }
  Tensor& operator|=(Scalar other) { return bitwise_or_(other); }
  Tensor& operator^=(const Tensor& other) { return bitwise_xor_(other); }
  Tensor& operator^=(Scalar other) { return bitwise_xor_(other); }
  Tensor& operator<<=(const Tensor& other) { return bitwise_left_shift_(other); }
  Tensor& operator<<=(Scalar other) { return bitwise_left_shift_(other); }
  Tensor& operator>>=(const Tensor& other) { return bitwise_right_shift_(other); }
  Tensor& operator>>=(Scalar other) { return bitwise_right_shift_(other); }

 private:
  std::shared_ptr<TensorImpl> impl_;
};

Tensor operator+(const Tensor& a, const Tensor& b);
Tensor operator+(const Tensor& a, Scalar b);
Tensor operator+(Scalar a, const Tensor& b);
Tensor operator-(const Tensor& a, const Tensor& b);
Tensor operator-(const Tensor& a, Scalar b);
Tensor operator-(Scalar a, const Tensor& b);
Tensor operator*(const Tensor& a, const Tensor& b);
Tensor operator*(const Tensor& a, Scalar b);
Tensor operator*(Scalar a, const Tensor& b);
Tensor operator/(const Tensor& a, const Tensor& b);
Tensor operator/(const Tensor& a, Scalar b);
Tensor operator/(Scalar a, const Tensor& b);
Tensor operator%(const Tensor& a, const Tensor& b);
Tensor operator%(const Tensor& a, Scalar b);
Tensor operator==(const Tensor& a, const Tensor& b);
Tensor operator==(const Tensor& a, Scalar b);
Tensor operator!=(const Tensor& a, const Tensor& b);
Tensor operator!=(const Tensor& a, Scalar b);
Tensor operator<(const Tensor& a, const Tensor& b);
Tensor operator<(const Tensor& a, Scalar b);
Tensor operator<=(const Tensor& a, const Tensor& b);
Tensor operator<=(const Tensor& a, Scalar b);
Tensor operator>(const Tensor& a, const Tensor& b);
Tensor operator>(const Tensor& a, Scalar b);
Tensor operator>=(const Tensor& a, const Tensor& b);
Tensor operator>=(const Tensor& a, Scalar b);
Tensor operator&(const Tensor& a, const Tensor& b);
Tensor operator|(const Tensor& a, const Tensor& b);
Tensor operator^(const Tensor& a, const Tensor& b);
Tensor operator<<(const Tensor& a, const Tensor& b);
Tensor operator<<(const Tensor& a, Scalar b);
Tensor operator>>(const Tensor& a, const Tensor& b);
Tensor operator>>(const Tensor& a, Scalar b);
std::ostream& operator<<(std::ostream& out, const Tensor& tensor);

}  // namespace ember
