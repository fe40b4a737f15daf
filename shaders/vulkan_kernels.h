#pragma once
// The Vulkan implementation of ember::Kernels: launchers for the embedded compute shaders. Each family
// of launchers lives in its own file, named in the comments below.
#include <span>

#include "runtime/kernels.h"
#include "runtime/vulkan/shader_registry.h"
#include "runtime/vulkan/vulkan_device.h"

namespace ember::vulkan {

class VulkanKernels final : public Kernels {
 public:
  explicit VulkanKernels(VulkanDevice& device) : device_(device) {}
  std::string_view backend_name() const override { return "vulkan"; }

  // vulkan_kernels.cpp
  void fill(Stream& stream, const TensorRef& out, Scalar value) override;
  void copy(Stream& stream, const TensorRef& out, const TensorRef& in) override;
  void sum(Stream& stream, const TensorRef& out, const TensorRef& in) override;

  // elementwise_kernels.cpp
  void unary(Stream& stream, UnaryOp op, const TensorRef& out, const TensorRef& in, DType compute,
             Scalar p0, Scalar p1, Scalar p2) override;
  void binary(Stream& stream, BinaryOp op, const TensorRef& out, const Operand& a, const Operand& b,
              DType compute, Scalar alpha) override;
  void ternary(Stream& stream, TernaryOp op, const TensorRef& out, const TensorRef& a, const Operand& b,
               const Operand& c, DType compute, Scalar alpha) override;
  void sequence(Stream& stream, const TensorRef& out, Scalar start, Scalar step,
                std::optional<Scalar> end) override;

  // reduce_kernels.cpp
  void reduce(Stream& stream, ReduceOp op, const TensorRef* out, const TensorRef* indices,
              const TensorRef& in, uint32_t reduce_mask, DType compute, double param) override;
  void scan(Stream& stream, ScanOp op, const TensorRef& out, const TensorRef* indices,
            const TensorRef& in, int dim, DType compute) override;

  // index_kernels.cpp
  void gather(Stream& stream, const TensorRef& out, const TensorRef& in, int dim,
              const TensorRef& index) override;
  void scatter(Stream& stream, ScatterMode mode, const TensorRef& out, int dim, const TensorRef& index,
               const Operand& src, Scalar alpha) override;
  void triangle(Stream& stream, const TensorRef& out, const TensorRef& in, int64_t diagonal,
                bool upper) override;
  void nonzero(Stream& stream, const TensorRef& out, const TensorRef& in,
               const TensorRef& positions) override;

  // matmul_kernels.cpp
  void matmul(Stream& stream, const MatmulArgs& args) override;

  // random_kernels.cpp
  void random(Stream& stream, RandomOp op, const TensorRef& out, PhiloxState state, Scalar p0,
              Scalar p1, const TensorRef* probabilities) override;
  void multinomial(Stream& stream, const TensorRef& out, const TensorRef& cdf,
                   PhiloxState state) override;

  VulkanDevice& device() const { return device_; }
  VulkanStream& vulkan_stream(Stream& stream) const;

 private:
  VulkanDevice& device_;
};

// What each launcher passes to its shaders; a test checks it against the SPIR-V reflection. Each family
// lists its own; vulkan_kernel_abis() joins them.
std::span<const KernelAbi> vulkan_kernel_abis();
std::span<const KernelAbi> elementwise_kernel_abis();
std::span<const KernelAbi> reduce_kernel_abis();
std::span<const KernelAbi> index_kernel_abis();
std::span<const KernelAbi> matmul_kernel_abis();
std::span<const KernelAbi> random_kernel_abis();
std::span<const KernelAbi> math_kernel_abis();

// The variant suffix of a compute dtype: float16 and bfloat16 compute in float32, the small integer
// types and bool in int32.
std::string_view compute_suffix(DType compute);  // "f32", "f64", "i32", "i64"
// The dtype whose bits carry a scalar for a `compute` launch (Float32, Float64, Int32 or Int64).
DType compute_storage(DType compute);
// Throws UnsupportedError when the device cannot hold or compute in `dtype`.
void require_dtype(const VulkanDevice& device, DType dtype, std::string_view op);

}  // namespace ember::vulkan
