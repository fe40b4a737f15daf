#include "runtime/kernels/matmul.h"

#include "runtime/kernels/reduce.h"

namespace ember {

void matmul_row_sums_by_reduction(ReduceKernels& reduce, Stream& stream, const MatmulArgs& args) {
  if (!args.a_row_sums || args.a_row_sums->numel() == 0) return;
  ReduceArgs sum;
  sum.op = ReduceOp::Sum;
  sum.out = *args.a_row_sums;
  sum.in = args.a;
  sum.reduce_mask = 4u;  // K
  sum.compute = args.a.dtype == DType::Float64 ? DType::Float64 : DType::Float32;
  reduce.reduce(stream, sum);
}

}  // namespace ember
