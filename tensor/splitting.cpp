// tensor_split and the numpy-style hsplit, vsplit and dsplit: views of the input (one slice() each), so
// each part's gradient goes back through SliceBackward0, as in PyTorch.
#include "tensor/ops_support.h"

namespace ember {

namespace {

void check_splittable(const Tensor& t) {
  if (t.dim() == 0) {
    throw Error("tensor_split expected at least a 1-dimensional tensor, but got a tensor with 0 dims");
  }
}

// hsplit, vsplit and dsplit split along `dim` and need at least `min_dims` dims.
void check_directional(const Tensor& t, const char* name, int64_t min_dims) {
  if (t.dim() < min_dims) {
    throw Error(std::string("torch.") + name + " requires a tensor with at least " + std::to_string(min_dims) +
                " dimension, but got a tensor with " + std::to_string(t.dim()) + " dimensions!");
  }
}

std::vector<Tensor> directional_split(const Tensor& t, const char* name, int64_t min_dims, int64_t dim,
                                      int64_t sections) {
  check_directional(t, name, min_dims);
  if (sections == 0 || t.size(dim) % sections != 0) {
    throw Error(std::string("torch.") + name + " attempted to split along dimension " + std::to_string(dim) +
                ", but the size of the dimension " + std::to_string(t.size(dim)) +
                " is not divisible by the split_size " + std::to_string(sections) + "!");
  }
  return t.tensor_split(sections, dim);
}

int64_t horizontal_dim(const Tensor& t) { return t.dim() == 1 ? 0 : 1; }

}  // namespace

std::vector<Tensor> Tensor::tensor_split(int64_t sections, int64_t d) const {
  check_splittable(*this);
  d = detail::wrap_dim(d, dim());
  if (sections <= 0) throw Error("number of sections must be larger than 0, got " + std::to_string(sections));
  // The first size % sections parts take one element more.
  const int64_t smaller = size(d) / sections, larger_count = size(d) % sections;
  std::vector<Tensor> parts;
  parts.reserve(sections);
  int64_t start = 0;
  for (int64_t i = 0; i < sections; ++i) {
    const int64_t length = smaller + (i < larger_count ? 1 : 0);
    parts.push_back(slice(d, start, start + length));
    start += length;
  }
  return parts;
}

std::vector<Tensor> Tensor::tensor_split(IntArrayRef indices, int64_t d) const {
  check_splittable(*this);
  d = detail::wrap_dim(d, dim());
  // Indices are slice bounds: negative ones count from the end and out-of-range ones clamp.
  std::vector<Tensor> parts;
  parts.reserve(indices.size() + 1);
  int64_t start = 0;
  for (int64_t end : indices) {
    parts.push_back(slice(d, start, end));
    start = end;
  }
  parts.push_back(slice(d, start, size(d)));
  return parts;
}

std::vector<Tensor> Tensor::tensor_split(const Tensor& indices_or_sections, int64_t d) const {
  check_splittable(*this);
  if (indices_or_sections.dtype() != DType::Int64) {
    throw Error("tensor_split expected tensor_indices_or_sections to have dtype of long, but got " +
                scalar_type_name(indices_or_sections.dtype()));
  }
  if (indices_or_sections.dim() > 1) {
    throw Error("tensor_split expected tensor_indices_or_sections to be a zero-dimensional or one-dimensional "
                "tensor, but got a tensor with " + std::to_string(indices_or_sections.dim()) + " dims");
  }
  // The number of parts and their bounds are host metadata: one read-back, unavoidable (PyTorch keeps
  // this tensor on the CPU for the same reason).
  const std::vector<int64_t> values = indices_or_sections.to_vector<int64_t>();
  if (indices_or_sections.dim() == 0) return tensor_split(values[0], d);
  return tensor_split(IntArrayRef(values), d);
}

std::vector<Tensor> Tensor::hsplit(int64_t sections) const {
  return directional_split(*this, "hsplit", 1, horizontal_dim(*this), sections);
}
std::vector<Tensor> Tensor::hsplit(IntArrayRef indices) const {
  check_directional(*this, "hsplit", 1);
  return tensor_split(indices, horizontal_dim(*this));
}
std::vector<Tensor> Tensor::vsplit(int64_t sections) const {
  return directional_split(*this, "vsplit", 2, 0, sections);
}
std::vector<Tensor> Tensor::vsplit(IntArrayRef indices) const {
  check_directional(*this, "vsplit", 2);
  return tensor_split(indices, 0);
}
std::vector<Tensor> Tensor::dsplit(int64_t sections) const {
  return directional_split(*this, "dsplit", 3, 2, sections);
}
std::vector<Tensor> Tensor::dsplit(IntArrayRef indices) const {
  check_directional(*this, "dsplit", 3);
  return tensor_split(indices, 2);
}

std::vector<Tensor> tensor_split(const Tensor& self, int64_t sections, int64_t dim) {
  return self.tensor_split(sections, dim);
}
std::vector<Tensor> tensor_split(const Tensor& self, IntArrayRef indices, int64_t dim) {
  return self.tensor_split(indices, dim);
}
std::vector<Tensor> tensor_split(const Tensor& self, const Tensor& indices_or_sections, int64_t dim) {
  return self.tensor_split(indices_or_sections, dim);
}
std::vector<Tensor> hsplit(const Tensor& self, int64_t sections) { return self.hsplit(sections); }
std::vector<Tensor> hsplit(const Tensor& self, IntArrayRef indices) { return self.hsplit(indices); }
std::vector<Tensor> vsplit(const Tensor& self, int64_t sections) { return self.vsplit(sections); }
std::vector<Tensor> vsplit(const Tensor& self, IntArrayRef indices) { return self.vsplit(indices); }
std::vector<Tensor> dsplit(const Tensor& self, int64_t sections) { return self.dsplit(sections); }
std::vector<Tensor> dsplit(const Tensor& self, IntArrayRef indices) { return self.dsplit(indices); }

}  // namespace ember
