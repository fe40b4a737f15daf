// How the named parameters of the argument structs become the few slots a kernel receives: the op lists
// say which fields each op reads, in order, so every case of each switch is generated from its list.
#include "runtime/kernels/elementwise.h"
#include "runtime/kernels/random.h"

#define EMBER_PARAMETER_LIST(...) __VA_ARGS__

namespace ember {

std::array<Scalar, 3> UnaryArgs::parameters() const {
  switch (op) {
#define EMBER_UNARY_OP(Enum, name, domain, parameters) \
  case UnaryOp::Enum: return std::array<Scalar, 3>{EMBER_PARAMETER_LIST parameters};
#include "runtime/kernels/unary_ops.def"
#undef EMBER_UNARY_OP
  }
  return {};
}

Scalar BinaryArgs::parameter() const {
  switch (op) {
#define EMBER_BINARY_OP(Enum, name, domain, parameter) \
  case BinaryOp::Enum: return parameter;
#include "runtime/kernels/binary_ops.def"
#undef EMBER_BINARY_OP
  }
  return 0;
}

std::array<Scalar, 2> RandomArgs::parameters() const {
  switch (op) {
#define EMBER_RANDOM_OP(Enum, name, parameters) \
  case RandomOp::Enum: return std::array<Scalar, 2>{EMBER_PARAMETER_LIST parameters};
#include "runtime/kernels/random_ops.def"
#undef EMBER_RANDOM_OP
  }
  return {};
}

}  // namespace ember
