#pragma once
// The machinery of the differential fuzz test (tests/fuzz_test.cpp). One iteration, fixed by its seed,
// draws inputs (shape, dtype, layout, values with NaN, infinities and dtype extremes) and arguments, then
// runs one generic call on ember and on LibTorch. Either both return equal results, or LibTorch throws
// and ember throws ember::Error; in both cases every input (and the storage under it) must hold what
// LibTorch's twin holds afterwards. A failure prints the seed, the op, the inputs and the arguments.
#include <ATen/ATen.h>

#include <functional>
#include <optional>
#include <random>
#include <sstream>
#include <string>
#include <tuple>
#include <variant>
#include <vector>

#include "tests/oracle.h"

namespace ember::test::fuzz {

// An element count that no host can allocate, even one byte each: 2^50 bytes is past the 2^47 a process
// can map, so LibTorch's allocation fails where the kernel overcommits memory too. (2^42 did not: on a
// host with overcommit on, LibTorch got the memory, began to fill it and was killed.)
constexpr int64_t kNoHostHasThisMany = int64_t{1} << 50;

// A scalar argument as the C++ value both APIs take.
using ScalarValue = std::variant<int64_t, double, bool>;
std::string describe(const ScalarValue& value);

bool is_half(at::ScalarType type);

// ember's side of a generic call: options on the test's device, and the calls whose spelling differs.
struct EmberSide {
  std::shared_ptr<Device> device;

  DType dt(DType dtype) const { return dtype; }
  TensorOptions opts(std::optional<DType> dtype) const;
  Scalar scalar(const ScalarValue& value) const;
  Tensor empty(const std::vector<int64_t>& sizes, std::optional<DType> dtype) const;
  Tensor zeros(const std::vector<int64_t>& sizes, std::optional<DType> dtype) const;
  Tensor ones(const std::vector<int64_t>& sizes, std::optional<DType> dtype) const;
  Tensor full(const std::vector<int64_t>& sizes, const ScalarValue& value, std::optional<DType> dtype) const;
  Tensor arange(const ScalarValue& start, const ScalarValue& end, const ScalarValue& step,
                std::optional<DType> dtype) const;
  Tensor linspace(const ScalarValue& start, const ScalarValue& end, int64_t steps, std::optional<DType> dtype) const;
  Tensor eye(int64_t n, int64_t m, std::optional<DType> dtype) const;
  Tensor cat(const std::vector<Tensor>& tensors, int64_t dim) const;
  Tensor stack(const std::vector<Tensor>& tensors, int64_t dim) const;
  Tensor where(const Tensor& condition, const Tensor& a, const Tensor& b) const;
  Tensor index_put_(Tensor& self, const std::vector<Tensor>& indices, const Tensor& value, bool accumulate) const;
  Tensor index_put_scalar(Tensor& self, const std::vector<Tensor>& indices, const ScalarValue& value) const;
  Tensor div(const Tensor& a, const Tensor& b, std::string_view mode) const;
  Tensor sum(const Tensor& x, const std::vector<int64_t>& dims, bool keepdim) const;
  Tensor mean(const Tensor& x, const std::vector<int64_t>& dims, bool keepdim) const;
  Tensor var(const Tensor& x, const std::vector<int64_t>& dims, int64_t correction, bool keepdim) const;
  Tensor std(const Tensor& x, const std::vector<int64_t>& dims, int64_t correction, bool keepdim) const;
  Tensor norm(const Tensor& x, const ScalarValue& p, const std::vector<int64_t>& dims, bool keepdim) const;
  Tensor argmax(const Tensor& x, std::optional<int64_t> dim, bool keepdim) const;
  Tensor count_nonzero(const Tensor& x, const std::vector<int64_t>& dims) const;
  Tensor matmul(const Tensor& a, const Tensor& b) const;
};

// LibTorch's side. With `widen`, float16 and bfloat16 become float32 (the reference for ops LibTorch's
// CPU lacks in half precision, and for the ones it rounds differently; ember computes halves in float32
// and rounds once); `half_seen` and `float_seen` record what was asked for, to round the result back.
struct TorchSide {
  bool widen = false;
  mutable std::optional<at::ScalarType> half_seen;
  mutable bool float_seen = false;

