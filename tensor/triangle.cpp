// tril and triu (in place and out of place): one triangle kernel over the last two dims.
#include "autograd/record.h"
#include "tensor/indexing_support.h"

namespace ember {

namespace {
Tensor& triangle_into(Tensor& out, const Tensor& in, int64_t diagonal, bool upper) {
  if (in.numel() == 0) return out;  // PyTorch returns before it checks for two dims
  detail::wrap_dim(-2, in.dim());
  if (in.numel() > 0) detail::index_kernels(in).triangle(detail::stream_of(in), {out.ref(), in.ref(), diagonal, upper});
  return out;
}
}  // namespace

Tensor Tensor::tril(int64_t diagonal) const {
  autograd::Record rec("TrilBackward0", {this});
  Tensor out = detail::empty_on(sizes(), dtype(), device());
  triangle_into(out, *this, diagonal, false);
  if (!rec) return out;
  return rec.finish(out, [diagonal](autograd::FunctionNode&, const autograd::tensor_list& g) {
    return autograd::tensor_list{g[0].tril(diagonal)};
  });
}
Tensor Tensor::triu(int64_t diagonal) const {
  autograd::Record rec("TriuBackward0", {this});
  Tensor out = detail::empty_on(sizes(), dtype(), device());
  triangle_into(out, *this, diagonal, true);
  if (!rec) return out;
  return rec.finish(out, [diagonal](autograd::FunctionNode&, const autograd::tensor_list& g) {
    return autograd::tensor_list{g[0].triu(diagonal)};
  });
}
Tensor& Tensor::tril_(int64_t diagonal) {
  if (autograd::inplace_needs_record(*this, {})) {
    return autograd::record_inplace(*this, [&](const Tensor& old) { return old.tril(diagonal); });
  }
  detail::check_no_internal_overlap(*this);
  triangle_into(*this, *this, diagonal, false);
  detail::bump_version(*this);
  return *this;
}
Tensor& Tensor::triu_(int64_t diagonal) {
  if (autograd::inplace_needs_record(*this, {})) {
    return autograd::record_inplace(*this, [&](const Tensor& old) { return old.triu(diagonal); });
  }
  detail::check_no_internal_overlap(*this);
  triangle_into(*this, *this, diagonal, true);
  detail::bump_version(*this);
  return *this;
}

}  // namespace ember
