// Copies between an application's images and tensors, recorded on ember's stream with the layout
// transitions around them, and the texel conversions done as tensor ops.
#include <string>

#include "interop/vulkan_support.h"
#include "tensor/ops_support.h"

namespace ember::vulkan {

namespace {

struct TexelFormat {
  int64_t channels = 0;
  DType stored = DType::UInt8;  // the dtype of one channel as the image stores it
  bool unorm = false;
};

TexelFormat texel_format(VkFormat format, const char* what) {
  switch (format) {
    case VK_FORMAT_R8_UNORM: return {1, DType::UInt8, true};
    case VK_FORMAT_R8G8B8A8_UNORM:
    case VK_FORMAT_R8G8B8A8_SRGB: return {4, DType::UInt8, true};
    case VK_FORMAT_R16_SFLOAT: return {1, DType::Float16, false};
    case VK_FORMAT_R16G16B16A16_SFLOAT: return {4, DType::Float16, false};
    case VK_FORMAT_R32_SFLOAT: return {1, DType::Float32, false};
    case VK_FORMAT_R32G32B32A32_SFLOAT: return {4, DType::Float32, false};
    default:
      throw UnsupportedError(std::string(what) + ": VkFormat " + std::to_string(format) +
                             " is not one ember copies; it takes R8 and R8G8B8A8 UNORM or SRGB, and R16, "
                             "R16G16B16A16, R32 and R32G32B32A32 SFLOAT");
  }
}

void check_region(const ImageRegion& region, const char* what) {
  if (region.image == VK_NULL_HANDLE) throw Error(std::string(what) + ": the image is VK_NULL_HANDLE");
  if (region.width == 0 || region.height == 0) {
    throw Error(std::string(what) + ": the region is " + std::to_string(region.width) + "x" +
                std::to_string(region.height) + " texels; it needs at least one");
  }
  if (region.x < 0 || region.y < 0) throw Error(std::string(what) + ": the region starts at a negative texel");
}

VkImageLayout final_layout_of(const ImageRegion& region, const char* what) {
  const VkImageLayout final_layout =
      region.final_layout == VK_IMAGE_LAYOUT_UNDEFINED ? region.layout : region.final_layout;
  if (final_layout == VK_IMAGE_LAYOUT_UNDEFINED) {
    throw Error(std::string(what) + ": the image would end in VK_IMAGE_LAYOUT_UNDEFINED; set final_layout");
  }
  return final_layout;
}

// Records: the image from `region.layout` into the copy's layout, the copy, and on into the final layout.
// The barriers wait for and make visible any earlier work on the image, whatever stage did it.
void record_image_copy(const Tensor& texels, const ImageRegion& region, bool to_image, const char* what) {
  const std::shared_ptr<VulkanStream> stream = detail::tensor_stream(*texels.device(), what);
  const EntryPoints& fn = stream->context().fn;
  const VkImageLayout final_layout = final_layout_of(region, what);
  const VkImageLayout copy_layout =
      region.layout == VK_IMAGE_LAYOUT_GENERAL
          ? VK_IMAGE_LAYOUT_GENERAL
          : (to_image ? VK_IMAGE_LAYOUT_TRANSFER_DST_OPTIMAL : VK_IMAGE_LAYOUT_TRANSFER_SRC_OPTIMAL);
  const detail::TensorRange range = detail::tensor_range(texels, what);

  VkImageMemoryBarrier before{VK_STRUCTURE_TYPE_IMAGE_MEMORY_BARRIER};
  before.srcQueueFamilyIndex = VK_QUEUE_FAMILY_IGNORED;
  before.dstQueueFamilyIndex = VK_QUEUE_FAMILY_IGNORED;
  before.image = region.image;
  before.subresourceRange = {VK_IMAGE_ASPECT_COLOR_BIT, region.mip_level, 1, region.array_layer, 1};
  before.oldLayout = region.layout;
  before.newLayout = copy_layout;
  before.srcAccessMask = VK_ACCESS_MEMORY_WRITE_BIT;
  before.dstAccessMask = to_image ? VK_ACCESS_TRANSFER_WRITE_BIT : VK_ACCESS_TRANSFER_READ_BIT;
  VkImageMemoryBarrier after = before;
  after.oldLayout = copy_layout;
  after.newLayout = final_layout;
  after.srcAccessMask = to_image ? VK_ACCESS_TRANSFER_WRITE_BIT : 0;
  after.dstAccessMask = VK_ACCESS_MEMORY_READ_BIT | VK_ACCESS_MEMORY_WRITE_BIT;

  VkBufferImageCopy copy{};
  copy.bufferOffset = range.begin;
  copy.imageSubresource = {VK_IMAGE_ASPECT_COLOR_BIT, region.mip_level, region.array_layer, 1};
  copy.imageOffset = {region.x, region.y, 0};
  copy.imageExtent = {region.width, region.height, 1};

  const BufferAccess access{range.buffer, range.begin, range.end, !to_image};
  Allocation* const touched[] = {texels.storage()->allocation.get()};
  stream->record_commands({&access, 1}, touched, [&](VkCommandBuffer commands) {
    fn.vkCmdPipelineBarrier(commands, VK_PIPELINE_STAGE_ALL_COMMANDS_BIT, VK_PIPELINE_STAGE_TRANSFER_BIT, 0, 0,
                            nullptr, 0, nullptr, 1, &before);
    if (to_image) {
      fn.vkCmdCopyBufferToImage(commands, range.buffer, region.image, copy_layout, 1, &copy);
    } else {
      fn.vkCmdCopyImageToBuffer(commands, region.image, copy_layout, range.buffer, 1, &copy);
    }
    fn.vkCmdPipelineBarrier(commands, VK_PIPELINE_STAGE_TRANSFER_BIT, VK_PIPELINE_STAGE_ALL_COMMANDS_BIT, 0, 0,
                            nullptr, 0, nullptr, 1, &after);
  });
}

}  // namespace

Tensor copy_from_image(const std::shared_ptr<Device>& device, const ImageRegion& region, ImageLayout layout,
                       DType dtype) {
  constexpr const char* what = "copy_from_image";
  if (!device) throw Error("copy_from_image: no device");
  detail::vulkan_device(*device, what);
  check_region(region, what);
  if (region.layout == VK_IMAGE_LAYOUT_UNDEFINED) {
    throw Error("copy_from_image: the image's layout is VK_IMAGE_LAYOUT_UNDEFINED, so its texels are undefined; "
                "give the layout it is in");
  }
  const TexelFormat format = texel_format(region.format, what);
  ember::detail::check_dtype_supported(*device, dtype);
  if (format.unorm && !is_floating_point(dtype) && dtype != DType::UInt8) {
    throw Error("copy_from_image: UNORM texels go to a floating dtype (values in [0, 1]) or to UInt8 (0..255)");
  }
  Tensor texels = ember::detail::empty_on(
      {static_cast<int64_t>(region.height), static_cast<int64_t>(region.width), format.channels}, format.stored,
      device);
  record_image_copy(texels, region, false, what);
  Tensor values = texels.to(dtype);
  if (format.unorm && is_floating_point(dtype)) values = values.div(255);
  values = values.unsqueeze(0);
  return layout == ImageLayout::NCHW ? values.permute({0, 3, 1, 2}).contiguous() : values;
}

void copy_to_image(const Tensor& tensor, const ImageRegion& region, ImageLayout layout) {
  constexpr const char* what = "copy_to_image";
  if (!tensor.defined()) throw Error("copy_to_image: the tensor is undefined");
  detail::vulkan_device(*tensor.device(), what);
  check_region(region, what);
  final_layout_of(region, what);
  const TexelFormat format = texel_format(region.format, what);
  Tensor image = tensor.dim() == 4 && tensor.size(0) == 1 ? tensor.squeeze(0) : tensor;
  if (image.dim() != 3) {
    throw Error("copy_to_image: expected a tensor of (C, H, W) or (1, C, H, W) (or NHWC), got sizes " +
                to_string(tensor.sizes()));
  }
  if (layout == ImageLayout::NCHW) image = image.permute({1, 2, 0});
  const std::vector<int64_t> expected{static_cast<int64_t>(region.height), static_cast<int64_t>(region.width),
                                      format.channels};
  if (image.sizes() != IntArrayRef(expected)) {
    throw Error("copy_to_image: the region takes " + std::to_string(format.channels) + " channels of " +
                std::to_string(region.height) + "x" + std::to_string(region.width) + " texels, the tensor has sizes " +
                to_string(tensor.sizes()));
  }
  if (format.unorm && is_floating_point(image.dtype())) image = image.clamp(0, 1).mul(255).round();
  // The copy reads whole rows of tightly packed texels, from an offset that is a multiple of a texel's
  // size: a fresh allocation's start is.
  Tensor texels = image.to(format.stored).contiguous();
  if (texels.storage_offset() != 0) texels = texels.clone();
  record_image_copy(texels, region, true, what);
}

}  // namespace ember::vulkan
