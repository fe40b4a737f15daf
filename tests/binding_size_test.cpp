// Every kernel family on tensors larger than one storage-buffer binding (128 MiB on lavapipe, up to
// 4 GiB on desktop GPUs): a training set of 1.5 bindings (on lavapipe 60000 x 784 float32, Fashion-MNIST's
// size) through reductions, scans, gathers, scatters, sorts, matmul and its backward, convolution and its
// gradients, pooling and resampling, the norms, and the CTC loss's recursions, compared with LibTorch.
#include <torch/nn/functional/batchnorm.h>
#include <torch/nn/functional/loss.h>
#include <torch/nn/functional/normalization.h>
#include <torch/optim/adam.h>

#include "nn/functional/batchnorm.h"
#include "nn/functional/conv.h"
#include "nn/functional/cross_entropy.h"
#include "nn/functional/ctc_loss.h"
#include "nn/functional/dropout.h"
#include "nn/functional/normalization.h"
#include "nn/functional/pooling.h"
#include "nn/functional/upsampling.h"
#include "optim/adam.h"
#include "tests/oracle.h"

namespace ember::test {
namespace {

class BindingSizeTest : public BackendTest {
 protected:
  static constexpr int64_t kColumns = 784;

  void SetUp() override {
    BackendTest::SetUp();
    if (IsSkipped()) return;
    const uint64_t range = device->info().max_storage_buffer_range;
    const uint64_t heap = device->allocator().source().device_total();
    // The data, LibTorch's copy of it on the host and the results: a few times its size.
    if (range * 8 > heap || range > (uint64_t{1} << 31)) {
      GTEST_SKIP() << "a binding reaches " << format_bytes(range) << " of " << format_bytes(heap)
                   << " here: a tensor past one binding does not fit comfortably";
    }
    rows_ = static_cast<int64_t>(range / (kColumns * sizeof(float))) * 3 / 2 + 7;
    at::Generator gen = at::detail::createCPUGenerator(3);
    values_ = at::rand({rows_, kColumns}, gen);
    x_ = from_torch(values_, device);
    ASSERT_GT(x_.nbytes(), range);
  }

  // Row indices that reach both ends and the middle, with a repeat.
  at::Tensor row_indices() const {
    return at::tensor({int64_t{0}, rows_ - 1, rows_ / 2, int64_t{5}, rows_ - 2, rows_ / 2, int64_t{1}});
  }

