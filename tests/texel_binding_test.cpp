// Texel-buffer bindings (BindingKind::Texel): the runtime makes a uvec4 view per dispatch, and refuses
// views the device or the buffer cannot have before it records anything.
#include <gtest/gtest.h>

#include <algorithm>
#include <cstdint>
#include <numeric>
#include <vector>

#include "runtime/error.h"
#include "runtime/vulkan/shader_registry.h"
#include "runtime/vulkan/vulkan_device.h"
#include "test_support.h"

namespace ember::test {
namespace {

const vulkan::KernelAbiRegistration kTexelTestAbis{{"texel_copy_test", 2, sizeof(uint32_t)}};

class TexelBindingTest : public VulkanTest {
 protected:
  void SetUp() override {
    VulkanTest::SetUp();
    if (IsSkipped()) return;
    words.resize(256);
    std::iota(words.begin(), words.end(), 0x1000u);
    source = upload(*device, *stream, words);
  }

  // Words [first_byte / 4, first_byte / 4 + count) of `source` through texel_copy_test, with the view at
  // `view_offset` bytes into the allocation and `count` words long.
  std::vector<uint32_t> copy(uint64_t view_offset, uint32_t count) {
    auto& vulkan_device = dynamic_cast<vulkan::VulkanDevice&>(*device);
    auto& vulkan_stream = dynamic_cast<vulkan::VulkanStream&>(*stream);
    auto out = device->allocate(count * sizeof(uint32_t), stream);
    const vulkan::Binding bindings[2] = {{out.get(), out->offset(), count * sizeof(uint32_t), true},
                                         {source.get(), source->offset() + view_offset, count * sizeof(uint32_t), false}};
    vulkan_stream.dispatch(vulkan_device.pipelines().get("texel_copy_test"), bindings, &count, sizeof count, 1);
    return download<uint32_t>(*stream, out, count);
  }

  std::vector<uint32_t> words;
  std::shared_ptr<Allocation> source;
};

TEST(TexelBindingReflection, TexelBuffersAreTheirOwnKind) {
  const vulkan::ShaderLayout layout = vulkan::reflect(vulkan::find_shader("texel_copy_test").spirv);
  ASSERT_EQ(layout.kinds.size(), 2u);
  EXPECT_EQ(layout.kinds[0], vulkan::BindingKind::Storage);
  EXPECT_EQ(layout.kinds[1], vulkan::BindingKind::Texel);
}

TEST_F(TexelBindingTest, ReadsWholeTexelsAndARaggedEnd) {
  const auto& limits = dynamic_cast<vulkan::VulkanDevice&>(*device).context().properties.limits;
  ASSERT_EQ(source->offset() % limits.minTexelBufferOffsetAlignment, 0u) << "allocations start on a texel";
  // Five words from the second texel on: the view covers two texels, the second partly past the range.
  const uint64_t offset = std::max<uint64_t>(16, limits.minTexelBufferOffsetAlignment);
  const std::vector<uint32_t> got = copy(offset, 5);
  const std::vector<uint32_t> want(words.begin() + offset / 4, words.begin() + offset / 4 + 5);
  EXPECT_EQ(got, want);
}

TEST_F(TexelBindingTest, AMisalignedViewIsAnErrorAndTheStreamGoesOn) {
  expect_error_containing([&] { copy(4, 4); }, "texel alignment");
  const std::vector<uint32_t> got = copy(0, 8);
  EXPECT_EQ(got, std::vector<uint32_t>(words.begin(), words.begin() + 8));
}

TEST_F(TexelBindingTest, AViewPastItsBufferIsAnError) {
  const uint64_t block_bytes = source->block().size;
  const uint64_t last_texel = block_bytes - 16 - source->offset();
  expect_error_containing([&] { copy(last_texel, 8); }, "reaches past its buffer");  // 32 bytes from the last texel
}

}  // namespace
}  // namespace ember::test
