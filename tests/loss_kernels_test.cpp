// The loss kernels' contract, called directly and compared with float64 formulas: each row's loss
// with and without log-softmax, weights, ignored rows and label smoothing; the reductions, over one
// workgroup and over many whose partial sums a second dispatch merges; the total weight and logsumexp
// the backward reads; the status words for an out-of-range target (its 64 bits); the backward; and
// the argument checks. Then the CTC recursion against the same recursion in LibTorch, frame by frame,
// and the CTC gradient against its formula.
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

// CtcRecursionArgs's recursion on the host in float64, frame by frame, on a copy of the table.
at::Tensor ctc_reference(const at::Tensor& table, const at::Tensor& emissions, const at::Tensor& moves, int64_t first,
                         int64_t end, CtcDirection direction) {
  at::Tensor out = table.to(at::kDouble).clone();
  const at::Tensor e = emissions.to(at::kDouble), m = moves.to(at::kDouble);
  const bool backward = direction == CtcDirection::Backward;
  for (int64_t k = first; k < end; ++k) {
    const int64_t t = backward ? end - 1 - (k - first) : k;
    const at::Tensor neighbours = out[backward ? t + 1 : t - 1].unfold(1, 3, 1) + m;  // (N, P, 3)
    out[t].narrow(1, backward ? 0 : 2, e.size(2)).copy_(neighbours.logsumexp(2) + e[t]);
  }
  return out;
}

struct CtcCase {
  int64_t frames, batch, positions;
  CtcDirection direction;
  int64_t first, end;
};

struct CtcOperands {
  at::Tensor table, emissions, moves;
};

// A table of random values with -inf padding columns, random emissions, and moves of which a share
// `blocked` are -inf (moves an alignment may not make), the rest 0; all in `dtype`.
CtcOperands ctc_operands(const CtcCase& c, DType dtype, uint64_t seed, double blocked = 0.2) {
  const bool backward = c.direction == CtcDirection::Backward;
  at::Generator gen = at::detail::createCPUGenerator(seed);
  const int64_t rows = c.frames + (backward ? 1 : 0);
  at::Tensor table = random_torch({rows, c.batch, c.positions + 2}, dtype, gen, ValueRange{-3, 0});
  table.narrow(2, backward ? c.positions : 0, 2).fill_(-INFINITY);
  const at::Tensor emissions = random_torch({c.frames, c.batch, c.positions}, dtype, gen, ValueRange{-2, 0});
  const at::Tensor moves = at::zeros({c.batch, c.positions, 3}, emissions.options())
                               .masked_fill(at::rand({c.batch, c.positions, 3}, gen) < blocked, -INFINITY);
  return {table, emissions, moves};
}

class CtcRecursion {
 public:
  CtcRecursion(const std::shared_ptr<Device>& device, const CtcOperands& o)
      : table(from_torch(o.table, device)), emissions(from_torch(o.emissions, device)),
        moves(from_torch(o.moves, device)) {}
  void run(LossKernels& kernels, Stream& stream, int64_t first, int64_t end, CtcDirection direction) {
    kernels.ctc_recursion(stream, {.table = table.ref(), .emissions = emissions.ref(), .moves = moves.ref(),
                                   .batch = emissions.size(1), .positions = emissions.size(2), .first_frame = first,
                                   .end_frame = end, .direction = direction});
  }
  Tensor table, emissions, moves;
};

TEST_P(LossKernelsTest, CtcRecursionAgainstTheHostRecursion) {
  const auto forward = CtcDirection::Forward, backward = CtcDirection::Backward;
  const std::vector<CtcCase> cases = {
      {7, 3, 5, forward, 1, 7},      {7, 3, 5, backward, 0, 7},
      {9, 2, 4, forward, 3, 6},      {9, 2, 4, backward, 2, 8},  // rows outside the frames stay as they were
      {4, 2, 300, forward, 1, 4},    {4, 2, 300, backward, 0, 4},  // two positions per invocation
      {3, 70, 1, forward, 1, 3},     {5, 0, 3, backward, 0, 5},   {6, 2, 3, forward, 4, 4},
  };
  for (const DType dtype : {DType::Float32, DType::Float64}) {
    if (!device->supports(dtype)) continue;
    for (const CtcCase& c : cases) {
      SCOPED_TRACE(std::string(dtype_name(dtype)) + " " + std::to_string(c.frames) + "x" + std::to_string(c.batch) +
                   "x" + std::to_string(c.positions) + (c.direction == backward ? " backward " : " forward ") +
                   std::to_string(c.first) + ".." + std::to_string(c.end));
      const CtcOperands o = ctc_operands(c, dtype, 7);
      CtcRecursion recursion(device, o);
      recursion.run(kernels(), *stream, c.first, c.end, c.direction);
      const double tol = dtype == DType::Float64 ? 1e-12 : 1e-5;
      const at::Tensor expected = ctc_reference(o.table, o.emissions, o.moves, c.first, c.end, c.direction);
      EXPECT_TENSOR_EQ(recursion.table.to(kFloat64), expected, tol, tol);
    }
  }
}

