// profiler::RecordFunction (runtime/record_function.h) and Profile::op_averages: regions count their
// calls, host time and the dispatches recorded inside them, nest with self and total apart, stay on
// their thread, and measure nothing while no profile runs. A training step's regions carry PyTorch's
// names, with PyTorch's counts (python3-torch's profiler is the oracle).
#include <gtest/gtest.h>

#include <algorithm>
#include <chrono>
#include <map>
#include <string>
#include <thread>

#include "ember.h"
#include "tests/python_oracle.h"
#include "tests/test_support.h"

namespace ember::test {
namespace {

namespace F = ember::nn::functional;

class RecordFunctionTest : public VulkanTest {
 protected:
  void SetUp() override {
    VulkanTest::SetUp();
    if (IsSkipped()) return;
    // Each add_ to it is one elementwise dispatch.
    x_ = ember::zeros({64, 64}, TensorOptions().device(device));
    dispatch(1);  // the add's pipeline is made on its first dispatch, which would count to a region
    device->synchronize();
  }
  // `count` dispatches on the calling thread.
  void dispatch(int count) {
    for (int i = 0; i < count; ++i) x_.add_(1.0);
  }
  static const profiler::OpAverage* find(const std::vector<profiler::OpAverage>& ops, const std::string& name) {
    auto it = std::find_if(ops.begin(), ops.end(), [&](const profiler::OpAverage& op) { return op.name == name; });
    return it == ops.end() ? nullptr : &*it;
  }
  // "name\tcount" per region, by name, a line each: what the Python oracles print.
  static std::string names_and_counts(std::vector<profiler::OpAverage> ops) {
    std::sort(ops.begin(), ops.end(), [](const auto& a, const auto& b) { return a.name < b.name; });
    std::string text;
    for (const profiler::OpAverage& op : ops) {
      text.append(text.empty() ? "" : "\n").append(op.name).append("\t").append(std::to_string(op.count));
    }
    return text;
  }
  static void sleep_ms(int ms) { std::this_thread::sleep_for(std::chrono::milliseconds(ms)); }

