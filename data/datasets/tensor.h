#pragma once
// Datasets over tensors that are already on a device.
// - TensorDataset: the rows of one tensor, as LibTorch's (examples are TensorExample).
// - TensorPairDataset: rows of data and target tensors of equal length, as Python's
//   TensorDataset(data, targets) (examples are Example<>).
// get(i) is a view of row i. get_batch gathers a batch's rows on the device in one step (see
// data/detail/gather_rows.h); the rows it returns collate (Stack) into that batch without a copy.
// The tensors are made contiguous once, at construction.
#include <vector>

#include "data/datasets/base.h"

namespace ember::data::datasets {

struct TensorDataset : public Dataset<TensorDataset, TensorExample> {
  // The tensors stacked along a new dim 0 (LibTorch's).
  explicit TensorDataset(const std::vector<Tensor>& tensors);
  explicit TensorDataset(Tensor tensor);

  TensorExample get(size_t index) override;
  std::vector<TensorExample> get_batch(ArrayRef<size_t> indices) override;
  std::optional<size_t> size() const override { return static_cast<size_t>(tensor.size(0)); }

  Tensor tensor;
};

struct TensorPairDataset : public Dataset<TensorPairDataset> {
  TensorPairDataset(Tensor data, Tensor targets);

  Example<> get(size_t index) override;
  std::vector<Example<>> get_batch(ArrayRef<size_t> indices) override;
  std::optional<size_t> size() const override { return static_cast<size_t>(data.size(0)); }

  Tensor data, targets;
};

}  // namespace ember::data::datasets