  int64_t rows_ = 0;
  at::Tensor values_;
  Tensor x_;
};

TEST_P(BindingSizeTest, Reductions) {
  const auto f64 = [](const at::Tensor& t) { return t.to(at::kDouble); };
  // Whole-tensor reductions are compared with float64 ones: LibTorch's own float32 norm of 50 million
  // elements is off by 2e-3 relative, ember's tree-ordered one by about 1e-6.
  EXPECT_TENSOR_EQ(x_.sum().to(kFloat64), f64(values_).sum(), 1e-5, 0);
  EXPECT_TENSOR_EQ(x_.mean(0), values_.mean(0), 1e-5, 1e-6);
  EXPECT_TENSOR_EQ(x_.sum(1), values_.sum(1), 1e-5, 1e-5);
  EXPECT_TENSOR_EQ(x_.amax(0), values_.amax(0));
  EXPECT_TENSOR_EQ(x_.argmax(0), values_.argmax(0));
  EXPECT_TENSOR_EQ(x_.argmin(), values_.argmin());
  EXPECT_TENSOR_EQ(std::get<1>(x_.max(0)), std::get<1>(values_.max(0)));
  EXPECT_TENSOR_EQ(x_.var(0), values_.var(0), 1e-4, 1e-6);
  EXPECT_TENSOR_EQ(x_.norm().to(kFloat64), f64(values_).norm(), 1e-5, 0);
  EXPECT_TENSOR_EQ(x_.logsumexp(0), values_.logsumexp(0), 1e-5, 1e-5);
  EXPECT_TENSOR_EQ(x_.cumsum(1).select(0, rows_ - 1), values_.cumsum(1).select(0, rows_ - 1), 1e-5, 1e-5);
}

TEST_P(BindingSizeTest, GathersAndIndexing) {
  const at::Tensor rows = row_indices();
  const Tensor rows_e = from_torch(rows, device);
  EXPECT_TENSOR_EQ(x_.index_select(0, rows_e), values_.index_select(0, rows));
  EXPECT_TENSOR_EQ(x_.index({rows_e}), values_.index({rows}));
  const at::Tensor cols = at::tensor({int64_t{0}, kColumns - 1, int64_t{3}, int64_t{3}, int64_t{400}, int64_t{1},
                                      int64_t{2}});
  EXPECT_TENSOR_EQ(x_.index({rows_e, from_torch(cols, device)}), values_.index({rows, cols}));
  const at::Tensor picks = at::stack({rows, rows.flip(0)}).t().contiguous();  // 7 x 2 rows to pick from
  const at::Tensor gather_index = picks.narrow(1, 0, 1).expand({7, kColumns}).contiguous();
  EXPECT_TENSOR_EQ(x_.gather(0, from_torch(gather_index, device)), values_.gather(0, gather_index));
  EXPECT_TENSOR_EQ(x_.take(from_torch(rows * kColumns + 3, device)), values_.take(rows * kColumns + 3));
}

TEST_P(BindingSizeTest, ScattersAndIndexAdd) {
  const at::Tensor rows = row_indices();
  const Tensor rows_e = from_torch(rows, device);
  const at::Tensor source = at::ones({7, kColumns});
  Tensor added = x_.clone();
  added.index_add_(0, rows_e, from_torch(source, device), 2);
  at::Tensor expected = values_.clone().index_add_(0, rows, source, 2);
  EXPECT_TENSOR_EQ(added.index_select(0, rows_e), expected.index_select(0, rows));
  EXPECT_TENSOR_EQ(added.sum(1), expected.sum(1), 1e-5, 1e-5);

  const at::Tensor index = rows.narrow(0, 0, 5).unsqueeze(1).expand({5, kColumns}).contiguous();
  Tensor scattered = x_.clone();
  scattered.scatter_(0, from_torch(index, device), from_torch(source.narrow(0, 0, 5), device));
  expected = values_.clone().scatter_(0, index, source.narrow(0, 0, 5));
  EXPECT_TENSOR_EQ(scattered.index_select(0, rows_e), expected.index_select(0, rows));

  Tensor put = x_.clone();
  put.index_put_({rows_e}, from_torch(source, device), /*accumulate=*/true);
  expected = values_.clone().index_put_({rows}, source, true);
  EXPECT_TENSOR_EQ(put.index_select(0, rows_e), expected.index_select(0, rows));
}

TEST_P(BindingSizeTest, MatmulAndItsBackward) {
  // X^T X over 32 columns: each operand still spans every row, so each row of X^T is wider than a binding.
  const Tensor some = x_.narrow(1, 0, 32);
  const at::Tensor some_values = values_.narrow(1, 0, 32);
  EXPECT_TENSOR_EQ(some.t().matmul(some), some_values.t().matmul(some_values), 1e-4, 1e-3);
  const at::Tensor w_values = at::rand({kColumns, 16}, at::detail::createCPUGenerator(4)) - 0.5;
  Tensor w = from_torch(w_values, device).requires_grad_(true);
  x_.matmul(w).sum().backward();
  at::Tensor wt = w_values.clone().requires_grad_(true);
  values_.matmul(wt).sum().backward();
  EXPECT_TENSOR_EQ(w.grad(), wt.grad(), 1e-4, 1e-3);
}

TEST_P(BindingSizeTest, JoiningAndCopies) {
  const Tensor doubled = ember::cat({x_, x_.narrow(0, 0, 100)});
  EXPECT_TENSOR_EQ(doubled.narrow(0, rows_, 100), values_.narrow(0, 0, 100));
  EXPECT_TENSOR_EQ(x_.t().contiguous().narrow(1, rows_ - 3, 3), values_.t().narrow(1, rows_ - 3, 3));
}

// The contiguous elementwise layouts and the copy split into windows: aligned blocks, a view one element
// in (no block starts aligned), mixed widths, and a copy through the buffer-copy path.
TEST_P(BindingSizeTest, ElementwiseAndCopies) {
  EXPECT_TENSOR_EQ(x_.mul(x_).add(x_, -2), values_.mul(values_).add(values_, -2));
  const Tensor shifted = x_.flatten().narrow(0, 1, x_.numel() - 1);
  const at::Tensor shifted_values = values_.flatten().narrow(0, 1, values_.numel() - 1);
  EXPECT_TENSOR_EQ(shifted.sub(0.5).relu(), shifted_values.sub(0.5).relu());
  EXPECT_TENSOR_EQ(x_.to(kFloat64).narrow(0, rows_ - 2, 2), values_.narrow(0, rows_ - 2, 2).to(at::kDouble));
  EXPECT_TENSOR_EQ(ember::where(x_.gt(0.5), x_, 0.0), at::where(values_.gt(0.5), values_, 0.0));
  EXPECT_TENSOR_EQ(shifted.clone(), shifted_values);
}

TEST_P(BindingSizeTest, SortAlongEitherDim) {
  // Along dim 1 each row sorts in one workgroup; the launch splits over rows, both where it reads (the
  // first 300 columns span the whole input) and where it writes (the indices take more than a binding).
  const at::Tensor rows = row_indices();
  const Tensor rows_e = from_torch(rows, device);
  const auto [values, indices] = x_.narrow(1, 0, 300).sort(1, /*descending=*/true);
  ASSERT_GT(indices.nbytes(), device->info().max_storage_buffer_range);
  const auto [expected_values, expected_indices] =
      at::sort(values_.index_select(0, rows).narrow(1, 0, 300), true, 1, true);
  EXPECT_TENSOR_EQ(values.index_select(0, rows_e), expected_values);
  EXPECT_TENSOR_EQ(indices.index_select(0, rows_e), expected_indices);
  // Along dim 0 a row is a column, wider than a binding: it is sorted through a copy with the dim
  // innermost, over several merge passes (each column is longer than a tile).
  const Tensor some = x_.narrow(1, 5, 3);
  const at::Tensor some_values = values_.narrow(1, 5, 3);
  const auto [column_values, column_indices] = some.sort(0);
  EXPECT_TENSOR_EQ(column_values, std::get<0>(at::sort(some_values, true, 0, false)));
  EXPECT_TENSOR_EQ(column_indices, std::get<1>(at::sort(some_values, true, 0, false)));
  EXPECT_TENSOR_EQ(std::get<1>(x_.narrow(1, 700, 2).topk(9, 0)), std::get<1>(values_.narrow(1, 700, 2).topk(9, 0)));
}

TEST_P(BindingSizeTest, ConvolutionAndItsGradients) {
  // The rows as 28 x 28 images: the input, the output and the input gradient each span 1.5 bindings, so
  // every kernel launches along the batch in windows, and the weight gradient sums over all of them.
  const at::Tensor rows = row_indices();
  const Tensor rows_e = from_torch(rows, device);
  const at::Tensor images_t = values_.view({rows_, 1, 28, 28});
  const at::Tensor w_t = at::rand({2, 1, 3, 3}, at::detail::createCPUGenerator(5)) - 0.5;
  Tensor images = x_.view({rows_, 1, 28, 28}).detach().requires_grad_(true);
  Tensor w = from_torch(w_t, device).requires_grad_(true);
  const Tensor y = nn::functional::conv2d(images, w, nn::functional::Conv2dFuncOptions().padding(1));
  ASSERT_GT(y.nbytes(), device->info().max_storage_buffer_range);
  EXPECT_TENSOR_EQ(y.index_select(0, rows_e), at::conv2d(images_t.index_select(0, rows), w_t, {}, 1, 1), 1e-5, 1e-5);
  y.sum().backward();
  // d sum / d w[co, 0, kh, kw] is the sum of the inputs that tap reads, in float64 (LibTorch's float32
  // sum of 50 million elements stalls at 2^24); the same for both output channels.
  const at::Tensor images64 = images_t.to(at::kDouble);
  at::Tensor expected_weight = at::empty({2, 1, 3, 3}, at::kDouble);
  for (int64_t kh = 0; kh < 3; ++kh) {
    for (int64_t kw = 0; kw < 3; ++kw) {
      const at::Tensor taps = images64.slice(2, std::max<int64_t>(0, kh - 1), std::min<int64_t>(28, 27 + kh))
                                  .slice(3, std::max<int64_t>(0, kw - 1), std::min<int64_t>(28, 27 + kw));
      expected_weight.select(2, kh).select(2, kw).fill_(taps.sum());
    }
  }
  EXPECT_TENSOR_EQ(w.grad(), expected_weight.to(at::kFloat), 1e-5, 0);
  const auto some_grads = at::convolution_backward(at::ones({7, 2, 28, 28}), images_t.index_select(0, rows), w_t,
                                                   c10::nullopt, {1, 1}, {1, 1}, {1, 1}, false, {0, 0}, 1,
                                                   {true, false, false});
  EXPECT_TENSOR_EQ(images.grad().index_select(0, rows_e), std::get<0>(some_grads), 1e-5, 1e-5);
}

TEST_P(BindingSizeTest, PoolingResamplingAndTheirBackward) {
  // The training set as 28 x 28 images: the launches split over the images, each within a binding.
  namespace F = ember::nn::functional;
  Tensor images = x_.view({rows_, 1, 28, 28}).requires_grad_(true);
  const at::Tensor images_t = values_.view({rows_, 1, 28, 28}).clone().requires_grad_(true);
  auto [pooled, indices] = F::max_pool2d_with_indices(images, F::MaxPool2dFuncOptions(2));
  auto [pooled_t, indices_t] = at::max_pool2d_with_indices(images_t, {2, 2});
  ASSERT_GT(images.nbytes(), device->info().max_storage_buffer_range);  // read forward, written backward
  EXPECT_TENSOR_EQ(pooled, pooled_t);
  EXPECT_TENSOR_EQ(indices, indices_t);
  const Tensor averaged = F::avg_pool2d(images, F::AvgPool2dFuncOptions(3).stride(2).padding(1));
  const at::Tensor averaged_t = at::avg_pool2d(images_t, {3, 3}, {2, 2}, {1, 1});
  EXPECT_TENSOR_EQ(averaged, averaged_t);
  const Tensor resized = F::interpolate(images, F::InterpolateFuncOptions().size(std::vector<int64_t>{13, 9})
                                                   .mode(kBilinear).align_corners(false));
  const at::Tensor resized_t = at::upsample_bilinear2d(images_t, {13, 9}, false);
  EXPECT_TENSOR_EQ(resized, resized_t);
  (pooled.sum() + averaged.sum() + resized.sum()).backward();
  (pooled_t.sum() + averaged_t.sum() + resized_t.sum()).backward();
  EXPECT_TENSOR_EQ(images.grad(), images_t.grad());
}

TEST_P(BindingSizeTest, NormsOverRowsAndAlongRows) {
  // Batch norm with the 784 columns as channels: each channel's statistics span every row, reduced in
  // pieces of rows whose states a last pass merges; its backward likewise. Layer norm and log-softmax
  // along each row.
  namespace F = ember::nn::functional;
  namespace TF = torch::nn::functional;
  at::Generator gen = at::detail::createCPUGenerator(5);
  const at::Tensor w = at::rand({kColumns}, gen) + 0.5, b = at::rand({kColumns}, gen);
  at::Tensor mean = at::zeros({kColumns}), var = at::ones({kColumns});
  Tensor ember_mean = from_torch(mean, device), ember_var = from_torch(var, device);
  Tensor we = from_torch(w, device).requires_grad_(true);
  Tensor xg = x_.detach().requires_grad_(true);
  const Tensor y = F::batch_norm(xg, ember_mean, ember_var, F::BatchNormFuncOptions().weight(we).bias(from_torch(b, device)).training(true));
  at::Tensor wt = w.clone().requires_grad_(true);
  at::Tensor xt = values_.detach().requires_grad_(true);
  const at::Tensor yt = TF::batch_norm(xt, mean, var, TF::BatchNormFuncOptions().weight(wt).bias(b).training(true));
  const at::Tensor rows = row_indices();
  const Tensor rows_e = from_torch(rows, device);
  EXPECT_TENSOR_EQ(y.index_select(0, rows_e), yt.index_select(0, rows).detach(), 1e-4, 1e-4);
  EXPECT_TENSOR_EQ(ember_mean, mean, 1e-5, 1e-6);
  EXPECT_TENSOR_EQ(ember_var, var, 1e-4, 1e-6);
  (y * x_).sum().backward();
  (yt * values_).sum().backward();
  EXPECT_TENSOR_EQ(we.grad(), wt.grad(), 1e-4, 1e-2);
  EXPECT_TENSOR_EQ(xg.grad().index_select(0, rows_e), xt.grad().index_select(0, rows), 1e-3, 1e-4);
  const Tensor z = F::layer_norm(x_, F::LayerNormFuncOptions({kColumns}).weight(from_torch(w, device)));
  EXPECT_TENSOR_EQ(z.index_select(0, rows_e), TF::layer_norm(values_.index_select(0, rows), TF::LayerNormFuncOptions({kColumns}).weight(w)), 1e-4, 1e-4);
  // Softmax along each row, in pieces of rows.
  EXPECT_TENSOR_EQ(x_.log_softmax(1).index_select(0, rows_e), values_.index_select(0, rows).log_softmax(1), 1e-5, 1e-5);
}

TEST_P(BindingSizeTest, Dropout) {
  // The mask and the draws continue across the pieces the launch is split into: about half of every
  // part is dropped, and the gradient applies the same mask.
  Tensor x = x_.detach().add(1).requires_grad_(true);  // values in [1, 2): a zero is a dropped element
  const Tensor y = ember::nn::functional::dropout(x, ember::nn::functional::DropoutFuncOptions().p(0.5));
  const Tensor dropped = y.eq(0).to(kFloat32);
  const int64_t third = rows_ / 3;
  for (int64_t part = 0; part < 3; ++part) {
    EXPECT_NEAR(dropped.narrow(0, part * third, third).mean().item<double>(), 0.5, 0.01);
  }
  y.sum().backward();
  EXPECT_EQ(x.grad().eq(0).to(kFloat32).sub(dropped).abs().sum().item<double>(), 0.0);
}

TEST_P(BindingSizeTest, CrossEntropyOverEveryRow) {
  // The rows as samples of 784 classes: the loss's pieces each add their workgroups' partial sums, which
  // one last dispatch merges; the backward writes a gradient past one binding.
  at::Generator gen = at::detail::createCPUGenerator(6);
  const at::Tensor t = at::randint(0, kColumns, {rows_}, gen, at::kLong);
  Tensor x = x_.detach().requires_grad_(true);
  const Tensor loss = ember::nn::functional::cross_entropy(x, from_torch(t, device));
  at::Tensor xt = values_.detach().requires_grad_(true);
  const at::Tensor expected = torch::nn::functional::cross_entropy(xt.to(at::kDouble), t);
  EXPECT_TENSOR_EQ(loss.to(kFloat64), expected.detach(), 1e-5, 0);
  loss.backward();
  expected.backward();
  const at::Tensor rows = row_indices();
  EXPECT_TENSOR_EQ(x.grad().index_select(0, from_torch(rows, device)), xt.grad().index_select(0, rows), 1e-4, 1e-12);
}

TEST_P(BindingSizeTest, CtcLossPastOneBinding) {
  // 64 sequences of 150 labels (301 extended positions): the recursions' tables and emissions, 4 bytes
  // per frame, sequence and position, pass one binding, so each recursion, and the gradient that reads
  // the tables, runs as several launches.
  const int64_t batch = 64, labels = 150, classes = 20, positions = 2 * labels + 1;
  const uint64_t range = device->info().max_storage_buffer_range;
  const int64_t frames = static_cast<int64_t>(range / (batch * positions * 4)) * 11 / 10 + 1;
  ASSERT_GT(static_cast<uint64_t>(frames * batch * positions * 4), range);
  at::Generator gen = at::detail::createCPUGenerator(8);
  const at::Tensor logits = at::randn({frames, batch, classes}, gen);
  const at::Tensor targets = at::randint(1, classes, {batch, labels}, gen, at::kLong);
  const at::Tensor input_lengths = at::randint(frames / 2, frames + 1, {batch}, gen, at::kLong);
  const at::Tensor target_lengths = at::randint(labels / 2, labels + 1, {batch}, gen, at::kLong);
  Tensor x = from_torch(logits, device).requires_grad_(true);
  const Tensor loss = ember::nn::functional::ctc_loss(x.log_softmax(2), from_torch(targets, device),
                                                      from_torch(input_lengths, device),
                                                      from_torch(target_lengths, device));
  at::Tensor xt = logits.to(at::kDouble).requires_grad_(true);
  const at::Tensor expected =
      torch::nn::functional::ctc_loss(xt.log_softmax(2), targets, input_lengths, target_lengths);
  EXPECT_TENSOR_EQ(loss.to(kFloat64), expected.detach(), 1e-4, 0);
  loss.backward();
  expected.backward();
  // Each gradient is a difference of terms up to 1 whose logs add a loss in the thousands: float32's
  // rounding of those logs leaves about 1e-6 of absolute error.
  EXPECT_TENSOR_EQ(x.grad().to(kFloat64), xt.grad(), 1e-3, 2e-5);
}

// A parameter past one binding: the fused step splits it into segments, in windows of each role.
TEST_P(BindingSizeTest, OptimizerStep) {
  // Gradients that weight decay does not cancel: where g + weight_decay p is near 0, Adam's step depends
  // on its last bits.
  const at::Tensor g = values_ * 0.5 + 0.25;
  at::Tensor tp = values_.clone().requires_grad_(true);
  tp.mutable_grad() = g;
  Tensor p = x_.clone().requires_grad_(true);
  p.mutable_grad() = from_torch(g, device);
  torch::optim::Adam torch_adam({tp}, torch::optim::AdamOptions(0.01).weight_decay(0.1));
  ember::optim::Adam adam({p}, ember::optim::AdamOptions(0.01).weight_decay(0.1));
  for (int k = 0; k < 2; ++k) {
    torch_adam.step();
    adam.step();
  }
  EXPECT_TENSOR_EQ(p.detach(), tp.detach());
  EXPECT_TENSOR_EQ(adam.state(p)["exp_avg_sq"], static_cast<torch::optim::AdamParamState&>(
                                                    *torch_adam.state().begin()->second).exp_avg_sq());
}

INSTANTIATE_TEST_SUITE_P(Backends, BindingSizeTest, testing::Values("vulkan", "cuda"), backend_test_name);

}  // namespace
}  // namespace ember::test
