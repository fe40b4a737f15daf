#include "data/datasets/tensor.h"

#include <string>

#include "data/batch_rows.h"
#include "data/detail/gather_rows.h"
#include "runtime/error.h"
#include "tensor/functions.h"

namespace ember::data::datasets {

namespace {

Tensor rows_tensor(Tensor tensor, const char* what) {
  if (!tensor.defined()) throw Error(std::string(what) + ": the tensor is undefined");
  if (tensor.dim() < 1) {
    throw Error(std::string(what) + ": a 0-dim tensor has no rows; give a tensor of at least 1 dim");
  }
  return tensor.contiguous();
}

}  // namespace

TensorDataset::TensorDataset(const std::vector<Tensor>& tensors) : TensorDataset(stack(tensors)) {}

TensorDataset::TensorDataset(Tensor tensor) : tensor(rows_tensor(std::move(tensor), "TensorDataset")) {}

TensorExample TensorDataset::get(size_t index) { return tensor[static_cast<int64_t>(index)]; }

std::vector<TensorExample> TensorDataset::get_batch(ArrayRef<size_t> indices) {
  std::vector<TensorExample> batch;
  for (Tensor& row : ember::data::detail::rows_of(ember::data::detail::gather_rows(tensor, indices))) {
    batch.emplace_back(std::move(row));
  }
  return batch;
}

TensorPairDataset::TensorPairDataset(Tensor data_, Tensor targets_)
    : data(rows_tensor(std::move(data_), "TensorPairDataset")),
      targets(rows_tensor(std::move(targets_), "TensorPairDataset")) {
  if (data.size(0) != targets.size(0)) {
    throw Error("Size mismatch between tensors: data has " + std::to_string(data.size(0)) +
                " rows and targets " + std::to_string(targets.size(0)));
  }
}

Example<> TensorPairDataset::get(size_t index) {
  const auto i = static_cast<int64_t>(index);
  return {data[i], targets[i]};
}

std::vector<Example<>> TensorPairDataset::get_batch(ArrayRef<size_t> indices) {
  std::vector<Tensor> data_rows = ember::data::detail::rows_of(ember::data::detail::gather_rows(data, indices));
  std::vector<Tensor> target_rows = ember::data::detail::rows_of(ember::data::detail::gather_rows(targets, indices));
  std::vector<Example<>> batch;
  batch.reserve(indices.size());
  for (size_t i = 0; i < indices.size(); ++i) {
    batch.emplace_back(std::move(data_rows[i]), std::move(target_rows[i]));
  }
  return batch;
}

}  // namespace ember::data::datasets
