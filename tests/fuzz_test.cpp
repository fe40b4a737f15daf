// Differential fuzzing of the public tensor API against LibTorch: each iteration, fixed by its seed,
// draws an op from the table below with random shapes (0-dim, empty, size 1, odd), layouts (transposed,
// stepped, at an offset, expanded), dtypes, values (NaN, infinities, dtype extremes), dims and scalars
// (300 for int8, 1e40 for float32, NaN, int64 extremes), sizes (negative, huge, overflowing int64) and
// indices (out of range, negative). ember and LibTorch must both return the same results or both throw,
// and every input must hold what LibTorch's twin holds afterwards (tests/fuzz_support.h).
//
// Replay one iteration: EMBER_FUZZ_SEED=<seed> ./tests/ember-tests --gtest_filter='Backends/FuzzTest.<Test>/vulkan'
// (the failure prints the line). EMBER_FUZZ_VERBOSE=1 prints each iteration before it runs (for a
// crash). EMBER_FUZZ_KNOWN_BUGS=1 also draws the rows skipped for a known bug. EMBER_FUZZ_ROUNDS=<n>
// runs n times the iterations (the first round's seeds included), for a longer search.
#include <cmath>
#include <cstdlib>
#include <limits>
#include <optional>
#include <type_traits>

#include "tests/fuzz_support.h"

