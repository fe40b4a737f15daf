// Reversal, circular shifts and quarter turns: torch.flip, fliplr, flipud, roll and rot90.
//
// Ember's views take no negative strides, so flip copies, as PyTorch's does: one index_select per
// flipped dim, of a reversed arange the index kernels trust without a read-back. roll is two narrows
// per dim joined by cat, as PyTorch's CPU roll; rot90 is a flip and a transpose. Each records PyTorch's
// node (FlipBackward0, RollBackward0, Rot90Backward0), whose gradient is the inverse op.
#include "autograd/record.h"
#include "tensor/functions.h"
#include "tensor/ops_support.h"

namespace ember {

namespace {

Tensor reversed(const Tensor& x, const std::vector<int64_t>& dims) {
  Tensor out;
  for (int64_t d : dims) {
    if (x.dim() == 0 || x.size(d) <= 1) continue;
    const int64_t n = x.size(d);
    const Tensor positions = arange(n - 1, -1, -1, TensorOptions().dtype(DType::Int64).device(x.device()));
    detail::TrustedIndices trusted;  // a reversed arange is in bounds by construction
    out = (out.defined() ? out : x).index_select(d, positions);
  }
  return out.defined() ? out : x.clone();
}

// One dim shifted: the last `shift` elements (modulo the size) come first. x itself when nothing moves:
// only the final result of a roll must be new memory, so intermediate dims copy nothing needlessly.
Tensor rolled(const Tensor& x, int64_t shift, int64_t dim) {
  if (x.numel() == 0) return x;  // before the dim is checked, as in PyTorch
  if (x.dim() == 0) {
    throw IndexError("Dimension specified as " + std::to_string(dim) + " but tensor has no dimensions");
  }
  const int64_t d = detail::wrap_dim(dim, x.dim());
  const int64_t size = x.size(d);
  int64_t start = (size - shift) % size;
  if (start < 0) start += size;
  if (start == 0) return x;
  return cat({x.narrow(d, start, size - start), x.narrow(d, 0, start)}, d);
}

Tensor rolled(const Tensor& x, IntArrayRef shifts, IntArrayRef dims) {
  if (shifts.empty()) throw Error("`shifts` required");
  Tensor out = x;
  if (dims.empty() && shifts.size() == 1) {
    out = rolled(x.flatten(), shifts[0], 0).view(x.sizes());
  } else {
    if (shifts.size() != dims.size()) {
      throw Error("shifts and dimensions must align. shifts: " + std::to_string(shifts.size()) +
                  ", dims:" + std::to_string(dims.size()));
    }
    for (size_t i = 0; i < dims.size(); ++i) out = rolled(out, shifts[i], dims[i]);
  }
  return out.storage() == x.storage() ? out.clone() : out;
}

}  // namespace

Tensor Tensor::flip(IntArrayRef dims) const {
  const std::vector<int64_t> wrapped = detail::wrap_distinct_dims(dims, dim());
  autograd::Record rec("FlipBackward0", {this});
  Tensor out = reversed(*this, wrapped);
  if (!rec) return out;
  return rec.finish(out, [wrapped](autograd::FunctionNode&, const autograd::tensor_list& g) {
    return autograd::tensor_list{g[0].flip(wrapped)};
  });
}

Tensor Tensor::fliplr() const {
  if (dim() < 2) throw Error("Input must be >= 2-d.");
  return flip({1});
}

Tensor Tensor::flipud() const {
  if (dim() < 1) throw Error("Input must be >= 1-d.");
  return flip({0});
}

Tensor Tensor::roll(IntArrayRef shifts, IntArrayRef dims) const {
  autograd::Record rec("RollBackward0", {this});
  Tensor out = rolled(*this, shifts, dims);
  if (!rec) return out;
  std::vector<int64_t> back(shifts.size());
  for (size_t i = 0; i < shifts.size(); ++i) back[i] = -shifts[i];
  return rec.finish(out, [back, dims = dims.vec()](autograd::FunctionNode&, const autograd::tensor_list& g) {
    return autograd::tensor_list{g[0].roll(back, dims)};
  });
}

Tensor Tensor::rot90(int64_t k, IntArrayRef dims) const {
  const int64_t n = dim();
  if (dims.size() != 2) throw Error("expected total rotation dims == 2, but got dims = " + std::to_string(dims.size()));
  if (n < 2) throw Error("expected total dims >= 2, but got total dims = " + std::to_string(n));
  if (dims[0] == dims[1] || std::abs(dims[0] - dims[1]) == n) {
    throw Error("expected rotation dims to be different, but got dim0 = " + std::to_string(dims[0]) +
                " and dim1 = " + std::to_string(dims[1]));
  }
  if (dims[0] >= n || dims[0] < -n) throw Error("Rotation dim0 out of range, dim0 = " + std::to_string(dims[0]));
  if (dims[1] >= n || dims[1] < -n) throw Error("Rotation dim1 out of range, dim1 = " + std::to_string(dims[1]));
  const int64_t d0 = detail::wrap_dim(dims[0], n), d1 = detail::wrap_dim(dims[1], n);
  autograd::Record rec("Rot90Backward0", {this});
  Tensor out;
  switch (((k % 4) + 4) % 4) {
    case 1: out = reversed(*this, {d1}).transpose(d0, d1); break;
    case 2: out = reversed(*this, {d0, d1}); break;
    case 3: out = reversed(*this, {d0}).transpose(d0, d1); break;
    default: out = clone();
  }
  if (!rec) return out;
  return rec.finish(out, [k, d0, d1](autograd::FunctionNode&, const autograd::tensor_list& g) {
    return autograd::tensor_list{g[0].rot90(-k, {d0, d1})};
  });
}

Tensor flip(const Tensor& self, IntArrayRef dims) { return self.flip(dims); }
Tensor fliplr(const Tensor& self) { return self.fliplr(); }
Tensor flipud(const Tensor& self) { return self.flipud(); }
Tensor roll(const Tensor& self, IntArrayRef shifts, IntArrayRef dims) { return self.roll(shifts, dims); }
Tensor rot90(const Tensor& self, int64_t k, IntArrayRef dims) { return self.rot90(k, dims); }

}  // namespace ember
