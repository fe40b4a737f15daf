#include "data/transforms/tensor.h"

#include "data/batch_rows.h"
#include "tensor/functions.h"

namespace ember::data::transforms::detail {

Tensor channel_constants(const std::vector<double>& values) {
  const std::vector<float> floats(values.begin(), values.end());
  return from_blob(floats.data(), {static_cast<int64_t>(floats.size())}, TensorOptions(kFloat32))
      .unsqueeze(1)
      .unsqueeze(2);
}

bool normalize_rows(std::vector<Tensor>& data, const std::function<Tensor(Tensor)>& normalize) {
  Tensor base = data::detail::private_base_of(data);
  // One example is (C, H, W) or more: the (C, 1, 1) constants then broadcast within each row alone.
  if (!base.defined() || base.dim() < 4) return false;
  const Tensor out = normalize(base);
  if (!(out.sizes() == base.sizes())) return false;
  data = data::detail::rows_of(out);
  return true;
}

}  // namespace ember::data::transforms::detail
