// torch.diff: the n-th forward difference along a dim, composed as PyTorch composes it (narrow and sub,
// so the node is SubBackward0; logical_xor for bool), after prepend and append are joined by cat.
#include "tensor/functions.h"
#include "tensor/ops_support.h"

namespace ember {

namespace {

void check_joinable(const Tensor& self, const std::optional<Tensor>& other, int64_t dim) {
  if (!other) return;
  if (other->dim() != self.dim()) throw Error("diff expects prepend or append to be the same dimension as input");
  for (int64_t i = 0; i < other->dim(); ++i) {
    if (other->size(i) != self.size(i) && i != dim) {
      throw Error("diff expects the shape of tensor to prepend or append to match that of input except along the "
                  "differencing dimension; input.size(" + std::to_string(i) + ") = " + std::to_string(self.size(i)) +
                  ", but got tensor.size(" + std::to_string(i) + ") = " + std::to_string(other->size(i)));
    }
  }
}

}  // namespace

Tensor Tensor::diff(int64_t n, int64_t dim, const std::optional<Tensor>& prepend,
                    const std::optional<Tensor>& append) const {
  if (this->dim() == 0) throw Error("diff expects input to be at least one-dimensional");
  const int64_t d = detail::wrap_dim(dim, this->dim());
  check_joinable(*this, prepend, d);
  check_joinable(*this, append, d);
  if (n == 0) return clone();  // PyTorch's copy, without prepend and append
  std::vector<Tensor> parts;
  if (prepend) parts.push_back(*prepend);
  parts.push_back(*this);
  if (append) parts.push_back(*append);
  Tensor result = parts.size() == 1 ? *this : cat(parts, d);
  const bool logical = result.dtype() == DType::Bool;  // bool has no sub: its difference is xor
  const int64_t steps = std::min(n, result.size(d));
  int64_t length = result.size(d) - 1;
  for (int64_t i = 0; i < steps; ++i, --length) {
    const Tensor later = result.narrow(d, 1, length), earlier = result.narrow(d, 0, length);
    result = logical ? later.logical_xor(earlier) : later - earlier;
  }
  return n < 0 ? result.clone() : result;
}

Tensor diff(const Tensor& self, int64_t n, int64_t dim, const std::optional<Tensor>& prepend,
            const std::optional<Tensor>& append) {
  return self.diff(n, dim, prepend, append);
}

}  // namespace ember
