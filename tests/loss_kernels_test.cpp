// The loss kernels' contract, called directly and compared with float64 formulas: each row's loss
// with and without log-softmax, weights, ignored rows and label smoothing; the reductions, over one
// workgroup and over many whose partial sums a second dispatch merges; the total weight and logsumexp
// the backward reads; the status words for an out-of-range target (its 64 bits); the backward; and
// the argument checks.
#include <ATen/ATen.h>

#include <string>
#include <vector>

#include "runtime/error.h"
#include "runtime/kernels/loss.h"
#include "tests/oracle.h"

namespace ember::test {
namespace {

class LossKernelsTest : public BackendTest {
 protected:
  LossKernels& kernels() { return device->kernels().get<LossKernels>(); }
  Tensor put(const at::Tensor& t) { return from_torch(t.contiguous(), device); }
  Tensor empty_of(std::vector<int64_t> sizes, DType dtype) {
    return ember::empty(sizes, TensorOptions(dtype).device(device));
  }
};

struct Reference {
  at::Tensor losses;  // per row
  at::Tensor weights;  // w[t] per row, 0 where ignored
  at::Tensor lse;
};

// Rows of [outer, classes, inner] scores as [rows, classes] in float64.
at::Tensor rows_of(const at::Tensor& x) {
  return x.to(at::kDouble).reshape({x.size(0), x.size(1), -1}).permute({0, 2, 1}).reshape({-1, x.size(1)});
}

Reference reference(const at::Tensor& x, const at::Tensor& t, const at::Tensor& w, double smoothing,
                    bool log_softmax, int64_t ignore) {
  const at::Tensor r = rows_of(x);
  const at::Tensor lse = log_softmax ? r.logsumexp(1) : at::zeros({r.size(0)}, at::kDouble);
  const at::Tensor logp = r - lse.unsqueeze(1);
  const at::Tensor valid = t.reshape(-1).ne(ignore);
  const at::Tensor safe = t.reshape(-1).masked_fill(valid.logical_not(), 0);
  const at::Tensor wd = w.defined() ? w.to(at::kDouble) : at::ones({r.size(1)}, at::kDouble);
  const at::Tensor wt = wd.index_select(0, safe) * valid.to(at::kDouble);
  at::Tensor loss = -(wt * logp.gather(1, safe.unsqueeze(1)).squeeze(1)) * (1 - smoothing);
  if (smoothing > 0) loss = loss + smoothing / r.size(1) * -(logp * wd).sum(1) * valid.to(at::kDouble);
  return {loss, wt, lse};
}

TEST_P(LossKernelsTest, ForwardReductionsAndBackward) {
  struct Case {
    std::vector<int64_t> sizes;
    bool weighted;
    double smoothing;
    bool log_softmax;
  };
  const std::vector<Case> cases = {
      {{6, 5}, false, 0, true},     {{6, 5}, true, 0.2, true},   {{3, 4, 7}, true, 0, true},
      {{5000, 3}, true, 0.1, true},  // many workgroups
      {{9, 700}, false, 0.3, true},  // rows wider than a lane group's eight per lane
      {{6, 5}, true, 0, false},     {{2, 3, 2, 2}, false, 0, false},
      // float32 rows of a multiple of four classes, read as texels
      {{40, 12}, true, 0, true},    {{5, 8}, false, 0, false},
  };
  for (const DType dtype : {DType::Float32, DType::Float64, DType::BFloat16}) {
    if (!device->supports(dtype)) continue;
    for (const Case& c : cases) {
      for (const ReductionKind reduction : {ReductionKind::None, ReductionKind::Mean, ReductionKind::Sum}) {
        SCOPED_TRACE(std::string(dtype_name(dtype)) + " " + to_string(c.sizes) + " reduction " +
                     std::to_string(static_cast<int>(reduction)));
        const at::Tensor x = random_torch(c.sizes, dtype, 1);
        const int64_t classes = c.sizes[1];
        ClassShape shape{c.sizes[0], classes, x.numel() / (c.sizes[0] * classes)};
        at::Generator gen = at::detail::createCPUGenerator(2);
        at::Tensor t = at::randint(0, classes, {shape.rows()}, gen, at::kLong);
        t.masked_fill_(at::randint(0, 5, {shape.rows()}, gen, at::kLong).eq(0), -7);
        const at::Tensor w = c.weighted ? random_torch({classes}, dtype, 3, 0.2, 2) : at::Tensor();
        const DType stats = dtype == DType::Float64 ? DType::Float64 : DType::Float32;
        Tensor xe = put(x), te = put(t), we = c.weighted ? put(w) : Tensor();
        Tensor out = empty_of(reduction == ReductionKind::None ? std::vector<int64_t>{shape.rows()} : std::vector<int64_t>{}, dtype);
        Tensor total = empty_of({}, stats), lse = empty_of({shape.rows()}, stats);
        Tensor status = ember::zeros({3}, TensorOptions(DType::Int32).device(device));
        CrossEntropyArgs args{.out = out.ref(), .in = xe.ref(), .target = te.ref(), .shape = shape, .ignore_index = -7,
                              .label_smoothing = c.smoothing, .log_softmax = c.log_softmax, .reduction = reduction,
                              .total_weight = total.ref(), .status = status.ref()};
        if (c.weighted) args.weight = we.ref();
        if (c.log_softmax) args.logsumexp = lse.ref();
        kernels().cross_entropy(*stream, args);
        const Reference ref = reference(x, t, w, c.smoothing, c.log_softmax, -7);
        const double tol = dtype == DType::Float64 ? 1e-10 : dtype == DType::Float32 ? 1e-4 : 2e-2;
        if (reduction == ReductionKind::None) {
          EXPECT_TENSOR_EQ(out.to(kFloat64), ref.losses, tol, tol);
        } else {
          const at::Tensor sum = ref.losses.sum();
          EXPECT_TENSOR_EQ(out.to(kFloat64), reduction == ReductionKind::Mean ? sum / ref.weights.sum() : sum, tol, tol);
          EXPECT_TENSOR_EQ(total.to(kFloat64), ref.weights.sum(), tol, tol);
        }
        if (c.log_softmax) EXPECT_TENSOR_EQ(lse.to(kFloat64), ref.lse, tol, tol);
        EXPECT_EQ(to_torch(status).sum().item<int64_t>(), 0);

        // The backward against autograd of the float64 reference.
        const at::Tensor xd = x.to(at::kDouble).requires_grad_(true);
        const Reference live = reference(xd, t, w, c.smoothing, c.log_softmax, -7);
        const at::Tensor g = reduction == ReductionKind::None ? random_torch({shape.rows()}, dtype, 4)
                                                              : random_torch({}, dtype, 4);
        at::Tensor objective = reduction == ReductionKind::None ? live.losses : live.losses.sum();
        if (reduction == ReductionKind::Mean) objective = objective / live.weights.sum();
        objective.backward(g.to(at::kDouble));
        Tensor gi = empty_of(c.sizes, dtype), ge = put(g);
        CrossEntropyBackwardArgs back{.grad_in = gi.ref(), .grad_out = ge.ref(), .in = xe.ref(), .target = te.ref(),
                                      .shape = shape, .ignore_index = -7, .label_smoothing = c.smoothing,
                                      .log_softmax = c.log_softmax, .reduction = reduction, .total_weight = total.ref()};
        if (c.weighted) back.weight = we.ref();
        if (c.log_softmax) back.logsumexp = lse.ref();
        kernels().cross_entropy_backward(*stream, back);
        EXPECT_TENSOR_EQ(gi.to(kFloat64), xd.grad(), tol, tol);
      }
    }
  }
}

TEST_P(LossKernelsTest, OutOfRangeTargetSetsTheStatus) {
  const at::Tensor x = random_torch({4, 3}, DType::Float32, 5);
  const int64_t bad = (int64_t{5} << 32) + 3;
  const at::Tensor t = at::tensor({int64_t{0}, bad, int64_t{2}, int64_t{1}});
  Tensor xe = put(x), te = put(t);
  Tensor out = empty_of({}, DType::Float32), total = empty_of({}, DType::Float32);
  Tensor status = ember::zeros({3}, TensorOptions(DType::Int32).device(device));
  kernels().cross_entropy(*stream, {.out = out.ref(), .in = xe.ref(), .target = te.ref(), .shape = {4, 3, 1},
                                    .reduction = ReductionKind::Sum, .total_weight = total.ref(), .status = status.ref()});
  const std::vector<int32_t> words = status.to_vector<int32_t>();
  EXPECT_EQ(words, (std::vector<int32_t>{1, 3, 5}));
  // The bad row counts as ignored.
  const at::Tensor ok = at::tensor({int64_t{0}, int64_t{2}, int64_t{1}});
  const at::Tensor expected = -at::log_softmax(x.index_select(0, at::tensor({int64_t{0}, int64_t{2}, int64_t{3}})), 1)
                                   .gather(1, ok.unsqueeze(1))
                                   .sum();
  EXPECT_TENSOR_EQ(out, expected, 1e-5, 1e-5);
  EXPECT_EQ(total.item<float>(), 3.0f);
}

TEST_P(LossKernelsTest, RejectsBadArguments) {
  Tensor x = put(at::rand({4, 3}));
  Tensor t = put(at::zeros({4}, at::kLong));
  Tensor out = empty_of({}, DType::Float32), total = empty_of({}, DType::Float32);
  Tensor status = ember::zeros({3}, TensorOptions(DType::Int32).device(device));
  Tensor t32 = put(at::zeros({4}, at::kInt));
  expect_error<Error>([&] {
    kernels().cross_entropy(*stream, {.out = out.ref(), .in = x.ref(), .target = t32.ref(), .shape = {4, 3, 1},
                                      .total_weight = total.ref(), .status = status.ref()});
  }, "cross_entropy: the target must be 4 contiguous int64 class indices");
  Tensor total64 = empty_of({}, DType::Int64);
  expect_error<Error>([&] {
    kernels().cross_entropy(*stream, {.out = out.ref(), .in = x.ref(), .target = t.ref(), .shape = {4, 3, 1},
                                      .total_weight = total64.ref(), .status = status.ref()});
  }, "cross_entropy: total_weight must be one float32 element");
  Tensor gi = empty_of({4, 3}, DType::Float32);
  expect_error<Error>([&] {
    kernels().cross_entropy_backward(*stream, {.grad_in = gi.ref(), .grad_out = out.ref(), .in = x.ref(),
                                               .target = t.ref(), .shape = {4, 3, 1}, .total_weight = total.ref()});
  }, "cross_entropy_backward: the backward of log_softmax needs the forward's logsumexp");
}

INSTANTIATE_TEST_SUITE_P(Backends, LossKernelsTest, testing::Values("vulkan", "cuda"), backend_test_name);

}  // namespace
}  // namespace ember::test
