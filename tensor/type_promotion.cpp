// PyTorch's type promotion: promote_types is c10::promoteTypes for ember's dtypes, and result_type
// follows at::native::result_type, where tensors with dims outrank 0-dim tensors, which outrank
// scalars, unless a lower-ranked operand is of a higher category (bool < integral < floating).
#include <optional>

#include "runtime/error.h"
#include "tensor/functions.h"

namespace ember {

namespace {

int float_rank(DType dtype) {
  switch (dtype) {
    case DType::Float64: return 3;
    case DType::Float32: return 2;
    default: return 1;  // float16, bfloat16
  }
}

// at::native's combine_categories, without complex types.
std::optional<DType> combine_categories(std::optional<DType> higher, std::optional<DType> lower) {
  if (higher && is_floating_point(*higher)) return higher;
  if (!higher) return lower;
  if (!lower) return higher;
  if (*higher == DType::Bool || is_floating_point(*lower)) return promote_types(*higher, *lower);
  return higher;
}

DType scalar_dtype(Scalar scalar) {
  if (scalar.is_floating_point()) return get_default_dtype();
  if (scalar.is_bool()) return DType::Bool;
  return DType::Int64;
}

struct ResultTypeState {
  std::optional<DType> dim, zero, wrapped;
  void add(const Tensor& t) {
    auto& slot = t.dim() > 0 ? dim : zero;
    slot = slot ? promote_types(*slot, t.dtype()) : t.dtype();
  }
  void add(Scalar s) {
    const DType d = scalar_dtype(s);
    wrapped = wrapped ? promote_types(*wrapped, d) : d;
  }
  DType result() const { return *combine_categories(dim, combine_categories(zero, wrapped)); }
};

}  // namespace

DType promote_types(DType a, DType b) {
  if (a == b) return a;
  if (a == DType::Bool) return b;
  if (b == DType::Bool) return a;
  const bool fa = is_floating_point(a), fb = is_floating_point(b);
  if (fa && fb) {
    const int ra = float_rank(a), rb = float_rank(b);
    if (ra == 1 && rb == 1) return DType::Float32;  // float16 with bfloat16
    return ra > rb ? a : b;
  }
  if (fa) return a;
  if (fb) return b;
  // Both integral. uint8 with a signed type needs a signed type wider than 8 bits.
  if (a == DType::UInt8 || b == DType::UInt8) {
    const DType other = a == DType::UInt8 ? b : a;
    return other == DType::Int8 ? DType::Int16 : other;
  }
  return element_size(a) >= element_size(b) ? a : b;
}

DType result_type(const Tensor& a, const Tensor& b) {
  ResultTypeState state;
  state.add(a);
  state.add(b);
  return state.result();
}

DType result_type(const Tensor& a, Scalar b) {
  ResultTypeState state;
  state.add(a);
  state.add(b);
  return state.result();
}

DType result_type(Scalar a, const Tensor& b) { return result_type(b, a); }

bool can_cast(DType from, DType to) {
  if (is_floating_point(from) && is_integral(to)) return false;
  if (from != DType::Bool && to == DType::Bool) return false;
  return true;
}

void check_can_cast(DType result, DType out) {
  if (!can_cast(result, out)) {
    throw Error("result type " + scalar_type_name(result) + " can't be cast to the desired output type " +
                scalar_type_name(out));
  }
}

}  // namespace ember