  at::ScalarType dt(DType dtype) const;
  at::TensorOptions opts(std::optional<DType> dtype) const;
  at::Scalar scalar(const ScalarValue& value) const;
  at::Tensor empty(const std::vector<int64_t>& sizes, std::optional<DType> dtype) const;
  at::Tensor zeros(const std::vector<int64_t>& sizes, std::optional<DType> dtype) const;
  at::Tensor ones(const std::vector<int64_t>& sizes, std::optional<DType> dtype) const;
  at::Tensor full(const std::vector<int64_t>& sizes, const ScalarValue& value, std::optional<DType> dtype) const;
  at::Tensor arange(const ScalarValue& start, const ScalarValue& end, const ScalarValue& step,
                    std::optional<DType> dtype) const;
  at::Tensor linspace(const ScalarValue& start, const ScalarValue& end, int64_t steps,
                      std::optional<DType> dtype) const;
  at::Tensor eye(int64_t n, int64_t m, std::optional<DType> dtype) const;
  at::Tensor cat(const std::vector<at::Tensor>& tensors, int64_t dim) const;
  at::Tensor stack(const std::vector<at::Tensor>& tensors, int64_t dim) const;
  at::Tensor where(const at::Tensor& condition, const at::Tensor& a, const at::Tensor& b) const;
  at::Tensor index_put_(at::Tensor& self, const std::vector<at::Tensor>& indices, const at::Tensor& value,
                        bool accumulate) const;
  // As LibTorch's index_put_ with a Scalar (indexing::set_item): the value becomes a 0-dim tensor of
  // self's dtype first.
  at::Tensor index_put_scalar(at::Tensor& self, const std::vector<at::Tensor>& indices, const ScalarValue& value) const;
  at::Tensor div(const at::Tensor& a, const at::Tensor& b, std::string_view mode) const;
  at::Tensor sum(const at::Tensor& x, const std::vector<int64_t>& dims, bool keepdim) const;
  at::Tensor mean(const at::Tensor& x, const std::vector<int64_t>& dims, bool keepdim) const;
  at::Tensor var(const at::Tensor& x, const std::vector<int64_t>& dims, int64_t correction, bool keepdim) const;
  at::Tensor std(const at::Tensor& x, const std::vector<int64_t>& dims, int64_t correction, bool keepdim) const;
  at::Tensor norm(const at::Tensor& x, const ScalarValue& p, const std::vector<int64_t>& dims, bool keepdim) const;
  at::Tensor argmax(const at::Tensor& x, std::optional<int64_t> dim, bool keepdim) const;
  at::Tensor count_nonzero(const at::Tensor& x, const std::vector<int64_t>& dims) const;
  at::Tensor matmul(const at::Tensor& a, const at::Tensor& b) const;
};

// A call's results as a list, whatever it returns.
inline std::vector<Tensor> results(Tensor t) { return {std::move(t)}; }
inline std::vector<at::Tensor> results(at::Tensor t) { return {std::move(t)}; }
template <class T>
std::vector<T> results(std::tuple<T, T> t) { return {std::get<0>(t), std::get<1>(t)}; }
template <class T>
std::vector<T> results(std::vector<T> t) { return t; }

using EmberCall = std::function<std::vector<Tensor>(std::vector<Tensor>&, const EmberSide&)>;
using TorchCall = std::function<std::vector<at::Tensor>(std::vector<at::Tensor>&, const TorchSide&)>;

// How an input's values sit in memory.
enum class Layout { Contiguous, Transposed, Reversed, Stepped, Offset, Expanded };

struct InputOptions {
  std::optional<ValueRange> range;  // random_torch's default when absent
  bool specials = true;             // NaN, infinities, -0 and integer extremes at a few places
  bool infinities = true;           // among the specials
  bool extremes = true;             // among the specials: an integer dtype's largest and smallest values
  bool large = false;               // also huge finite floats (1e30, or 1e4 in half precision)
  std::optional<Layout> layout;     // drawn when absent
};

class Iteration {
 public:
  Iteration(uint64_t seed, std::string op, std::shared_ptr<Device> device, std::string replay);

  // ---- drawing ----
  int64_t integer(int64_t low, int64_t high);  // inclusive
  bool chance(double p);
  template <class T>
  const T& pick(const std::vector<T>& from) { return from[static_cast<size_t>(integer(0, from.size() - 1))]; }
  DType dtype();
  DType dtype(const std::vector<DType>& from) { return pick(from); }
  // Rank 0 to max_rank, sizes 0 to 9, at most a few thousand elements.
  std::vector<int64_t> shape(int64_t max_rank = 4);
  // A shape that broadcasts with `shape` (or, with probability `wrong`, one that does not).
  std::vector<int64_t> broadcast_partner(const std::vector<int64_t>& shape, double wrong = 0.1);
  // A dim of a tensor of rank `rank`, sometimes out of range.
  int64_t dim(int64_t rank, double wrong = 0.1);
  // Dims to reduce over: distinct valid ones mostly, sometimes repeated or out of range.
  std::vector<int64_t> dims(int64_t rank);
  ScalarValue scalar();
  // Sizes for a factory: usually small, sometimes negative, huge or overflowing int64 products.
  std::vector<int64_t> factory_sizes();
  at::Generator& generator() { return generator_; }
  // int64 values in [low, high) as a LibTorch tensor (for index inputs).
  at::Tensor longs(const std::vector<int64_t>& shape, int64_t low, int64_t high);

