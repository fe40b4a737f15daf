#include "runtime/kernels/registry.h"

#include <map>
#include <mutex>
#include <utility>

#include "runtime/error.h"

namespace ember {

namespace {

// Registrations run during static initialisation, possibly before anything else here is constructed:
// the state lives in a function-local static.
struct Registry {
  std::mutex mutex;
  std::vector<RegisteredFamily> families;
  std::map<std::type_index, size_t> slots;
};

Registry& registry() {
  static Registry instance;
  return instance;
}

size_t slot_locked(Registry& r, std::type_index family) {
  auto [it, inserted] = r.slots.try_emplace(family, r.slots.size());
  return it->second;
}

}  // namespace

KernelRegistration::KernelRegistration(Backend backend, std::type_index family, std::string_view name,
                                       KernelFactory factory) {
  Registry& r = registry();
  std::lock_guard lock(r.mutex);
  for (const RegisteredFamily& existing : r.families) {
    if (existing.backend == backend && existing.family == family) {
      throw Error("the " + std::string(backend_name(backend)) + " backend registered its " + std::string(name) +
                  " kernels twice");
    }
  }
  slot_locked(r, family);
  r.families.push_back({backend, family, name, factory});
}

std::vector<RegisteredFamily> registered_kernel_families() {
  Registry& r = registry();
  std::lock_guard lock(r.mutex);
  return r.families;
}

size_t Kernels::family_slot(std::type_index family) {
  Registry& r = registry();
  std::lock_guard lock(r.mutex);
  return slot_locked(r, family);
}

Kernels::Kernels(Device& device) : device_(device) {
  for (const RegisteredFamily& entry : registered_kernel_families()) {
    if (entry.backend != device.backend()) continue;
    const size_t slot = family_slot(entry.family);
    if (families_.size() <= slot) families_.resize(slot + 1);
    families_[slot] = entry.factory(device);
  }
}

Kernels::~Kernels() = default;

std::unique_ptr<KernelFamily> Kernels::exchange(size_t slot, std::unique_ptr<KernelFamily> replacement) {
  if (families_.size() <= slot) families_.resize(slot + 1);
  return std::exchange(families_[slot], std::move(replacement));
}

std::string_view Kernels::backend_name() const { return ember::backend_name(device_.backend()); }

void Kernels::missing(std::string_view family) const {
  throw UnsupportedError("the " + std::string(backend_name()) + " backend has no " + std::string(family) +
                         " kernels");
}

bool in_domain(OpDomain domain, DType compute) {
  switch (domain) {
    case OpDomain::Any: return true;
    case OpDomain::Floating: return is_floating_point(compute);
    case OpDomain::Integral: return !is_floating_point(compute);
  }
  return false;
}

}  // namespace ember