namespace ember::test::fuzz {
namespace {

enum class Category { Unary, Binary, Reduction, View, Indexing, Factory, Joining, Matmul, Cast };

struct Row {
  std::string name;
  Category category;
  std::function<void(Iteration&)> build;  // draws inputs and arguments, then calls it.check
  std::string known_bug;                   // non-empty: left out of the draw (see the KnownBugs test)
};

using Sizes = std::vector<int64_t>;

// ---- known bugs (their rows are left out of the draw; the KnownBugs test names them) ----

// A row that finds a bug not fixed yet, or a deliberate deviation from PyTorch, passes its description as
// known_bug (masked_fill_'s below), and the KnownBugs test lists it.

// ---- row makers ----

// f(x) on one input of any dtype, shape and layout. `bounded` keeps huge finite values out (the
// trigonometric functions lose all precision there, in every library).
template <class F>
Row unary(std::string name, F f, bool bounded = false) {
  return {std::move(name), Category::Unary, [f, bounded](Iteration& it) {
            it.input(it.shape(), it.dtype(), {.large = !bounded});
            it.check([f](auto& x, const auto&) { return f(x[0]); });
          }};
}

// What a scalar argument may be besides ordinary values.
enum class Scalars {
  Any,     // NaN, infinities, values the dtype cannot hold
  Finite,  // no NaN, infinity or huge value, in the scalar or the input
};

// f(x, s) for a drawn scalar s.
template <class F>
Row with_scalar(std::string name, Category category, F f, Scalars scalars = Scalars::Any) {
  return {std::move(name), category, [f, scalars](Iteration& it) {
            const bool finite = scalars == Scalars::Finite;
            it.input(it.shape(), it.dtype(), {.infinities = !finite, .extremes = !finite, .large = !finite});
            ScalarValue value = it.scalar();
            if (const double* v = std::get_if<double>(&value)) {
              // Finite: no denormal either (GPUs flush those to zero, LibTorch's CPU need not).
              const bool unfit = !(std::abs(*v) < 1e6) || (*v != 0 && std::abs(*v) < 1e-30);
              if (finite && unfit) value = 2.5;
            }
            it.arg("scalar", value);
            it.lenient_on("ZeroDivisionError");
            it.check([f, value](auto& x, const auto& s) { return f(x[0], s.scalar(value)); });
          }};
}

// What a binary row's operands hold besides ordinary values.
enum class Operands {
  Any,     // NaN, infinities, -0, huge finite values, dtype extremes
  Finite,  // no infinities, huge floats or integer extremes (ordinary values, drawn more often)
  Shift,   // b in [0, 8): shifting by the width or more is undefined in C++, and LibTorch's CPU result
           // there is the hardware's
};

// f(a, b) on two inputs that broadcast (or, sometimes, do not), of the same or of mixed dtypes.
template <class F>
Row binary(std::string name, F f, Operands operands = Operands::Any) {
  return {std::move(name), Category::Binary, [f, operands](Iteration& it) {
            const Sizes a = it.shape();
            const DType da = it.dtype();
            const DType db = it.chance(0.6) ? da : it.dtype();
            const bool any = operands == Operands::Any;
            it.input(a, da, {.infinities = any, .extremes = any, .large = any});
            // A 0-dim operand often: it takes part in type promotion only by its category.
            const Sizes b = it.chance(0.15) ? Sizes{} : it.broadcast_partner(a);
            if (operands == Operands::Shift) {
              it.input(b, db, {.range = ValueRange{0, 8}, .specials = false});
            } else {
              it.input(b, db, {.infinities = any, .extremes = any, .large = any});
            }
            // LibTorch's CPU checks integer division by zero; its CUDA, like ember, cannot.
            it.lenient_on("ZeroDivisionError");
            it.check([f](auto& x, const auto&) { return f(x[0], x[1]); });
          }};
}

// A reduction over drawn dims with keepdim; the tolerance grows with the element count. Without
// `empty_dims`, an empty dim list is replaced by dim 0.
template <class F>
Row reduction(std::string name, F f, bool empty_dims = true, InputOptions options = {}) {
  return {std::move(name), Category::Reduction, [f, empty_dims, options](Iteration& it) {
            const Sizes shape = it.shape();
            it.input(shape, it.dtype(), options);
            Sizes dims = it.dims(static_cast<int64_t>(shape.size()));
            if (dims.empty() && !empty_dims) dims.push_back(0);
            const bool keepdim = it.chance(0.5);
            it.arg("dims", dims);
            it.arg("keepdim", keepdim);
            int64_t numel = 1;
            for (int64_t s : shape) numel *= s;
            it.scale_tolerance(1 + static_cast<double>(numel) / 8);
            it.check([f, dims, keepdim](auto& x, const auto& s) { return f(s, x[0], dims, keepdim); });
          }};
}

// A reduction or scan along one drawn dim.
template <class F>
Row along_dim(std::string name, F f) {
  return {std::move(name), Category::Reduction, [f](Iteration& it) {
            const Sizes shape = it.shape();
            it.input(shape, it.dtype());
            const int64_t dim = it.dim(static_cast<int64_t>(shape.size()));
            const bool keepdim = it.chance(0.5);
            it.arg("dim", dim);
            it.arg("keepdim", keepdim);
            int64_t numel = 1;
            for (int64_t s : shape) numel *= s;
            it.scale_tolerance(1 + static_cast<double>(numel) / 8);
            it.check([f, dim, keepdim](auto& x, const auto&) { return f(x[0], dim, keepdim); });
          }};
}

// A view op whose arguments `draw` draws from the input's shape before it makes the call.
template <class Draw>
Row view_row(std::string name, Draw draw) {
  return {std::move(name), Category::View, [draw](Iteration& it) {
            const Sizes shape = it.shape();
            it.input(shape, it.dtype());
            draw(it, shape);
          }};
}

// ---- argument drawing for views ----

// A shape with the same number of elements (dims merged, split or padded with 1s, sometimes one -1),
// or, sometimes, any shape.
Sizes reshape_target(Iteration& it, const Sizes& shape) {
  if (it.chance(0.2)) return it.shape();
  if (it.chance(0.04)) return it.pick(std::vector<Sizes>{{int64_t{1} << 32, int64_t{1} << 32, 0}, {0, int64_t{1} << 62},
                                                         {int64_t{1} << 62, 4}, {int64_t{1} << 62, -1}});
  Sizes target = shape;
  for (int64_t step = it.integer(0, 3); step > 0; --step) {
    const int64_t rank = static_cast<int64_t>(target.size());
    const int64_t kind = it.integer(0, 2);
    if (kind == 0 && rank >= 2) {  // merge two neighbours
      const int64_t d = it.integer(0, rank - 2);
      target[d] *= target[d + 1];
      target.erase(target.begin() + d + 1);
    } else if (kind == 1 && rank >= 1) {  // split off a divisor
      const int64_t d = it.integer(0, rank - 1);
      for (int64_t f : {3, 2}) {
        if (target[d] % f == 0 && target[d] > f) {
          target[d] /= f;
          target.insert(target.begin() + d, f);
          break;
        }
      }
    } else if (rank < 5) {  // a 1
      target.insert(target.begin() + it.integer(0, rank), 1);
    }
  }
  if (!target.empty() && it.chance(0.3)) target[it.integer(0, target.size() - 1)] = -1;
  if (!target.empty() && it.chance(0.05)) target.push_back(-1);  // two -1s
  return target;
}

// Sizes for expand: each dim kept, -1, or (from size 1) widened; sometimes new leading dims or a
// mismatch.
Sizes expand_target(Iteration& it, const Sizes& shape) {
  Sizes target;
  for (int64_t lead = it.chance(0.3) ? it.integer(1, 2) : 0; lead > 0; --lead) target.push_back(it.integer(0, 3));
  for (int64_t s : shape) {
    if (s == 1 && it.chance(0.5)) target.push_back(it.integer(0, 4));
    else target.push_back(it.chance(0.3) ? -1 : s);
  }
  if (!target.empty() && it.chance(0.1)) target[it.integer(0, target.size() - 1)] += 2;
  if (it.chance(0.05)) target.insert(target.begin(), -1);  // -1 for a new dim
  if (it.chance(0.04)) target.insert(target.begin(), it.pick(Sizes{int64_t{1} << 62, int64_t{1} << 32, 0}));
  return target;
}

Sizes permutation(Iteration& it, int64_t rank) {
  Sizes order;
  for (int64_t d = 0; d < rank; ++d) order.push_back(d);
  for (int64_t i = rank - 1; i > 0; --i) std::swap(order[i], order[it.integer(0, i)]);
  for (int64_t& d : order) {
    if (it.chance(0.2)) d -= rank;
  }
  if (it.chance(0.1)) {
    if (!order.empty() && it.chance(0.5)) order.back() = order.front();
    else order.push_back(rank);
  }
  return order;
}

// An index in [-size - 2, size + 2): mostly in range, sometimes past either end.
int64_t position(Iteration& it, int64_t size) {
  return it.chance(0.85) ? it.integer(-size, std::max<int64_t>(size - 1, -size)) : it.integer(-size - 2, size + 2);
}

// `dim` wrapped into [0, rank), out-of-range dims included (for drawing shapes only).
int64_t wrapped(int64_t dim, int64_t rank) {
  rank = std::max<int64_t>(rank, 1);
  return (dim % rank + rank) % rank;
}

int64_t size_of(const Sizes& shape, int64_t dim) {
  const int64_t rank = static_cast<int64_t>(shape.size());
  if (rank == 0) return 1;
  const int64_t d = dim < 0 ? dim + rank : dim;
  return d >= 0 && d < rank ? shape[d] : 1;
}

// ---- argument drawing for indexing ----

// int64 indices for a dim of `size`: in range (negatives included where the op wraps them), and
// sometimes one out of range or of another dtype.
at::Tensor index_values(Iteration& it, const Sizes& shape, int64_t size, bool negative) {
  at::Tensor index = it.longs(shape, negative ? -size : 0, std::max<int64_t>(size, 1));
  if (size == 0) index = it.longs(shape, 0, 1);  // any index of an empty dim is out of range
  if (index.numel() > 0 && it.chance(0.15)) {
    index.view({-1}).select(0, it.integer(0, index.numel() - 1)).fill_(it.chance(0.5) ? size : -size - 1);
  }
  if (it.chance(0.08)) index = index.to(it.pick(std::vector<at::ScalarType>{at::kInt, at::kFloat, at::kShort}));
  return index;
}

// Distinct indices along `dim` per position of the other dims (scatter and index_copy write each place
// once, otherwise which write wins is unspecified), in an index shaped `shape`.
at::Tensor distinct_index(Iteration& it, Sizes shape, int64_t dim, int64_t size) {
  const int64_t count = shape[dim];
  shape[dim] = std::max(size, count);
  at::Tensor order = at::rand(shape, it.generator()).argsort(dim).narrow(dim, 0, count).contiguous();
  if (order.numel() > 0 && it.chance(0.1)) {
    order.view({-1}).select(0, it.integer(0, order.numel() - 1)).fill_(it.chance(0.5) ? size : -size - 1);
  }
  return order;
}

// ---- the table ----

std::vector<Row> unary_rows() {
  return {
      unary("neg", [](const auto& t) { return t.neg(); }),
      unary("abs", [](const auto& t) { return t.abs(); }),
      unary("sign", [](const auto& t) { return t.sign(); }),
      unary("reciprocal", [](const auto& t) { return t.reciprocal(); }),
      unary("square", [](const auto& t) { return t.square(); }),
      unary("exp", [](const auto& t) { return t.exp(); }),
      unary("log", [](const auto& t) { return t.log(); }),
      unary("log1p", [](const auto& t) { return t.log1p(); }),
      unary("sqrt", [](const auto& t) { return t.sqrt(); }),
      unary("rsqrt", [](const auto& t) { return t.rsqrt(); }),
      unary("sin", [](const auto& t) { return t.sin(); }, true),
      unary("cos", [](const auto& t) { return t.cos(); }, true),
      unary("atan", [](const auto& t) { return t.atan(); }),
      unary("tanh", [](const auto& t) { return t.tanh(); }),
      unary("sigmoid", [](const auto& t) { return t.sigmoid(); }),
      unary("relu", [](const auto& t) { return t.relu(); }),
      unary("erf", [](const auto& t) { return t.erf(); }),
      unary("floor", [](const auto& t) { return t.floor(); }),
      unary("round", [](const auto& t) { return t.round(); }),
      unary("trunc", [](const auto& t) { return t.trunc(); }),
      unary("frac", [](const auto& t) { return t.frac(); }),
      unary("isnan", [](const auto& t) { return t.isnan(); }),
      unary("isinf", [](const auto& t) { return t.isinf(); }),
      unary("isfinite", [](const auto& t) { return t.isfinite(); }),
      unary("logical_not", [](const auto& t) { return t.logical_not(); }),
      unary("bitwise_not", [](const auto& t) { return t.bitwise_not(); }),
      unary("nan_to_num", [](const auto& t) { return t.nan_to_num(); }),
      unary("contiguous", [](const auto& t) { return t.contiguous(); }),
      unary("clone", [](const auto& t) { return t.clone(); }),
      unary("neg_", [](auto& t) { return t.neg_(); }),
      unary("abs_", [](auto& t) { return t.abs_(); }),
      unary("relu_", [](auto& t) { return t.relu_(); }),
      unary("sqrt_", [](auto& t) { return t.sqrt_(); }),
      unary("zero_", [](auto& t) { return t.zero_(); }),
      with_scalar("fill_", Category::Unary, [](auto& t, const auto& v) { return t.fill_(v); }),
      with_scalar("clamp_min", Category::Unary, [](const auto& t, const auto& v) { return t.clamp_min(v); }),
      with_scalar("clamp_max", Category::Unary, [](const auto& t, const auto& v) { return t.clamp_max(v); }),
      // Both bounds, or one (a NaN bound gives NaN everywhere with both, and is ignored alone), out of place
      // or in place.
      {"clamp", Category::Unary, [](Iteration& it) {
         it.input(it.shape(), it.dtype(), {.large = true});
         const ScalarValue low = it.scalar(), high = it.scalar();
         const int64_t bounds = it.integer(0, 2);
         const bool in_place = it.chance(0.3);
         it.arg("bounds", std::vector<std::string>{"min and max", "min", "max"}[bounds]);
         it.arg("min", low);
         it.arg("max", high);
         it.arg("in place", in_place);
         it.check([low, high, bounds, in_place](auto& x, const auto& s) {
           using S = std::decay_t<decltype(s.scalar(low))>;  // LibTorch 1.13 takes c10::optional
           using Bound = std::conditional_t<std::is_same_v<S, at::Scalar>, c10::optional<S>, std::optional<S>>;
           const Bound min = bounds == 2 ? Bound() : Bound(s.scalar(low));
           const Bound max = bounds == 1 ? Bound() : Bound(s.scalar(high));
           return in_place ? x[0].clamp_(min, max) : x[0].clamp(min, max);
         });
       }},
      {"tril", Category::Unary, [](Iteration& it) {
         it.input(it.shape(), it.dtype());
         const int64_t diagonal = it.integer(-3, 3);
         it.arg("diagonal", diagonal);
         it.check([diagonal](auto& x, const auto&) { return x[0].tril(diagonal); });
       }},
      {"triu_", Category::Unary, [](Iteration& it) {
         it.input(it.shape(), it.dtype());
         const int64_t diagonal = it.integer(-3, 3);
         it.arg("diagonal", diagonal);
         // LibTorch writes through an expanded tensor here (what each place ends up holding depends on
         // the order of the writes); ember refuses, as for every other in-place op.
         it.refusal_allowed("more than one element of the written-to tensor");
         it.check([diagonal](auto& x, const auto&) { return x[0].triu_(diagonal); });
       }},
  };
}

std::vector<Row> binary_rows() {
  return {
      binary("add", [](const auto& a, const auto& b) { return a.add(b); }),
      binary("sub", [](const auto& a, const auto& b) { return a.sub(b); }),
      binary("mul", [](const auto& a, const auto& b) { return a.mul(b); }),
      binary("div", [](const auto& a, const auto& b) { return a.div(b); }),
      binary("floor_divide", [](const auto& a, const auto& b) { return a.floor_divide(b); }, Operands::Finite),
      binary("remainder", [](const auto& a, const auto& b) { return a.remainder(b); }, Operands::Finite),
      binary("fmod", [](const auto& a, const auto& b) { return a.fmod(b); }, Operands::Finite),
      binary("floor_divide infinite or huge", [](const auto& a, const auto& b) { return a.floor_divide(b); },
             Operands::Any),
      binary("remainder infinite or huge", [](const auto& a, const auto& b) { return a.remainder(b); },
             Operands::Any),
      binary("fmod infinite or huge", [](const auto& a, const auto& b) { return a.fmod(b); }, Operands::Any),
      binary("pow", [](const auto& a, const auto& b) { return a.pow(b); }, Operands::Any),
      binary("maximum", [](const auto& a, const auto& b) { return a.maximum(b); }),
      binary("minimum", [](const auto& a, const auto& b) { return a.minimum(b); }),
      binary("atan2", [](const auto& a, const auto& b) { return a.atan2(b); }),
      binary("eq", [](const auto& a, const auto& b) { return a.eq(b); }),
      binary("ne", [](const auto& a, const auto& b) { return a.ne(b); }),
      binary("lt", [](const auto& a, const auto& b) { return a.lt(b); }),
      binary("ge", [](const auto& a, const auto& b) { return a.ge(b); }),
      binary("logical_and", [](const auto& a, const auto& b) { return a.logical_and(b); }),
      binary("logical_xor", [](const auto& a, const auto& b) { return a.logical_xor(b); }),
      binary("bitwise_and", [](const auto& a, const auto& b) { return a.bitwise_and(b); }),
      binary("bitwise_or", [](const auto& a, const auto& b) { return a.bitwise_or(b); }),
      binary("bitwise_xor", [](const auto& a, const auto& b) { return a.bitwise_xor(b); }),
      binary("bitwise_left_shift", [](const auto& a, const auto& b) { return a.bitwise_left_shift(b); },
             Operands::Shift),
      binary("bitwise_right_shift", [](const auto& a, const auto& b) { return a.bitwise_right_shift(b); },
             Operands::Shift),
      {"int64 with an int32 operand", Category::Binary, [](Iteration& it) {
         const Sizes a = it.shape();
         const bool int32_first = it.chance(0.5);
         it.input(a, int32_first ? DType::Int32 : DType::Int64, {.specials = false});
         it.input(it.broadcast_partner(a, 0), int32_first ? DType::Int64 : DType::Int32,
                  {.range = ValueRange{-3, 8}, .specials = false});
         const int64_t op = it.integer(0, 4);
         it.arg("op", std::vector<std::string>{"pow", "remainder", "floor_divide", "<<", ">>"}[op]);
         it.lenient_on("ZeroDivisionError");
         it.check([op](auto& x, const auto&) {
           switch (op) {
             case 0: return x[0].pow(x[1]);
             case 1: return x[0].remainder(x[1]);
             case 2: return x[0].floor_divide(x[1]);
             case 3: return x[0].bitwise_left_shift(x[1].abs());
             default: return x[0].bitwise_right_shift(x[1].abs());
           }
         });
       }},
      binary("add_", [](auto& a, const auto& b) { return a.add_(b); }),
      binary("mul_", [](auto& a, const auto& b) { return a.mul_(b); }),
      binary("div_", [](auto& a, const auto& b) { return a.div_(b); }),
      {"div rounding", Category::Binary, [](Iteration& it) {
         const Sizes a = it.shape();
         const DType da = it.dtype(), db = it.dtype();
         it.input(a, da, {.large = true});
         it.input(it.broadcast_partner(a), db, {.large = true});
         const std::string mode = it.pick(std::vector<std::string>{"trunc", "floor", "floor", "trunc", "round"});
         it.arg("rounding_mode", mode);
         it.lenient_on("ZeroDivisionError");
         it.check([mode](auto& x, const auto& s) { return s.div(x[0], x[1], mode); });
       }},
      binary("clamp_min tensor", [](const auto& a, const auto& b) { return a.clamp_min(b); }),
      binary("clamp_max tensor", [](const auto& a, const auto& b) { return a.clamp_max(b); }),
      binary("clamp_min_ tensor", [](auto& a, const auto& b) { return a.clamp_min_(b); }),
      binary("clamp_max_ tensor", [](auto& a, const auto& b) { return a.clamp_max_(b); }),
      // Tensor bounds, both or one, out of place or in place (the result must then fit x's shape and dtype).
      {"clamp tensors", Category::Binary, [](Iteration& it) {
         const Sizes a = it.shape();
         it.input(a, it.dtype(), {.large = true});
         it.input(it.chance(0.2) ? Sizes{} : it.broadcast_partner(a), it.dtype(), {.large = true});
         it.input(it.chance(0.2) ? Sizes{} : it.broadcast_partner(a), it.dtype(), {.large = true});
         const int64_t bounds = it.integer(0, 2);
         const bool in_place = it.chance(0.5);
         it.arg("bounds", std::vector<std::string>{"min and max", "min", "max"}[bounds]);
         it.arg("in place", in_place);
         it.check([bounds, in_place](auto& x, const auto&) {
           using T = std::decay_t<decltype(x[0])>;
           using Bound = std::conditional_t<std::is_same_v<T, at::Tensor>, c10::optional<T>, std::optional<T>>;
           const Bound min = bounds == 2 ? Bound() : Bound(x[1]);
           const Bound max = bounds == 1 ? Bound() : Bound(x[2]);
           return in_place ? x[0].clamp_(min, max) : x[0].clamp(min, max);
         });
       }},
      {"where", Category::Binary, [](Iteration& it) {
         const Sizes a = it.shape();
         it.input(it.broadcast_partner(a), it.chance(0.9) ? DType::Bool : it.dtype());
         it.input(a, it.dtype(), {.large = true});
         it.input(it.chance(0.2) ? Sizes{} : it.broadcast_partner(a), it.dtype(), {.large = true});
         it.check([](auto& x, const auto& s) { return s.where(x[0], x[1], x[2]); });
       }},
      {"add alpha", Category::Binary, [](Iteration& it) {
         const Sizes a = it.shape();
         it.input(a, it.dtype(), {.large = true});
         it.input(it.broadcast_partner(a), it.dtype(), {.large = true});
         const ScalarValue alpha = it.scalar();
         it.arg("alpha", alpha);
         it.check([alpha](auto& x, const auto& s) { return x[0].add(x[1], s.scalar(alpha)); });
       }},
      with_scalar("add scalar", Category::Binary, [](const auto& t, const auto& v) { return t.add(v); }),
      with_scalar("sub scalar", Category::Binary, [](const auto& t, const auto& v) { return t.sub(v); }),
      with_scalar("mul scalar", Category::Binary, [](const auto& t, const auto& v) { return t.mul(v); }),
      with_scalar("div scalar", Category::Binary, [](const auto& t, const auto& v) { return t.div(v); }),
      with_scalar("remainder scalar", Category::Binary, [](const auto& t, const auto& v) { return t.remainder(v); },
                  Scalars::Finite),
      with_scalar("pow scalar", Category::Binary, [](const auto& t, const auto& v) { return t.pow(v); }),
      with_scalar("eq scalar", Category::Binary, [](const auto& t, const auto& v) { return t.eq(v); }),
      with_scalar("lt scalar", Category::Binary, [](const auto& t, const auto& v) { return t.lt(v); }),
      with_scalar("add_ scalar", Category::Binary, [](auto& t, const auto& v) { return t.add_(v); }),
      with_scalar("mul_ scalar", Category::Binary, [](auto& t, const auto& v) { return t.mul_(v); }),
  };
}

std::vector<Row> reduction_rows() {
  return {
      reduction("sum", [](const auto& s, const auto& x, const Sizes& d, bool k) { return s.sum(x, d, k); }),
      reduction("mean", [](const auto& s, const auto& x, const Sizes& d, bool k) { return s.mean(x, d, k); }),
      reduction("amax", [](const auto&, const auto& x, const Sizes& d, bool k) { return x.amax(d, k); }),
      reduction("amin", [](const auto&, const auto& x, const Sizes& d, bool k) { return x.amin(d, k); }),
      reduction("var", [](const auto& s, const auto& x, const Sizes& d, bool k) { return s.var(x, d, 1, k); }, true,
                {.specials = false}),
      reduction("std correction 0", [](const auto& s, const auto& x, const Sizes& d, bool k) {
        return s.std(x, d, 0, k);
      }, true, {.specials = false}),
      reduction("var of NaN and infinities", [](const auto& s, const auto& x, const Sizes& d, bool k) {
        return s.var(x, d, 1, k);
      }),
      reduction("std of NaN and infinities", [](const auto& s, const auto& x, const Sizes& d, bool k) {
        return s.std(x, d, 0, k);
      }),
      reduction("norm", [](const auto& s, const auto& x, const Sizes& d, bool k) {
        return s.norm(x, ScalarValue(2.0), d, k);
      }),
      reduction("norm 1", [](const auto& s, const auto& x, const Sizes& d, bool k) {
        return s.norm(x, ScalarValue(int64_t{1}), d, k);
      }),
      // LibTorch 1.13's logsumexp refuses an empty dim list for every input that has dims ("output with
      // shape [] doesn't match the broadcast shape [1]", a bug of that release); ember reduces over all
      // dims, as sum does.
      reduction("logsumexp", [](const auto&, const auto& x, const Sizes& d, bool k) { return x.logsumexp(d, k); },
                false),
      reduction("count_nonzero", [](const auto& s, const auto& x, const Sizes& d, bool) {
        return s.count_nonzero(x, d);
      }),
      reduction("sum all", [](const auto&, const auto& x, const Sizes&, bool) { return x.sum(); }),
      reduction("prod all", [](const auto&, const auto& x, const Sizes&, bool) { return x.prod(); }),
      reduction("max all", [](const auto&, const auto& x, const Sizes&, bool) { return x.max(); }),
      reduction("min all", [](const auto&, const auto& x, const Sizes&, bool) { return x.min(); }),
      reduction("all", [](const auto&, const auto& x, const Sizes&, bool) { return x.all(); }),
      reduction("any", [](const auto&, const auto& x, const Sizes&, bool) { return x.any(); }),
      reduction("argmax all", [](const auto& s, const auto& x, const Sizes&, bool k) {
        return s.argmax(x, std::nullopt, k);
      }),
      along_dim("max dim", [](const auto& x, int64_t d, bool k) { return x.max(d, k); }),
      along_dim("min dim", [](const auto& x, int64_t d, bool k) { return x.min(d, k); }),
      along_dim("argmax dim", [](const auto& x, int64_t d, bool k) { return x.argmax(d, k); }),
      along_dim("prod dim", [](const auto& x, int64_t d, bool k) { return x.prod(d, k); }),
      along_dim("all dim", [](const auto& x, int64_t d, bool k) { return x.all(d, k); }),
      along_dim("any dim", [](const auto& x, int64_t d, bool k) { return x.any(d, k); }),
      along_dim("cumsum", [](const auto& x, int64_t d, bool) { return x.cumsum(d); }),
      along_dim("cumprod", [](const auto& x, int64_t d, bool) { return x.cumprod(d); }),
      along_dim("softmax", [](const auto& x, int64_t d, bool) { return x.softmax(d); }),
      along_dim("log_softmax", [](const auto& x, int64_t d, bool) { return x.log_softmax(d); }),
  };
}

std::vector<Row> view_rows() {
  return {
      view_row("reshape", [](Iteration& it, const Sizes& shape) {
        const Sizes target = reshape_target(it, shape);
        it.arg("shape", target);
        it.check([target](auto& x, const auto&) { return x[0].reshape(target); });
      }),
      view_row("view", [](Iteration& it, const Sizes& shape) {
        const Sizes target = reshape_target(it, shape);
        it.arg("shape", target);
        it.check([target](auto& x, const auto&) { return x[0].view(target); });
      }),
      view_row("permute", [](Iteration& it, const Sizes& shape) {
        const Sizes order = permutation(it, static_cast<int64_t>(shape.size()));
        it.arg("dims", order);
        it.check([order](auto& x, const auto&) { return x[0].permute(order); });
      }),
      view_row("transpose", [](Iteration& it, const Sizes& shape) {
        const int64_t rank = static_cast<int64_t>(shape.size());
        const int64_t d0 = it.dim(rank), d1 = it.dim(rank);
        it.arg("dim0", d0);
        it.arg("dim1", d1);
        it.check([d0, d1](auto& x, const auto&) { return x[0].transpose(d0, d1); });
      }),
      view_row("t", [](Iteration& it, const Sizes&) {
        it.check([](auto& x, const auto&) { return x[0].t(); });
      }),
      view_row("narrow", [](Iteration& it, const Sizes& shape) {
        const int64_t dim = it.dim(static_cast<int64_t>(shape.size()));
        const int64_t size = size_of(shape, dim);
        const int64_t start = position(it, size), length = it.integer(-1, size + 1);
        it.arg("dim", dim);
        it.arg("start", start);
        it.arg("length", length);
        it.check([dim, start, length](auto& x, const auto&) { return x[0].narrow(dim, start, length); });
      }),
      view_row("select", [](Iteration& it, const Sizes& shape) {
        const int64_t dim = it.dim(static_cast<int64_t>(shape.size()));
        const int64_t index = position(it, size_of(shape, dim));
        it.arg("dim", dim);
        it.arg("index", index);
        it.check([dim, index](auto& x, const auto&) { return x[0].select(dim, index); });
      }),
      view_row("slice", [](Iteration& it, const Sizes& shape) {
        const int64_t dim = it.dim(static_cast<int64_t>(shape.size()));
        const int64_t size = size_of(shape, dim);
        const int64_t start = it.integer(-size - 3, size + 3), end = it.integer(-size - 3, size + 3);
        const int64_t step = it.pick(Sizes{1, 1, 2, 3, 0, -1});
        it.arg("dim", dim);
        it.arg("start", start);
        it.arg("end", end);
        it.arg("step", step);
        it.check([dim, start, end, step](auto& x, const auto&) { return x[0].slice(dim, start, end, step); });
      }),
      view_row("expand", [](Iteration& it, const Sizes& shape) {
        const Sizes target = expand_target(it, shape);
        it.arg("sizes", target);
        it.check([target](auto& x, const auto&) { return x[0].expand(target); });
      }),
      view_row("as_strided", [](Iteration& it, const Sizes&) {
        Sizes sizes, strides;
        for (int64_t d = it.integer(0, 3); d > 0; --d) {
          sizes.push_back(it.integer(0, 4));
          strides.push_back(it.chance(0.05) ? -1 : it.integer(0, 3));
        }
        if (it.chance(0.05)) strides.push_back(1);  // lengths differ
        const int64_t offset = it.chance(0.9) ? it.integer(0, 6) : it.pick(Sizes{-1, 1000});
        it.arg("sizes", sizes);
        it.arg("strides", strides);
        it.arg("storage_offset", offset);
        it.check([sizes, strides, offset](auto& x, const auto&) { return x[0].as_strided(sizes, strides, offset); });
      }),
      view_row("squeeze dim", [](Iteration& it, const Sizes& shape) {
        const int64_t dim = it.dim(static_cast<int64_t>(shape.size()));
        it.arg("dim", dim);
        it.check([dim](auto& x, const auto&) { return x[0].squeeze(dim); });
      }),
      view_row("unsqueeze", [](Iteration& it, const Sizes& shape) {
        const int64_t dim = it.dim(static_cast<int64_t>(shape.size()) + 1);
        it.arg("dim", dim);
        it.check([dim](auto& x, const auto&) { return x[0].unsqueeze(dim); });
      }),
      view_row("flatten", [](Iteration& it, const Sizes& shape) {
        const int64_t rank = static_cast<int64_t>(shape.size());
        const int64_t start = it.dim(rank), end = it.dim(rank);
        it.arg("start_dim", start);
        it.arg("end_dim", end);
        it.check([start, end](auto& x, const auto&) { return x[0].flatten(start, end); });
      }),
      view_row("unfold", [](Iteration& it, const Sizes& shape) {
        const int64_t dim = it.dim(static_cast<int64_t>(shape.size()));
        const int64_t size = it.integer(0, size_of(shape, dim) + 1), step = it.integer(0, 3);
        it.arg("dim", dim);
        it.arg("size", size);
        it.arg("step", step);
        it.check([dim, size, step](auto& x, const auto&) { return x[0].unfold(dim, size, step); });
      }),
      view_row("diagonal", [](Iteration& it, const Sizes& shape) {
        const int64_t rank = static_cast<int64_t>(shape.size());
        const int64_t offset = it.integer(-3, 3), d1 = it.dim(rank), d2 = it.dim(rank);
        it.arg("offset", offset);
        it.arg("dim1", d1);
        it.arg("dim2", d2);
        it.check([offset, d1, d2](auto& x, const auto&) { return x[0].diagonal(offset, d1, d2); });
      }),
      view_row("movedim", [](Iteration& it, const Sizes& shape) {
        const int64_t rank = static_cast<int64_t>(shape.size());
        const int64_t from = it.dim(rank), to = it.dim(rank);
        it.arg("source", from);
        it.arg("destination", to);
        it.check([from, to](auto& x, const auto&) { return x[0].movedim(from, to); });
      }),
      view_row("unbind", [](Iteration& it, const Sizes& shape) {
        const int64_t dim = it.dim(static_cast<int64_t>(shape.size()));
        it.arg("dim", dim);
        it.check([dim](auto& x, const auto&) { return x[0].unbind(dim); });
      }),
      view_row("split", [](Iteration& it, const Sizes& shape) {
        const int64_t dim = it.dim(static_cast<int64_t>(shape.size()));
        const int64_t size = it.integer(-1, size_of(shape, dim) + 1);
        it.arg("split_size", size);
        it.arg("dim", dim);
        it.check([size, dim](auto& x, const auto&) { return x[0].split(size, dim); });
      }),
      view_row("chunk", [](Iteration& it, const Sizes& shape) {
        const int64_t dim = it.dim(static_cast<int64_t>(shape.size()));
        const int64_t chunks = it.integer(-1, 4);
        it.arg("chunks", chunks);
        it.arg("dim", dim);
        it.check([chunks, dim](auto& x, const auto&) { return x[0].chunk(chunks, dim); });
      }),
      // Writes through a view reach the base (and only the viewed elements of it).
      view_row("fill_ through narrow", [](Iteration& it, const Sizes& shape) {
        const int64_t dim = it.dim(static_cast<int64_t>(shape.size()), 0.02);
        const int64_t size = size_of(shape, dim);
        const int64_t start = it.integer(0, size), length = it.integer(0, size - start);
        const ScalarValue value = it.scalar();
        it.arg("dim", dim);
        it.arg("start", start);
        it.arg("length", length);
        it.arg("value", value);
        it.check([dim, start, length, value](auto& x, const auto& s) {
          x[0].narrow(dim, start, length).fill_(s.scalar(value));
          return x[0];
        });
      }),
      view_row("mul_ through transpose and slice", [](Iteration& it, const Sizes& shape) {
        const int64_t rank = static_cast<int64_t>(shape.size());
        const int64_t d0 = it.dim(rank, 0.02), d1 = it.dim(rank, 0.02);
        const int64_t step = it.integer(1, 3);
        it.arg("dim0", d0);
        it.arg("dim1", d1);
        it.arg("step", step);
        it.check([d0, d1, step](auto& x, const auto&) {
          auto v = x[0].transpose(d0, d1);
          if (v.dim() > 0) v = v.slice(0, 0, v.size(0), step);
          v.mul_(3);
          return x[0];
        });
      }),
  };
}

std::vector<Row> indexing_rows() {
  return {
      {"index_select", Category::Indexing, [](Iteration& it) {
         const Sizes shape = it.shape(3);
         it.input(shape, it.dtype());
         const int64_t dim = it.dim(static_cast<int64_t>(shape.size()));
         // A 0-dim self takes one index: LibTorch 1.13 returns a 0-dim tensor whatever the index's length,
         // uninitialised for an empty index and written past its end (heap corruption) for a longer one.
         const Sizes index_shape = shape.empty() ? Sizes{1} : Sizes{it.integer(0, 5)};
         it.input_values(index_values(it, index_shape, size_of(shape, dim), false));
         it.arg("dim", dim);
         it.check([dim](auto& x, const auto&) { return x[0].index_select(dim, x[1]); });
       }},
      {"gather", Category::Indexing, [](Iteration& it) {
         const Sizes shape = it.shape(3);
         it.input(shape, it.dtype());
         const int64_t dim = it.dim(static_cast<int64_t>(shape.size()));
         Sizes index_shape = shape;
         for (int64_t& s : index_shape) s = it.chance(0.95) ? it.integer(0, s) : s + 1;
         if (index_shape.size() == shape.size() && !shape.empty()) {
           index_shape[wrapped(dim, static_cast<int64_t>(shape.size()))] = it.integer(0, 4);
         }
         it.input_values(index_values(it, index_shape, size_of(shape, dim), false));
         it.arg("dim", dim);
         it.check([dim](auto& x, const auto&) { return x[0].gather(dim, x[1]); });
       }},
      {"scatter src", Category::Indexing, [](Iteration& it) {
         Sizes shape = it.shape(3);
         if (shape.empty()) shape = {3};
         const DType dtype = it.dtype();
         it.input(shape, dtype);
         const int64_t dim = it.dim(static_cast<int64_t>(shape.size()), 0.05);
         const int64_t d = wrapped(dim, static_cast<int64_t>(shape.size()));
         Sizes index_shape = shape;
         for (int64_t& s : index_shape) s = it.integer(0, s);
         it.input_values(distinct_index(it, index_shape, d, shape[d]));
         Sizes src_shape = index_shape;
         for (int64_t& s : src_shape) s += it.chance(0.8) ? 0 : 1;
         it.input(src_shape, it.chance(0.9) ? dtype : it.dtype());
         it.arg("dim", dim);
         it.check([dim](auto& x, const auto&) { return x[0].scatter(dim, x[1], x[2]); });
       }},
      {"scatter_ value", Category::Indexing, [](Iteration& it) {
         Sizes shape = it.shape(3);
         if (shape.empty()) shape = {4};
         it.input(shape, it.dtype());
         const int64_t dim = it.dim(static_cast<int64_t>(shape.size()), 0.05);
         const int64_t d = wrapped(dim, static_cast<int64_t>(shape.size()));
         Sizes index_shape = shape;
         for (int64_t& s : index_shape) s = it.integer(0, s);
         it.input_values(index_values(it, index_shape, shape[d], false));
         const ScalarValue value = it.scalar();
         it.arg("dim", dim);
         it.arg("value", value);
         it.check([dim, value](auto& x, const auto& s) { return x[0].scatter_(dim, x[1], s.scalar(value)); });
       }},
      {"scatter_add", Category::Indexing, [](Iteration& it) {
         Sizes shape = it.shape(3);
         if (shape.empty()) shape = {4};
         const DType dtype = it.dtype();
         it.input(shape, dtype, {.specials = false});
         const int64_t dim = it.dim(static_cast<int64_t>(shape.size()), 0.05);
         const int64_t d = wrapped(dim, static_cast<int64_t>(shape.size()));
         Sizes index_shape = shape;
         for (int64_t& s : index_shape) s = it.integer(0, s + 1);
         it.input_values(index_values(it, index_shape, shape[d], false));
         it.input(index_shape, dtype, {.specials = false});
         it.arg("dim", dim);
         it.scale_tolerance(4);
         it.check([dim](auto& x, const auto&) { return x[0].scatter_add(dim, x[1], x[2]); });
       }},
      {"index_put_", Category::Indexing, [](Iteration& it) {
         Sizes shape = it.shape(3);
         if (shape.empty()) shape = {4};
         const DType dtype = it.dtype();
         it.input(shape, dtype, {.specials = false});
         const bool accumulate = it.chance(0.5);
         const int64_t count = it.integer(0, shape[0] + 1);
         // Without accumulate a place written twice holds either value: distinct rows then.
         at::Tensor rows = accumulate ? index_values(it, {count}, shape[0], true)
                                      : distinct_index(it, {std::min(count, shape[0])}, 0, shape[0]) -
                                            (it.chance(0.3) ? shape[0] : 0);
         it.input_values(rows);
         Sizes value_shape(shape.begin() + 1, shape.end());
         value_shape.insert(value_shape.begin(), rows.size(0));
         if (it.chance(0.3)) value_shape = it.broadcast_partner(value_shape);
         it.input(value_shape, it.chance(0.85) ? dtype : it.dtype(), {.specials = false});
         it.arg("accumulate", accumulate);
         it.scale_tolerance(4);
         it.refusal_allowed("more than one element of the written-to tensor");
         it.check([accumulate](auto& x, const auto& s) { return s.index_put_(x[0], {x[1]}, x[2], accumulate); });
       }},
      {"index_put_ scalar", Category::Indexing, [](Iteration& it) {
         Sizes shape = it.shape(3);
         if (shape.empty()) shape = {4};
         it.input(shape, it.dtype());
         // Repeated rows are fine here: every write is the same value.
         it.input_values(index_values(it, {it.integer(0, shape[0] + 1)}, shape[0], true));
         const ScalarValue value = it.scalar();
         it.arg("value", value);
         it.refusal_allowed("more than one element of the written-to tensor");
         it.check([value](auto& x, const auto& s) { return s.index_put_scalar(x[0], {x[1]}, value); });
       }},
      // Masks are bool: LibTorch 1.13 also takes integer masks that hold only 0 and 1 (deprecated), which
      // ember refuses, as PyTorch 2 does.
      {"masked_fill scalar", Category::Indexing, [](Iteration& it) {
         const Sizes shape = it.shape();
         it.input(shape, it.dtype());
         it.input(it.broadcast_partner(shape), DType::Bool);
         const ScalarValue value = it.scalar();
         it.arg("value", value);
         it.check([value](auto& x, const auto& s) { return x[0].masked_fill(x[1], s.scalar(value)); });
       }},
      {"masked_fill_ tensor", Category::Indexing, [](Iteration& it) {
         const Sizes shape = it.shape();
         it.input(shape, it.dtype());
         it.input(it.broadcast_partner(shape), DType::Bool);
         // Values every dtype holds: an overflowing value tensor is the known bug below.
         it.input(it.chance(0.8) ? Sizes{} : it.shape(1), it.dtype(), {.range = ValueRange{0, 100}, .specials = false});
         it.refusal_allowed("more than one element of the written-to tensor");
         it.check([](auto& x, const auto&) { return x[0].masked_fill_(x[1], x[2]); });
       }},
      {"masked_fill_ tensor that overflows", Category::Indexing, [](Iteration& it) {
         const Sizes shape = it.shape();
         it.input(shape, it.dtype());
         it.input(it.broadcast_partner(shape), DType::Bool);
         it.input({}, it.dtype(), {.large = true});
         it.check([](auto& x, const auto&) { return x[0].masked_fill_(x[1], x[2]); });
       },
       "a deliberate deviation (tensor/masking.cpp): masked_fill converts a 0-dim value tensor the dtype "
       "cannot hold (1e40 into float32, 300 into int8, NaN into int32) as a cast does, where PyTorch reads "
       "the value (item(), a host read ember avoids) and refuses: value cannot be converted ... overflow"},
      {"index_fill_", Category::Indexing, [](Iteration& it) {
         const Sizes shape = it.shape(3);
         it.input(shape, it.dtype());
         const int64_t dim = it.dim(static_cast<int64_t>(shape.size()));
         it.input_values(index_values(it, {it.integer(0, 4)}, size_of(shape, dim), true));
         const ScalarValue value = it.scalar();
         it.arg("dim", dim);
         it.arg("value", value);
         it.refusal_allowed("more than one element of the written-to tensor");
         it.check([dim, value](auto& x, const auto& s) { return x[0].index_fill_(dim, x[1], s.scalar(value)); });
       }},
      {"index_add_", Category::Indexing, [](Iteration& it) {
         Sizes shape = it.shape(3);
         if (shape.empty()) shape = {3};
         const DType dtype = it.dtype();
         it.input(shape, dtype, {.specials = false});
         const int64_t dim = it.dim(static_cast<int64_t>(shape.size()), 0.05);
         const int64_t d = wrapped(dim, static_cast<int64_t>(shape.size()));
         const int64_t count = it.integer(0, 5);
         it.input_values(index_values(it, {count}, shape[d], false));
         Sizes source_shape = shape;
         source_shape[d] = it.chance(0.9) ? count : count + 1;
         it.input(source_shape, it.chance(0.9) ? dtype : it.dtype(), {.specials = false});
         const ScalarValue alpha = it.chance(0.7) ? ScalarValue(int64_t{1}) : it.scalar();
         it.arg("dim", dim);
         it.arg("alpha", alpha);
         it.scale_tolerance(4);
         it.check([dim, alpha](auto& x, const auto& s) { return x[0].index_add_(dim, x[1], x[2], s.scalar(alpha)); });
       }},
      {"index_copy_", Category::Indexing, [](Iteration& it) {
         Sizes shape = it.shape(3);
         if (shape.empty()) shape = {3};
         const DType dtype = it.dtype();
         it.input(shape, dtype);
         const int64_t dim = it.dim(static_cast<int64_t>(shape.size()), 0.05);
         const int64_t d = wrapped(dim, static_cast<int64_t>(shape.size()));
         // Distinct indices: which copy lands where one repeats is unspecified.
         const int64_t count = it.integer(0, shape[d]);
         it.input_values(distinct_index(it, {count}, 0, shape[d]));
         Sizes source_shape = shape;
         source_shape[d] = it.chance(0.9) ? count : count + 1;
         it.input(source_shape, it.chance(0.9) ? dtype : it.dtype());
         it.arg("dim", dim);
         it.refusal_allowed("more than one element of the written-to tensor");
         it.check([dim](auto& x, const auto&) { return x[0].index_copy_(dim, x[1], x[2]); });
       }},
      {"take", Category::Indexing, [](Iteration& it) {
         const Sizes shape = it.shape();
         it.input(shape, it.dtype());
         int64_t numel = 1;
         for (int64_t s : shape) numel *= s;
         it.input_values(index_values(it, it.shape(2), numel, true));
         it.check([](auto& x, const auto&) { return x[0].take(x[1]); });
       }},
  };
}

std::vector<Row> factory_rows() {
  auto dtype_or_default = [](Iteration& it) {
    return it.chance(0.8) ? std::optional<DType>(it.dtype()) : std::nullopt;
  };
  return {
      {"empty", Category::Factory, [dtype_or_default](Iteration& it) {
         const Sizes sizes = it.factory_sizes();
         const std::optional<DType> dtype = dtype_or_default(it);
         it.arg("sizes", sizes);
         it.arg("dtype", dtype);
         it.sizes_only();
         it.check([sizes, dtype](auto&, const auto& s) { return s.empty(sizes, dtype); });
       }},
      {"zeros", Category::Factory, [dtype_or_default](Iteration& it) {
         const Sizes sizes = it.factory_sizes();
         const std::optional<DType> dtype = dtype_or_default(it);
         it.arg("sizes", sizes);
         it.arg("dtype", dtype);
         it.check([sizes, dtype](auto&, const auto& s) { return s.zeros(sizes, dtype); });
       }},
      {"ones", Category::Factory, [dtype_or_default](Iteration& it) {
         const Sizes sizes = it.factory_sizes();
         const std::optional<DType> dtype = dtype_or_default(it);
         it.arg("sizes", sizes);
         it.arg("dtype", dtype);
         it.check([sizes, dtype](auto&, const auto& s) { return s.ones(sizes, dtype); });
       }},
      {"full", Category::Factory, [dtype_or_default](Iteration& it) {
         const Sizes sizes = it.chance(0.7) ? it.shape() : it.factory_sizes();
         const ScalarValue value = it.scalar();
         const std::optional<DType> dtype = dtype_or_default(it);
         it.arg("sizes", sizes);
         it.arg("value", value);
         it.arg("dtype", dtype);
         it.check([sizes, value, dtype](auto&, const auto& s) { return s.full(sizes, value, dtype); });
       }},
      {"arange", Category::Factory, [dtype_or_default](Iteration& it) {
         const auto real = [](const ScalarValue& v) { return std::visit([](auto x) { return double(x); }, v); };
         ScalarValue start, end, step;
         // Redrawn while the count is one LibTorch could allocate but not fill in a test's time (over
         // 10^5 elements, under 2^50, kNoHostHasThisMany); above, both refuse.
         double count = 0;
         do {
           start = it.chance(0.7) ? ScalarValue(it.integer(-5, 5)) : it.scalar();
           end = it.chance(0.7) ? ScalarValue(it.integer(-20, 40)) : it.scalar();
           step = it.chance(0.5)   ? ScalarValue(it.integer(-3, 3))
                  : it.chance(0.5) ? ScalarValue(it.pick(std::vector<double>{0.5, -0.25, 1.5, 0.1}))
                                   : it.scalar();
           // LibTorch counts an int64 arange as (end - start + step - sign) / step in int64, which wraps
           // for bounds or steps near the int64 limits: it counts 0 elements where there is 1, or traps
           // (SIGFPE) dividing INT64_MIN by -1.
           for (ScalarValue* v : {&start, &end, &step}) {
             if (const int64_t* i = std::get_if<int64_t>(v); i && (*i > (int64_t{1} << 40) || *i < -(int64_t{1} << 40))) {
               *v = int64_t{7};
             }
           }
           count = std::abs((real(end) - real(start)) / real(step));
         } while (count > 1e5 && count < static_cast<double>(kNoHostHasThisMany));
         const std::optional<DType> dtype = dtype_or_default(it);
         it.arg("start", start);
         it.arg("end", end);
         it.arg("step", step);
         it.arg("dtype", dtype);
         it.check([start, end, step, dtype](auto&, const auto& s) { return s.arange(start, end, step, dtype); });
       }},
      {"linspace", Category::Factory, [dtype_or_default](Iteration& it) {
         // Finite bounds: with an infinite one LibTorch's two-sided formula gives NaN here and there
         // (0 * inf), ember infinities; neither means more.
         const auto bound = [&](ScalarValue v) {
           const double* d = std::get_if<double>(&v);
           return d && std::isinf(*d) ? ScalarValue(1.5) : v;
         };
         const ScalarValue start = it.chance(0.7) ? ScalarValue(it.integer(-5, 5)) : bound(it.scalar());
         const ScalarValue end = it.chance(0.7) ? ScalarValue(it.integer(-20, 40) / 2.0) : bound(it.scalar());
         const int64_t steps = it.chance(0.9) ? it.integer(0, 40) : it.pick(Sizes{-1, kNoHostHasThisMany});
         // Floating dtypes: LibTorch 1.13's CPU linspace into an integer dtype mixes a vectorised and a
         // scalar formula, giving [-5, -4, -4, -3, ..., -1, 0, 0, ...] for (-5, 7.5, 36), which no rule
         // reproduces (ember truncates start + i * step).
         const std::optional<DType> dtype = it.chance(0.8) ? std::optional<DType>(it.dtype(
             {DType::Float32, DType::Float64, DType::Float16, DType::BFloat16}))
                                                            : std::nullopt;
         it.arg("start", start);
         it.arg("end", end);
         it.arg("steps", steps);
         it.arg("dtype", dtype);
         it.check([start, end, steps, dtype](auto&, const auto& s) { return s.linspace(start, end, steps, dtype); });
       }},
      {"eye", Category::Factory, [dtype_or_default](Iteration& it) {
         const int64_t n = it.integer(-1, 6), m = it.chance(0.8) ? it.integer(-1, 6) : kNoHostHasThisMany;
         const std::optional<DType> dtype = dtype_or_default(it);
         it.arg("n", n);
         it.arg("m", m);
         it.arg("dtype", dtype);
         it.check([n, m, dtype](auto&, const auto& s) { return s.eye(n, m, dtype); });
       }},
  };
}

// Tensors for cat and stack: the same shape except (sometimes) along `dim`, sometimes mismatched,
// of the same or mixed dtypes, with the odd legacy 1-D empty tensor or 0-dim tensor among them.
void joining_inputs(Iteration& it, const Sizes& shape, int64_t dim, bool vary_dim) {
  const int64_t count = it.integer(1, 4);
  const DType first = it.dtype();
  for (int64_t i = 0; i < count; ++i) {
    Sizes s = shape;
    const int64_t rank = static_cast<int64_t>(s.size());
    const int64_t d = wrapped(dim, rank);
    if (vary_dim && rank > 0) s[d] = it.integer(0, 4);
    if (it.chance(0.07) && rank > 0) s[it.integer(0, rank - 1)] += 1;
    if (it.chance(0.05)) s = Sizes{0};
    if (it.chance(0.03)) s = Sizes{};
    it.input(s, it.chance(0.7) ? first : it.dtype());
  }
}

std::vector<Row> joining_rows() {
  return {
      {"cat", Category::Joining, [](Iteration& it) {
         const Sizes shape = it.shape(3);
         const int64_t dim = it.dim(static_cast<int64_t>(shape.size()));
         joining_inputs(it, shape, dim, true);
         it.arg("dim", dim);
         it.check([dim](auto& x, const auto& s) { return s.cat(x, dim); });
       }},
      {"stack", Category::Joining, [](Iteration& it) {
         const Sizes shape = it.shape(3);
         const int64_t dim = it.dim(static_cast<int64_t>(shape.size()) + 1);
         joining_inputs(it, shape, dim, false);
         it.arg("dim", dim);
         it.check([dim](auto& x, const auto& s) { return s.stack(x, dim); });
       }},
  };
}

// Operands for matmul and friends: 1-D to 4-D with broadcast batches, the inner sizes equal except
// sometimes; mostly one floating dtype, sometimes mixed or integer ones.
void matmul_inputs(Iteration& it, int64_t rank_a, int64_t rank_b) {
  const int64_t n = it.integer(0, 6), k = it.integer(0, 9), m = it.integer(0, 6);
  const int64_t k2 = it.chance(0.1) ? k + 1 : k;
  Sizes batch;
  for (int64_t d = std::max(rank_a, rank_b) - 2; d > 0; --d) batch.push_back(it.integer(1, 3));
  auto operand = [&](int64_t rank, int64_t rows, int64_t cols, bool left) {
    if (rank == 1) return Sizes{left ? cols : rows};
    Sizes s(batch.end() - std::min<int64_t>(rank - 2, batch.size()), batch.end());
    for (int64_t& b : s) {
      if (it.chance(0.2)) b = 1;
    }
    s.push_back(rows);
    s.push_back(cols);
    return s;
  };
  const DType dtype = it.chance(0.75) ? it.dtype({DType::Float32, DType::Float64, DType::Float16, DType::BFloat16})
                                      : it.dtype();
  it.input(operand(rank_a, n, k, true), dtype, {.specials = false});
  it.input(operand(rank_b, k2, m, false), it.chance(0.9) ? dtype : it.dtype(), {.specials = false});
  it.scale_tolerance(1 + k);
}

std::vector<Row> matmul_rows() {
  return {
      {"matmul", Category::Matmul, [](Iteration& it) {
         matmul_inputs(it, it.integer(1, 4), it.integer(1, 4));
         it.check([](auto& x, const auto& s) { return s.matmul(x[0], x[1]); });
       }},
      {"mm", Category::Matmul, [](Iteration& it) {
         matmul_inputs(it, it.chance(0.9) ? 2 : 3, it.chance(0.9) ? 2 : 1);
         it.check([](auto& x, const auto&) { return x[0].mm(x[1]); });
       }},
      {"bmm", Category::Matmul, [](Iteration& it) {
         matmul_inputs(it, it.chance(0.9) ? 3 : 2, 3);
         it.check([](auto& x, const auto&) { return x[0].bmm(x[1]); });
       }},
      {"mv", Category::Matmul, [](Iteration& it) {
         matmul_inputs(it, 2, it.chance(0.9) ? 1 : 2);
         it.check([](auto& x, const auto&) { return x[0].mv(x[1]); });
       }},
      {"dot", Category::Matmul, [](Iteration& it) {
         matmul_inputs(it, 1, it.chance(0.9) ? 1 : 2);
         it.check([](auto& x, const auto&) { return x[0].dot(x[1]); });
       }},
  };
}

std::vector<Row> cast_rows() {
  return {
      {"to", Category::Cast, [](Iteration& it) {
         const DType from = it.dtype(), to = it.dtype();
         // Float to integer conversion of a value out of the integer's range (or NaN, or a negative
         // value to uint8) is undefined behaviour in C++: LibTorch's CPU result is the hardware's.
         const bool exact = !is_floating_point(from) || is_floating_point(to) || to == DType::Bool;
         if (exact) it.input(it.shape(), from, {.large = true});
         else it.input(it.shape(), from, {.range = ValueRange{0, 100}, .specials = false});
         it.arg("dtype", to);
         it.check([to](auto& x, const auto& s) { return x[0].to(s.dt(to)); });
       }},
      {"copy_ across dtypes", Category::Cast, [](Iteration& it) {
         const DType to = it.dtype(), from = it.dtype();
         const Sizes shape = it.shape();
         it.input(shape, to);
         const bool exact = !is_floating_point(from) || is_floating_point(to) || to == DType::Bool;
         Sizes source = it.broadcast_partner(shape);
         if (exact) it.input(source, from, {.large = true});
         else it.input(source, from, {.range = ValueRange{0, 100}, .specials = false});
         it.check([](auto& x, const auto&) { return x[0].copy_(x[1]); });
       }},
  };
}

const std::vector<Row>& table() {
  static const std::vector<Row> rows = [] {
    std::vector<Row> all;
    for (auto make : {unary_rows, binary_rows, reduction_rows, view_rows, indexing_rows, factory_rows,
                      joining_rows, matmul_rows, cast_rows}) {
      for (Row& row : make()) all.push_back(std::move(row));
    }
    return all;
  }();
  return rows;
}

bool env_flag(const char* name) {
  const char* value = std::getenv(name);
  return value && *value && std::string(value) != "0";
}

class FuzzTest : public BackendTest {
 protected:
  // `iterations` seeds from `first_seed`, each drawing one row of `category`.
  void fuzz(Category category, uint64_t first_seed, int iterations) {
    std::vector<const Row*> rows;
    for (const Row& row : table()) {
      if (row.category == category && (row.known_bug.empty() || env_flag("EMBER_FUZZ_KNOWN_BUGS"))) {
        rows.push_back(&row);
      }
    }
    ASSERT_FALSE(rows.empty());
    const ::testing::TestInfo* info = ::testing::UnitTest::GetInstance()->current_test_info();
    std::vector<uint64_t> seeds;
    if (const char* only = std::getenv("EMBER_FUZZ_SEED")) {
      seeds.push_back(std::stoull(only));
    } else {
      const char* rounds = std::getenv("EMBER_FUZZ_ROUNDS");
      const int64_t count = iterations * (rounds ? std::max(1, std::atoi(rounds)) : 1);
      for (int64_t i = 0; i < count; ++i) seeds.push_back(first_seed + (i < iterations ? i : 100000 * first_seed + i));
    }
    int failed = 0;
    for (uint64_t seed : seeds) {
      const Row& row = *rows[std::mt19937_64(seed)() % rows.size()];
      const std::string replay = "EMBER_FUZZ_SEED=" + std::to_string(seed) + " ./tests/ember-tests --gtest_filter='" +
                                 info->test_suite_name() + "." + info->name() + "'";
      Iteration it(seed * 2654435761u + 1, row.name, device, replay);
      const bool failing_before = HasFailure();
      row.build(it);
      if (HasFailure() && !failing_before) ++failed;
      if (HasNonfatalFailure() && failed >= 10) {
        ADD_FAILURE() << "stopping after 10 failing iterations";
        return;
      }
    }
  }
};

// About 1000 iterations: a few seconds on lavapipe.
TEST_P(FuzzTest, Unary) { fuzz(Category::Unary, 1000, 150); }
TEST_P(FuzzTest, Binary) { fuzz(Category::Binary, 2000, 200); }
TEST_P(FuzzTest, Reduction) { fuzz(Category::Reduction, 3000, 120); }
TEST_P(FuzzTest, View) { fuzz(Category::View, 4000, 150); }
TEST_P(FuzzTest, Indexing) { fuzz(Category::Indexing, 5000, 150); }
TEST_P(FuzzTest, Factory) { fuzz(Category::Factory, 6000, 80); }
TEST_P(FuzzTest, Joining) { fuzz(Category::Joining, 7000, 60); }
TEST_P(FuzzTest, Matmul) { fuzz(Category::Matmul, 8000, 80); }
TEST_P(FuzzTest, Cast) { fuzz(Category::Cast, 9000, 80); }

// The rows left out of the draw for a bug that is known and not fixed yet, named here.
TEST_P(FuzzTest, KnownBugs) {
  std::string list;
  for (const Row& row : table()) {
    if (!row.known_bug.empty()) list += "\n  " + row.name + ": " + row.known_bug;
  }
  if (!list.empty()) GTEST_SKIP() << "rows skipped for known bugs (EMBER_FUZZ_KNOWN_BUGS=1 draws them):" << list;
}

INSTANTIATE_TEST_SUITE_P(Backends, FuzzTest, testing::Values("vulkan", "cuda"), backend_test_name);

}  // namespace
}  // namespace ember::test::fuzz
