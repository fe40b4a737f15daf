#include "tests/ops/kernel_recorder.h"
#include "runtime/kernels/attention.h"

#include "runtime/kernels/conv.h"
#include "runtime/kernels/dropout.h"
#include "runtime/kernels/elementwise.h"
#include "runtime/kernels/index.h"
#include "runtime/kernels/loss.h"
#include "runtime/kernels/matmul.h"
#include "runtime/kernels/memory.h"
#include "runtime/kernels/norm.h"
#include "runtime/kernels/optim.h"
#include "runtime/kernels/pool.h"
#include "runtime/kernels/random.h"
#include "runtime/kernels/reduce.h"
#include "runtime/kernels/sort.h"
#include "runtime/kernels/upsample.h"

namespace ember::test {
namespace {

// Holds the wrapped implementation and the set the decorator writes to.
template <class Family>
class Recording : public Family {
 public:
  Recording(std::unique_ptr<KernelFamily> inner, std::set<std::string>& reached)
      : inner_(std::move(inner)), reached_(reached) {}
  std::unique_ptr<KernelFamily> release() { return std::move(inner_); }

 protected:
  Family& inner() { return static_cast<Family&>(*inner_); }
  void note(std::string_view entry, std::string_view op = {}) {
    reached_.insert(op.empty() ? std::string(entry) : std::string(entry) + "." + std::string(op));
  }

