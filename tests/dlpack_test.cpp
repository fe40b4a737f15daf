// DLPack exchange with LibTorch (at::toDLPack / at::fromDLPack), both ways, for every dtype, views, 0-dim
// and empty tensors; zero-copy where the memory allows, and each capsule's deleter runs exactly once.
//
// Both <dlpack/dlpack.h> (through tensor/dlpack.h) and LibTorch's bundled <ATen/dlpack.h> are included
// here. They are the same DLPack 0.6 text under the same include guard (DLPACK_DLPACK_H_), so the first
// one wins and both libraries see one set of identical types.
#include "tensor/dlpack.h"

#include <ATen/ATen.h>
#include <ATen/DLConvertor.h>

#include <cstring>

#include "tests/oracle.h"

namespace ember::test {
namespace {

// Counts deleter calls of the capsules a test has wrapped, passing each call on to the original deleter.
struct CountedCapsule {
  static inline int calls = 0;
  static inline void (*original)(DLManagedTensor*) = nullptr;
  static void deleter(DLManagedTensor* self) {
    ++calls;
    original(self);
  }
  static DLManagedTensor* wrap(DLManagedTensor* capsule) {
    calls = 0;
    original = capsule->deleter;
    capsule->deleter = deleter;
    return capsule;
  }
};

std::vector<double> torch_values(const at::Tensor& a) {
  const at::Tensor d = a.to(at::kDouble).contiguous();
  return {d.data_ptr<double>(), d.data_ptr<double>() + d.numel()};
}

std::vector<int64_t> vec(at::IntArrayRef values) { return values.vec(); }

// Values every dtype holds exactly, negatives where the dtype has them.
Tensor sample(DType dtype, IntArrayRef sizes) {
  int64_t count = 1;
  for (int64_t size : sizes) count *= size;
  std::vector<double> values(static_cast<size_t>(count));
  for (size_t i = 0; i < values.size(); ++i) {
    const double v = static_cast<double>(i % 7);
    values[i] = dtype == DType::Bool ? (i % 3 == 0) : dtype == DType::UInt8 ? v * 30 : (v - 3) * 1.5;
    if (!is_floating_point(dtype)) values[i] = std::round(values[i]);
  }
  return tensor(TensorData(values), dtype).reshape(sizes);
}

class DlpackTest : public DeviceTest {
 protected:
  // Vulkan's: the expectations below are Vulkan's (kDLVulkan, a VkBuffer and its offset), and a machine
  // with CUDA makes CUDA the default, so the factories here are pointed at Vulkan.
  void SetUp() override {
    device = get_device("vulkan");
    set_default_device(device);
  }
  void TearDown() override {
    set_default_device(nullptr);
    DeviceTest::TearDown();
  }
  bool mapped(const Tensor& t) const { return t.storage()->allocation->mapped() != nullptr; }
  std::shared_ptr<Device> device;
};

// ---- export: ember -> torch ----

TEST_F(DlpackTest, ExportsEveryDtypeWithoutCopy) {
  for (DType dtype : kAllDTypes) {
    SCOPED_TRACE(std::string(dtype_name(dtype)));
    if (!device->supports(dtype)) continue;
    const Tensor t = sample(dtype, {3, 5});
    DLManagedTensor* capsule = to_dlpack(t);
    const DLDataType expected = to_dlpack_dtype(dtype);
    EXPECT_EQ(capsule->dl_tensor.dtype.code, expected.code);
    EXPECT_EQ(capsule->dl_tensor.dtype.bits, element_size(dtype) * 8);
    EXPECT_EQ(capsule->dl_tensor.dtype.lanes, 1);
    if (!mapped(t)) {
      // Device-local memory: the VkBuffer and the byte offset within it.
      EXPECT_EQ(capsule->dl_tensor.device.device_type, kDLVulkan);
      EXPECT_EQ(reinterpret_cast<uintptr_t>(capsule->dl_tensor.data), t.storage()->allocation->handle());
      EXPECT_EQ(capsule->dl_tensor.byte_offset, t.storage()->allocation->offset());
      capsule->deleter(capsule);
      continue;
    }
    EXPECT_EQ(capsule->dl_tensor.device.device_type, kDLCPU);
    EXPECT_EQ(capsule->dl_tensor.data, t.storage()->allocation->mapped());
    const at::Tensor a = at::fromDLPack(capsule);
    // DLPack 0.6 has no bool code: bool travels as uint8.
    EXPECT_EQ(a.scalar_type(), dtype == DType::Bool ? at::kByte : torch_dtype(dtype));
    EXPECT_EQ(vec(a.sizes()), t.sizes().vec());
    EXPECT_EQ(a.data_ptr(), t.storage()->allocation->mapped());
    EXPECT_EQ(torch_values(a), t.to_vector<double>());
  }
}

TEST_F(DlpackTest, ExportWaitsForPendingWorkAndSharesMemory) {
  Tensor t = zeros({1000});
  t.fill_(7);  // recorded, not yet submitted
  if (!mapped(t)) GTEST_SKIP() << device->spec() << " has no host-visible device memory: it exports kDLVulkan";
  at::Tensor a = at::fromDLPack(to_dlpack(t));
  EXPECT_TRUE(at::equal(a, at::full({1000}, 7.0f)));
  a.fill_(3);  // torch writes ember's memory in place
  EXPECT_EQ(t.to_vector<float>(), std::vector<float>(1000, 3.0f));
}

TEST_F(DlpackTest, ExportKeepsStorageAliveUntilTheDeleterRunsOnce) {
  std::weak_ptr<Storage> storage;
  DLManagedTensor* capsule = nullptr;
  std::vector<double> expected;
  {
    const Tensor t = sample(DType::Float32, {4, 6});
    storage = t.storage();
    const Tensor view = t.slice(1, 1, 5);
    expected = view.to_vector<double>();
    capsule = CountedCapsule::wrap(to_dlpack(view));
  }
  EXPECT_FALSE(storage.expired());  // only the capsule holds it now
  if (capsule->dl_tensor.device.device_type != kDLCPU) {
    capsule->deleter(capsule);
  } else {
    at::Tensor a = at::fromDLPack(capsule);
    EXPECT_EQ(CountedCapsule::calls, 0);
    EXPECT_FALSE(storage.expired());
    EXPECT_EQ(torch_values(a), expected);
    a.reset();
  }
  EXPECT_EQ(CountedCapsule::calls, 1);
  EXPECT_TRUE(storage.expired());
}

TEST_F(DlpackTest, ExportsNonContiguousViews) {
  const Tensor base = sample(DType::Float32, {6, 8});
  const std::vector<std::pair<std::string, Tensor>> views = {
      {"transposed", base.t()},
      {"sliced with step", base.slice(1, 1, 8, 3)},
      {"offset row", base.select(0, 4)},
      {"expanded", base.select(1, 2).unsqueeze(1).expand({6, 5})},
  };
  for (const auto& [name, view] : views) {
    SCOPED_TRACE(name);
    DLManagedTensor* capsule = to_dlpack(view);
    EXPECT_EQ(std::vector<int64_t>(capsule->dl_tensor.strides, capsule->dl_tensor.strides + view.dim()),
              view.strides().vec());
    if (capsule->dl_tensor.device.device_type != kDLCPU) {
      EXPECT_EQ(capsule->dl_tensor.byte_offset,
                base.storage()->allocation->offset() + view.storage_offset() * view.element_size());
      capsule->deleter(capsule);
      continue;
    }
    const at::Tensor a = at::fromDLPack(capsule);
    EXPECT_EQ(vec(a.strides()), view.strides().vec());
    EXPECT_EQ(a.data_ptr(), static_cast<std::byte*>(base.storage()->allocation->mapped()) +
                                view.storage_offset() * view.element_size());
    EXPECT_EQ(torch_values(a), view.to_vector<double>());
  }
}

TEST_F(DlpackTest, ExportsZeroDimAndEmptyTensors) {
  const Tensor scalar = tensor(2.5);
  DLManagedTensor* capsule = to_dlpack(scalar);
  EXPECT_EQ(capsule->dl_tensor.ndim, 0);
  if (capsule->dl_tensor.device.device_type == kDLCPU) {
    const at::Tensor a = at::fromDLPack(capsule);
    EXPECT_EQ(a.dim(), 0);
    EXPECT_EQ(a.item<float>(), 2.5f);
  } else {
    capsule->deleter(capsule);
  }
  const Tensor empty_tensor = zeros({0, 3}, kInt32);
  capsule = to_dlpack(empty_tensor);
  EXPECT_EQ(capsule->dl_tensor.ndim, 2);
  if (capsule->dl_tensor.device.device_type == kDLCPU) {
    const at::Tensor a = at::fromDLPack(capsule);
    EXPECT_EQ(vec(a.sizes()), (std::vector<int64_t>{0, 3}));
    EXPECT_EQ(a.scalar_type(), at::kInt);
  } else {
    capsule->deleter(capsule);
  }
}

// ---- import: torch -> ember ----

TEST_F(DlpackTest, ImportsEveryTorchDtypeAsACopy) {
  for (DType dtype : kAllDTypes) {
    if (dtype == DType::Bool) continue;  // PyTorch 1.13 refuses to export bool
    SCOPED_TRACE(std::string(dtype_name(dtype)));
    if (!device->supports(dtype)) continue;
    const at::Tensor steps = at::arange(15, at::kDouble).reshape({3, 5});
    at::Tensor a = (dtype == DType::UInt8 ? steps * 17 : (steps - 7) * (is_floating_point(dtype) ? 1.25 : 1))
                       .to(torch_dtype(dtype));
    const std::vector<double> expected = torch_values(a);
    const Tensor t = from_dlpack(CountedCapsule::wrap(at::toDLPack(a)));
    EXPECT_EQ(CountedCapsule::calls, 1);  // a copy: the capsule is done with at once
    EXPECT_EQ(t.dtype(), dtype);
    EXPECT_EQ(t.sizes().vec(), vec(a.sizes()));
    EXPECT_TRUE(t.is_contiguous());
    EXPECT_EQ(t.to_vector<double>(), expected);
    a.zero_();
    EXPECT_EQ(t.to_vector<double>(), expected);  // the copy does not follow torch's memory
  }
}

TEST_F(DlpackTest, ImportsNonContiguousTorchViews) {
  const at::Tensor base = at::randn({6, 8}, at::kFloat);
  const std::vector<std::pair<std::string, at::Tensor>> views = {
      {"transposed", base.t()},
      {"sliced with step", base.slice(1, 1, 8, 3)},
      {"offset row", base.select(0, 4)},
      {"expanded", base.select(1, 2).unsqueeze(1).expand({6, 5})},
      {"as_strided with offset", base.as_strided({4}, {2}, 3)},
  };
  for (const auto& [name, view] : views) {
    SCOPED_TRACE(name);
    const Tensor t = from_dlpack(CountedCapsule::wrap(at::toDLPack(view)));
    EXPECT_EQ(CountedCapsule::calls, 1);
    EXPECT_EQ(t.sizes().vec(), vec(view.sizes()));
    EXPECT_EQ(t.to_vector<double>(), torch_values(view));
  }
}

TEST_F(DlpackTest, ImportsZeroDimAndEmptyTorchTensors) {
  const Tensor scalar = from_dlpack(at::toDLPack(at::scalar_tensor(-4, at::kLong)));
  EXPECT_EQ(scalar.dim(), 0);
  EXPECT_EQ(scalar.dtype(), kInt64);
  EXPECT_EQ(scalar.item<int64_t>(), -4);
  const Tensor empty_tensor = from_dlpack(at::toDLPack(at::empty({2, 0, 3}, at::kHalf)));
  EXPECT_EQ(empty_tensor.sizes().vec(), (std::vector<int64_t>{2, 0, 3}));
  EXPECT_EQ(empty_tensor.dtype(), kFloat16);
}

TEST_F(DlpackTest, TorchRoundTripThroughEmber) {
  const at::Tensor a = at::randn({5, 7}, at::kDouble).t();
  const Tensor t = from_dlpack(at::toDLPack(a));
  DLManagedTensor* capsule = to_dlpack(t);
  if (capsule->dl_tensor.device.device_type != kDLCPU) {
    capsule->deleter(capsule);
    GTEST_SKIP() << device->spec() << " exports kDLVulkan, which LibTorch cannot read";
  }
  EXPECT_TRUE(at::equal(at::fromDLPack(capsule), a));
}

// ---- import: ember's own capsules and other producers ----

TEST_F(DlpackTest, ImportingOwnCapsuleAliasesTheStorage) {
  for (DType dtype : {DType::Float32, DType::Bool, DType::BFloat16}) {
    SCOPED_TRACE(std::string(dtype_name(dtype)));
    const Tensor t = sample(dtype, {4, 3}).t();
    const long holders = t.storage().use_count();  // t and the base it views
    Tensor alias = from_dlpack(to_dlpack(t));
    EXPECT_EQ(alias.storage(), t.storage());
    EXPECT_EQ(alias.dtype(), dtype);  // bool survives, unlike through DLPack 0.6's codes
    EXPECT_EQ(alias.sizes().vec(), t.sizes().vec());
    EXPECT_EQ(alias.strides().vec(), t.strides().vec());
    EXPECT_EQ(t.storage().use_count(), holders + 1);  // and the alias: the capsule is gone
    alias.fill_(1);
    EXPECT_EQ(t.to_vector<double>(), std::vector<double>(12, 1.0));
  }
}

// What another Vulkan producer hands over under ember's kDLVulkan convention: a VkBuffer and the byte
// offset of the first element in it. Here the buffer belongs to an ember tensor that the capsule keeps.
DLManagedTensor* foreign_vulkan_capsule(const Tensor& owner, int64_t first_element, std::vector<int64_t> shape,
                                        std::vector<int64_t> strides) {
  struct Context {
    Tensor owner;
    std::vector<int64_t> shape, strides;
    DLManagedTensor managed{};
  };
  auto* context = new Context{owner, std::move(shape), std::move(strides)};
  DLTensor& dl = context->managed.dl_tensor;
  const Allocation& allocation = *owner.storage()->allocation;
  dl.data = reinterpret_cast<void*>(static_cast<uintptr_t>(allocation.handle()));
  dl.device = {kDLVulkan, owner.device()->info().index};
  dl.ndim = static_cast<int>(context->shape.size());
  dl.dtype = to_dlpack_dtype(owner.dtype());
  dl.shape = context->shape.data();
  dl.strides = context->strides.data();
  dl.byte_offset = allocation.offset() + first_element * owner.element_size();
  context->managed.manager_ctx = context;
  context->managed.deleter = [](DLManagedTensor* self) { delete static_cast<Context*>(self->manager_ctx); };
  return &context->managed;
}

TEST_F(DlpackTest, WrapsAForeignVulkanBufferWithoutCopy) {
  if (device->backend() != Backend::Vulkan) GTEST_SKIP() << "the default device is not a Vulkan device";
  const Tensor owner = sample(DType::Float32, {40});
  std::weak_ptr<Storage> owner_storage = owner.storage();
  // A 4x3 view starting at element 5, rows 8 elements apart.
  Tensor wrapped = from_dlpack(CountedCapsule::wrap(foreign_vulkan_capsule(owner, 5, {4, 3}, {8, 1})));
  EXPECT_EQ(CountedCapsule::calls, 0);  // the memory is in use until `wrapped` dies
  EXPECT_NE(wrapped.storage(), owner.storage());
  EXPECT_EQ(wrapped.to_vector<double>(), owner.as_strided({4, 3}, {8, 1}, 5).to_vector<double>());
  wrapped.fill_(9);  // a device write through the wrapped buffer
  // ember tracks GPU uses per allocation, and `owner` is a second allocation over the same memory (a real
  // producer's buffer would not be): wait for the device before reading through it.
  device->synchronize();
  const std::vector<float> after = owner.to_vector<float>();
  for (int64_t i = 0; i < 40; ++i) {
    const bool inside = i >= 5 && (i - 5) % 8 < 3 && (i - 5) / 8 < 4;
    EXPECT_EQ(after[i] == 9.0f, inside) << "element " << i;
  }
  wrapped = Tensor();
  EXPECT_EQ(CountedCapsule::calls, 1);
}

// The allocator hands adopted memory back only after the GPU work recorded on it has run, and once.
TEST_F(DlpackTest, AdoptedMemoryIsReleasedAfterItsGpuUses) {
  if (device->backend() != Backend::Vulkan) GTEST_SKIP() << "the default device is not a Vulkan device";
  const std::shared_ptr<Allocation> owner = device->allocate(1 << 20);
  const std::shared_ptr<Stream> stream = device->default_stream();
  MemoryBlock block;
  block.handle = owner->handle();
  block.size = owner->offset() + owner->size();
  int releases = 0;
  uint64_t needed = 0, completed_at_release = 0;
  std::shared_ptr<Allocation> adopted = device->allocator().adopt(
      block, [&] { ++releases; completed_at_release = stream->completed_value(); }, stream);
  const AllocatorStats before = device->allocator().stats();
  device->kernels().get<MemoryKernels>().fill(*stream, {view(adopted.get(), DType::Float32, {1 << 18}, {1}, owner->offset()), 4.0});
  needed = stream->pending_value();  // recorded, not yet submitted
  adopted.reset();
  EXPECT_EQ(releases, 1);
  EXPECT_GE(completed_at_release, needed);
  EXPECT_EQ(device->allocator().stats().allocated_bytes, before.allocated_bytes);  // never counted
  EXPECT_EQ(download<float>(*stream, owner, 4), std::vector<float>(4, 4.0f));
}

TEST_F(DlpackTest, ImportsHostMemoryAtByteOffsetAndNegativeStrides) {
  std::vector<float> host(10);
  for (int i = 0; i < 10; ++i) host[i] = static_cast<float>(i) * 0.5f;
  int64_t shape[] = {4};
  int64_t reversed[] = {-2};
  DLManagedTensor capsule{};
  capsule.dl_tensor.data = host.data();
  capsule.dl_tensor.device = {kDLCPU, 0};
  capsule.dl_tensor.ndim = 1;
  capsule.dl_tensor.dtype = {kDLFloat, 32, 1};
  capsule.dl_tensor.shape = shape;
  capsule.dl_tensor.strides = nullptr;  // compact row-major
  capsule.dl_tensor.byte_offset = 3 * sizeof(float);
  EXPECT_EQ(from_dlpack(&capsule).to_vector<float>(), (std::vector<float>{1.5f, 2.0f, 2.5f, 3.0f}));
  capsule.dl_tensor.strides = reversed;
  capsule.dl_tensor.byte_offset = 9 * sizeof(float);
  EXPECT_EQ(from_dlpack(&capsule).to_vector<float>(), (std::vector<float>{4.5f, 3.5f, 2.5f, 1.5f}));
}

TEST_F(DlpackTest, DtypeCodesMapBothWays) {
  for (DType dtype : kAllDTypes) {
    const DType back = from_dlpack_dtype(to_dlpack_dtype(dtype));
    EXPECT_EQ(back, dtype == DType::Bool ? DType::UInt8 : dtype) << dtype_name(dtype);
  }
  EXPECT_EQ(from_dlpack_dtype({6, 8, 1}), DType::Bool);  // DLPack 0.8's kDLBool
  EXPECT_THROW(from_dlpack_dtype({kDLComplex, 64, 1}), UnsupportedError);
  EXPECT_THROW(from_dlpack_dtype({kDLFloat, 32, 4}), UnsupportedError);
  EXPECT_THROW(from_dlpack_dtype({kDLUInt, 16, 1}), UnsupportedError);
  EXPECT_THROW(from_dlpack_dtype({kDLOpaqueHandle, 64, 1}), UnsupportedError);
  EXPECT_THROW(from_dlpack_dtype({kDLBfloat, 32, 1}), UnsupportedError);
}

TEST_F(DlpackTest, RefusedCapsulesStayWithTheCaller) {
  const auto refuse = [](DLManagedTensor* capsule, const std::string& message) {
    CountedCapsule::wrap(capsule);
    try {
      from_dlpack(capsule);
      ADD_FAILURE() << "expected UnsupportedError";
    } catch (const UnsupportedError& error) {
      EXPECT_NE(std::string(error.what()).find(message), std::string::npos) << error.what();
    }
    EXPECT_EQ(CountedCapsule::calls, 0);
    capsule->deleter(capsule);
    EXPECT_EQ(CountedCapsule::calls, 1);
  };
  DLManagedTensor* complex = at::toDLPack(at::zeros({3}, at::kComplexFloat));
  refuse(complex, "(code 5, bits 64, lanes 1)");
  DLManagedTensor* opencl = at::toDLPack(at::zeros({3}));
  opencl->dl_tensor.device.device_type = kDLOpenCL;
  refuse(opencl, "device type 4");
  if (device->backend() == Backend::Vulkan) {
    const Tensor owner = sample(DType::Float32, {8});
    refuse(foreign_vulkan_capsule(owner, 7, {4}, {-1}), "negative strides");
  }
  EXPECT_THROW(from_dlpack(nullptr), Error);
}

}  // namespace
}  // namespace ember::test
