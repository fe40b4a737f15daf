// Joining: cat and the stacks built on it. The result is allocated once in the promoted dtype of all
// inputs, and each input is copied (or cast) into its narrow()ed slice: one dispatch per input.
// Autograd: cat gives each input its slice of the gradient, stack each input its select().
#include "autograd/record.h"
#include "tensor/ops_support.h"

namespace ember {

namespace {

// PyTorch still skips 1-D tensors of size 0 in cat, whatever the other inputs' shapes.
bool legacy_empty(const Tensor& t) { return t.dim() == 1 && t.size(0) == 0; }

Tensor at_least_1d(const Tensor& t) { return t.dim() == 0 ? t.reshape({1}) : t; }
Tensor at_least_2d(const Tensor& t) {
  if (t.dim() == 0) return t.reshape({1, 1});
  if (t.dim() == 1) return t.unsqueeze(0);
  return t;
}

}  // namespace

Tensor cat(const std::vector<Tensor>& tensors, int64_t dim) {
  if (tensors.empty()) throw Error("torch.cat(): expected a non-empty list of Tensors");
  DType dtype = tensors[0].dtype();
  const Tensor* reference = nullptr;  // the first input that is not a legacy empty one
  for (size_t i = 0; i < tensors.size(); ++i) {
    const Tensor& t = tensors[i];
    detail::check_same_device({&tensors[0], &t});
    if (t.dim() == 0) {
      throw Error("zero-dimensional tensor (at position " + std::to_string(i) + ") cannot be concatenated");
    }
    dtype = promote_types(dtype, t.dtype());
    if (!reference && !legacy_empty(t)) reference = &t;
  }
  if (!reference) return detail::empty_on({0}, dtype, tensors[0].device());
  dim = detail::wrap_dim(dim, reference->dim());
  std::vector<int64_t> shape = reference->sizes().vec();
  shape[dim] = 0;
  for (size_t i = 0; i < tensors.size(); ++i) {
    const Tensor& t = tensors[i];
    if (legacy_empty(t)) continue;
    if (t.dim() != reference->dim()) {
      throw Error("Tensors must have same number of dimensions: got " + std::to_string(reference->dim()) +
                  " and " + std::to_string(t.dim()));
    }
    for (int64_t d = 0; d < t.dim(); ++d) {
      if (d != dim && t.size(d) != reference->size(d)) {
        throw Error("Sizes of tensors must match except in dimension " + std::to_string(dim) + ". Expected size " +
                    std::to_string(reference->size(d)) + " but got size " + std::to_string(t.size(d)) +
                    " for tensor number " + std::to_string(i) + " in the list.");
      }
    }
    shape[dim] += t.size(dim);
  }
  autograd::Record rec("CatBackward0", tensors);
  Tensor out = detail::empty_on(shape, dtype, reference->device());
  std::vector<int64_t> lengths;  // along dim, per input; -1 for the skipped ones
  int64_t offset = 0;
  for (const Tensor& t : tensors) {
    lengths.push_back(legacy_empty(t) ? -1 : t.size(dim));
    if (legacy_empty(t)) continue;
    const int64_t length = t.size(dim);
    if (length > 0 && out.numel() > 0) out.narrow(dim, offset, length).copy_(t);
    offset += length;
  }
  if (!rec) return out;
  return rec.finish(out, [dim, lengths](autograd::FunctionNode& node, const autograd::tensor_list& g) {
    autograd::tensor_list grads(lengths.size());
    int64_t start = 0;
    for (size_t i = 0; i < lengths.size(); ++i) {
      if (lengths[i] < 0) continue;
      if (node.needs_input_grad(i)) grads[i] = g[0].narrow(dim, start, lengths[i]);
      start += lengths[i];
    }
    return grads;
  });
}

Tensor stack(const std::vector<Tensor>& tensors, int64_t dim) {
  if (tensors.empty()) throw Error("stack expects a non-empty TensorList");
  for (size_t i = 1; i < tensors.size(); ++i) {
    if (!(tensors[i].sizes() == tensors[0].sizes())) {
      throw Error("stack expects each tensor to be equal size, but got " + to_string(tensors[0].sizes()) +
                  " at entry 0 and " + to_string(tensors[i].sizes()) + " at entry " + std::to_string(i));
    }
  }
  dim = detail::wrap_dim(dim, tensors[0].dim(), 1);
  autograd::Record rec("StackBackward0", tensors);
  std::vector<Tensor> expanded;
  expanded.reserve(tensors.size());
  for (const Tensor& t : tensors) expanded.push_back(t.unsqueeze(dim));
  Tensor out = cat(expanded, dim);
  if (!rec) return out;
  return rec.finish(out, [dim](autograd::FunctionNode& node, const autograd::tensor_list& g) {
    autograd::tensor_list grads(node.num_outputs());
    for (size_t i = 0; i < grads.size(); ++i) {
      if (node.needs_input_grad(i)) grads[i] = g[0].select(dim, static_cast<int64_t>(i));
    }
    return grads;
  });
}

Tensor hstack(const std::vector<Tensor>& tensors) {
  if (tensors.empty()) throw Error("hstack expects a non-empty TensorList");
  std::vector<Tensor> parts;
  for (const Tensor& t : tensors) parts.push_back(at_least_1d(t));
  return cat(parts, parts[0].dim() == 1 ? 0 : 1);
}

Tensor vstack(const std::vector<Tensor>& tensors) {
  if (tensors.empty()) throw Error("vstack expects a non-empty TensorList");
  std::vector<Tensor> parts;
  for (const Tensor& t : tensors) parts.push_back(at_least_2d(t));
  return cat(parts, 0);
}

Tensor column_stack(const std::vector<Tensor>& tensors) {
  if (tensors.empty()) throw Error("column_stack expects a non-empty TensorList");
  std::vector<Tensor> parts;
  for (const Tensor& t : tensors) parts.push_back(t.dim() <= 1 ? t.reshape({t.numel(), 1}) : t);
  return hstack(parts);
}

}  // namespace ember