 private:
  std::unique_ptr<KernelFamily> inner_;
  std::set<std::string>& reached_;
};

class RecordingMemory final : public Recording<MemoryKernels> {
 public:
  using Recording::Recording;
  void fill(Stream& s, const FillArgs& a) override { note("memory.fill"); inner().fill(s, a); }
  void copy(Stream& s, const CopyArgs& a) override { note("memory.copy"); inner().copy(s, a); }
};

class RecordingElementwise final : public Recording<ElementwiseKernels> {
 public:
  using Recording::Recording;
  void unary(Stream& s, const UnaryArgs& a) override { note("unary", unary_op_name(a.op)); inner().unary(s, a); }
  void binary(Stream& s, const BinaryArgs& a) override {
    note("binary", binary_op_name(a.op)); inner().binary(s, a);
  }
  void ternary(Stream& s, const TernaryArgs& a) override {
    note("ternary", ternary_op_name(a.op)); inner().ternary(s, a);
  }
  void sequence(Stream& s, const SequenceArgs& a) override { note("sequence"); inner().sequence(s, a); }
};

class RecordingReduce final : public Recording<ReduceKernels> {
 public:
  using Recording::Recording;
  void reduce(Stream& s, const ReduceArgs& a) override {
    note("reduce", reduce_op_name(a.op)); inner().reduce(s, a);
  }
  void scan(Stream& s, const ScanArgs& a) override { note("scan", scan_op_name(a.op)); inner().scan(s, a); }
};

class RecordingIndex final : public Recording<IndexKernels> {
 public:
  using Recording::Recording;
  void gather(Stream& s, const GatherArgs& a) override { note("gather"); inner().gather(s, a); }
  void scatter(Stream& s, const ScatterArgs& a) override {
    note("scatter", scatter_mode_name(a.mode)); inner().scatter(s, a);
  }
  void triangle(Stream& s, const TriangleArgs& a) override { note("triangle"); inner().triangle(s, a); }
  void nonzero(Stream& s, const NonzeroArgs& a) override { note("nonzero"); inner().nonzero(s, a); }
};

class RecordingMatmul final : public Recording<MatmulKernels> {
 public:
  using Recording::Recording;
  void matmul(Stream& s, const MatmulArgs& a) override { note("matmul"); inner().matmul(s, a); }
};

class RecordingRandom final : public Recording<RandomKernels> {
 public:
  using Recording::Recording;
  void random(Stream& s, const RandomArgs& a) override {
    note("random", random_op_name(a.op)); inner().random(s, a);
  }
  void multinomial(Stream& s, const MultinomialArgs& a) override {
    note("multinomial"); inner().multinomial(s, a);
  }
};

class RecordingSort final : public Recording<SortKernels> {
 public:
  using Recording::Recording;
  void sort(Stream& s, const SortArgs& a) override { note("sort"); inner().sort(s, a); }
};

class RecordingConv final : public Recording<ConvKernels> {
 public:
  using Recording::Recording;
  void forward(Stream& s, const ConvForwardArgs& a) override { note("conv.forward"); inner().forward(s, a); }
  void input_grad(Stream& s, const ConvInputGradArgs& a) override {
    note("conv.input_grad"); inner().input_grad(s, a);
  }
  void weight_grad(Stream& s, const ConvWeightGradArgs& a) override {
    note("conv.weight_grad"); inner().weight_grad(s, a);
  }
};

class RecordingPool final : public Recording<PoolKernels> {
 public:
  using Recording::Recording;
  void pool(Stream& s, const PoolArgs& a) override { note("pool", pool_op_name(a.geometry.op)); inner().pool(s, a); }
  void pool_backward(Stream& s, const PoolBackwardArgs& a) override {
    note("pool_backward", pool_op_name(a.geometry.op)); inner().pool_backward(s, a);
  }
};

class RecordingNorm final : public Recording<NormKernels> {
 public:
  using Recording::Recording;
  void batch_norm_stats(Stream& s, const BatchNormStatsArgs& a) override {
    note("norm.batch_norm_stats"); inner().batch_norm_stats(s, a);
  }
  void batch_norm_apply(Stream& s, const BatchNormApplyArgs& a) override {
    note("norm.batch_norm_apply"); inner().batch_norm_apply(s, a);
  }
  void batch_norm_backward(Stream& s, const BatchNormBackwardArgs& a) override {
    note("norm.batch_norm_backward"); inner().batch_norm_backward(s, a);
  }
  void group_norm(Stream& s, const GroupNormArgs& a) override { note("norm.group_norm"); inner().group_norm(s, a); }
  void softmax(Stream& s, const SoftmaxArgs& a) override { note("norm.softmax"); inner().softmax(s, a); }
  void softmax_backward(Stream& s, const SoftmaxBackwardArgs& a) override {
    note("norm.softmax_backward"); inner().softmax_backward(s, a);
  }
  void group_norm_backward(Stream& s, const GroupNormBackwardArgs& a) override {
    note("norm.group_norm_backward"); inner().group_norm_backward(s, a);
  }
};

class RecordingOptim final : public Recording<OptimKernels> {
 public:
  using Recording::Recording;
  void step(Stream& s, const OptimStepArgs& a) override { note("optim", optim_algorithm_name(a.algorithm)); inner().step(s, a); }
};

class RecordingDropout final : public Recording<DropoutKernels> {
 public:
  using Recording::Recording;
  void dropout(Stream& s, const DropoutArgs& a) override { note("dropout.dropout"); inner().dropout(s, a); }
  void apply_mask(Stream& s, const DropoutMaskArgs& a) override {
    note("dropout.apply_mask"); inner().apply_mask(s, a);
  }
};

class RecordingUpsample final : public Recording<UpsampleKernels> {
 public:
  using Recording::Recording;
  void upsample(Stream& s, const UpsampleArgs& a) override {
    note("upsample", upsample_op_name(a.geometry.op)); inner().upsample(s, a);
  }
  void upsample_backward(Stream& s, const UpsampleBackwardArgs& a) override {
    note("upsample_backward", upsample_op_name(a.geometry.op)); inner().upsample_backward(s, a);
  }
};

class RecordingLoss final : public Recording<LossKernels> {
 public:
  using Recording::Recording;
  void cross_entropy(Stream& s, const CrossEntropyArgs& a) override {
    note("loss.cross_entropy"); inner().cross_entropy(s, a);
  }
  void cross_entropy_backward(Stream& s, const CrossEntropyBackwardArgs& a) override {
    note("loss.cross_entropy_backward"); inner().cross_entropy_backward(s, a);
  }
  void ctc_recursion(Stream& s, const CtcRecursionArgs& a) override {
    note("loss.ctc_recursion"); inner().ctc_recursion(s, a);
  }
  void ctc_gradient(Stream& s, const CtcGradientArgs& a) override {
    note("loss.ctc_gradient"); inner().ctc_gradient(s, a);
  }
};

class RecordingAttention final : public Recording<AttentionKernels> {
 public:
  using Recording::Recording;
  void attention(Stream& s, const AttentionArgs& a) override {
    note("attention.forward"); inner().attention(s, a);
  }
  void attention_backward(Stream& s, const AttentionBackwardArgs& a) override {
    note("attention.backward"); inner().attention_backward(s, a);
  }
};

template <class Family, class Decorator>
void wrap(Kernels& kernels, std::set<std::string>& reached, std::vector<std::function<void()>>& restore) {
  std::unique_ptr<KernelFamily> original = kernels.exchange<Family>(nullptr);
  if (!original) return;  // the backend lacks the family
  auto decorator = std::make_unique<Decorator>(std::move(original), reached);
  Decorator* raw = decorator.get();
  kernels.exchange<Family>(std::move(decorator));
  restore.push_back([&kernels, raw] {
    std::unique_ptr<KernelFamily> inner = raw->release();
    kernels.exchange<Family>(std::unique_ptr<Family>(static_cast<Family*>(inner.release())));
  });
}

template <class Names>
void add_all(std::vector<std::string>& out, std::string_view entry, const Names& names) {
  for (std::string_view name : names) out.push_back(std::string(entry) + "." + std::string(name));
}

}  // namespace

KernelRecorder::KernelRecorder(Device& device) : device_(device) {
  Kernels& kernels = device.kernels();
  wrap<MemoryKernels, RecordingMemory>(kernels, reached_, restore_);
  wrap<ElementwiseKernels, RecordingElementwise>(kernels, reached_, restore_);
  wrap<ReduceKernels, RecordingReduce>(kernels, reached_, restore_);
  wrap<IndexKernels, RecordingIndex>(kernels, reached_, restore_);
  wrap<MatmulKernels, RecordingMatmul>(kernels, reached_, restore_);
  wrap<RandomKernels, RecordingRandom>(kernels, reached_, restore_);
  wrap<SortKernels, RecordingSort>(kernels, reached_, restore_);
  wrap<ConvKernels, RecordingConv>(kernels, reached_, restore_);
  wrap<PoolKernels, RecordingPool>(kernels, reached_, restore_);
  wrap<NormKernels, RecordingNorm>(kernels, reached_, restore_);
  wrap<DropoutKernels, RecordingDropout>(kernels, reached_, restore_);
  wrap<UpsampleKernels, RecordingUpsample>(kernels, reached_, restore_);
  wrap<LossKernels, RecordingLoss>(kernels, reached_, restore_);
  wrap<OptimKernels, RecordingOptim>(kernels, reached_, restore_);
  wrap<AttentionKernels, RecordingAttention>(kernels, reached_, restore_);
}

KernelRecorder::~KernelRecorder() {
  device_.synchronize();
  for (auto& restore : restore_) restore();
}

std::vector<std::string> KernelRecorder::every_kernel_op() {
  std::vector<std::string> all = {"memory.fill", "memory.copy", "sequence", "gather", "triangle",
                                  "nonzero",     "matmul",      "multinomial", "sort",
                                  "conv.forward", "conv.input_grad", "conv.weight_grad"};
  for (const char* entry : {"batch_norm_stats", "batch_norm_apply", "batch_norm_backward", "group_norm",
                            "group_norm_backward", "softmax", "softmax_backward"}) {
    all.push_back(std::string("norm.") + entry);
  }
  all.push_back("dropout.dropout");
  all.push_back("dropout.apply_mask");
  all.push_back("loss.cross_entropy");
  all.push_back("loss.cross_entropy_backward");
  all.push_back("loss.ctc_recursion");
  all.push_back("loss.ctc_gradient");
  all.push_back("attention.forward");
  all.push_back("attention.backward");
  for (OptimAlgorithm a : {OptimAlgorithm::SGD, OptimAlgorithm::Adam, OptimAlgorithm::RMSprop, OptimAlgorithm::Adagrad,
                          OptimAlgorithm::Adamax, OptimAlgorithm::Adadelta, OptimAlgorithm::RAdam, OptimAlgorithm::Rprop,
                          OptimAlgorithm::NAdam, OptimAlgorithm::ASGD}) {
    all.push_back("optim." + std::string(optim_algorithm_name(a)));
  }
  add_all(all, "unary", kUnaryOpNames);
  add_all(all, "binary", kBinaryOpNames);
  add_all(all, "ternary", kTernaryOpNames);
  add_all(all, "reduce", kReduceOpNames);
  add_all(all, "scan", kScanOpNames);
  add_all(all, "scatter", kScatterModeNames);
  add_all(all, "random", kRandomOpNames);
  add_all(all, "pool", kPoolOpNames);
  add_all(all, "pool_backward", kPoolOpNames);
  add_all(all, "upsample", kUpsampleOpNames);
  add_all(all, "upsample_backward", kUpsampleOpNames);
  return all;
}

}  // namespace ember::test
