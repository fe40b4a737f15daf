#include "tests/fuzz_support.h"

#include <torch/version.h>

#include <algorithm>
#include <cmath>
#include <cstdlib>
#include <iostream>
#include <limits>
#include <typeinfo>

namespace ember::test::fuzz {

std::string describe(const ScalarValue& value) {
  if (const bool* b = std::get_if<bool>(&value)) return *b ? "true" : "false";
  if (const int64_t* i = std::get_if<int64_t>(&value)) return std::to_string(*i);
  std::ostringstream out;
  out.precision(17);
  out << std::get<double>(value);
  return out.str();
}

bool is_half(at::ScalarType type) { return type == at::kHalf || type == at::kBFloat16; }

namespace {

bool contains(const std::string& text, std::string_view part) { return text.find(part) != std::string::npos; }

// The first line of an error, which is all a failure report needs.
std::string first_line(const std::string& s) { return s.substr(0, s.find('\n')); }

// Results with more elements have their sizes and dtype compared, not their values: an expansion to
// 2^32 rows is a valid view whose copy no memory holds.
constexpr int64_t kLargestCompared = int64_t{1} << 24;

// Drops LibTorch's warnings (deprecated writes to expanded tensors), which the fuzzer provokes by design.
// PyTorch 2 changed the handler's signature and moved its guard (the GPU machine compiles the tests
// against its own LibTorch 2.x; CI's is 1.13).
class SilentWarnings : public c10::WarningHandler {
 public:
#if TORCH_VERSION_MAJOR >= 2
  void process(const c10::Warning&) override {}
#else
  void process(const c10::SourceLocation&, const std::string&, const bool) override {}
#endif
};
#if TORCH_VERSION_MAJOR >= 2
using WarningHandlerGuard = c10::WarningUtils::WarningHandlerGuard;
#else
using WarningHandlerGuard = c10::Warning::WarningHandlerGuard;
#endif

// t converted to `type`, or for a tensor too large to copy a stand-in with its sizes.
at::Tensor as_type(const at::Tensor& t, at::ScalarType type) {
  if (t.numel() <= kLargestCompared) return t.to(type);
  return at::zeros({}, t.options().dtype(type)).expand(t.sizes());
}

}  // namespace

// ---- ember's side ----

TensorOptions EmberSide::opts(std::optional<DType> dtype) const {
  TensorOptions options = TensorOptions().device(device);
  return dtype ? options.dtype(*dtype) : options;
}
Scalar EmberSide::scalar(const ScalarValue& value) const {
  return std::visit([](auto v) { return Scalar(v); }, value);
}
Tensor EmberSide::empty(const std::vector<int64_t>& sizes, std::optional<DType> dtype) const {
  return ember::empty(sizes, opts(dtype));
}
Tensor EmberSide::zeros(const std::vector<int64_t>& sizes, std::optional<DType> dtype) const {
  return ember::zeros(sizes, opts(dtype));
}
Tensor EmberSide::ones(const std::vector<int64_t>& sizes, std::optional<DType> dtype) const {
  return ember::ones(sizes, opts(dtype));
}
Tensor EmberSide::full(const std::vector<int64_t>& sizes, const ScalarValue& value, std::optional<DType> dtype) const {
  return ember::full(sizes, scalar(value), opts(dtype));
}
Tensor EmberSide::arange(const ScalarValue& start, const ScalarValue& end, const ScalarValue& step,
                         std::optional<DType> dtype) const {
  return ember::arange(scalar(start), scalar(end), scalar(step), opts(dtype));
}
Tensor EmberSide::linspace(const ScalarValue& start, const ScalarValue& end, int64_t steps,
                           std::optional<DType> dtype) const {
  return ember::linspace(scalar(start), scalar(end), steps, opts(dtype));
}
Tensor EmberSide::eye(int64_t n, int64_t m, std::optional<DType> dtype) const { return ember::eye(n, m, opts(dtype)); }
Tensor EmberSide::cat(const std::vector<Tensor>& tensors, int64_t dim) const { return ember::cat(tensors, dim); }
Tensor EmberSide::stack(const std::vector<Tensor>& tensors, int64_t dim) const { return ember::stack(tensors, dim); }
Tensor EmberSide::where(const Tensor& condition, const Tensor& a, const Tensor& b) const {
  return ember::where(condition, a, b);
}
Tensor EmberSide::index_put_(Tensor& self, const std::vector<Tensor>& indices, const Tensor& value,
                             bool accumulate) const {
  std::vector<TensorIndex> index;
  for (const Tensor& t : indices) index.emplace_back(t);
  return self.index_put_(index, value, accumulate);
}
Tensor EmberSide::index_put_scalar(Tensor& self, const std::vector<Tensor>& indices, const ScalarValue& value) const {
  std::vector<TensorIndex> index;
  for (const Tensor& t : indices) index.emplace_back(t);
  return self.index_put_(index, scalar(value));
}
Tensor EmberSide::div(const Tensor& a, const Tensor& b, std::string_view mode) const { return a.div(b, mode); }
Tensor EmberSide::sum(const Tensor& x, const std::vector<int64_t>& dims, bool keepdim) const {
  return x.sum(dims, keepdim);
}
Tensor EmberSide::mean(const Tensor& x, const std::vector<int64_t>& dims, bool keepdim) const {
  return x.mean(dims, keepdim);
}
Tensor EmberSide::var(const Tensor& x, const std::vector<int64_t>& dims, int64_t correction, bool keepdim) const {
  return x.var(dims, correction, keepdim);
}
Tensor EmberSide::std(const Tensor& x, const std::vector<int64_t>& dims, int64_t correction, bool keepdim) const {
  return x.std(dims, correction, keepdim);
}
Tensor EmberSide::norm(const Tensor& x, const ScalarValue& p, const std::vector<int64_t>& dims, bool keepdim) const {
  return x.norm(scalar(p), dims, keepdim);
}
Tensor EmberSide::argmax(const Tensor& x, std::optional<int64_t> dim, bool keepdim) const {
  return x.argmax(dim, keepdim);
}
Tensor EmberSide::count_nonzero(const Tensor& x, const std::vector<int64_t>& dims) const {
  return x.count_nonzero(dims);
}
Tensor EmberSide::matmul(const Tensor& a, const Tensor& b) const { return a.matmul(b); }

// ---- LibTorch's side ----

at::ScalarType TorchSide::dt(DType dtype) const {
  const at::ScalarType type = torch_dtype(dtype);
  if (widen && is_half(type)) {
    if (!half_seen) half_seen = type;
    return at::kFloat;
  }
  if (is_floating_point(dtype)) float_seen = true;
  return type;
}
at::TensorOptions TorchSide::opts(std::optional<DType> dtype) const {
  return dtype ? at::TensorOptions().dtype(dt(*dtype)) : at::TensorOptions();
}
at::Scalar TorchSide::scalar(const ScalarValue& value) const {
  return std::visit([](auto v) { return at::Scalar(v); }, value);
}
at::Tensor TorchSide::empty(const std::vector<int64_t>& sizes, std::optional<DType> dtype) const {
  return at::empty(sizes, opts(dtype));
}
at::Tensor TorchSide::zeros(const std::vector<int64_t>& sizes, std::optional<DType> dtype) const {
  return at::zeros(sizes, opts(dtype));
}
at::Tensor TorchSide::ones(const std::vector<int64_t>& sizes, std::optional<DType> dtype) const {
  return at::ones(sizes, opts(dtype));
}
at::Tensor TorchSide::full(const std::vector<int64_t>& sizes, const ScalarValue& value,
                           std::optional<DType> dtype) const {
  return at::full(sizes, scalar(value), opts(dtype));
}
at::Tensor TorchSide::arange(const ScalarValue& start, const ScalarValue& end, const ScalarValue& step,
                             std::optional<DType> dtype) const {
  return at::arange(scalar(start), scalar(end), scalar(step), opts(dtype));
}
at::Tensor TorchSide::linspace(const ScalarValue& start, const ScalarValue& end, int64_t steps,
                               std::optional<DType> dtype) const {
  return at::linspace(scalar(start), scalar(end), steps, opts(dtype));
}
at::Tensor TorchSide::eye(int64_t n, int64_t m, std::optional<DType> dtype) const {
  return at::eye(n, m, opts(dtype));
}
at::Tensor TorchSide::cat(const std::vector<at::Tensor>& tensors, int64_t dim) const { return at::cat(tensors, dim); }
at::Tensor TorchSide::stack(const std::vector<at::Tensor>& tensors, int64_t dim) const {
  return at::stack(tensors, dim);
}
at::Tensor TorchSide::where(const at::Tensor& condition, const at::Tensor& a, const at::Tensor& b) const {
  return at::where(condition, a, b);
}
at::Tensor TorchSide::index_put_(at::Tensor& self, const std::vector<at::Tensor>& indices, const at::Tensor& value,
                                 bool accumulate) const {
  c10::List<c10::optional<at::Tensor>> index;
  for (const at::Tensor& t : indices) index.push_back(t);
  // LibTorch's TensorIndex form (indexing::set_item), which ember's index_put_ follows, drops the value's
  // leading 1s first; the raw op would not.
  std::vector<int64_t> sizes = value.sizes().vec();
  while (!sizes.empty() && sizes.front() == 1) sizes.erase(sizes.begin());
  return self.index_put_(index, value.reshape(sizes), accumulate);
}
at::Tensor TorchSide::index_put_scalar(at::Tensor& self, const std::vector<at::Tensor>& indices,
                                       const ScalarValue& value) const {
  c10::List<c10::optional<at::Tensor>> index;
  for (const at::Tensor& t : indices) index.push_back(t);
  return self.index_put_(index, at::scalar_tensor(scalar(value), self.options()));
}
at::Tensor TorchSide::div(const at::Tensor& a, const at::Tensor& b, std::string_view mode) const {
  return a.div(b, c10::string_view(mode.data(), mode.size()));
}
at::Tensor TorchSide::sum(const at::Tensor& x, const std::vector<int64_t>& dims, bool keepdim) const {
  return x.sum(at::OptionalIntArrayRef(dims), keepdim);
}
at::Tensor TorchSide::mean(const at::Tensor& x, const std::vector<int64_t>& dims, bool keepdim) const {
  return x.mean(at::OptionalIntArrayRef(dims), keepdim);
}
at::Tensor TorchSide::var(const at::Tensor& x, const std::vector<int64_t>& dims, int64_t correction,
                          bool keepdim) const {
  return x.var(at::OptionalIntArrayRef(dims), c10::optional<int64_t>(correction), keepdim);
}
at::Tensor TorchSide::std(const at::Tensor& x, const std::vector<int64_t>& dims, int64_t correction,
                          bool keepdim) const {
  return x.std(at::OptionalIntArrayRef(dims), c10::optional<int64_t>(correction), keepdim);
}
at::Tensor TorchSide::norm(const at::Tensor& x, const ScalarValue& p, const std::vector<int64_t>& dims,
                           bool keepdim) const {
  return x.norm(c10::optional<at::Scalar>(scalar(p)), at::IntArrayRef(dims), keepdim);
}
at::Tensor TorchSide::argmax(const at::Tensor& x, std::optional<int64_t> dim, bool keepdim) const {
  return x.argmax(dim ? c10::optional<int64_t>(*dim) : c10::nullopt, keepdim);
}
at::Tensor TorchSide::count_nonzero(const at::Tensor& x, const std::vector<int64_t>& dims) const {
  return x.count_nonzero(at::IntArrayRef(dims));
}
at::Tensor TorchSide::matmul(const at::Tensor& a, const at::Tensor& b) const { return a.matmul(b); }

// ---- drawing ----

Iteration::Iteration(uint64_t seed, std::string op, std::shared_ptr<Device> device, std::string replay)
    : seed_(seed),
      op_(std::move(op)),
      device_(std::move(device)),
      replay_(std::move(replay)),
      rng_(seed),
      generator_(at::detail::createCPUGenerator(seed)) {}

int64_t Iteration::integer(int64_t low, int64_t high) {
  return std::uniform_int_distribution<int64_t>(low, high)(rng_);
}

bool Iteration::chance(double p) { return std::uniform_real_distribution<double>(0, 1)(rng_) < p; }

DType Iteration::dtype() {
  // float32 and int64 are what most programs use: drawn twice as often.
  static const std::vector<DType> weighted = {DType::Float32, DType::Float32, DType::Float16, DType::BFloat16,
                                              DType::Float64, DType::Int8,    DType::UInt8,   DType::Int16,
                                              DType::Int32,   DType::Int64,   DType::Int64,   DType::Bool};
  return pick(weighted);
}

std::vector<int64_t> Iteration::shape(int64_t max_rank) {
  static const std::vector<int64_t> ranks = {0, 1, 1, 2, 2, 2, 3, 3, 4};
  static const std::vector<int64_t> sizes = {0, 1, 1, 1, 2, 2, 3, 3, 3, 4, 5, 5, 6, 7, 9, 1, 2, 3, 4, 5};
  int64_t rank = pick(ranks);
  rank = std::min(rank, max_rank);
  while (true) {
    std::vector<int64_t> shape;
    int64_t numel = 1;
    for (int64_t d = 0; d < rank; ++d) {
      shape.push_back(pick(sizes));
      numel *= shape.back();
    }
    if (numel <= 2000) return shape;
  }
}

std::vector<int64_t> Iteration::broadcast_partner(const std::vector<int64_t>& shape, double wrong) {
  const int64_t rank = static_cast<int64_t>(shape.size());
  int64_t partner_rank = rank;
  if (chance(0.2)) partner_rank = rank + 1;
  else if (rank > 0 && chance(0.25)) partner_rank = integer(0, rank - 1);
  std::vector<int64_t> partner(partner_rank);
  for (int64_t i = 0; i < partner_rank; ++i) {
    const int64_t aligned = rank - partner_rank + i;  // shape's dim under this one, when >= 0
    if (aligned < 0) {
      partner[i] = integer(1, 3);
    } else if (shape[aligned] == 1) {
      partner[i] = chance(0.7) ? 1 : integer(0, 4);
    } else {
      partner[i] = chance(0.7) ? shape[aligned] : 1;
    }
  }
  if (chance(wrong)) {
    for (int64_t i = partner_rank - 1; i >= 0; --i) {
      const int64_t aligned = rank - partner_rank + i;
      if (aligned >= 0 && shape[aligned] != 1) {
        partner[i] = shape[aligned] + 1;
        break;
      }
    }
  }
  return partner;
}

int64_t Iteration::dim(int64_t rank, double wrong) {
  const int64_t wrapped = std::max<int64_t>(rank, 1);  // a 0-dim tensor takes dims -1 and 0
  if (chance(wrong)) return pick(std::vector<int64_t>{wrapped, -wrapped - 1, 7, -64});
  return integer(-wrapped, wrapped - 1);
}

std::vector<int64_t> Iteration::dims(int64_t rank) {
  std::vector<int64_t> order(rank);
  for (int64_t d = 0; d < rank; ++d) order[d] = d;
  std::shuffle(order.begin(), order.end(), rng_);
  std::vector<int64_t> result;
  const int64_t count = integer(0, rank);
  for (int64_t i = 0; i < count; ++i) result.push_back(chance(0.3) ? order[i] - rank : order[i]);
  if (!result.empty() && chance(0.08)) result.push_back(result.front());
  if (chance(0.05)) result.push_back(std::max<int64_t>(rank, 1));
  return result;
}

ScalarValue Iteration::scalar() {
  switch (integer(0, 9)) {
    case 0:
    case 1:
    case 2:
    case 3: return pick(std::vector<int64_t>{0, 1, -1, 2, 3, -7, 5});
    case 4:
      return pick(std::vector<int64_t>{127, 128, 255, 256, 300, -129, 70000, int64_t{1} << 31, int64_t{1} << 40,
                                       std::numeric_limits<int64_t>::max(), std::numeric_limits<int64_t>::min()});
    case 5:
    case 6:
    case 7: return pick(std::vector<double>{0.0, -0.0, 0.5, -2.5, 3.0, 1.5, -0.25});
    case 8:
      return pick(std::vector<double>{1e10, 1e40, -1e40, 1e300, std::nan(""), INFINITY, -INFINITY, 1e-45, 70000.0});
    default: return chance(0.5);
  }
}

std::vector<int64_t> Iteration::factory_sizes() {
  const int64_t big32 = int64_t{1} << 32;
  switch (integer(0, 19)) {
    case 0: {
      std::vector<int64_t> sizes = shape(3);
      if (sizes.empty()) sizes.push_back(2);
      sizes[integer(0, sizes.size() - 1)] = pick(std::vector<int64_t>{-1, -3});
      return sizes;
    }
    case 1: return {big32, big32};
    case 2: return {int64_t{1} << 62};
    case 3: return {int64_t{1} << 61, 4};
    case 4: return {3037000500, 3037000500};
    case 5: return {std::numeric_limits<int64_t>::max()};
    case 6: return {kNoHostHasThisMany};  // no overflow, but no device or host has that memory
    case 7: return pick(std::vector<std::vector<int64_t>>{{big32, 0, big32}, {big32, big32, 0}, {0, int64_t{1} << 62}});
    default: return shape();
  }
}

at::Tensor Iteration::longs(const std::vector<int64_t>& shape, int64_t low, int64_t high) {
  return random_torch(shape, DType::Int64, generator_, ValueRange{static_cast<double>(low), static_cast<double>(high)});
}

// ---- inputs ----

Layout Iteration::layout_for(const std::vector<int64_t>& shape, bool expansion_allowed) {
  const size_t rank = shape.size();
  std::vector<Layout> layouts = {Layout::Contiguous, Layout::Contiguous, Layout::Contiguous};
  if (rank >= 2) layouts.push_back(Layout::Transposed);
  if (rank >= 3) layouts.push_back(Layout::Reversed);
  if (rank >= 1) {
    layouts.push_back(Layout::Stepped);
    layouts.push_back(Layout::Offset);
    if (expansion_allowed) layouts.push_back(Layout::Expanded);
  }
  return pick(layouts);
}

namespace {

const char* layout_name(Layout layout) {
  switch (layout) {
    case Layout::Contiguous: return "contiguous";
    case Layout::Transposed: return "transposed";
    case Layout::Reversed: return "dims reversed";
    case Layout::Stepped: return "stepped";
    case Layout::Offset: return "at an offset";
    case Layout::Expanded: return "expanded";
  }
  return "?";
}

// The storage a layout needs for a view of `shape`, and the view, as one generic function for both APIs.
struct LayoutPlan {
  std::vector<int64_t> base_shape;
  std::function<at::Tensor(const at::Tensor&)> torch_view;
  std::function<Tensor(const Tensor&)> ember_view;
  std::string note;
};

template <class F>
LayoutPlan plan(std::vector<int64_t> base_shape, F view, std::string note = "") {
  return {std::move(base_shape), view, view, std::move(note)};
}

LayoutPlan plan_layout(Layout layout, const std::vector<int64_t>& shape, int64_t expanded_dim) {
  std::vector<int64_t> base = shape;
  const int64_t rank = static_cast<int64_t>(shape.size());
  switch (layout) {
    case Layout::Contiguous: return plan(base, [](const auto& t) { return t; });
    case Layout::Transposed:
      std::swap(base[rank - 1], base[rank - 2]);
      return plan(base, [](const auto& t) { return t.transpose(-1, -2); });
    case Layout::Reversed: {
      std::reverse(base.begin(), base.end());
      std::vector<int64_t> order(rank);
      for (int64_t d = 0; d < rank; ++d) order[d] = rank - 1 - d;
      return plan(base, [order](const auto& t) { return t.permute(order); });
    }
    case Layout::Stepped: {
      const int64_t wide = 2 * shape.back() + 1;
      base.back() = wide;
      return plan(base, [wide](const auto& t) { return t.slice(-1, 1, wide, 2); });
    }
    case Layout::Offset: {
      const int64_t n = shape.front();
      base.front() = n + 2;
      return plan(base, [n](const auto& t) { return t.narrow(0, 1, n); });
    }
    case Layout::Expanded:
      base[expanded_dim] = 1;
      return plan(base, [shape](const auto& t) { return t.expand(shape); },
                  " along dim " + std::to_string(expanded_dim));
  }
  return plan(base, [](const auto& t) { return t; });
}

// NaN, infinities, -0 and the dtype's extremes. int32 and int64 take min + 1: LibTorch's CPU traps
// (SIGFPE) on min / -1.
at::Scalar special_value(DType dtype, const InputOptions& options, int64_t choice) {
  if (!is_floating_point(dtype) && !options.extremes) return choice % 2 ? int64_t{0} : int64_t{1};
  const bool infinities = options.infinities, large = options.large;
  switch (dtype) {
    case DType::Float32:
    case DType::Float64:
    case DType::Float16:
    case DType::BFloat16: {
      std::vector<double> values = {std::nan(""), -0.0};
      if (infinities) values.insert(values.end(), {INFINITY, -INFINITY});
      if (large) values.push_back(dtype == DType::Float16 ? 1e4 : 1e30);
      return values[choice % values.size()];
    }
    case DType::Int8: return choice % 2 ? int64_t{127} : int64_t{-128};
    case DType::UInt8: return choice % 2 ? int64_t{255} : int64_t{0};
    case DType::Int16: return choice % 2 ? int64_t{32767} : int64_t{-32768};
    case DType::Int32: return choice % 2 ? int64_t{2147483647} : int64_t{-2147483647};
    case DType::Int64:
      return choice % 2 ? std::numeric_limits<int64_t>::max() : std::numeric_limits<int64_t>::min() + 1;
    case DType::Bool: return true;
  }
  return 0;
}

}  // namespace

size_t Iteration::input(const std::vector<int64_t>& shape, DType dtype, InputOptions options) {
  Layout layout = options.layout.value_or(layout_for(shape, true));
  if (shape.empty() || (shape.size() < 2 && layout == Layout::Transposed) ||
      (shape.size() < 3 && layout == Layout::Reversed)) {
    layout = Layout::Contiguous;
  }
  const int64_t expanded_dim = shape.empty() ? 0 : integer(0, shape.size() - 1);
  LayoutPlan p = plan_layout(layout, shape, expanded_dim);
  at::Tensor base = random_torch(p.base_shape, dtype, generator_, options.range);
  if (options.specials && dtype != DType::Bool && base.numel() > 0 && chance(0.35)) {
    at::Tensor flat = base.view({-1});
    const int64_t count = integer(1, std::min<int64_t>(3, base.numel()));
    for (int64_t i = 0; i < count; ++i) {
      flat.select(0, integer(0, base.numel() - 1)).fill_(special_value(dtype, options, integer(0, 9)));
    }
  }
  return add_input(base, p.torch_view, p.ember_view,
                   std::string(dtype_name(dtype)) + ' ' + to_string(shape) + ' ' + layout_name(layout) + p.note);
}

size_t Iteration::input_values(const at::Tensor& values, std::optional<Layout> requested) {
  const std::vector<int64_t> shape = values.sizes().vec();
  Layout layout = requested.value_or(layout_for(shape, false));
  if (layout == Layout::Expanded || shape.empty() || (shape.size() < 2 && layout == Layout::Transposed) ||
      (shape.size() < 3 && layout == Layout::Reversed)) {
    layout = Layout::Contiguous;
  }
  LayoutPlan p = plan_layout(layout, shape, 0);
  at::Tensor base = at::zeros(p.base_shape, values.options());
  p.torch_view(base).copy_(values);
  return add_input(base, p.torch_view, p.ember_view,
                   std::string(dtype_name(ember_dtype(values.scalar_type()))) + ' ' + to_string(shape) + ' ' +
                       layout_name(layout));
}

size_t Iteration::add_input(const at::Tensor& base, std::function<at::Tensor(const at::Tensor&)> torch_view,
                            std::function<Tensor(const Tensor&)> ember_view, std::string text) {
  Input in;
  in.base = base;
  in.torch_view = std::move(torch_view);
  in.ember_base = from_torch(base, device_);
  in.ember = ember_view(in.ember_base);
  in.text = "#" + std::to_string(inputs_.size()) + ' ' + text;
  inputs_.push_back(std::move(in));
  return inputs_.size() - 1;
}

// ---- checking ----

std::string Iteration::context() const {
  std::ostringstream out;
  out << "fuzz seed=" << seed_ << " op=" << op_ << "\n  inputs:";
  for (const Input& in : inputs_) out << "\n    " << in.text;
  if (inputs_.empty()) out << " none";
  out << "\n  args:" << args_.str() << "\n  replay: " << replay_;
  return out.str();
}

Iteration::TorchRun Iteration::run_torch(const TorchCall& call, bool widen) const {
  TorchRun run;
  run.widened = widen;
  TorchSide side;
  side.widen = widen;
  // The floating dtypes of the tensors that decide a promoted dtype: the inputs with dims, or the 0-dim
  // ones when no input with dims is floating (PyTorch's rule).
  std::vector<at::ScalarType> with_dims, zero_dim;
  for (const Input& in : inputs_) {
    const at::ScalarType type = in.base.scalar_type();
    if (at::isFloatingType(type)) (in.torch_view(in.base).dim() > 0 ? with_dims : zero_dim).push_back(type);
  }
  const std::vector<at::ScalarType>& deciding = with_dims.empty() ? zero_dim : with_dims;
  const bool one_half_type = !deciding.empty() && is_half(deciding.front()) &&
                             std::all_of(deciding.begin(), deciding.end(),
                                         [&](at::ScalarType t) { return t == deciding.front(); });
  if (widen && one_half_type) side.half_seen = deciding.front();
  if (widen && !one_half_type && !deciding.empty()) side.float_seen = true;
  for (const Input& in : inputs_) {
    const at::ScalarType type = in.base.scalar_type();
    at::Tensor base = in.base.clone();
    if (widen && is_half(type)) base = base.to(at::kFloat);
    run.bases.push_back(base);
    run.inputs.push_back(in.torch_view(base));
    if (widen && one_half_type && !is_half(type) && at::isFloatingType(type)) {
      // A 0-dim operand of another floating dtype is first converted to the half dtype, as PyTorch
      // converts every operand to the common dtype. The rounded copy is the operand only: the op does
      // not write it (its result is half), and its storage must still compare equal to ember's.
      run.inputs.back() = run.inputs.back().to(*side.half_seen).to(at::kFloat);
    }
  }
  std::vector<at::Tensor> arguments = run.inputs;  // the call may rebind its copies of the handles
  SilentWarnings silent;
  const WarningHandlerGuard quiet(&silent);
  try {
    run.results = call(arguments, side);
  } catch (const c10::Error& e) {
    run.error = e.what_without_backtrace();
  } catch (const std::exception& e) {
    run.error = e.what();
  }
  if (run.error.empty()) {
    for (at::Tensor& r : run.results) {
      if (!r.defined()) continue;
      if (widen && r.scalar_type() == at::kFloat && side.half_seen && !side.float_seen) r = as_type(r, *side.half_seen);
    }
  }
  if (widen) {
    for (size_t i = 0; i < inputs_.size(); ++i) {
      const at::ScalarType type = inputs_[i].base.scalar_type();
      run.bases[i] = as_type(run.bases[i], type);
      run.inputs[i] = as_type(run.inputs[i], type);
    }
  }
  return run;
}

void Iteration::compare(const Tensor& actual, const at::Tensor& expected, const std::string& what,
                        bool values) const {
  SCOPED_TRACE(what);
  // An empty tensor has no values to compare (and LibTorch cannot flatten one with sizes like [0, 2^62]).
  if (!values || expected.numel() == 0 || expected.numel() > kLargestCompared) {
    EXPECT_EQ(std::string(dtype_name(actual.dtype())), std::string(dtype_name(ember_dtype(expected.scalar_type()))));
    EXPECT_EQ(to_string(actual.sizes()), to_string(expected.sizes().vec()));
    return;
  }
  const Tolerance t = tolerance_for(actual.dtype());
  expect_tensor_eq(actual, expected, t.rtol * tolerance_scale_, t.atol * tolerance_scale_);
}

Iteration::Reference Iteration::reference(const TorchCall& call) const {
  Reference ref{run_torch(call, false)};
  const bool lacks_half = contains(ref.run.error, "not implemented for 'Half'") ||
                          contains(ref.run.error, "not implemented for 'BFloat16'");
  if (lacks_half) {
    // The float32 reference of an op LibTorch's CPU lacks in half precision cannot tell what PyTorch's
    // half kernels refuse: a float16 or bfloat16 operand beside another floating dtype (matmul refuses
    // the mix), or a scalar the half type cannot hold (some kernels convert it to the half type, some to
    // float). ember may refuse those.
    std::vector<at::ScalarType> floating;
    for (const Input& in : inputs_) {
      const at::ScalarType type = in.base.scalar_type();
      if (at::isFloatingType(type) && std::find(floating.begin(), floating.end(), type) == floating.end()) {
        floating.push_back(type);
      }
    }
    ref.mix_unknown = floating.size() > 1;
    ref.range_unknown = true;
    ref.run = run_torch(call, true);
    return ref;
  }
  bool half_result = false;
  for (const at::Tensor& r : ref.run.results) half_result |= r.defined() && is_half(r.scalar_type());
  if (!ref.run.error.empty() || !half_result) return ref;
  // LibTorch's CPU rounds some intermediates in half precision; the reference is the float32 result
  // rounded once, as ember computes it.
  TorchRun widened = run_torch(call, true);
  if (!widened.error.empty() || widened.results.size() != ref.run.results.size()) return ref;
  for (size_t i = 0; i < ref.run.results.size(); ++i) {
    const at::Tensor& direct = ref.run.results[i];
    if (direct.defined() && is_half(direct.scalar_type()) && widened.results[i].is_floating_point()) {
      ref.run.results[i] = as_type(widened.results[i], direct.scalar_type());
    }
  }
  ref.run.bases = widened.bases;
  ref.run.inputs = widened.inputs;
  ref.run.widened = true;
  return ref;
}

void Iteration::compare_results(const std::vector<Tensor>& got, const std::vector<Tensor>& arguments,
                                const TorchRun& expected) const {
  if (got.size() != expected.results.size()) {
    ADD_FAILURE() << "ember returned " << got.size() << " tensors, LibTorch " << expected.results.size();
    return;
  }
  for (size_t i = 0; i < got.size(); ++i) {
    compare(got[i], expected.results[i], "result " + std::to_string(i), !sizes_only_);
    // A view in one library and a copy in the other changes what later in-place writes do.
    if (expected.widened || got[i].numel() == 0) continue;
    for (size_t j = 0; j < inputs_.size(); ++j) {
      const bool torch_alias = expected.results[i].is_alias_of(expected.inputs[j]);
      const bool ember_alias = got[i].storage() == arguments[j].storage();
      EXPECT_EQ(ember_alias, torch_alias) << "result " << i << " shares input " << j << "'s memory in "
                                          << (torch_alias ? "LibTorch" : "ember") << " only";
    }
  }
}

void Iteration::run(const EmberCall& ember_call, const TorchCall& torch_call) {
  const std::string where = context();
  SCOPED_TRACE(where);
  // For a crash, which leaves no failure message: the iteration is printed before it runs, with its
  // input values.
  static const bool verbose = std::getenv("EMBER_FUZZ_VERBOSE") != nullptr;
  if (verbose) {
    std::cerr << where << '\n';
    for (const Input& in : inputs_) std::cerr << in.text << ":\n" << in.torch_view(in.base) << '\n';
  }

  const Reference ref = reference(torch_call);
  const TorchRun& expected = ref.run;
  std::vector<Tensor> arguments;
  for (const Input& in : inputs_) arguments.push_back(in.ember);
  std::vector<Tensor> got;
  std::string ember_error;
  try {
    got = ember_call(arguments, EmberSide{device_});
  } catch (const Error& e) {
    ember_error = e.what();
    if (ember_error.empty()) ember_error = "(ember::Error without a message)";
  } catch (const std::exception& e) {
    ADD_FAILURE() << "ember threw a " << typeid(e).name() << " that is no ember::Error: " << e.what()
                  << "\n  LibTorch: " << (expected.error.empty() ? "returned" : first_line(expected.error));
    return;
  }

  const bool torch_ok = expected.error.empty();
  const bool ember_ok = ember_error.empty();
  if (verbose) {
    std::cerr << "LibTorch: " << (torch_ok ? "returned" : first_line(expected.error)) << '\n';
    for (const at::Tensor& r : expected.results) std::cerr << r << '\n';
    std::cerr << "ember: " << (ember_ok ? "returned" : ember_error) << '\n';
    for (const Tensor& r : got) {
      if (r.numel() <= kLargestCompared) std::cerr << to_torch(r) << '\n';
    }
  }
  try {
    if (torch_ok && !ember_ok) {
      const bool allowed = std::any_of(refusals_.begin(), refusals_.end(),
                                       [&](const std::string& message) { return contains(ember_error, message); });
      const bool unknown = ref.mix_unknown || (ref.range_unknown && contains(ember_error, "without overflow"));
      if (!allowed && !unknown) ADD_FAILURE() << "ember refused what LibTorch accepts\n  ember: " << ember_error;
    } else if (!torch_ok && ember_ok) {
      // Where the refusal is LibTorch's CPU's alone, ember may write what it likes, inputs included.
      for (const std::string& message : lenient_) {
        if (contains(expected.error, message)) return;
      }
      ADD_FAILURE() << "ember accepted what LibTorch refuses\n  LibTorch: " << first_line(expected.error);
      return;
    } else if (torch_ok && ember_ok) {
      compare_results(got, arguments, expected);
    }
    // The inputs: as LibTorch's twins are after a call that returned, untouched after one that threw.
    for (size_t i = 0; i < inputs_.size(); ++i) {
      const at::Tensor& want = ember_ok ? expected.bases[i] : inputs_[i].base;
      compare(inputs_[i].ember_base, want, "storage of input " + std::to_string(i) + " afterwards", true);
    }
  } catch (const Error& e) {
    ADD_FAILURE() << "reading ember's tensors back threw: " << e.what();
  }
}

}  // namespace ember::test::fuzz
