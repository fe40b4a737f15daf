// The runner of the op registry: every row, on every backend present, against LibTorch. Forward over
// the row's dtypes, its cases and four layouts; then its gradients, grad_fn name and second order.
#include <c10/util/Exception.h>
#include <torch/csrc/autograd/function.h>

#include <functional>

#include "tests/op_registry.h"
#include "tests/ops/kernel_recorder.h"
#include "tests/ops/recorded_coverage.h"

namespace ember::test {
namespace {

struct RowParam {
  std::string backend;
  size_t row;
};

void PrintTo(const RowParam& param, std::ostream* out) {
  *out << param.backend << " " << op_rows()[param.row].name;
}

std::string row_test_name(const testing::TestParamInfo<RowParam>& info) {
  return identifier_of(info.param.backend + "_" + op_rows()[info.param.row].name);
}

std::vector<RowParam> every_row_on(std::vector<std::string> backends) {
  std::vector<RowParam> params;
  for (const std::string& backend : backends) {
    for (size_t i = 0; i < op_rows().size(); ++i) params.push_back({backend, i});
  }
  return params;
}

// The same inputs on both sides in one layout.
struct LayoutInputs {
  std::string name;
  std::vector<Tensor> ember;
  std::vector<at::Tensor> torch;
};

std::optional<Tensor> layout_named(const std::vector<Layout>& layouts, const std::string& name) {
  for (const Layout& layout : layouts) {
    if (layout.name == name) return layout.tensor;
  }
  return std::nullopt;
}

// Contiguous, transposed storage, every other element, and broadcast (dim 0 expanded from its first
// slice), each applied to every input whose rank allows it. A layout that changes no input is left out.
std::vector<LayoutInputs> input_layouts(const std::vector<at::Tensor>& inputs,
                                        const std::shared_ptr<Device>& device, bool with_broadcast) {
  std::vector<std::vector<Layout>> per_input;
  for (const at::Tensor& t : inputs) per_input.push_back(layouts_of(t, device));
  std::vector<LayoutInputs> result;
  for (const std::string name : {"contiguous", "transposed", "stepped"}) {
    LayoutInputs layout{name, {}, inputs};
    bool changed = name == std::string("contiguous");
    for (size_t i = 0; i < inputs.size(); ++i) {
      std::optional<Tensor> t = layout_named(per_input[i], name);
      changed = changed || t.has_value();
      layout.ember.push_back(t ? *t : per_input[i].front().tensor);
    }
    if (changed) result.push_back(std::move(layout));
  }
  LayoutInputs broadcast{"broadcast", {}, {}};
  bool changed = false;
  for (size_t i = 0; i < inputs.size(); ++i) {
    const at::Tensor& t = inputs[i];
    if (t.dim() >= 1 && t.size(0) > 1) {
      const at::Tensor first = t.narrow(0, 0, 1).contiguous();
      broadcast.torch.push_back(first.expand(t.sizes()));
      broadcast.ember.push_back(from_torch(first, device).expand(t.sizes().vec()));
      changed = true;
    } else {
      broadcast.torch.push_back(t);
      broadcast.ember.push_back(per_input[i].front().tensor);
    }
  }
  if (changed && with_broadcast) result.push_back(std::move(broadcast));
  return result;
}

std::string shapes_name(const Shapes& shapes) {
  std::string name;
  for (const auto& shape : shapes) name += to_string(shape);
  return name;
}

class OpRowTest : public testing::TestWithParam<RowParam> {
 protected:
  void SetUp() override {
    try {
      device = get_device(GetParam().backend);
    } catch (const DeviceUnavailableError& error) {
      GTEST_SKIP() << "backend " << GetParam().backend << " is absent here: " << error.what();
    }
    coverage_dir = kernel_coverage_dir();
    if (coverage_dir && GetParam().backend == "vulkan") recorder.emplace(*device);
  }
  void TearDown() override {
    if (recorder) {
      const std::set<std::string> reached = recorder->reached();
      recorder.reset();
      save_row_coverage(*coverage_dir, row().name, reached);
    }
    expect_no_validation_messages();
  }

  const OpRow& row() const { return op_rows()[GetParam().row]; }

