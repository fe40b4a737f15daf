#pragma once
// What every CUDA kernel family shares: its registration and the checks of an op's compute domain.
// Declared with plain C++ types, so that host-compiled code can include it too.
#include <string>
#include <string_view>

#include "runtime/cuda/cuda_device.h"
#include "runtime/error.h"
#include "runtime/kernels/registry.h"

// Registers `Implementation`, constructed from a CudaDevice&, as the CUDA backend's `Family`.
#define EMBER_CUDA_KERNELS(Family, Implementation) \
  EMBER_REGISTER_KERNELS(::ember::Backend::CUDA, Family, Implementation, ::ember::cuda::CudaDevice)

namespace ember::cuda {

[[noreturn]] inline void throw_no_kernel(std::string_view family, std::string_view op, DType compute) {
  throw UnsupportedError("the cuda backend has no " + std::string(family) + " " + std::string(op) +
                         " kernel computing in " + std::string(dtype_name(compute)));
}

// Throws the UnsupportedError of throw_no_kernel when `compute` is outside the op's domain.
inline void require_domain(OpDomain domain, DType compute, std::string_view family, std::string_view op) {
  if (!in_domain(domain, compute)) throw_no_kernel(family, op, compute);
}

}  // namespace ember::cuda
