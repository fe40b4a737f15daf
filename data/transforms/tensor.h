#pragma once
// Transforms of an example's data tensor, as LibTorch's: TensorTransform, TensorLambda and Normalize.
#include <functional>
#include <utility>
#include <vector>

#include "data/example.h"
#include "data/transforms/base.h"

namespace ember::data::transforms {

template <typename Target = Tensor>
class TensorTransform : public Transform<Example<Tensor, Target>, Example<Tensor, Target>> {
 public:
  using E = Example<Tensor, Target>;
  using typename Transform<E, E>::InputType;
  using typename Transform<E, E>::OutputType;

  virtual Tensor operator()(Tensor input) = 0;

  OutputType apply(InputType input) override {
    input.data = (*this)(std::move(input.data));
    return input;
  }
};

template <typename Target = Tensor>
class TensorLambda : public TensorTransform<Target> {
 public:
  using FunctionType = std::function<Tensor(Tensor)>;

  explicit TensorLambda(FunctionType function) : function_(std::move(function)) {}
  Tensor operator()(Tensor input) override { return function_(std::move(input)); }

 private:
  FunctionType function_;
};

namespace detail {
// (values) as a float32 tensor of shape (C, 1, 1) on the default device.
Tensor channel_constants(const std::vector<double>& values);
// Normalize's batch: the data of `examples` normalized at once when they are the rows of one batch
// tensor (data/batch_rows.h) and the result has their shape; false when the caller must map
// each example instead (the examples are then untouched).
bool normalize_rows(std::vector<Tensor>& data, const std::function<Tensor(Tensor)>& normalize);
}  // namespace detail

// (data - mean) / stddev per channel: mean and stddev have shape (C, 1, 1), so data is (C, H, W) or
// anything they broadcast with, as in LibTorch. A batch that a dataset built at once (MNIST,
// TensorDataset) is normalized in one pair of ops instead of one pair per example.
template <typename Target = Tensor>
struct Normalize : public TensorTransform<Target> {
  Normalize(double mean, double stddev) : Normalize(std::vector<double>{mean}, std::vector<double>{stddev}) {}
  Normalize(const std::vector<double>& mean, const std::vector<double>& stddev)
      : mean(detail::channel_constants(mean)), stddev(detail::channel_constants(stddev)) {}

  Tensor operator()(Tensor input) override {
    return input.sub(mean.to(input.device())).div(stddev.to(input.device()));
  }

  std::vector<Example<Tensor, Target>> apply_batch(std::vector<Example<Tensor, Target>> batch) override {
    std::vector<Tensor> data;
    data.reserve(batch.size());
    for (auto& example : batch) data.push_back(std::move(example.data));
    const bool at_once = detail::normalize_rows(data, [this](Tensor x) { return (*this)(std::move(x)); });
    for (size_t i = 0; i < batch.size(); ++i) {
      batch[i].data = at_once ? std::move(data[i]) : (*this)(std::move(data[i]));
    }
    return batch;
  }

  Tensor mean, stddev;
};

}  // namespace ember::data::transforms
