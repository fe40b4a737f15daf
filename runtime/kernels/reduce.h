#pragma once
// The reduce kernel family: reductions over any set of dims, and inclusive scans along one dim. The ops
// come from reduce_ops.def and scan_ops.def.
#include <optional>

#include "runtime/kernels/kernels.h"
#include "runtime/kernels/op_list.h"

namespace ember {

enum class ReduceOp : uint8_t {
#define EMBER_REDUCE_OP(Enum, name, domain) Enum,
#include "runtime/kernels/reduce_ops.def"
#undef EMBER_REDUCE_OP
};
inline constexpr std::string_view kReduceOpNames[] = {
#define EMBER_REDUCE_OP(Enum, name, domain) #name,
#include "runtime/kernels/reduce_ops.def"
#undef EMBER_REDUCE_OP
};
inline constexpr OpDomain kReduceOpDomains[] = {
#define EMBER_REDUCE_OP(Enum, name, domain) OpDomain::domain,
#include "runtime/kernels/reduce_ops.def"
#undef EMBER_REDUCE_OP
};
inline constexpr size_t kReduceOpCount = std::size(kReduceOpNames);
static_assert(std::size(kReduceOpDomains) == kReduceOpCount);

enum class ScanOp : uint8_t {
#define EMBER_SCAN_OP(Enum, name) Enum,
#include "runtime/kernels/scan_ops.def"
#undef EMBER_SCAN_OP
};
inline constexpr std::string_view kScanOpNames[] = {
#define EMBER_SCAN_OP(Enum, name) #name,
#include "runtime/kernels/scan_ops.def"
#undef EMBER_SCAN_OP
};
inline constexpr size_t kScanOpCount = std::size(kScanOpNames);

constexpr std::string_view reduce_op_name(ReduceOp op) { return op_name(op, kReduceOpNames); }
constexpr std::string_view scan_op_name(ScanOp op) { return op_name(op, kScanOpNames); }
constexpr OpDomain op_domain(ReduceOp op) { return kReduceOpDomains[static_cast<size_t>(op)]; }

// Reduces `in` over the dims whose bit is set in `reduce_mask`. out (and indices, int64) are contiguous
// with the kept dims of `in`, in order; the arg-ops write only indices, Max and Min both.
struct ReduceArgs {
  ReduceOp op = ReduceOp::Sum;
  std::optional<TensorRef> out;
  std::optional<TensorRef> indices;
  TensorRef in;
  uint32_t reduce_mask = 0;
  DType compute = DType::Float32;
  double correction = 1;  // Var, Std: divide by count - correction
  double p = 2;           // Norm

  // Throws Error unless the fields are as described above: a known op, at most 16 dims, a mask within
  // them, the outputs the op writes (int64 indices) contiguous with one element per output, a
  // floating-point compute dtype for the floating ops, and, where there are outputs but nothing to
  // reduce, an op with an identity and no indices. Both backends check with it.
  void check() const;
};

// Inclusive scan along `dim`; out has in's sizes (any strides). CumMax and CumMin also write indices.
struct ScanArgs {
  ScanOp op = ScanOp::CumSum;
  TensorRef out;
  std::optional<TensorRef> indices;
  TensorRef in;
  int dim = 0;
  DType compute = DType::Float32;

  // Throws Error unless the fields are as described above: at most 16 dims, dim within them, out (and
  // the indices of CumMax and CumMin, int64, required there) with in's sizes, and a floating-point
  // compute dtype for LogCumSumExp. Both backends check with it.
  void check() const;
};

class ReduceKernels : public KernelFamily {
 public:
  static constexpr std::string_view kName = "reduce";
  virtual void reduce(Stream& stream, const ReduceArgs& args) = 0;
  virtual void scan(Stream& stream, const ScanArgs& args) = 0;
};

// out = Σ of in over the dims in reduce_mask (float64 sums in float64, every other dtype in float32): the
// sums that other families hand to this one (a bias gradient beside a weight gradient).
void sum_dims(ReduceKernels& reduce, Stream& stream, const TensorRef& out, const TensorRef& in, uint32_t reduce_mask);

}  // namespace ember