  Tensor x_;
};

TEST_F(RecordFunctionTest, RegionsNestWithSelfAndTotalApart) {
  profiler::Profile profile;
  {
    profiler::RecordFunction outer("outer");
    dispatch(2);
    sleep_ms(5);
    {
      profiler::RecordFunction inner("inner");
      dispatch(3);
      sleep_ms(40);
    }
  }
  dispatch(1);  // outside every region
  const std::vector<profiler::OpAverage> ops = profile.op_averages();
  const std::string table = profile.op_table();
  const profiler::OpAverage* outer = find(ops, "outer");
  const profiler::OpAverage* inner = find(ops, "inner");
  ASSERT_TRUE(outer && inner) << table;
  EXPECT_EQ(ops.size(), 2u) << table;
  EXPECT_EQ(outer->count, 1u);
  EXPECT_EQ(inner->count, 1u);
  EXPECT_EQ(outer->dispatches, 5u) << table;
  EXPECT_EQ(inner->dispatches, 3u) << table;

  EXPECT_GE(inner->cpu_time_total_ms, 40.0);
  EXPECT_DOUBLE_EQ(inner->self_cpu_time_total_ms, inner->cpu_time_total_ms);  // nothing nested in it
  EXPECT_GE(outer->cpu_time_total_ms, 45.0);
  EXPECT_NEAR(outer->self_cpu_time_total_ms, outer->cpu_time_total_ms - inner->cpu_time_total_ms, 1e-9);
  EXPECT_GE(outer->self_cpu_time_total_ms, 5.0);

  EXPECT_GE(inner->device_time_total_ms, 0.0);
  EXPECT_DOUBLE_EQ(inner->self_device_time_total_ms, inner->device_time_total_ms);
  EXPECT_NEAR(outer->device_time_total_ms, outer->self_device_time_total_ms + inner->device_time_total_ms, 1e-9);

  // The kernel table counts the same dispatches, and the one outside every region.
  uint64_t dispatches = 0;
  for (const profiler::KernelAverage& kernel : profile.key_averages()) dispatches += kernel.count;
  EXPECT_EQ(dispatches, 6u) << profile.table();

  // Sorted by self CPU time by default: inner slept longer.
  EXPECT_EQ(ops.front().name, "inner") << table;
  EXPECT_NE(table.find("self CPU ms"), std::string::npos) << table;
  EXPECT_NE(table.find("inner"), std::string::npos) << table;
}

TEST_F(RecordFunctionTest, RegionsOfOneNameAddUpAndSortByTheKeyAsked) {
  // Adds over 64 MiB each, so that their net device time stays above zero past the timestamps' cost,
  // which the profile measures between dispatches and which a busy machine inflates: with 4 MiB adds, a
  // CI run beside other test processes once measured none.
  Tensor large = ember::zeros({4096, 4096}, TensorOptions().device(device));
  large.add_(1.0);
  device->synchronize();
  profiler::Profile profile;
  for (int i = 0; i < 3; ++i) {
    profiler::RecordFunction step("step");
    large.add_(1.0);
  }
  {
    profiler::RecordFunction slow("slow");
    sleep_ms(30);
  }
  const std::vector<profiler::OpAverage> by_count = profile.op_averages("count");
  ASSERT_EQ(by_count.size(), 2u) << profile.op_table("count");
  EXPECT_EQ(by_count[0].name, "step");
  EXPECT_EQ(by_count[0].count, 3u);
  EXPECT_EQ(by_count[0].dispatches, 3u);
  EXPECT_GT(by_count[0].device_time_total_ms, 0.0) << profile.op_table("count");
  EXPECT_EQ(by_count[1].name, "slow");
  EXPECT_EQ(by_count[1].dispatches, 0u);
  EXPECT_EQ(by_count[1].device_time_total_ms, 0.0);
  EXPECT_EQ(profile.op_averages("cpu_time_total")[0].name, "slow");
  EXPECT_EQ(profile.op_averages("device_time_total")[0].name, "step");
  EXPECT_EQ(profile.op_averages("self_cuda_time_total")[0].name, "step");  // PyTorch's spelling
  EXPECT_NE(profile.op_table("count", 1).find("(1 more)"), std::string::npos) << profile.op_table("count", 1);
  try {
    profile.op_averages("self_gpu_time");
    ADD_FAILURE() << "an unknown key sorted";
  } catch (const Error& e) {
    EXPECT_NE(std::string(e.what()).find("cannot sort the ops by 'self_gpu_time'; the keys are count, "),
              std::string::npos)
        << e.what();
  }
}

TEST_F(RecordFunctionTest, ARegionCountsOnlyItsOwnThread) {
  profiler::Profile profile;
  std::thread worker([&] {
    Tensor y = ember::zeros({32, 32}, TensorOptions().device(device));
    profiler::RecordFunction region("worker");
    for (int i = 0; i < 4; ++i) y.add_(1.0);
  });
  {
    profiler::RecordFunction region("main");
    dispatch(2);
    worker.join();  // inside main's region, so that the worker's dispatches fall within its time
  }
  const std::vector<profiler::OpAverage> ops = profile.op_averages();
  const profiler::OpAverage* main = find(ops, "main");
  const profiler::OpAverage* in_worker = find(ops, "worker");
  ASSERT_TRUE(main && in_worker) << profile.op_table();
  EXPECT_EQ(main->dispatches, 2u) << profile.op_table();
  EXPECT_EQ(in_worker->dispatches, 4u) << profile.op_table();
}

TEST_F(RecordFunctionTest, RegionsOutsideAProfileMeasureNothing) {
  if (profiler::recording()) GTEST_SKIP() << "EMBER_PROFILE=1 records every region of the run";
  {
    profiler::RecordFunction before("before the profile");
    dispatch(1);
  }
  profiler::RecordFunction open("open at the start");
  profiler::Profile profile;
  {
    profiler::RecordFunction unnamed("");  // measures nothing, by design
    dispatch(1);
  }
  const std::vector<profiler::OpAverage> ops = profile.op_averages();
  EXPECT_TRUE(ops.empty()) << profile.op_table();
  EXPECT_FALSE(profiler::recording());
  profiler::RecordFunction after("after the profile");
  EXPECT_TRUE(profile.op_averages().empty());
}

// The regions of two training steps of a small MLP (zero_grad, forward, backward, Adam), by name and
// count, as python3-torch's profiler lists them for the same step.
TEST_F(RecordFunctionTest, ATrainingStepHasPyTorchsRegions) {
  std::vector<std::string> answers;
  ASSERT_PYTHON_ANSWERS(answers, R"(
import torch
from torch.profiler import profile, record_function
torch.manual_seed(0)
model = torch.nn.Sequential(torch.nn.Linear(4, 3), torch.nn.ReLU(), torch.nn.Linear(3, 2))
opt = torch.optim.Adam(model.parameters(), lr=1e-3)
x = torch.randn(5, 4)
y = torch.tensor([0, 1, 1, 0, 1])
with profile() as prof:
    for _ in range(2):
        opt.zero_grad()
        with record_function("forward"):
            loss = torch.nn.functional.cross_entropy(model(x), y)
        loss.backward()
        opt.step()
# Ember's cross_entropy runs log_softmax and nll_loss as one node, NllLossBackward0
# (nn/functional/cross_entropy.h), so PyTorch's LogSoftmaxBackward0 has no counterpart.
for e in sorted(prof.key_averages(), key=lambda e: e.key):
    if e.key.startswith(("autograd::engine::evaluate_function: ", "Optimizer.", "forward")) and "LogSoftmax" not in e.key:
        print(e.key + "\t" + str(e.count))
print("@@END@@")
)",
                        1u);

