// The op registry covers the kernels: every entry point of every kernel family, and every value of every
// op list (unary_ops.def, binary_ops.def, ...), is reached by some row's forward or gradients. A new op
// value without a row fails here, naming it. Under ctest the rows' own tests recorded what they reached
// (tests/ops/recorded_coverage.h); run alone, this test runs the rows itself.
#include "tests/op_registry.h"
#include "tests/ops/kernel_recorder.h"
#include "tests/ops/recorded_coverage.h"

#include <algorithm>
#include <iostream>

namespace ember::test {
namespace {

class OpCoverageTest : public DeviceTest {};

// Differentiates a row's output once (and its gradients again for second-order rows), ember only: the
// runner compares the values, here only the kernels reached matter.
void run_backward(const std::shared_ptr<Device>& device, const OpRow& row, const std::vector<at::Tensor>& values) {
  std::vector<Tensor> inputs, wrt;
  for (size_t i = 0; i < values.size(); ++i) {
    Tensor input = from_torch(values[i], device);
    const bool constant = std::find(row.constant.begin(), row.constant.end(), i) != row.constant.end();
    if (input.is_floating_point() && !constant) {
      input.requires_grad_();
      wrt.push_back(input);
    }
    inputs.push_back(input);
  }
  const Tensor out = row.ember(inputs);
  if (!out.requires_grad()) return;
  const bool second = row.gradients == Gradients::Second;
  const autograd::tensor_list first = autograd::grad({out}, wrt, {ones_like(out)}, second, second, true);
  if (!second) return;
  Tensor total;
  for (const Tensor& g : first) {
    if (g.defined() && g.requires_grad()) total = total.defined() ? total + g.sum() : g.sum();
  }
  if (total.defined()) autograd::grad({total}, wrt, {}, false, false, true);
}

// Runs a row on its first non-empty cases in every dtype, forward and backward.
void run_row(const std::shared_ptr<Device>& device, const OpRow& row) {
  at::Generator gen = at::detail::createCPUGenerator(5);
  int cases_run = 0;
  for (const Shapes& shapes : cases_of(row)) {
    bool empty = false;
    for (const auto& shape : shapes) empty = empty || c10::multiply_integers(shape) == 0;
    if (empty || cases_run++ == 2) continue;
    for (const std::vector<DType>& dtypes : dtype_combinations(row)) {
      if (!std::all_of(dtypes.begin(), dtypes.end(), [&](DType d) { return device->supports(d); })) continue;
      std::vector<Tensor> inputs;
      for (const at::Tensor& t : inputs_of(row, dtypes, shapes, gen)) inputs.push_back(from_torch(t, device));
      try {
        (void)row.ember(inputs).contiguous();
      } catch (const Error&) {
        // LibTorch refuses such inputs too; the runner checks that.
      }
    }
    if (row.gradients == Gradients::None) continue;
    try {
      run_backward(device, row, inputs_of(row, {DType::Float32}, shapes, gen));
    } catch (const Error&) {
      // As above.
    }
  }
}

TEST_F(OpCoverageTest, EveryKernelOpIsReachedByARow) {
  std::shared_ptr<Device> device;
  try {
    device = get_device("vulkan");
  } catch (const DeviceUnavailableError& error) {
    GTEST_SKIP() << "no Vulkan device here: " << error.what();
  }
  std::vector<std::string> rows;
  for (const OpRow& row : op_rows()) rows.push_back(row.name);
  std::string why_run_here = "EMBER_KERNEL_COVERAGE_DIR is not set";
  std::optional<std::set<std::string>> reached;
  if (const auto dir = kernel_coverage_dir()) reached = recorded_coverage(*dir, rows, why_run_here);
  if (reached) {
    std::cout << "[ INFO     ] what the " << rows.size() << " rows' tests recorded" << std::endl;
  } else {
    std::cout << "[ INFO     ] running every row here: " << why_run_here << std::endl;
    KernelRecorder recorder(*device);
    for (const OpRow& row : op_rows()) {
      SCOPED_TRACE(row.name);
      run_row(device, row);
    }
    reached = recorder.reached();
  }
  std::string missing;
  for (const std::string& op : KernelRecorder::every_kernel_op()) {
    if (!reached->count(op)) missing += " " + op;
  }
  EXPECT_TRUE(missing.empty()) << "kernel ops that no row of the op registry reaches:" << missing;
}

}  // namespace
}  // namespace ember::test