// NaN spreads along the alignments that reach it, +inf wins, and positions whose three moves are all
// -inf stay -inf.
TEST_P(LossKernelsTest, CtcRecursionSpecialValues) {
  for (const CtcDirection direction : {CtcDirection::Forward, CtcDirection::Backward}) {
    CtcOperands o = ctc_operands({4, 2, 6, direction, 0, 4}, DType::Float32, 9);
    o.table[direction == CtcDirection::Forward ? 0 : 4][0][3] = NAN;
    o.emissions[2][1][4] = INFINITY;
    o.moves[1].narrow(0, 0, 2).fill_(-INFINITY);
    const int64_t first = direction == CtcDirection::Forward ? 1 : 0;
    CtcRecursion recursion(device, o);
    recursion.run(kernels(), *stream, first, 4, direction);
    EXPECT_TENSOR_EQ(recursion.table.to(kFloat64), ctc_reference(o.table, o.emissions, o.moves, first, 4, direction),
                     1e-5, 1e-5);
  }
}

// More frames than one launch walks on llvmpipe (its loop limit), so the recursion runs as several
// launches that must hand the boundary rows on in order, in both directions.
TEST_P(LossKernelsTest, CtcRecursionOverManyFrames) {
  const DType dtype = device->supports(DType::Float64) ? DType::Float64 : DType::Float32;
  for (const CtcDirection direction : {CtcDirection::Forward, CtcDirection::Backward}) {
    const CtcCase c{40000, 2, 3, direction, direction == CtcDirection::Forward ? 1 : 0, 40000};
    // No blocked moves, or every alignment would end within a few hundred frames and the rows after
    // would all be -inf; emissions near zero keep the values within float32's reach over 40000 frames.
    CtcOperands o = ctc_operands(c, dtype, 11, 0);
    o.emissions = o.emissions * 1e-3;
    CtcRecursion recursion(device, o);
    recursion.run(kernels(), *stream, c.first, c.end, direction);
    const double tol = dtype == DType::Float64 ? 1e-10 : 1e-4;
    const at::Tensor expected = ctc_reference(o.table, o.emissions, o.moves, c.first, c.end, direction);
    EXPECT_TENSOR_EQ(recursion.table.to(kFloat64), expected, tol, tol);
  }
}

TEST_P(LossKernelsTest, CtcRecursionRejectsBadArguments) {
  const CtcOperands o = ctc_operands({4, 2, 3, CtcDirection::Forward, 1, 4}, DType::Float32, 3);
  CtcRecursion good(device, o);
  const Tensor e64 = from_torch(o.emissions.to(at::kDouble), device);
  const Tensor short_table = from_torch(o.table.narrow(0, 0, 3).contiguous(), device);
  const Tensor strided_moves = from_torch(o.moves, device).transpose(0, 1).contiguous().transpose(0, 1);
  const auto call = [&](const Tensor& table, const Tensor& emissions, const Tensor& moves, int64_t first,
                        int64_t positions) {
    kernels().ctc_recursion(*stream, {.table = table.ref(), .emissions = emissions.ref(), .moves = moves.ref(),
                                      .batch = 2, .positions = positions, .first_frame = first, .end_frame = 4,
                                      .direction = CtcDirection::Forward});
  };
  expect_error<Error>([&] { call(good.table, good.emissions, good.moves, 0, 3); },
                      "ctc_recursion: the forward recursion starts at frame 1");
  expect_error<Error>([&] { call(good.table, e64, good.moves, 1, 3); },
                      "ctc_recursion: the emissions and moves must have the table's dtype");
  expect_error<Error>([&] { call(good.table, good.emissions, good.moves, 1, 4); },
                      "ctc_recursion: the table must be contiguous [at least 4, 2, 6]");
  expect_error<Error>([&] { call(short_table, good.emissions, good.moves, 1, 3); },
                      "ctc_recursion: the table must be contiguous [at least 4, 2, 5]");
  expect_error<Error>([&] { call(good.table, good.emissions, strided_moves, 1, 3); },
                      "ctc_recursion: the moves must be contiguous [2, 3, 3]");
}

// CtcGradientArgs's formula in float64 with LibTorch's ops: the occupancy per class through a one-hot
// matmul, rows past each sequence's frames, and sequences of infinite loss under zero_infinity, zero.
at::Tensor ctc_gradient_reference(const at::Tensor& log_probs, const at::Tensor& alpha, const at::Tensor& beta,
                                  const at::Tensor& labels, const at::Tensor& nll, const at::Tensor& lengths,
                                  bool zero_infinity) {
  const int64_t frames = log_probs.size(0), positions = labels.size(1);
  const at::Tensor lp = log_probs.to(at::kDouble), losses = nll.to(at::kDouble);
  const at::Tensor both = alpha.to(at::kDouble).narrow(2, 2, positions) +
                         beta.to(at::kDouble).narrow(0, 0, frames).narrow(2, 0, positions);
  at::Tensor shift = both.amax(2, true);
  shift = shift.masked_fill(shift == -INFINITY, 0);
  const at::Tensor position_class = at::one_hot(labels.to(at::kLong), lp.size(2)).to(at::kDouble);  // (N, P, C)
  const at::Tensor occupancy = at::einsum("tnp,npc->tnc", {(both - shift).exp(), position_class}).log() + shift;
  at::Tensor grad = lp.exp() - (occupancy + losses.reshape({1, -1, 1}) - lp).exp();
  at::Tensor zero = at::arange(frames).reshape({-1, 1}) >= lengths.to(at::kLong).reshape({1, -1});
  if (zero_infinity) zero = zero.logical_or(losses.reshape({1, -1}) == INFINITY);
  return grad.masked_fill(zero.unsqueeze(2), 0);
}

