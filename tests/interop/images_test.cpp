// Copies between an application's images and tensors, for each texel format, with the application
// writing or reading the image with its own commands. LibTorch says what each format stores.
#include <torch/torch.h>

#include <cstring>

#include "ember.h"
#include "ember/vulkan.h"
#include "tests/interop/application.h"
#include "tests/oracle.h"
#include "tests/test_support.h"

namespace ember::test {
namespace {

struct FormatCase {
  VkFormat format;
  int64_t channels;
  const char* name;
};

const FormatCase kFormats[] = {
    {VK_FORMAT_R8_UNORM, 1, "R8_UNORM"},
    {VK_FORMAT_R8G8B8A8_UNORM, 4, "R8G8B8A8_UNORM"},
    {VK_FORMAT_R16_SFLOAT, 1, "R16_SFLOAT"},
    {VK_FORMAT_R16G16B16A16_SFLOAT, 4, "R16G16B16A16_SFLOAT"},
    {VK_FORMAT_R32_SFLOAT, 1, "R32_SFLOAT"},
    {VK_FORMAT_R32G32B32A32_SFLOAT, 4, "R32G32B32A32_SFLOAT"},
};

// What an image of `format` keeps of float values: UNORM8 clamps to [0, 1] and rounds to 1/255 steps,
// SFLOAT16 rounds to half precision, SFLOAT32 keeps them.
at::Tensor stored(const at::Tensor& values, VkFormat format) {
  switch (format) {
    case VK_FORMAT_R8_UNORM:
    case VK_FORMAT_R8G8B8A8_UNORM: return (values.clamp(0, 1) * 255).round() / 255;
    case VK_FORMAT_R16_SFLOAT:
    case VK_FORMAT_R16G16B16A16_SFLOAT: return values.to(torch::kHalf).to(torch::kFloat);
    default: return values;
  }
}

class InteropImagesTest : public DeviceTest, public ::testing::WithParamInterface<FormatCase> {
 protected:
  Application app;
  std::shared_ptr<Device> device = vulkan::adopt_device(app.external());
};

TEST_P(InteropImagesTest, TensorToImageAndBackKeepsWhatTheFormatStores) {
  const FormatCase& format = GetParam();
  constexpr uint32_t width = 13, height = 7;
  AppImage image = app.create_image(format.format, width, height);
  manual_seed(11);
  // Values past [0, 1] check the UNORM clamp.
  Tensor values = rand({1, format.channels, height, width}, TensorOptions().device(device)).mul(1.4).sub(0.2);
  vulkan::ImageRegion region{image.image, format.format, VK_IMAGE_LAYOUT_UNDEFINED, VK_IMAGE_LAYOUT_GENERAL};
  region.width = width;
  region.height = height;
  vulkan::copy_to_image(values, region);
  region.layout = VK_IMAGE_LAYOUT_GENERAL;
  Tensor nchw = vulkan::copy_from_image(device, region);
  Tensor nhwc = vulkan::copy_from_image(device, region, vulkan::ImageLayout::NHWC);
  EXPECT_EQ(nchw.sizes(), values.sizes());
  const at::Tensor expected = stored(to_torch(values), format.format);
  EXPECT_TRUE(torch::equal(to_torch(nchw), expected)) << format.name;
  EXPECT_TRUE(torch::equal(to_torch(nhwc), expected.permute({0, 2, 3, 1}))) << format.name;
  app.destroy(image);
}

TEST_P(InteropImagesTest, EmberReadsARegionTheApplicationCleared) {
  const FormatCase& format = GetParam();
  constexpr uint32_t width = 9, height = 6;
  AppImage image = app.create_image(format.format, width, height);
  VkSemaphore cleared = app.create_timeline();
  const VkClearColorValue color{{0.25f, 0.5f, 0.75f, 1.0f}};
  app.submit([&](VkCommandBuffer commands) {
    VkImageMemoryBarrier barrier{VK_STRUCTURE_TYPE_IMAGE_MEMORY_BARRIER};
    barrier.srcQueueFamilyIndex = barrier.dstQueueFamilyIndex = VK_QUEUE_FAMILY_IGNORED;
    barrier.image = image.image;
    barrier.subresourceRange = {VK_IMAGE_ASPECT_COLOR_BIT, 0, 1, 0, 1};
    barrier.oldLayout = VK_IMAGE_LAYOUT_UNDEFINED;
    barrier.newLayout = VK_IMAGE_LAYOUT_TRANSFER_DST_OPTIMAL;
    barrier.dstAccessMask = VK_ACCESS_TRANSFER_WRITE_BIT;
    vkCmdPipelineBarrier(commands, VK_PIPELINE_STAGE_TOP_OF_PIPE_BIT, VK_PIPELINE_STAGE_TRANSFER_BIT, 0, 0, nullptr,
                         0, nullptr, 1, &barrier);
    vkCmdClearColorImage(commands, image.image, VK_IMAGE_LAYOUT_TRANSFER_DST_OPTIMAL, &color, 1,
                         &barrier.subresourceRange);
  }, {}, {{cleared, 1}}, false);
  vulkan::wait_semaphore(*device->default_stream(), cleared, 1);
  vulkan::ImageRegion region{image.image, format.format, VK_IMAGE_LAYOUT_TRANSFER_DST_OPTIMAL,
                             VK_IMAGE_LAYOUT_GENERAL};
  region.x = 2;
  region.y = 1;
  region.width = 5;
  region.height = 3;
  Tensor texels = vulkan::copy_from_image(device, region, vulkan::ImageLayout::NHWC);
  ASSERT_EQ(texels.sizes(), IntArrayRef({1, 3, 5, format.channels}));
  const at::Tensor channels = torch::tensor({0.25f, 0.5f, 0.75f, 1.0f}).slice(0, 0, format.channels);
  const at::Tensor seen = to_torch(texels);
  const bool unorm = format.format == VK_FORMAT_R8_UNORM || format.format == VK_FORMAT_R8G8B8A8_UNORM;
  if (unorm) {
    // A clear may convert to either of the two nearest UNORM steps (Vulkan's float-to-normalized rule);
    // NVIDIA's stores 0.5 as 127, LibTorch's round gives 128. Every texel holds the same one.
    const at::Tensor below = (channels * 255).floor() / 255, above = (channels * 255).ceil() / 255;
    EXPECT_TRUE(seen.eq(below).logical_or(seen.eq(above)).all().item<bool>()) << format.name << "\n" << seen;
    EXPECT_TRUE(torch::equal(seen, seen.select(1, 0).select(1, 0).expand_as(seen))) << format.name << "\n" << seen;
  } else {
    EXPECT_TRUE(torch::equal(seen, stored(channels, format.format).expand({1, 3, 5, format.channels})))
        << format.name << "\n" << seen;
  }
  app.destroy(image);
}

TEST_P(InteropImagesTest, TheApplicationCopiesOutWhatEmberWrote) {
  const FormatCase& format = GetParam();
  constexpr uint32_t width = 6, height = 5;
  AppImage image = app.create_image(format.format, width, height);
  manual_seed(5);
  Tensor values = rand({height, width, format.channels}, TensorOptions().device(device));
  vulkan::ImageRegion region{image.image, format.format, VK_IMAGE_LAYOUT_UNDEFINED,
                             VK_IMAGE_LAYOUT_TRANSFER_SRC_OPTIMAL};
  region.width = width;
  region.height = height;
  vulkan::copy_to_image(values, region, vulkan::ImageLayout::NHWC);
  VkSemaphore written = app.create_timeline();
  vulkan::signal_semaphore(*device->default_stream(), written, 1);
  const int64_t texel_bytes = format.channels * (format.format == VK_FORMAT_R8_UNORM ||
                                                         format.format == VK_FORMAT_R8G8B8A8_UNORM
                                                     ? 1
                                                 : format.format == VK_FORMAT_R16_SFLOAT ||
                                                         format.format == VK_FORMAT_R16G16B16A16_SFLOAT
                                                     ? 2
                                                     : 4);
  const VkDeviceSize bytes = texel_bytes * width * height;
  AppBuffer readback = app.create_buffer(bytes, VK_BUFFER_USAGE_TRANSFER_DST_BIT, true);
  app.submit([&](VkCommandBuffer commands) {
    VkBufferImageCopy copy{};
    copy.imageSubresource = {VK_IMAGE_ASPECT_COLOR_BIT, 0, 0, 1};
    copy.imageExtent = {width, height, 1};
    vkCmdCopyImageToBuffer(commands, image.image, VK_IMAGE_LAYOUT_TRANSFER_SRC_OPTIMAL, readback.buffer, 1, &copy);
  }, {{written, 1}});
  const at::Tensor expected = to_torch(values);
  const int64_t count = height * width * format.channels;
  at::Tensor seen;
  if (texel_bytes / format.channels == 1) {
    seen = torch::from_blob(readback.mapped, {count}, torch::kUInt8).to(torch::kFloat) / 255;
  } else if (texel_bytes / format.channels == 2) {
    seen = torch::from_blob(readback.mapped, {count}, torch::kHalf).to(torch::kFloat);
  } else {
    seen = torch::from_blob(readback.mapped, {count}, torch::kFloat).clone();
  }
  EXPECT_TRUE(torch::equal(seen.reshape({height, width, format.channels}), stored(expected, format.format)))
      << format.name;
  app.destroy(readback);
  app.destroy(image);
}

INSTANTIATE_TEST_SUITE_P(Formats, InteropImagesTest, ::testing::ValuesIn(kFormats),
                         [](const ::testing::TestParamInfo<FormatCase>& info) { return std::string(info.param.name); });

class InteropImageErrorsTest : public DeviceTest {};

TEST_F(InteropImageErrorsTest, BadRegionsAndTensorsAreErrorsThatNameTheProblem) {
  Application app;
  std::shared_ptr<Device> device = vulkan::adopt_device(app.external());
  AppImage image = app.create_image(VK_FORMAT_R8G8B8A8_UNORM, 4, 4);
  vulkan::ImageRegion region{image.image, VK_FORMAT_R8G8B8A8_UNORM, VK_IMAGE_LAYOUT_GENERAL};
  region.width = region.height = 4;
  vulkan::ImageRegion bad_format = region;
  bad_format.format = VK_FORMAT_B8G8R8A8_UNORM;
  expect_error_containing([&] { vulkan::copy_from_image(device, bad_format); }, "is not one ember copies");
  vulkan::ImageRegion undefined = region;
  undefined.layout = VK_IMAGE_LAYOUT_UNDEFINED;
  expect_error_containing([&] { vulkan::copy_from_image(device, undefined); }, "texels are undefined");
  expect_error_containing([&] { vulkan::copy_to_image(zeros({4, 4}, TensorOptions().device(device)), region); },
                          "expected a tensor of (C, H, W)");
  expect_error_containing([&] { vulkan::copy_to_image(zeros({3, 4, 4}, TensorOptions().device(device)), region); },
                          "takes 4 channels of 4x4 texels");
  vulkan::ImageRegion empty = region;
  empty.width = 0;
  expect_error_containing([&] { vulkan::copy_from_image(device, empty); }, "needs at least one");
  expect_error_containing([&] { vulkan::copy_to_image(zeros({4, 4, 4}, TensorOptions().device(device)), undefined); },
                          "set final_layout");
  app.destroy(image);
}

}  // namespace
}  // namespace ember::test
