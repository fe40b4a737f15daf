// In-place views: t_, transpose_ (swapaxes_), squeeze_ and unsqueeze_. The tensor takes the sizes,
// strides and offset of the out-of-place view, so every handle to it sees them (handles share one
// TensorImpl). The values do not move. As in PyTorch, the storage's version counts the change, so a
// node that saved the tensor refuses a backward after it.
//
// Autograd: the node gets PyTorch's name for the in-place form (TBackward1, SqueezeBackward3, ...) and
// maps the gradient back through the inverse view. A leaf that requires grad, or a view of one, is
// refused as for any in-place op.
#include <functional>

#include "autograd/autograd_meta.h"
#include "autograd/record.h"
#include "tensor/ops_support.h"

namespace ember {

namespace {

using TensorMap = std::function<Tensor(const Tensor&)>;

Tensor& take_view_geometry(Tensor& self, const char* node_name, const TensorMap& view_of, TensorMap to_input) {
  const bool recorded = autograd::inplace_needs_record(self, {});
  Tensor view;
  {
    autograd::AutoGradMode plain(false);
    view = view_of(self);
  }
  if (recorded) {
    autograd::Record rec(node_name, {&self});
    if (rec) {
      view = rec.finish(view, [to_input = std::move(to_input)](autograd::FunctionNode&,
                                                               const autograd::tensor_list& g) {
        return autograd::tensor_list{to_input(g[0])};
      });
    }
  }
  TensorImpl& impl = self.impl();
  impl.sizes = view.sizes().vec();
  impl.strides = view.strides().vec();
  impl.storage_offset = view.storage_offset();
  if (view.grad_fn()) autograd::set_history(self, view.grad_fn(), static_cast<uint32_t>(view.output_nr()));
  detail::bump_version(self);
  return self;
}

// The sizes `t` had, for gradients that reshape back to them.
TensorMap reshape_to_sizes_of(const Tensor& t) {
  return [sizes = t.sizes().vec()](const Tensor& g) { return g.reshape(sizes); };
}

}  // namespace

Tensor& Tensor::t_() {
  if (dim() > 2) {
    throw Error("t_() expects a tensor with <= 2 dimensions, but self is " + std::to_string(dim()) + "D");
  }
  return take_view_geometry(*this, "TBackward1", [](const Tensor& x) { return x.t(); },
                            [](const Tensor& g) { return g.t(); });
}

Tensor& Tensor::transpose_(int64_t dim0, int64_t dim1) {
  dim0 = detail::wrap_dim(dim0, dim());
  dim1 = detail::wrap_dim(dim1, dim());
  const auto swap = [dim0, dim1](const Tensor& x) { return x.transpose(dim0, dim1); };
  return take_view_geometry(*this, "TransposeBackward1", swap, swap);
}

Tensor& Tensor::swapaxes_(int64_t dim0, int64_t dim1) { return transpose_(dim0, dim1); }

Tensor& Tensor::squeeze_() {
  return take_view_geometry(*this, "SqueezeBackward3", [](const Tensor& x) { return x.squeeze(); },
                            reshape_to_sizes_of(*this));
}

Tensor& Tensor::squeeze_(int64_t dim) {
  return take_view_geometry(*this, "SqueezeBackward4", [dim](const Tensor& x) { return x.squeeze(dim); },
                            reshape_to_sizes_of(*this));
}

Tensor& Tensor::squeeze_(IntArrayRef dims) {
  return take_view_geometry(*this, "SqueezeBackward5", [&dims](const Tensor& x) { return x.squeeze(dims); },
                            reshape_to_sizes_of(*this));
}

Tensor& Tensor::unsqueeze_(int64_t dim) {
  dim = detail::wrap_dim(dim, this->dim(), 1);
  return take_view_geometry(*this, "UnsqueezeBackward1", [dim](const Tensor& x) { return x.unsqueeze(dim); },
                            [dim](const Tensor& g) { return g.squeeze(dim); });
}

}  // namespace ember
