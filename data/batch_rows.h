#pragma once
// A batch made at once, handed around as rows. LibTorch's datasets hand a batch on as a vector of
// examples, which Stack collates again; a dataset that builds the whole batch in one tensor (one upload,
// or one device gather) returns that tensor's rows, and Stack and Normalize find the tensor again from
// them, so that the batch is neither copied nor transformed row by row.
#include <vector>

#include "tensor/tensor.h"

namespace ember::data::detail {

// The rows of `batch` along dim 0, as views of it.
std::vector<Tensor> rows_of(const Tensor& batch);

// The tensor whose rows `rows` are, all of them and in order, when nothing else can see that tensor
// or its memory (so handing it out instead of a stacked copy is unobservable); undefined otherwise.
Tensor private_base_of(const std::vector<Tensor>& rows);

}  // namespace ember::data::detail

namespace ember::data::detail {

// torch::stack(rows), except that rows of a private base (above) give that base back, uncopied.
Tensor stack_rows(const std::vector<Tensor>& rows);

}  // namespace ember::data::detail
