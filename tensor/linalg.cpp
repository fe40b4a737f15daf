// Matrix products: matmul's dispatch (at::native::matmul: dot, mv, mm, folding a batch into rows, and
// batched products with broadcast batch dims), mm, bmm, mv, dot, addmm and baddbmm. Each becomes one
// MatmulKernels::matmul call on (batch, rows, columns) views: operands keep their strides, and a broadcast
// batch reads with stride 0. Only batch dims that cannot be one strided dim are copied. Each records its
// PyTorch node; the gradients are products with the other operand transposed (mT), so they are
// differentiable again.
//
// Integer operands multiply as PyTorch's CPU does, wrapping around; bool is refused with the message of
// the CPU kernel PyTorch would dispatch to. As there, dtypes are checked only where there is something
// to multiply: an empty result, or an empty inner dim (zeros), comes back in the dtype PyTorch gives it.
#include "runtime/kernels/matmul.h"
#include "autograd/record.h"
#include "tensor/autocast.h"
#include "tensor/elementwise_support.h"
#include "tensor/fused_ops.h"
#include "tensor/ops_support.h"

namespace ember {

namespace {


// PyTorch's "not implemented" error of the CPU kernel `kernel` for bool operands.
void check_not_bool(DType dtype, const char* kernel) {
  if (dtype == DType::Bool) {
    throw Error(std::string("\"") + kernel + "\" not implemented for '" + scalar_type_name(dtype) + "'");
  }
}

void check_same_dtype(const Tensor& a, const Tensor& b) {
  if (a.dtype() != b.dtype()) {
    throw Error("expected scalar type " + scalar_type_name(a.dtype()) + " but found " + scalar_type_name(b.dtype()));
  }
}

// Whether a (batch of) rows × inner by inner × cols product multiplies anything.
bool has_products(int64_t batch, int64_t rows, int64_t inner, int64_t cols) {
  return batch > 0 && rows > 0 && inner > 0 && cols > 0;
}

// The checks of a product with work to do: a bool `a` first (the kernel is chosen by its dtype), then b
// in a's dtype.
void check_product_dtypes(const Tensor& a, const Tensor& b, const char* kernel) {
  check_not_bool(a.dtype(), kernel);
  check_same_dtype(a, b);
}

// t (batch dims..., rows, cols) as one batch dim: stride 0 when the batch is broadcast, the common
// stride when the batch dims merge, else a contiguous copy, which `keep` holds until the kernel call
// has been recorded.
TensorRef batched_ref(const Tensor& t, int64_t batch, std::vector<Tensor>& keep) {
  const int64_t nbatch = t.dim() - 2;
  std::vector<int64_t> batch_sizes(t.sizes().begin(), t.sizes().begin() + nbatch);
  std::vector<int64_t> batch_strides(t.strides().begin(), t.strides().begin() + nbatch);
  keep.reserve(keep.size() + 1);  // `source` points into keep
  const Tensor* source = &t;
  int64_t batch_stride = 0;
  if (nbatch > 0) {
    bool broadcast = true;
    for (int64_t d = 0; d < nbatch; ++d) broadcast = broadcast && (batch_strides[d] == 0 || batch_sizes[d] == 1);
    if (!broadcast) {
      if (auto merged = detail::view_strides(batch_sizes, batch_strides, IntArrayRef(batch))) {
        batch_stride = (*merged)[0];
      } else {
        keep.push_back(t.contiguous());
        source = &keep.back();
        batch_stride = t.size(-1) * t.size(-2);
      }
    }
  }
  TensorRef ref = source->ref();
  ref.ndim = 3;
  ref.sizes = {};
  ref.strides = {};
  ref.sizes[0] = batch;
  ref.strides[0] = batch_stride;
  ref.sizes[1] = source->size(-2);
  ref.strides[1] = source->stride(-2);
  ref.sizes[2] = source->size(-1);
  ref.strides[2] = source->stride(-1);
  return ref;
}

// out (batch..., M, N) = alpha * a @ b + beta * bias, for 3-or-more-dim operands whose batch dims
// already equal out's (broadcast views allowed).
// With a_row_sums (batch..., M, 1) the kernels also write Σ over k of a's rows there.
void run_matmul(const Tensor& out, const Tensor& a, const Tensor& b, const Tensor* bias, double beta,
                double alpha, MatmulActivation activation = MatmulActivation::None,
                const Tensor* a_row_sums = nullptr) {
  if (out.numel() == 0) return;
  if (a.size(-1) == 0 && !bias && out.dtype() == DType::Bool) {
    Tensor(out).fill_(false);  // the sum of no products; the kernels take no bool
    return;
  }
  const int64_t batch = detail::product(IntArrayRef(out.sizes().data(), out.dim() - 2));
  std::vector<Tensor> keep;
  MatmulArgs args;
  args.out = batched_ref(out, batch, keep);
  args.a = batched_ref(a, batch, keep);
  args.b = batched_ref(b, batch, keep);
  if (a.size(-1) == 0) {
    // No elements to read: A and B are described in out's dtype, which they may differ from here.
    args.a.dtype = out.dtype();
    args.b.dtype = out.dtype();
  }
  if (bias && beta != 0.0) args.bias = batched_ref(*bias, batch, keep);
  args.alpha = alpha;
  args.beta = bias ? beta : 0.0;
  args.activation = activation;
  if (a_row_sums) args.a_row_sums = batched_ref(*a_row_sums, batch, keep);
  detail::kernels_for<MatmulKernels>(*out.device()).matmul(*detail::stream_for(*out.device()), args);
}

// A 2-D product as a batch of one.
Tensor mm_into(const Tensor& a, const Tensor& b, const Tensor* bias, double beta, double alpha,
               MatmulActivation activation = MatmulActivation::None) {
  Tensor out = detail::empty_on({a.size(0), b.size(1)}, a.dtype(), a.device());
  Tensor bias3;
  if (bias) bias3 = bias->expand(out.sizes()).unsqueeze(0);
  run_matmul(out.unsqueeze(0), a.unsqueeze(0), b.unsqueeze(0), bias ? &bias3 : nullptr, beta, alpha, activation);
  return out;
}

void check_mm(const Tensor& a, const Tensor& b) {
  if (a.dim() != 2) throw Error("self must be a matrix");
  if (b.dim() != 2) throw Error("mat2 must be a matrix");
  detail::check_same_device({&a, &b});
  if (a.size(1) != b.size(0)) {
    throw Error("mat1 and mat2 shapes cannot be multiplied (" + std::to_string(a.size(0)) + "x" +
                std::to_string(a.size(1)) + " and " + std::to_string(b.size(0)) + "x" +
                std::to_string(b.size(1)) + ")");
  }
  if (has_products(1, a.size(0), a.size(1), b.size(1))) check_product_dtypes(a, b, "addmm_impl_cpu_");
}

void check_bmm(const Tensor& a, const Tensor& b) {
  if (a.dim() != 3) throw Error("batch1 must be a 3D tensor");
  if (b.dim() != 3) throw Error("batch2 must be a 3D tensor");
  detail::check_same_device({&a, &b});
  if (b.size(0) != a.size(0) || b.size(1) != a.size(2)) {
    throw Error("Expected size for first two dimensions of batch2 tensor to be: [" + std::to_string(a.size(0)) +
                ", " + std::to_string(a.size(2)) + "] but got: [" + std::to_string(b.size(0)) + ", " +
                std::to_string(b.size(1)) + "].");
  }
  if (has_products(a.size(0), a.size(1), a.size(2), b.size(2))) check_product_dtypes(a, b, "bmm");
}

// matmul for operands of 3 or more dims (after 1-D operands gained a dim): batch dims broadcast.
Tensor batched_matmul(const Tensor& a, const Tensor& b) {
  const std::vector<int64_t> batch_a(a.sizes().begin(), a.sizes().end() - 2);
  const std::vector<int64_t> batch_b(b.sizes().begin(), b.sizes().end() - 2);
  std::vector<int64_t> batch = broadcast_shapes(batch_a, batch_b);
  const int64_t n = a.size(-2), m = a.size(-1), p = b.size(-1);
  std::vector<int64_t> a_shape = batch, b_shape = batch, out_shape = batch;
  a_shape.insert(a_shape.end(), {n, m});
  b_shape.insert(b_shape.end(), {b.size(-2), p});
  const int64_t count = detail::product(batch);
  // The checks bmm makes on the flattened operands, with its messages.
  if (b.size(-2) != m) {
    throw Error("Expected size for first two dimensions of batch2 tensor to be: [" + std::to_string(count) + ", " +
                std::to_string(m) + "] but got: [" + std::to_string(count) + ", " + std::to_string(b.size(-2)) +
                "].");
  }
  if (has_products(count, n, m, p)) check_product_dtypes(a, b, "bmm");
  out_shape.insert(out_shape.end(), {n, p});
  // bmm's result takes batch2's dtype, which only an empty product can tell apart.
  Tensor out = detail::empty_on(out_shape, b.dtype(), a.device());
  if (batch.empty()) {
    run_matmul(out.unsqueeze(0), a.expand(a_shape).unsqueeze(0), b.expand(b_shape).unsqueeze(0), nullptr, 0, 1);
  } else {
    run_matmul(out, a.expand(a_shape), b.expand(b_shape), nullptr, 0, 1);
  }
  return out;
}

// matmul for the rank combinations that are not one dot, mv or mm (at::native::matmul's dispatch).
Tensor composed_matmul(const Tensor& self, const Tensor& other) {
  const int64_t d1 = self.dim(), d2 = other.dim();
  if (d1 == 1 && d2 == 2) return self.unsqueeze(0).mm(other).squeeze(0);
  if ((d1 >= 3 && d2 <= 2) || (d2 >= 3 && d1 <= 2)) {
    // Fold the batch of the many-dim operand into matrix rows: one mm (or mv). With the many-dim operand
    // second, compute (b^T a^T)^T.
    const bool transpose = d2 > d1;
    const Tensor t1 = transpose ? other.mT() : self;
    const Tensor t2 = !transpose ? other : (d1 == 2 ? self.t() : self);
    std::vector<int64_t> out_shape(t1.sizes().begin(), t1.sizes().end() - 1);
    // The folded row count is spelled out: -1 cannot be inferred when the inner dim is empty.
    const Tensor folded = t1.reshape({detail::product(out_shape), t1.size(-1)});
    Tensor out;
    if (t2.dim() == 2) {
      out_shape.push_back(t2.size(1));
      out = folded.mm(t2).view(out_shape);
    } else {
      out = folded.mv(t2).view(out_shape);
    }
    return transpose && d1 == 2 ? out.mT() : out;
  }
  // Batched: a 1-D operand gains a dim, removed again from the result.
  const Tensor a = d1 == 1 ? self.unsqueeze(0) : self;
  const Tensor b = d2 == 1 ? other.unsqueeze(-1) : other;
  detail::check_same_device({&a, &b});
  Tensor out = batched_matmul(a, b);
  if (d1 == 1) out = out.squeeze(-2);
  if (d2 == 1) out = out.squeeze(-1);
  return out;
}

// PyTorch composes these cases of views and one product; here they are one node, named as PyTorch's
// outermost node for the case, which is what grad_fn()->name() shows.
const char* matmul_node_name(int64_t d1, int64_t d2) {
  if (d1 == 1 && d2 == 2) return "SqueezeBackward3";
  if (d1 == 2 && d2 >= 3) return "CloneBackward0";
  return "UnsafeViewBackward0";
}

// matmul's gradients for any ranks: a 1-D first operand is a row, a 1-D second operand a column, and
// the gradient of an operand whose batch dims were broadcast is summed back over them. `a` is defined
// when b needs a gradient, `b` when a does.
autograd::tensor_list matmul_backward(const Tensor& g, const Tensor& a, const Tensor& b, IntArrayRef a_sizes,
                                      IntArrayRef b_sizes) {
  const bool a_vector = a_sizes.size() == 1, b_vector = b_sizes.size() == 1;
  Tensor grad = b_vector ? g.unsqueeze(-1) : g;
  if (a_vector) grad = grad.unsqueeze(-2);
  Tensor grad_a, grad_b;
  if (b.defined()) {
    const Tensor b2 = b_vector ? b.unsqueeze(-1) : b;
    const std::vector<int64_t> a2_sizes = a_vector ? std::vector<int64_t>{1, a_sizes[0]} : a_sizes.vec();
    grad_a = autograd::sum_to(grad.matmul(b2.mT()), a2_sizes).reshape(a_sizes);
  }
  if (a.defined()) {
    const Tensor a2 = a_vector ? a.unsqueeze(0) : a;
    const std::vector<int64_t> b2_sizes = b_vector ? std::vector<int64_t>{b_sizes[0], 1} : b_sizes.vec();
    if (b2_sizes.size() == 2 && a2.dim() > 2) {
      // A matrix shared by the whole batch: its gradient is one mm over the batch folded into rows.
      grad_b = a2.reshape({-1, a2.size(-1)}).mT().mm(grad.reshape({-1, grad.size(-1)})).reshape(b_sizes);
    } else {
      grad_b = autograd::sum_to(a2.mT().matmul(grad), b2_sizes).reshape(b_sizes);
    }
  }
  return {grad_a, grad_b};
}

// What a product's backward needs: each operand only for the other's gradient (as PyTorch saves them,
// so an in-place change to an operand whose partner needs no gradient is no error).
void save_operands(autograd::Record& rec, const Tensor& a, const Tensor& b) {
  rec.save(b.requires_grad() ? a : Tensor());
  rec.save(a.requires_grad() ? b : Tensor());
}

// Whether a matrix is stored transposed (column-major), as Linear's weight.t() is.
bool column_major(const Tensor& m) {
  return m.dim() == 2 && m.size(0) > 1 && m.size(1) > 1 && m.stride(0) == 1 && m.stride(1) == m.size(0);
}

// PyTorch's mm_mat1_backward and mm_mat2_backward: the gradient of a column-major operand is computed
// transposed, so that it comes out in the operand's own layout. After the transpose back (Linear's
// TBackward) it is contiguous, and the leaf takes it as its .grad without a copy.
Tensor mat1_grad(const Tensor& grad, const Tensor& mat2, bool mat1_column_major) {
  return mat1_column_major ? mat2.mm(grad.mT()).mT() : grad.mm(mat2.mT());
}
Tensor mat2_grad(const Tensor& mat1, const Tensor& grad, bool mat2_column_major) {
  return mat2_column_major ? grad.mT().mm(mat1).mT() : mat1.mT().mm(grad);
}

// mat2_grad for a column-major mat2 (Linear's weight.t()), and the sum of grad's rows, which is the
// gradient of a bias broadcast along the rows: one launch, since the product's A is gradᵀ, whose rows the
// kernels can sum as they read them (MatmulArgs::a_row_sums). PyTorch sums them in a launch of its own.
std::pair<Tensor, Tensor> column_major_mat2_and_bias_grads(const Tensor& mat1, const Tensor& grad) {
  const Tensor a = grad.mT();
  Tensor product = detail::empty_on({a.size(0), mat1.size(1)}, a.dtype(), a.device());
  Tensor sums = detail::empty_on({a.size(0)}, a.dtype(), a.device());
  const Tensor sums3 = sums.view({1, a.size(0), 1});
  run_matmul(product.unsqueeze(0), a.unsqueeze(0), mat1.unsqueeze(0), nullptr, 0, 1, MatmulActivation::None, &sums3);
  return {product.mT(), sums};
}

// t * s, skipping the multiply for s == 1.
Tensor scaled(const Tensor& t, Scalar s) { return s.to_double() == 1.0 ? t : t.mul(s); }

}  // namespace

Tensor Tensor::mm(const Tensor& mat2) const {
  if (autocast::is_active()) {
    return autocast::in_lower_precision([](const Tensor& a, const Tensor& b) { return a.mm(b); }, *this, mat2);
  }
  check_mm(*this, mat2);
  autograd::Record rec("MmBackward0", {this, &mat2});
  Tensor out = mm_into(*this, mat2, nullptr, 0, 1);
  if (!rec) return out;
  save_operands(rec, *this, mat2);
  return rec.finish(out, [a_cm = column_major(*this), b_cm = column_major(mat2)](autograd::FunctionNode& node,
                                                                                 const autograd::tensor_list& g) {
    const Tensor a = node.saved(0), b = node.saved(1);
    return autograd::tensor_list{b.defined() ? mat1_grad(g[0], b, a_cm) : Tensor(),
                                 a.defined() ? mat2_grad(a, g[0], b_cm) : Tensor()};
  });
}

Tensor Tensor::bmm(const Tensor& mat2) const {
  if (autocast::is_active()) {
    return autocast::in_lower_precision([](const Tensor& a, const Tensor& b) { return a.bmm(b); }, *this, mat2);
  }
  check_bmm(*this, mat2);
  autograd::Record rec("BmmBackward0", {this, &mat2});
  // batch2's dtype, as PyTorch's bmm (they differ only in an empty product).
  Tensor out = detail::empty_on({size(0), size(1), mat2.size(2)}, mat2.dtype(), device());
  run_matmul(out, *this, mat2, nullptr, 0, 1);
  if (!rec) return out;
  save_operands(rec, *this, mat2);
  return rec.finish(out, [](autograd::FunctionNode& node, const autograd::tensor_list& g) {
    const Tensor a = node.saved(0), b = node.saved(1);
    return autograd::tensor_list{b.defined() ? g[0].bmm(b.mT()) : Tensor(),
                                 a.defined() ? a.mT().bmm(g[0]) : Tensor()};
  });
}

Tensor Tensor::mv(const Tensor& vec) const {
  if (autocast::is_active()) {
    return autocast::in_lower_precision([](const Tensor& a, const Tensor& v) { return a.mv(v); }, *this, vec);
  }
  if (dim() != 2 || vec.dim() != 1) {
    throw Error("vector + matrix @ vector expected, got 1, " + std::to_string(dim()) + ", " +
                std::to_string(vec.dim()));
  }
  detail::check_same_device({this, &vec});
  if (size(1) != vec.size(0)) {
    throw Error("size mismatch, got " + std::to_string(size(0)) + ", " + std::to_string(size(0)) + "x" +
                std::to_string(size(1)) + "," + std::to_string(vec.size(0)));
  }
  const bool products = has_products(1, size(0), size(1), 1);
  if (products) check_product_dtypes(*this, vec, "addmv_impl_cpu");
  autograd::Record rec("MvBackward0", {this, &vec});
  // An empty product gives zeros in vec's dtype, as PyTorch's.
  Tensor out = products ? mm_into(*this, vec.unsqueeze(1), nullptr, 0, 1).squeeze(1)
                        : zeros({size(0)}, TensorOptions().dtype(vec.dtype()).device(device()));
  if (!rec) return out;
  save_operands(rec, *this, vec);
  return rec.finish(out, [](autograd::FunctionNode& node, const autograd::tensor_list& g) {
    const Tensor a = node.saved(0), v = node.saved(1);
    // d/dA is the outer product g v^T; d/dv is A^T g.
    return autograd::tensor_list{v.defined() ? g[0].unsqueeze(1) * v : Tensor(), a.defined() ? a.mT().mv(g[0]) : Tensor()};
  });
}

Tensor Tensor::dot(const Tensor& other) const {
  if (dim() != 1 || other.dim() != 1) {
    throw Error("1D tensors expected, but got " + std::to_string(dim()) + "D and " + std::to_string(other.dim()) +
                "D tensors");
  }
  if (dtype() != other.dtype()) {
    throw Error("dot : expected both vectors to have same dtype, but found " + scalar_type_name(dtype()) + " and " +
                scalar_type_name(other.dtype()));
  }
  detail::check_same_device({this, &other});
  if (numel() != other.numel()) {
    throw Error("inconsistent tensor size, expected tensor [" + std::to_string(numel()) + "] and src [" +
                std::to_string(other.numel()) + "] to have the same number of elements, but got " +
                std::to_string(numel()) + " and " + std::to_string(other.numel()) + " elements respectively");
  }
  check_not_bool(dtype(), "dot");
  autograd::Record rec("DotBackward0", {this, &other});
  Tensor out = mm_into(unsqueeze(0), other.unsqueeze(1), nullptr, 0, 1).reshape({});
  if (!rec) return out;
  save_operands(rec, *this, other);
  return rec.finish(out, [](autograd::FunctionNode& node, const autograd::tensor_list& g) {
    const Tensor a = node.saved(0), b = node.saved(1);
    return autograd::tensor_list{b.defined() ? g[0] * b : Tensor(), a.defined() ? g[0] * a : Tensor()};
  });
}

Tensor Tensor::matmul(const Tensor& other) const {
  if (autocast::is_active()) {
    return autocast::in_lower_precision([](const Tensor& a, const Tensor& b) { return a.matmul(b); }, *this, other);
  }
  const int64_t d1 = dim(), d2 = other.dim();
  if (d1 == 0 || d2 == 0) {
    throw Error("both arguments to matmul need to be at least 1D, but they are " + std::to_string(d1) + "D and " +
                std::to_string(d2) + "D");
  }
  if (d1 == 1 && d2 == 1) return dot(other);
  if (d1 == 2 && d2 == 1) return mv(other);
  if (d1 == 2 && d2 == 2) return mm(other);
  autograd::Record rec(matmul_node_name(d1, d2), {this, &other});
  Tensor out = composed_matmul(*this, other);
  if (!rec) return out;
  save_operands(rec, *this, other);
  return rec.finish(out, [a_sizes = sizes().vec(), b_sizes = other.sizes().vec()](autograd::FunctionNode& node,
                                                                               const autograd::tensor_list& g) {
    return matmul_backward(g[0], node.saved(0), node.saved(1), a_sizes, b_sizes);
  });
}

namespace {

// addmm with `activation` applied in the kernel's store. The result carries AddmmBackward0, so with an
// activation it stands in the graph for the sum before the activation, which exists nowhere in memory.
Tensor addmm_recorded(const Tensor& self, const Tensor& mat1, const Tensor& mat2, Scalar beta, Scalar alpha,
                      MatmulActivation activation) {
  // PyTorch checks these dtypes before anything else.
  if (self.dtype() != mat2.dtype()) throw Error("self and mat2 must have the same dtype");
  if (mat1.dtype() != mat2.dtype()) throw Error("mat1 and mat2 must have the same dtype");
  check_mm(mat1, mat2);
  detail::check_same_device({&self, &mat1});
  autograd::Record rec("AddmmBackward0", {&self, &mat1, &mat2});
  const Tensor bias = self.expand({mat1.size(0), mat2.size(1)});
  Tensor out = mm_into(mat1, mat2, &bias, beta.to_double(), alpha.to_double(), activation);
  if (!rec) return out;
  save_operands(rec, mat1, mat2);
  // The engine sums the input's gradient back over the dims its expand broadcast.
  return rec.finish(out, [beta, alpha, m1_cm = column_major(mat1), m2_cm = column_major(mat2),
                          self_sizes = self.sizes().vec()](
                             autograd::FunctionNode& node, const autograd::tensor_list& g) {
    const Tensor m1 = node.saved(0), m2 = node.saved(1);
    const Tensor m1_grad = m2.defined() ? scaled(mat1_grad(g[0], m2, m1_cm), alpha) : Tensor();
    // A bias along the rows (a Linear's) with the weight's gradient: both from one launch.
    if (node.needs_input_grad(0) && m1.defined() && m2_cm && beta.to_double() == 1.0 && self_sizes.size() == 1 &&
        self_sizes[0] == g[0].size(1) && !autograd::GradMode::is_enabled()) {
      auto [m2_grad, bias_grad] = column_major_mat2_and_bias_grads(m1, g[0]);
      return autograd::tensor_list{bias_grad, m1_grad, scaled(m2_grad, alpha)};
    }
    return autograd::tensor_list{node.needs_input_grad(0) ? scaled(g[0], beta) : Tensor(), m1_grad,
                                 m1.defined() ? scaled(mat2_grad(m1, g[0], m2_cm), alpha) : Tensor()};
  });
}

}  // namespace

Tensor Tensor::addmm(const Tensor& mat1, const Tensor& mat2, Scalar beta, Scalar alpha) const {
  if (autocast::is_active()) {
    return autocast::in_lower_precision([&](const Tensor& self, const Tensor& m1, const Tensor& m2) {
      return self.addmm(m1, m2, beta, alpha);
    }, *this, mat1, mat2);
  }
  return addmm_recorded(*this, mat1, mat2, beta, alpha, MatmulActivation::None);
}

namespace detail {

Tensor addmm_activation(const Tensor& self, const Tensor& mat1, const Tensor& mat2, UnaryOp activation) {
  // It stands for linear (lower precision under autocast) and the activation after it.
  if (autocast::is_active()) {
    return autocast::in_lower_precision([&](const Tensor& s, const Tensor& m1, const Tensor& m2) {
      return addmm_activation(s, m1, m2, activation);
    }, self, mat1, mat2);
  }
  const bool floating = is_floating_point(mat1.dtype());
  const bool records = autograd::GradMode::is_enabled() &&
                       (self.requires_grad() || mat1.requires_grad() || mat2.requires_grad());
  if (!floating || (records && activation != UnaryOp::Relu)) {
    return recorded_unary(activation, UnaryKind::FloatOnlySame, self.addmm(mat1, mat2));
  }
  const MatmulActivation fused = activation == UnaryOp::Relu   ? MatmulActivation::Relu
                                 : activation == UnaryOp::Gelu ? MatmulActivation::Gelu
                                                               : MatmulActivation::GeluTanh;
  const Tensor sum = addmm_recorded(self, mat1, mat2, 1, 1, fused);
  if (!records) return sum;
  // relu's node reads only its output, which the kernel wrote into sum's memory.
  return record_unary_result({.op = UnaryOp::Relu}, sum, sum.detach());
}

}  // namespace detail

Tensor Tensor::baddbmm(const Tensor& batch1, const Tensor& batch2, Scalar beta, Scalar alpha) const {
  if (autocast::is_active()) {
    return autocast::in_lower_precision([&](const Tensor& self, const Tensor& b1, const Tensor& b2) {
      return self.baddbmm(b1, b2, beta, alpha);
    }, *this, batch1, batch2);
  }
  check_bmm(batch1, batch2);
  detail::check_same_device({this, &batch1});
  autograd::Record rec("BaddbmmBackward0", {this, &batch1, &batch2});
  const std::vector<int64_t> shape{batch1.size(0), batch1.size(1), batch2.size(2)};
  // PyTorch accepts another float dtype for the input here and converts it.
  const Tensor bias = expand(shape).to(batch1.dtype());
  Tensor out = detail::empty_on(shape, batch1.dtype(), batch1.device());
  run_matmul(out, batch1, batch2, &bias, beta.to_double(), alpha.to_double());
  if (!rec) return out;
  save_operands(rec, batch1, batch2);
  return rec.finish(out, [beta, alpha](autograd::FunctionNode& node, const autograd::tensor_list& g) {
    const Tensor b1 = node.saved(0), b2 = node.saved(1);
    return autograd::tensor_list{node.needs_input_grad(0) ? scaled(g[0], beta) : Tensor(),
                                 b2.defined() ? scaled(g[0].bmm(b2.mT()), alpha) : Tensor(),
                                 b1.defined() ? scaled(b1.mT().bmm(g[0]), alpha) : Tensor()};
  });
}

Tensor matmul(const Tensor& a, const Tensor& b) { return a.matmul(b); }
Tensor mm(const Tensor& a, const Tensor& b) { return a.mm(b); }
Tensor bmm(const Tensor& a, const Tensor& b) { return a.bmm(b); }
Tensor addmm(const Tensor& input, const Tensor& mat1, const Tensor& mat2, Scalar beta, Scalar alpha) {
  return input.addmm(mat1, mat2, beta, alpha);
}
Tensor baddbmm(const Tensor& input, const Tensor& batch1, const Tensor& batch2, Scalar beta, Scalar alpha) {
  return input.baddbmm(batch1, batch2, beta, alpha);
}

}  // namespace ember
