#pragma once
// Differential gradient tests: the same computation runs in ember and in LibTorch from the same
// input values and layouts, backward runs with the same random output gradient, and the outputs and
// every input's gradient must match. The second-order form also differentiates the gradient.
#include <ATen/ATen.h>

#include <functional>
#include <string>
#include <vector>

#include "tests/oracle.h"

namespace ember::test {

using EmberFn = std::function<Tensor(const std::vector<Tensor>&)>;
using TorchFn = std::function<at::Tensor(const std::vector<at::Tensor>&)>;

struct GradCase {
  // Input values. Floating inputs are differentiated unless listed in `constant`; integer inputs
  // (indices) never are.
  std::vector<at::Tensor> inputs;
  std::vector<size_t> constant;
  // Run every input in each layout layouts_of() gives (contiguous, transposed storage, strided),
  // where its rank allows; otherwise contiguous only.
  bool all_layouts = true;
  double rtol = -1;  // default: gradient_tolerance(dtype of the first input)
  double atol = -1;
  std::string context;
};

// The name of a result's grad_fn, as PyTorch prints it ("MulBackward0"), or "none".
std::string grad_fn_name(const Tensor& t);
std::string grad_fn_name(const at::Tensor& t);

// Tolerance for gradients, which pass through more roundings than forward values.
double gradient_tolerance(DType dtype);

// Compares outputs and first-order gradients (ember's undefined grad matches LibTorch's undefined or
// all-zero one).
void expect_grads_match(const std::shared_ptr<Device>& device, const GradCase& test, const EmberFn& ember_fn,
                        const TorchFn& torch_fn);

// Also compares the gradient of sum(grad_i * v_i) with respect to the inputs (create_graph), for
// random v: the second-order terms.
void expect_second_order_match(const std::shared_ptr<Device>& device, const GradCase& test,
                               const EmberFn& ember_fn, const TorchFn& torch_fn);

// Base of the gradient suites: check() and check_second_order() build a GradCase from values;
// f32() and f64() are options on the test's device.
class GradTest : public BackendTest {
 protected:
  using Ins = std::vector<Tensor>;
  using TIns = std::vector<at::Tensor>;

  TensorOptions f32() const { return TensorOptions().dtype(kFloat32).device(device); }
  TensorOptions f64() const { return TensorOptions().dtype(kFloat64).device(device); }

  // `t` copied to the backend's device, a leaf that requires grad where asked.
  Tensor on_device(const at::Tensor& t, bool requires_grad = false) const {
    Tensor x = from_torch(t, device);
    if (requires_grad) x.requires_grad_(true);
    return x;
  }

  void check(std::vector<at::Tensor> inputs, const std::string& context, const EmberFn& ember_fn,
             const TorchFn& torch_fn, std::vector<size_t> constant = {}, bool all_layouts = true);
  void check_second_order(std::vector<at::Tensor> inputs, const std::string& context, const EmberFn& ember_fn,
                          const TorchFn& torch_fn);
};

}  // namespace ember::test
