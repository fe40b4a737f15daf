// The optimizer family's state layout and the checks of its arguments that every backend makes.
#include "runtime/kernels/optim.h"

#include <algorithm>
#include <cmath>
#include <string>

#include "runtime/error.h"
#include "runtime/half.h"

namespace ember {

std::string_view optim_algorithm_name(OptimAlgorithm algorithm) {
  switch (algorithm) {
    case OptimAlgorithm::SGD: return "sgd";
    case OptimAlgorithm::Adam: return "adam";
    case OptimAlgorithm::RMSprop: return "rmsprop";
    case OptimAlgorithm::Adagrad: return "adagrad";
    case OptimAlgorithm::Adamax: return "adamax";
    case OptimAlgorithm::Adadelta: return "adadelta";
    case OptimAlgorithm::RAdam: return "radam";
    case OptimAlgorithm::Rprop: return "rprop";
    case OptimAlgorithm::NAdam: return "nadam";
    case OptimAlgorithm::ASGD: return "asgd";
  }
  return "?";
}

std::vector<OptimStateSlot> optim_state_slots(OptimAlgorithm algorithm, const OptimHyperparameters& hyper) {
  std::vector<OptimStateSlot> slots;
  switch (algorithm) {
    case OptimAlgorithm::SGD:
      if (hyper.momentum != 0) slots.push_back({"momentum_buffer", 0});
      break;
    case OptimAlgorithm::Adam:
      slots = {{"exp_avg", 0}, {"exp_avg_sq", 1}};
      if (hyper.amsgrad) slots.push_back({"max_exp_avg_sq", 2});
      break;
    case OptimAlgorithm::RMSprop:
      slots.push_back({"square_avg", 0});
      if (hyper.momentum > 0) slots.push_back({"momentum_buffer", 1});
      if (hyper.centered) slots.push_back({"grad_avg", 2});
      break;
    case OptimAlgorithm::Adagrad:
      slots.push_back({"sum", 0});
      break;
    case OptimAlgorithm::Adamax:
      slots = {{"exp_avg", 0}, {"exp_inf", 1}};
      break;
    case OptimAlgorithm::Adadelta:
      slots = {{"square_avg", 0}, {"acc_delta", 1}};
      break;
    case OptimAlgorithm::RAdam:
    case OptimAlgorithm::NAdam:
      slots = {{"exp_avg", 0}, {"exp_avg_sq", 1}};
      break;
    case OptimAlgorithm::Rprop:
      slots = {{"prev", 0}, {"step_size", 1}};
      break;
    case OptimAlgorithm::ASGD:
      slots = {{"ax", 0}};
      break;
  }
  return slots;
}

std::vector<std::string_view> optim_step_scalars(OptimAlgorithm algorithm) {
  if (algorithm == OptimAlgorithm::SGD) return {};
  if (algorithm == OptimAlgorithm::NAdam) return {"step", "mu_product"};
  if (algorithm == OptimAlgorithm::ASGD) return {"step", "eta", "mu"};
  return {"step"};
}

namespace {

// `value` as a tensor of `dtype` holds it (through float32, as c10's conversions of a Python float go).
double rounded_to(DType dtype, double value) {
  switch (dtype) {
    case DType::Float64: return value;
    case DType::Float16: return half_bits_to_float(float_to_half_bits(static_cast<float>(value)));
    case DType::BFloat16: return bfloat16_bits_to_float(float_to_bfloat16_bits(static_cast<float>(value)));
    default: return static_cast<float>(value);
  }
}

}  // namespace

OptimKernelOptions optim_kernel_options(OptimAlgorithm algorithm, const OptimHyperparameters& o, DType dtype) {
  OptimKernelOptions k;
  k.flags = (o.maximize ? kOptimMaximize : 0) | (o.weight_decay != 0 ? kOptimWeightDecay : 0);
  switch (algorithm) {
    case OptimAlgorithm::SGD:
      k.h = {-o.lr, o.momentum, 1 - o.dampening, o.weight_decay};
      k.flags |= (o.momentum != 0 ? kOptimMomentum : 0) | (o.nesterov ? kOptimNesterov : 0);
      break;
    case OptimAlgorithm::Adam:
      k.h = {o.lr, o.beta1, o.beta2, o.eps, o.weight_decay, std::log(o.beta1), std::log(o.beta2), 1 - o.beta1,
             1 - o.beta2, 1 - o.lr * o.weight_decay};
      k.flags |= (o.amsgrad ? kOptimAmsgrad : 0) | (o.decoupled_weight_decay ? kOptimDecoupled : 0);
      break;
    case OptimAlgorithm::RMSprop:
      k.h = {-o.lr, o.alpha, 1 - o.alpha, o.eps, o.weight_decay, o.momentum};
      k.flags |= (o.momentum > 0 ? kOptimMomentum : 0) | (o.centered ? kOptimCentered : 0);
      break;
    case OptimAlgorithm::Adagrad:
      k.h = {o.lr, o.lr_decay, o.weight_decay, o.eps};
      break;
    case OptimAlgorithm::Adamax:
      k.h = {o.lr, o.beta1, o.beta2, o.eps, o.weight_decay, std::log(o.beta1), 0, 1 - o.beta1};
      break;
    case OptimAlgorithm::Adadelta:
      k.h = {-o.lr, o.rho, 1 - o.rho, o.eps, o.weight_decay};
      break;
    case OptimAlgorithm::RAdam:
      // h9: the length of the approximated SMA at infinity, Python's rho_inf.
      k.h = {o.lr, o.beta1, o.beta2, o.eps, o.weight_decay, std::log(o.beta1), std::log(o.beta2), 1 - o.beta1,
             1 - o.beta2, 2 / (1 - o.beta2) - 1};
      break;
    case OptimAlgorithm::Rprop:
      // Python writes the etas and the first step size into tensors of the parameter's dtype, and compares
      // with etaminus there.
      k.h = {rounded_to(dtype, o.lr), rounded_to(dtype, o.etaminus), rounded_to(dtype, o.etaplus), o.step_size_min,
             o.step_size_max};
      break;
    case OptimAlgorithm::NAdam:
      // h9: log(0.96) momentum_decay, so that 0.96^(t momentum_decay) is exp(t h9).
      k.h = {o.lr, o.beta1, o.beta2, o.eps, o.weight_decay, 0, std::log(o.beta2), 1 - o.beta1, 1 - o.beta2,
             std::log(0.96) * o.momentum_decay};
      break;
    case OptimAlgorithm::ASGD:
      k.h = {o.lr, o.lambd, o.eta_power, o.t0, o.weight_decay, o.lambd * o.lr};
      break;
  }
  return k;
}

bool is_dense(const TensorRef& ref) {
  std::vector<std::pair<int64_t, int64_t>> dims;  // (stride, size) of the dims that are not 1
  for (int d = 0; d < ref.ndim; ++d) {
    if (ref.sizes[d] == 0) return true;
    if (ref.sizes[d] != 1) dims.emplace_back(ref.strides[d], ref.sizes[d]);
  }
  std::sort(dims.begin(), dims.end());
  int64_t expected = 1;
  for (auto [stride, size] : dims) {
    if (stride != expected) return false;
    expected *= size;
  }
  return true;
}

namespace {

bool same_geometry(const TensorRef& a, const TensorRef& b) {
  if (a.ndim != b.ndim) return false;
  for (int d = 0; d < a.ndim; ++d) {
    if (a.sizes[d] != b.sizes[d] || (a.sizes[d] != 1 && a.strides[d] != b.strides[d])) return false;
  }
  return true;
}

}  // namespace

void OptimStepArgs::check() const {
  const std::string op = "optimizer step (" + std::string(optim_algorithm_name(algorithm)) + ")";
  if (tensors.empty()) return;
  const DType dtype = tensors.front().param.dtype;
  if (!is_floating_point(dtype)) {
    throw Error(op + ": parameters must be floating, not " + std::string(dtype_name(dtype)));
  }
  const std::vector<OptimStateSlot> slots = optim_state_slots(algorithm, hyper);
  for (size_t i = 0; i < tensors.size(); ++i) {
    const OptimTensor& t = tensors[i];
    const std::string which = op + ": tensor " + std::to_string(i) + ": ";
    if (!t.param.allocation || !t.grad.allocation) throw Error(which + "the parameter and gradient need memory");
    if (t.param.dtype != dtype) {
      throw Error(which + "the parameters differ in dtype (" + std::string(dtype_name(dtype)) + ", " +
                  std::string(dtype_name(t.param.dtype)) + ")");
    }
    if (!is_dense(t.param)) throw Error(which + "the parameter is not dense");
    auto check_like = [&](const TensorRef& ref, const std::string& what) {
      if (ref.dtype != dtype || !same_geometry(ref, t.param)) {
        throw Error(which + what + " must have the parameter's dtype, sizes and strides");
      }
    };
    check_like(t.grad, "the gradient");
    for (int s = 0; s < kMaxOptimStates; ++s) {
      const bool wanted = std::any_of(slots.begin(), slots.end(), [&](const OptimStateSlot& x) { return x.slot == s; });
      if (wanted != t.state[s].has_value()) {
        throw Error(which + "state slot " + std::to_string(s) + (wanted ? " is missing" : " is not used by these options"));
      }
      if (t.state[s]) check_like(*t.state[s], "state slot " + std::to_string(s));
    }
    const int64_t scalars = 2 * static_cast<int64_t>(optim_step_scalars(algorithm).size());
    if ((scalars > 0) != t.steps.has_value()) {
      throw Error(which + (t.steps ? "this algorithm keeps no step count" : "the step count is missing"));
    }
    if (t.steps && (t.steps->dtype != DType::Float32 || t.steps->numel() != scalars || !t.steps->is_contiguous())) {
      throw Error(which + "the step scalars must be " + std::to_string(scalars) + " contiguous float32 elements");
    }
    if (t.parity != 0 && t.parity != 1) throw Error(which + "parity must be 0 or 1");
  }
  if (skip_if && (skip_if->dtype != DType::Float32 || skip_if->numel() != 1 || !skip_if->allocation)) {
    throw Error(op + ": the skip flag must be one float32 element in device memory");
  }
}

}  // namespace ember