  // Returns whether values were compared (false when LibTorch refused the inputs, and ember did too).
  bool check_forward(const LayoutInputs& inputs) {
    at::Tensor expected;
    try {
      expected = torch_result(row(), inputs.torch);
    } catch (const c10::Error& error) {
      EXPECT_ANY_THROW(row().ember(inputs.ember)) << "LibTorch refused: " << error.what_without_backtrace();
      return false;
    }
    const Tensor actual = row().ember(inputs.ember);
    if (row().compare_values) {
      expect_tensor_eq(actual, expected, row().tolerance.rtol, row().tolerance.atol);
    } else {
      EXPECT_EQ(actual.sizes(), expected.sizes().vec());
      EXPECT_EQ(actual.dtype(), ember_dtype(expected.scalar_type()));
    }
    return true;
  }

  bool torch_accepts(const std::vector<at::Tensor>& inputs) const {
    try {
      row().torch(inputs);
      return true;
    } catch (const c10::Error&) {
      return false;
    }
  }

  void check_gradients() {
    at::Generator gen = at::detail::createCPUGenerator(1234);
    // The names come from the first call, on contiguous inputs: the oracle re-strides only ember's
    // inputs, and a view's node depends on whether it could view.
    std::string ember_name, torch_name;
    const EmberFn named_ember = [&](const std::vector<Tensor>& x) {
      Tensor out = row().ember(x);
      if (ember_name.empty()) ember_name = grad_fn_name(out);
      return out;
    };
    const TorchFn named_torch = [&](const std::vector<at::Tensor>& x) {
      at::Tensor out = row().torch(x);
      if (torch_name.empty()) torch_name = grad_fn_name(out);
      return out;
    };
    bool second_order_done = row().gradients != Gradients::Second;
    for (const Shapes& shapes : cases_of(row())) {
      int64_t elements = 0;
      for (const auto& shape : shapes) elements += c10::multiply_integers(shape);
      if (elements > 600) continue;  // gradients are checked on the smaller cases
      GradCase test;
      test.inputs = inputs_of(row(), {DType::Float32}, shapes, gen);
      test.constant = row().constant;
      test.context = row().name + " gradient " + shapes_name(shapes);
      test.rtol = test.atol = gradient_tolerance(DType::Float32);  // the first input may be a mask
      if (!torch_accepts(test.inputs)) continue;  // the forward check saw ember refuse them too
      ember_name.clear();
      torch_name.clear();
      expect_grads_match(device, test, named_ember, named_torch);
      EXPECT_EQ(ember_name, row().node.empty() ? torch_name : row().node) << test.context;
      if (!second_order_done && elements > 0) {
        test.all_layouts = false;
        expect_second_order_match(device, test, row().ember, row().torch);
        second_order_done = true;
      }
    }
  }

  std::shared_ptr<Device> device;
  // For the coverage test (tests/ops/recorded_coverage.h), when ctest asks for it.
  std::optional<std::filesystem::path> coverage_dir;
  std::optional<KernelRecorder> recorder;
};

TEST_P(OpRowTest, MatchesLibTorch) {
  const OpRow& row = this->row();
  at::Generator gen = at::detail::createCPUGenerator(std::hash<std::string>{}(row.name));
  int compared = 0;
  for (const std::vector<DType>& dtypes : dtype_combinations(row)) {
    std::string dtype_names;
    bool supported = true;
    for (DType dtype : dtypes) {
      supported = supported && device->supports(dtype);  // what a device lacks, its suites print
      dtype_names += std::string(dtype_name(dtype)) + " ";
    }
    if (!supported) continue;
    for (const Shapes& shapes : cases_of(row)) {
      const std::vector<at::Tensor> inputs = inputs_of(row, dtypes, shapes, gen);
      for (const LayoutInputs& layout : input_layouts(inputs, device, row.broadcast_layout)) {
        SCOPED_TRACE(row.name + " " + dtype_names + shapes_name(shapes) + " " + layout.name);
        compared += check_forward(layout);
      }
    }
  }
  EXPECT_GT(compared, 0) << "LibTorch refused every case of " << row.name;
  if (row.gradients != Gradients::None) check_gradients();
}

INSTANTIATE_TEST_SUITE_P(Ops, OpRowTest, testing::ValuesIn(every_row_on({"vulkan", "cuda"})), row_test_name);

}  // namespace
}  // namespace ember::test
