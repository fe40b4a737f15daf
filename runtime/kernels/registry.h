#pragma once
// How a backend makes a kernel family available: one EMBER_REGISTER_KERNELS line beside the family's
// implementation, so that no list joins the families by hand. Internal to the backends.
#include <memory>
#include <string_view>
#include <typeindex>
#include <vector>

#include "runtime/device.h"
#include "runtime/kernels/kernels.h"

namespace ember {

using KernelFactory = std::unique_ptr<KernelFamily> (*)(Device& device);

struct KernelRegistration {
  KernelRegistration(Backend backend, std::type_index family, std::string_view name, KernelFactory factory);
};

struct RegisteredFamily {
  Backend backend;
  std::type_index family;
  std::string_view name;
  KernelFactory factory;
};
// Every registration made so far (at static initialisation), in registration order.
std::vector<RegisteredFamily> registered_kernel_families();

}  // namespace ember

// Registers `Implementation` (constructed from a `DeviceType&`) as `backend`'s `Family`.
#define EMBER_REGISTER_KERNELS(backend, Family, Implementation, DeviceType)                                 \
  static const ::ember::KernelRegistration ember_kernel_registration_##Implementation(                     \
      backend, typeid(Family), Family::kName,                                                               \
      [](::ember::Device& device) -> std::unique_ptr<::ember::KernelFamily> {                              \
        return std::make_unique<Implementation>(static_cast<DeviceType&>(device));                         \
      })
