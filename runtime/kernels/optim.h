#pragma once
// The optimizer kernel family: one fused step of SGD, Adam (and AdamW), RMSprop, Adagrad, Adamax, Adadelta,
// RAdam, Rprop, NAdam or ASGD over a list of parameters at once, with PyTorch 1.13's single-tensor formulas
// (torch/optim/<name>.py; NAdam's from its multi-tensor path, see optim/nadam.h), each element's
// arithmetic in float32 (float64 for float64 parameters) and rounded once when stored.
//
// The kernel never waits on the host: each parameter's step count (and NAdam's mu_product, ASGD's eta and
// mu) lives on the device (float32 pairs, see OptimTensor::steps), the bias corrections, RAdam's
// rectification, NAdam's momentum cache, ASGD's eta and mu and Adagrad's decayed learning rate are
// computed from it in the kernel, and the options (lr, betas, ...) travel with the launch, so that a
// scheduler changing lr on the host needs no synchronisation.
#include <array>
#include <cstdint>
#include <optional>
#include <string_view>
#include <vector>

#include "runtime/kernels/kernels.h"

namespace ember {

enum class OptimAlgorithm : uint8_t { SGD, Adam, RMSprop, Adagrad, Adamax, Adadelta, RAdam, Rprop, NAdam, ASGD };
std::string_view optim_algorithm_name(OptimAlgorithm algorithm);  // "sgd", "adam", ..., "asgd"

// The options of one step, as PyTorch's param group holds them. Each algorithm reads its own.
struct OptimHyperparameters {
  double lr = 0;
  double weight_decay = 0;
  bool maximize = false;
  double momentum = 0;   // SGD, RMSprop
  double dampening = 0;  // SGD
  bool nesterov = false;  // SGD
  double beta1 = 0.9;     // Adam, Adamax, RAdam, NAdam
  double beta2 = 0.999;   // Adam, Adamax, RAdam, NAdam
  double eps = 1e-8;      // all but SGD
  bool amsgrad = false;   // Adam
  bool decoupled_weight_decay = false;  // Adam: AdamW's p *= 1 - lr * weight_decay instead of L2
  double alpha = 0.99;    // RMSprop
  bool centered = false;  // RMSprop
  double lr_decay = 0;    // Adagrad
  double rho = 0.9;       // Adadelta
  double etaminus = 0.5, etaplus = 1.2;            // Rprop: the step size's factors
  double step_size_min = 1e-6, step_size_max = 50;  // Rprop
  double momentum_decay = 4e-3;                     // NAdam
  double lambd = 1e-4, eta_power = 0.75, t0 = 1e6;  // ASGD: the decay term, eta's power (Python's alpha),
                                                    // the step after which it averages
};

// The options as both backends hand them to their kernels: the words h0 to h9 (shaders/optim/optim.comp
// lists what each algorithm keeps in them) and the flags of the formulas, which a backend may extend with
// flags of its launch from bit 8 up. Options that PyTorch writes into a tensor of the parameter's dtype
// before using them (Rprop's etas and first step size) arrive rounded to `dtype`.
inline constexpr uint32_t kOptimMaximize = 1, kOptimWeightDecay = 2, kOptimMomentum = 4, kOptimNesterov = 8,
                          kOptimAmsgrad = 16, kOptimDecoupled = 32, kOptimCentered = 64;
struct OptimKernelOptions {
  std::array<double, 10> h{};
  uint32_t flags = 0;
};
OptimKernelOptions optim_kernel_options(OptimAlgorithm algorithm, const OptimHyperparameters& hyper, DType dtype);

inline constexpr int kMaxOptimStates = 3;

// The state buffers an algorithm keeps per parameter with these options, in slot order, by PyTorch's names:
// SGD {momentum_buffer} when momentum != 0; Adam {exp_avg, exp_avg_sq} and max_exp_avg_sq with amsgrad;
// RMSprop {square_avg} and momentum_buffer when momentum > 0, grad_avg when centered; Adagrad {sum};
// Adamax {exp_avg, exp_inf}; Adadelta {square_avg, acc_delta}; RAdam {exp_avg, exp_avg_sq}; Rprop {prev,
// step_size}; NAdam {exp_avg, exp_avg_sq}; ASGD {ax}.
// Slots of OptimTensor::state hold them in this order, fixed per name: RMSprop's grad_avg is slot 2
// whether or not momentum_buffer (slot 1) is kept.
struct OptimStateSlot {
  std::string_view name;
  int slot;
};
std::vector<OptimStateSlot> optim_state_slots(OptimAlgorithm algorithm, const OptimHyperparameters& hyper);
// The float32 scalars the algorithm keeps per parameter on the device, by PyTorch's names, in the order of
// their pairs in OptimTensor::steps: none for SGD, {step} for most, {step, mu_product} for NAdam and
// {step, eta, mu} for ASGD.
std::vector<std::string_view> optim_step_scalars(OptimAlgorithm algorithm);

// One parameter. Every operand but `steps` has the parameter's dtype, sizes and strides, and the
// parameter is dense (its elements fill a contiguous range of memory, in any dim order), so the kernel
// walks all of them in memory order.
struct OptimTensor {
  TensorRef param;  // updated in place
  TensorRef grad;
  std::array<std::optional<TensorRef>, kMaxOptimStates> state;  // the slots optim_state_slots names
  // float32, a pair of contiguous elements per scalar of optim_step_scalars: each scalar is in element
  // `parity` of its pair; the step writes the new value (the count plus one, NAdam's mu_product times mu,
  // ASGD's next eta and mu) into the other element, so that every invocation reads the old value while
  // one writes.
  std::optional<TensorRef> steps;
  int parity = 0;
  // The state is not initialised yet (PyTorch's first step of this parameter): the kernel reads it as
  // PyTorch's initial state (zeros, a step count of 0; SGD's momentum buffer becomes the gradient; Rprop's
  // step_size is lr; NAdam's mu_product is 1; ASGD's eta is lr and its mu 1).
  bool fresh = false;
};

struct OptimStepArgs {
  OptimAlgorithm algorithm = OptimAlgorithm::SGD;
  OptimHyperparameters hyper;
  std::vector<OptimTensor> tensors;  // one device, one floating dtype
  // A float32 flag of one element on the tensors' device (GradScaler's found_inf). Where it is nonzero the
  // step is skipped on the device, so that the host never reads it: parameters and state stay as they
  // are and the step count is carried over unchanged into the other slot. A fresh parameter's state is
  // written as its initial value (zeros; Rprop's step_size lr), since the host marks it initialised either
  // way; for SGD with momentum the next step then starts its buffer from zeros instead of from the
  // gradient, which is the same unless dampening != 0.
  std::optional<TensorRef> skip_if;

  // Throws Error unless the fields are as described above. Both backends check with it.
  void check() const;
};

class OptimKernels : public KernelFamily {
 public:
  static constexpr std::string_view kName = "optim";
  // The step of every tensor of `args`. Launches as few kernels as the backend can: one where the
  // operands fit its binding windows (see each backend's launcher).
  virtual void step(Stream& stream, const OptimStepArgs& args) = 0;
};

// True when `ref`'s elements fill exactly numel() consecutive elements of memory, in some dim order.
bool is_dense(const TensorRef& ref);

}  // namespace ember
