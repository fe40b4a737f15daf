#include "runtime/kernels/matmul.h"

#include "runtime/kernels/reduce.h"

namespace ember {

void matmul_row_sums_by_reduction(ReduceKernels& reduce, Stream& stream, const MatmulArgs& args) {
  if (!args.a_row_sums || args.a_row_sums->numel() == 0) return;
  sum_dims(reduce, stream, *args.a_row_sums, args.a, 4u);  // over K
}

}  // namespace ember
