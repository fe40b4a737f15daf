#pragma once
// The kernel interface. Each kernel family declares its argument structs and its abstract class in
// runtime/kernels/<family>.h; each backend implements the families it has (shaders/<family>/ for
// Vulkan, kernels_cuda/<family>/ for CUDA) and registers them (runtime/kernels/registry.h). A device's
// Kernels holds one implementation per family its backend registered: `get<ElementwiseKernels>()`.
// A family the backend lacks throws UnsupportedError naming it; nothing is ever computed on the host
// instead.
//
// tensor/ has already done the semantics when a kernel is called: shapes are checked and broadcast
// (broadcast dims arrive as zero strides), outputs are allocated, and `compute` is the dtype the op is
// evaluated in (PyTorch's common dtype). Kernels load each operand from its own dtype, compute in
// `compute` (float32 for float16 and bfloat16), and convert once when they store.
#include <memory>
#include <string_view>
#include <typeindex>
#include <vector>

#include "runtime/kernels/tensor_ref.h"

namespace ember {

class Device;
class Stream;

// Base of each family's interface. A family names itself in `static constexpr std::string_view kName`.
class KernelFamily {
 public:
  virtual ~KernelFamily() = default;
};

// Which domain of compute dtypes an op of an op list is defined on.
enum class OpDomain : uint8_t {
  Any,       // every compute dtype
  Floating,  // floating compute only (float16 and bfloat16 compute in float32)
  Integral,  // integral and bool compute only
};
bool in_domain(OpDomain domain, DType compute);

class Kernels {
 public:
  // Makes every family that `device`'s backend registered.
  explicit Kernels(Device& device);
  ~Kernels();
  Kernels(const Kernels&) = delete;
  Kernels& operator=(const Kernels&) = delete;

  std::string_view backend_name() const;

  template <class Family>
  Family& get() const {
    static const size_t slot = family_slot(typeid(Family));
    KernelFamily* family = slot < families_.size() ? families_[slot].get() : nullptr;
    if (!family) missing(Family::kName);
    return static_cast<Family&>(*family);
  }

  // Puts `replacement` in the place of Family's implementation and returns the implementation it
  // replaced (null where the backend had none). Tests interpose recording decorators this way.
  template <class Family>
  std::unique_ptr<KernelFamily> exchange(std::unique_ptr<Family> replacement) {
    return exchange(family_slot(typeid(Family)), std::move(replacement));
  }

  // The slot of a family type, the same in every Kernels (registry.cpp).
  static size_t family_slot(std::type_index family);

 private:
  std::unique_ptr<KernelFamily> exchange(size_t slot, std::unique_ptr<KernelFamily> replacement);
  [[noreturn]] void missing(std::string_view family) const;

  Device& device_;
  std::vector<std::unique_ptr<KernelFamily>> families_;
};

}  // namespace ember