  // ---- inputs: the ember tensor and LibTorch's twin; returns the input's position ----
  size_t input(const std::vector<int64_t>& shape, DType dtype, InputOptions options = {});
  // Exactly these values (indices, masks), in a drawn layout that is not an expansion.
  size_t input_values(const at::Tensor& values, std::optional<Layout> layout = std::nullopt);

  // ---- arguments, printed on failure ----
  template <class T>
  void arg(const std::string& name, const T& value) {
    args_ << ' ' << name << '=' << printable(value);
  }

  // ---- checking ----
  void sizes_only() { sizes_only_ = true; }  // results of empty() and the like hold no defined values
  void scale_tolerance(double factor) { tolerance_scale_ = factor; }
  // ember may do what LibTorch refuses with this error (a CPU-only check such as integer division by
  // zero, which PyTorch's CUDA does not make either).
  void lenient_on(std::string message) { lenient_.push_back(std::move(message)); }
  // ember may refuse with this error what LibTorch 1.13 does with a deprecation warning (writes to an
  // expanded tensor through masked_fill_, index_fill_ or index_put_, which PyTorch 2 refuses too).
  void refusal_allowed(std::string message) { refusals_.push_back(std::move(message)); }
  template <class F>
  void check(F f) {
    run(EmberCall([f](std::vector<Tensor>& x, const EmberSide& s) { return results(f(x, s)); }),
        TorchCall([f](std::vector<at::Tensor>& x, const TorchSide& s) { return results(f(x, s)); }));
  }
  void run(const EmberCall& ember_call, const TorchCall& torch_call);
  std::string context() const;

 private:
  struct Input {
    std::string text;
    at::Tensor base;  // the storage's values before the call; never written
    std::function<at::Tensor(const at::Tensor&)> torch_view;
    Tensor ember_base;
    Tensor ember;
  };
  struct TorchRun {
    std::vector<at::Tensor> results;
    std::vector<at::Tensor> bases;   // the inputs' storage afterwards
    std::vector<at::Tensor> inputs;  // the inputs afterwards
    std::string error;               // empty when it returned
    bool widened = false;
  };

  // What ember is checked against: LibTorch's run, and what that run cannot tell.
  struct Reference {
    TorchRun run;
    bool mix_unknown = false;    // whether PyTorch refuses a mix of half and other floating dtypes
    bool range_unknown = false;  // whether PyTorch refuses a scalar out of the half type's range
  };

  Layout layout_for(const std::vector<int64_t>& shape, bool expansion_allowed);
  size_t add_input(const at::Tensor& base, std::function<at::Tensor(const at::Tensor&)> torch_view,
                   std::function<Tensor(const Tensor&)> ember_view, std::string text);
  TorchRun run_torch(const TorchCall& call, bool widen) const;
  Reference reference(const TorchCall& call) const;
  void compare_results(const std::vector<Tensor>& got, const std::vector<Tensor>& arguments,
                       const TorchRun& expected) const;
  // Same dtype and sizes, and with `values` the same values within the tolerance.
  void compare(const Tensor& actual, const at::Tensor& expected, const std::string& what, bool values) const;
  static std::string printable(const std::vector<int64_t>& v) { return to_string(v); }
  static std::string printable(const ScalarValue& v) { return describe(v); }
  static std::string printable(DType d) { return std::string(dtype_name(d)); }
  static std::string printable(std::optional<DType> d) { return d ? std::string(dtype_name(*d)) : "default"; }
  static std::string printable(std::optional<int64_t> v) { return v ? std::to_string(*v) : "none"; }
  static std::string printable(bool v) { return v ? "true" : "false"; }
  static std::string printable(int64_t v) { return std::to_string(v); }
  static std::string printable(const std::string& v) { return v; }
  static std::string printable(const char* v) { return v; }

  uint64_t seed_;
  std::string op_;
  std::shared_ptr<Device> device_;
  std::string replay_;
  std::mt19937_64 rng_;
  at::Generator generator_;
  std::vector<Input> inputs_;
  std::ostringstream args_;
  bool sizes_only_ = false;
  double tolerance_scale_ = 1;
  std::vector<std::string> lenient_;
  std::vector<std::string> refusals_;
};

}  // namespace ember::test::fuzz
