#include "test_support.h"

#include "ember/vulkan.h"

namespace ember::test {

void expect_error_containing(const std::function<void()>& call, const std::string& fragment) {
  try {
    call();
    ADD_FAILURE() << "no error; expected one containing: " << fragment;
  } catch (const Error& e) {
    EXPECT_NE(std::string(e.what()).find(fragment), std::string::npos)
        << "the message: " << e.what() << "\nlacks: " << fragment;
  }
}

void expect_no_validation_messages() {
  for (const std::string& message : vulkan::take_validation_messages()) {
    ADD_FAILURE() << "Vulkan validation: " << message;
  }
}

void VulkanTest::SetUp() {
  try {
    device = get_device("vulkan");
  } catch (const DeviceUnavailableError& error) {
    GTEST_SKIP() << "Vulkan is absent here: " << error.what();
  }
  stream = device->default_stream();
}

void BackendTest::SetUp() {
  try {
    device = get_device(GetParam());
  } catch (const DeviceUnavailableError& error) {
    GTEST_SKIP() << "backend " << GetParam() << " is absent here: " << error.what();
  }
  stream = device->default_stream();
}

std::string backend_test_name(const testing::TestParamInfo<std::string>& info) { return info.param; }

void sum_all(Device& device, Stream& stream, const TensorRef& out, const TensorRef& in) {
  const uint32_t every_dim = in.ndim == 0 ? 0 : (1u << in.ndim) - 1;
  device.kernels().get<ReduceKernels>().reduce(
      stream, {.op = ReduceOp::Sum, .out = out, .in = in, .reduce_mask = every_dim, .compute = DType::Float32});
}

TensorRef view(Allocation* allocation, DType dtype, std::vector<int64_t> sizes,
               std::vector<int64_t> strides, uint64_t byte_offset) {
  TensorRef ref;
  ref.allocation = allocation;
  ref.dtype = dtype;
  ref.byte_offset = byte_offset;
  ref.ndim = static_cast<int>(sizes.size());
  for (size_t d = 0; d < sizes.size(); ++d) {
    ref.sizes[d] = sizes[d];
    ref.strides[d] = strides[d];
  }
  return ref;
}

}  // namespace ember::test
