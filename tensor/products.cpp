// Products and diagonals built on the matrix and elementwise ops: outer (ger), addmv, addr, kron,
// tensordot, trace, diag_embed and cross. Where PyTorch composes an op (outer, kron, tensordot) ember
// composes it the same way, so the nodes are the same; where PyTorch has a node of its own (AddmvBackward0,
// AddrBackward0, TraceBackward0, DiagEmbedBackward0, LinalgCrossBackward0) it is recorded here with
// PyTorch's formula.
#include <algorithm>
#include <utility>

#include "autograd/record.h"
#include "tensor/functions.h"
#include "tensor/ops_support.h"

namespace ember {

namespace {

using autograd::FunctionNode;
using autograd::Record;
using autograd::tensor_list;

void check_vector(const Tensor& t, const char* op, const char* arg) {
  if (t.dim() != 1) {
    throw Error(std::string(op) + ": Expected 1-D argument " + arg + ", but got " + std::to_string(t.dim()) + "-D");
  }
}

// beta * input + alpha * product, where beta 0 ignores the input (NaN included), as PyTorch's BLAS
// calls do. Integral results take the factors as integers.
Tensor scaled_sum(const Tensor& input, Scalar beta, const Tensor& product, Scalar alpha) {
  const bool integral = !is_floating_point(product.dtype());
  const Scalar b = integral ? Scalar(beta.to_int64()) : beta;
  const Scalar a = integral ? Scalar(alpha.to_int64()) : alpha;
  if (product.dtype() == DType::Bool) {
    const Tensor added = alpha.to_bool() ? product : zeros_like(product);
    return beta.to_bool() ? added.logical_or(input.expand(product.sizes())) : added;
  }
  const Tensor added = a.to_double() == 1 ? product : product * a;
  if (b.to_double() == 0) return added;
  return added + (b.to_double() == 1 ? input : input * b).to(product.dtype());
}

// c_i = a_(i+1) b_(i+2) - a_(i+2) b_(i+1) (indices mod 3), with the components along dim picked in
// rotated order by index_select.
Tensor cross_of(const Tensor& a, const Tensor& b, int64_t dim) {
  const TensorOptions options = TensorOptions().dtype(DType::Int64).device(a.device());
  const Tensor next = tensor({1, 2, 0}, options), after = tensor({2, 0, 1}, options);
  detail::TrustedIndices trusted;  // 0, 1 and 2 of a dim of size 3
  return a.index_select(dim, next) * b.index_select(dim, after) -
         a.index_select(dim, after) * b.index_select(dim, next);
}

}  // namespace

Tensor Tensor::outer(const Tensor& vec2) const {
  check_vector(*this, "outer", "self");
  check_vector(vec2, "outer", "vec2");
  return reshape({size(0), 1}) * vec2;
}

Tensor Tensor::addmv(const Tensor& mat, const Tensor& vec, Scalar beta, Scalar alpha) const {
  if (mat.dim() != 2 || vec.dim() != 1 || dim() > 1) {
    throw Error("vector + matrix @ vector expected, got " + std::to_string(dim()) + ", " + std::to_string(mat.dim()) +
                ", " + std::to_string(vec.dim()));
  }
  if (mat.size(1) != vec.size(0) || (mat.size(0) != numel() && numel() != 1)) {
    throw Error("size mismatch, got " + std::to_string(dim() == 0 ? 1 : size(0)) + ", " + std::to_string(mat.size(0)) +
                "x" + std::to_string(mat.size(1)) + "," + std::to_string(vec.size(0)));
  }
  detail::check_same_device({this, &mat, &vec});
  Record rec("AddmvBackward0", {this, &mat, &vec});
  // alpha 0 ignores the product, NaN included, as PyTorch's BLAS call does.
  const Tensor product = alpha.to_double() == 0
                             ? zeros({mat.size(0)}, TensorOptions().dtype(mat.dtype()).device(device()))
                             : mat.mv(vec);
  Tensor out = scaled_sum(*this, beta, product, alpha);
  if (!rec) return out;
  rec.save(mat);
  rec.save(vec);
  // The engine sums the input's gradient back to its shape and casts it to its dtype.
  return rec.finish(out, [beta, alpha](FunctionNode& node, const tensor_list& g) {
    const Tensor m = node.saved(0), v = node.saved(1);
    return tensor_list{node.needs_input_grad(0) ? g[0] * beta : Tensor(),
                       node.needs_input_grad(1) ? g[0].outer(v) * alpha : Tensor(),
                       node.needs_input_grad(2) ? m.t().mv(g[0]) * alpha : Tensor()};
  });
}

Tensor Tensor::addr(const Tensor& vec1, const Tensor& vec2, Scalar beta, Scalar alpha) const {
  check_vector(vec1, "addr", "vec1");
  check_vector(vec2, "addr", "vec2");
  detail::check_same_device({this, &vec1, &vec2});
  const DType dtype = promote_types(promote_types(this->dtype(), vec1.dtype()), vec2.dtype());
  if (!ember::is_floating_point(dtype)) {
    for (const auto& [name, factor] : {std::pair{"beta", beta}, std::pair{"alpha", alpha}}) {
      if (factor.is_floating_point()) {
        throw Error(std::string("For integral input tensors, argument ") + name +
                    " must not be a floating point number.");
      }
    }
  }
  const Tensor input = expand({vec1.size(0), vec2.size(0)});
  Record rec("AddrBackward0", {this, &vec1, &vec2});
  Tensor out = scaled_sum(input.to(dtype), beta, vec1.to(dtype).outer(vec2.to(dtype)), alpha);
  if (!rec) return out;
  rec.save(vec1);
  rec.save(vec2);
  return rec.finish(out, [beta, alpha](FunctionNode& node, const tensor_list& g) {
    // The vectors may be narrower than the result (and the gradient); the engine casts back.
    const Tensor v1 = node.saved(0).to(g[0].dtype()), v2 = node.saved(1).to(g[0].dtype());
    return tensor_list{node.needs_input_grad(0) ? g[0] * beta : Tensor(),
                       node.needs_input_grad(1) ? g[0].mv(v2) * alpha : Tensor(),
                       node.needs_input_grad(2) ? g[0].t().mv(v1) * alpha : Tensor()};
  });
}

Tensor Tensor::kron(const Tensor& other) const {
  // Each operand's dims interleaved with ones, so that the product of [.., a_i, 1, ..] and [.., 1, b_i, ..]
  // holds each block of the result; fewer dims count as leading ones.
  const int64_t n = std::max(dim(), other.dim());
  std::vector<int64_t> a_shape, b_shape, sizes;
  for (int64_t i = 0; i < n; ++i) {
    const int64_t a = i < n - dim() ? 1 : size(i - (n - dim()));
    const int64_t b = i < n - other.dim() ? 1 : other.size(i - (n - other.dim()));
    a_shape.insert(a_shape.end(), {a, 1});
    b_shape.insert(b_shape.end(), {1, b});
    sizes.push_back(a * b);
  }
  const Tensor product = reshape(a_shape) * other.reshape(b_shape);
  // PyTorch's _unsafe_view: the product's memory under the result's sizes, not a view of it.
  Record rec("UnsafeViewBackward0", {&product});
  Tensor out = product.view(sizes);
  out.impl().view_base = nullptr;
  if (!rec) return out;
  return rec.finish(out, [shape = product.sizes().vec()](FunctionNode&, const tensor_list& g) {
    return tensor_list{g[0].reshape(shape)};
  });
}

Tensor Tensor::trace() const {
  if (dim() != 2) throw Error("trace: expected a matrix, but got tensor with dim " + std::to_string(dim()));
  if (dtype() == DType::Bool) throw Error("\"trace\" not implemented for 'Bool'");
  Record rec("TraceBackward0", {this});
  Tensor out = diagonal().sum();
  if (!rec) return out;
  return rec.finish(out, [rows = size(0), cols = size(1)](FunctionNode&, const tensor_list& g) {
    return tensor_list{eye(rows, cols, TensorOptions().dtype(g[0].dtype()).device(g[0].device())) * g[0]};
  });
}

Tensor Tensor::diag_embed(int64_t offset, int64_t dim1, int64_t dim2) const {
  const int64_t n = dim() + 1;
  const int64_t d1 = detail::wrap_dim(dim1, n), d2 = detail::wrap_dim(dim2, n);
  if (d1 == d2) {
    throw Error("diagonal dimensions cannot be identical " + std::to_string(dim1) + ", " + std::to_string(dim2));
  }
  const int64_t length = std::abs(offset) + size(-1);
  std::vector<int64_t> sizes = this->sizes().vec();
  sizes.pop_back();
  sizes.insert(sizes.begin() + std::min(d1, d2), length);
  sizes.insert(sizes.begin() + std::max(d1, d2), length);
  Record rec("DiagEmbedBackward0", {this});
  Tensor out = zeros(sizes, TensorOptions().dtype(dtype()).device(device()));
  out.diagonal(offset, d1, d2).copy_(*this);
  if (!rec) return out;
  return rec.finish(out, [offset, d1, d2](FunctionNode&, const tensor_list& g) {
    return tensor_list{g[0].diagonal(offset, d1, d2)};
  });
}

Tensor Tensor::cross(const Tensor& other, std::optional<int64_t> dim) const {
  if (!dim) {
    const auto first = std::find(sizes().begin(), sizes().end(), 3);
    if (first == sizes().end()) throw Error("no dimension of size 3 in input");
    dim = first - sizes().begin();
  }
  return linalg_cross(*this, other, *dim);
}

Tensor cross(const Tensor& a, const Tensor& b, std::optional<int64_t> dim) { return a.cross(b, dim); }

Tensor linalg_cross(const Tensor& a, const Tensor& b, int64_t dim) {
  if (a.dim() != b.dim()) throw Error("linalg.cross: inputs must have the same number of dimensions.");
  if (a.dim() == 0) {
    throw IndexError("Dimension specified as " + std::to_string(dim) + " but tensor has no dimensions");
  }
  const int64_t d = detail::wrap_dim(dim, a.dim());
  if (a.size(d) != 3 || b.size(d) != 3) {
    throw Error("linalg.cross: inputs dimension " + std::to_string(dim) + " must have length 3. Got " +
                std::to_string(a.size(d)) + " and " + std::to_string(b.size(d)));
  }
  const std::vector<int64_t> sizes = broadcast_shapes(a.sizes(), b.sizes());
  if (a.dtype() != b.dtype()) {
    throw Error("expected scalar type " + scalar_type_name(a.dtype()) + " but found " + scalar_type_name(b.dtype()));
  }
  if (a.dtype() == DType::Bool) throw Error("\"cross\" not implemented for 'Bool'");
  detail::check_same_device({&a, &b});
  Record rec("LinalgCrossBackward0", {&a, &b});
  Tensor out = cross_of(a.expand(sizes), b.expand(sizes), d);
  if (!rec) return out;
  rec.save(a);
  rec.save(b);
  return rec.finish(out, [d](FunctionNode& node, const tensor_list& g) {
    // d/da = b x g and d/db = g x a; the engine sums them back over what broadcasting added.
    const Tensor x = node.saved(0).expand(g[0].sizes()), y = node.saved(1).expand(g[0].sizes());
    return tensor_list{node.needs_input_grad(0) ? linalg_cross(y, g[0], d) : Tensor(),
                       node.needs_input_grad(1) ? linalg_cross(g[0], x, d) : Tensor()};
  });
}

Tensor tensordot(const Tensor& a, const Tensor& b, IntArrayRef dims_a, IntArrayRef dims_b) {
  if (dims_a.size() != dims_b.size()) throw Error("both dimension lists should have same length");
  // As PyTorch's: a contracted dim of size 1 against a larger one is summed first (it broadcasts), and
  // sizes are checked before repeated dims.
  Tensor x = a, y = b;
  int64_t contracted = 1;
  for (size_t i = 0; i < dims_a.size(); ++i) {
    const int64_t s1 = a.size(dims_a[i]), s2 = b.size(dims_b[i]);
    if (s2 == 1) {
      x = x.sum({dims_a[i]}, true);
    } else if (s1 == 1) {
      y = y.sum({dims_b[i]}, true);
    } else if (s1 != s2) {
      throw Error("contracted dimensions need to match, but first has size " + std::to_string(s1) + " in dim " +
                  std::to_string(dims_a[i]) + " and second has size " + std::to_string(s2) + " in dim " +
                  std::to_string(dims_b[i]));
    } else {
      contracted *= s1;
    }
  }
  const std::vector<int64_t> wrapped_a = detail::wrap_distinct_dims(dims_a, a.dim());
  const std::vector<int64_t> wrapped_b = detail::wrap_distinct_dims(dims_b, b.dim());
  // x as [free dims of a, contracted], y as [contracted, free dims of b], one mm.
  std::vector<int64_t> order_a, order_b, sizes;
  int64_t rows = 1, cols = 1;
  for (int64_t d = 0; d < a.dim(); ++d) {
    if (std::find(wrapped_a.begin(), wrapped_a.end(), d) != wrapped_a.end()) continue;
    order_a.push_back(d);
    sizes.push_back(a.size(d));
    rows *= a.size(d);
  }
  order_a.insert(order_a.end(), wrapped_a.begin(), wrapped_a.end());
  order_b = wrapped_b;
  for (int64_t d = 0; d < b.dim(); ++d) {
    if (std::find(wrapped_b.begin(), wrapped_b.end(), d) != wrapped_b.end()) continue;
    order_b.push_back(d);
    sizes.push_back(b.size(d));
    cols *= b.size(d);
  }
  const Tensor rows_by_contracted = x.permute(order_a).reshape({rows, contracted});
  return rows_by_contracted.mm(y.permute(order_b).reshape({contracted, cols})).reshape(sizes);
}

Tensor tensordot(const Tensor& a, const Tensor& b, int64_t dims) {
  if (dims < 0) throw Error("tensordot expects dims >= 0, but got dims=" + std::to_string(dims));
  std::vector<int64_t> dims_a, dims_b;
  for (int64_t i = 0; i < dims; ++i) {
    dims_a.push_back(i - dims);
    dims_b.push_back(i);
  }
  return tensordot(a, b, dims_a, dims_b);
}

Tensor outer(const Tensor& vec1, const Tensor& vec2) { return vec1.outer(vec2); }
Tensor ger(const Tensor& vec1, const Tensor& vec2) { return vec1.outer(vec2); }
Tensor addmv(const Tensor& input, const Tensor& mat, const Tensor& vec, Scalar beta, Scalar alpha) {
  return input.addmv(mat, vec, beta, alpha);
}
Tensor addr(const Tensor& input, const Tensor& vec1, const Tensor& vec2, Scalar beta, Scalar alpha) {
  return input.addr(vec1, vec2, beta, alpha);
}
Tensor kron(const Tensor& a, const Tensor& b) { return a.kron(b); }
Tensor trace(const Tensor& x) { return x.trace(); }
Tensor diag_embed(const Tensor& x, int64_t offset, int64_t dim1, int64_t dim2) {
  return x.diag_embed(offset, dim1, dim2);
}

}  // namespace ember