  nn::Sequential model(nn::Linear(4, 3), nn::ReLU(), nn::Linear(3, 2));
  model->to(device);
  optim::Adam adam(model->parameters(), optim::AdamOptions(1e-3));
  const Tensor x = ember::randn({5, 4}, TensorOptions().device(device));
  const Tensor y = ember::tensor({0, 1, 1, 0, 1}, TensorOptions().dtype(DType::Int64).device(device));
  profiler::Profile profile;
  for (int i = 0; i < 2; ++i) {
    adam.zero_grad();
    Tensor loss;
    {
      profiler::RecordFunction forward("forward");
      loss = F::cross_entropy(model->forward(x), y);
    }
    loss.backward();
    adam.step();
  }
  const std::vector<profiler::OpAverage> ops = profile.op_averages();
  EXPECT_EQ(names_and_counts(ops), answers[0]) << profile.op_table();

  // Every dispatch of the steps was recorded in one of those regions.
  const profiler::OpAverage* forward = find(ops, "forward");
  ASSERT_NE(forward, nullptr);
  EXPECT_GT(forward->dispatches, 0u);
  uint64_t in_regions = 0, kernels = 0;
  for (const profiler::OpAverage& op : ops) in_regions += op.dispatches;
  for (const profiler::KernelAverage& kernel : profile.key_averages()) kernels += kernel.count;
  EXPECT_EQ(in_regions, kernels) << profile.op_table() << profile.table();
}

// Backward from two roots runs PyTorch's root node, which one root does without.
TEST_F(RecordFunctionTest, BackwardFromSeveralRootsHasPyTorchsRootRegion) {
  std::vector<std::string> answers;
  ASSERT_PYTHON_ANSWERS(answers, R"(
import torch
from torch.profiler import profile
x = torch.ones(3, requires_grad=True)
a = (x * x).sum()
b = x.sin().sum()
with profile() as prof:
    torch.autograd.backward([a, b])
print("\n".join(sorted(e.key + "\t" + str(e.count) for e in prof.key_averages() if "evaluate_function" in e.key)))
print("@@END@@")
)",
                        1u);
  const Tensor x = ember::ones({3}, TensorOptions().device(device)).requires_grad_(true);
  const Tensor a = (x * x).sum();
  const Tensor b = x.sin().sum();
  profiler::Profile profile;
  autograd::backward({a, b});
  EXPECT_EQ(names_and_counts(profile.op_averages()), answers[0]) << profile.op_table();
}

// A DataLoader's fetches, each a region named as PyTorch names it for its loader without and with
// workers: three batches of ten rows by four, and the fetch that finds the epoch over.
TEST_F(RecordFunctionTest, ALoadersFetchesHavePyTorchsRegions) {
  std::vector<std::string> answers;
  ASSERT_PYTHON_ANSWERS(answers, R"(
import torch
from torch.profiler import profile
dataset = torch.utils.data.TensorDataset(torch.arange(10.0), torch.arange(10))
for workers in (0, 1):
    with profile() as prof:
        for batch in torch.utils.data.DataLoader(dataset, batch_size=4, num_workers=workers):
            pass
    print("\n".join(e.key + "\t" + str(e.count) for e in prof.key_averages() if "DataLoader" in e.key))
    print("@@END@@")
)",
                        2u);
  for (size_t workers : {0, 1}) {
    SCOPED_TRACE(workers);
    data::DataLoader loader(data::datasets::TensorPairDataset(ember::arange(10, TensorOptions().device(device)),
                                                              ember::arange(10, TensorOptions().device(device))),
                            data::DataLoaderOptions(4).workers(workers));
    profiler::Profile profile;
    size_t batches = 0;
    for (auto& batch : loader) batches += batch.data.numel() > 0 ? 1 : 0;
    EXPECT_EQ(batches, 3u);
    EXPECT_EQ(names_and_counts(profile.op_averages()), answers[workers]) << profile.op_table();
  }
}

}  // namespace
}  // namespace ember::test