TEST_P(LossKernelsTest, CtcGradientAgainstItsFormula) {
  const int64_t frames = 6, batch = 3, classes = 5, positions = 7;
  for (const DType dtype : {DType::Float32, DType::Float64}) {
    if (!device->supports(dtype)) continue;
    for (const bool zero_infinity : {false, true}) {
      SCOPED_TRACE(std::string(dtype_name(dtype)) + (zero_infinity ? " zero_infinity" : ""));
      at::Generator gen = at::detail::createCPUGenerator(13);
      const at::Tensor log_probs = random_torch({frames, batch, classes}, dtype, gen, ValueRange{-3, 0});
      at::Tensor alpha = random_torch({frames, batch, positions + 2}, dtype, gen, ValueRange{-9, -1});
      at::Tensor beta = random_torch({frames + 1, batch, positions + 2}, dtype, gen, ValueRange{-9, -1});
      alpha.narrow(2, 0, 2).fill_(-INFINITY);
      beta.narrow(2, positions, 2).fill_(-INFINITY);
      alpha[2][1].fill_(-INFINITY);  // a row no alignment reaches: its shift is 0
      // Blanks (class 0) between labels, a repeated label, and padding blanks.
      const at::Tensor labels = at::tensor({0, 2, 0, 2, 0, 4, 0, 0, 1, 0, 3, 0, 0, 0, 0, 4, 0, 4, 0, 1, 0}, at::kInt)
                                    .reshape({batch, positions});
      const at::Tensor nll = at::tensor({7.5, INFINITY, 4.25}, at::kDouble).to(log_probs.scalar_type());
      const at::Tensor lengths = at::tensor({6, 4, 5}, at::kInt);
      Tensor grad = ember::empty({frames, batch, classes}, TensorOptions(dtype).device(device));
      const Tensor lp = put(log_probs), a = put(alpha), b = put(beta);
      const Tensor l = put(labels), n = put(nll), len = put(lengths);
      kernels().ctc_gradient(*stream, {.grad = grad.ref(), .log_probs = lp.ref(), .alpha = a.ref(), .beta = b.ref(),
                                       .labels = l.ref(), .nll = n.ref(), .input_lengths = len.ref(),
                                       .zero_infinity = zero_infinity});
      const double tol = dtype == DType::Float64 ? 1e-12 : 1e-5;
      EXPECT_TENSOR_EQ(grad.to(kFloat64),
                       ctc_gradient_reference(log_probs, alpha, beta, labels, nll, lengths, zero_infinity), tol, tol);
    }
  }
}

TEST_P(LossKernelsTest, CtcGradientRejectsBadArguments) {
  const Tensor lp = put(at::rand({4, 2, 5})), alpha = put(at::rand({4, 2, 5})), beta = put(at::rand({5, 2, 5}));
  const Tensor labels = put(at::zeros({2, 3}, at::kInt)), labels64 = put(at::zeros({2, 3}, at::kLong));
  const Tensor nll = put(at::rand({2})), lengths = put(at::full({2}, 4, at::kInt));
  Tensor grad = ember::empty({4, 2, 5}, TensorOptions(kFloat32).device(device));
  const auto call = [&](const Tensor& b, const Tensor& l) {
    kernels().ctc_gradient(*stream, {.grad = grad.ref(), .log_probs = lp.ref(), .alpha = alpha.ref(), .beta = b.ref(),
                                     .labels = l.ref(), .nll = nll.ref(), .input_lengths = lengths.ref()});
  };
  expect_error<Error>([&] { call(beta, labels64); }, "ctc_gradient: the labels and input lengths must be int32");
  expect_error<Error>([&] { call(alpha.narrow(0, 0, 3).contiguous(), labels); },
                      "ctc_gradient: alpha and beta must be contiguous [T, N, P + 2] (beta: at least T rows)");
  expect_error<Error>([&] { call(beta.to(kFloat64), labels); },
                      "ctc_gradient: log_probs, alpha, beta and nll must have the gradient's dtype");
}

INSTANTIATE_TEST_SUITE_P(Backends, LossKernelsTest, testing::Values("vulkan", "cuda"), backend_test_name);

}  // namespace
}  // namespace ember::test
