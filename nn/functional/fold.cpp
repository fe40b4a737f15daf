// F::unfold and F::fold: aten's im2col and col2im with their shape checks and messages (including
// im2col's, which prints the input's height twice), as one gather or one scatter-add each over the
// flattened, zero-padded planes. Each is recorded as one node whose gradient is the other.
#include "nn/functional/fold.h"

#include <string>
#include <vector>

#include "autograd/record.h"
#include "nn/functional/detail/host_positions.h"
#include "nn/functional/padding.h"
#include "tensor/functions.h"

namespace ember::nn::functional {

namespace {

// The sliding blocks over a plane of `height` × `width` (the input of unfold, the output of fold).
struct Blocks {
  int64_t kernel[2], dilation[2], padding[2], stride[2];
  int64_t height = 0, width = 0;

  int64_t padded_height() const { return height + 2 * padding[0]; }
  int64_t padded_width() const { return width + 2 * padding[1]; }
  int64_t count(int d) const {
    const int64_t size = d == 0 ? height : width;
    return (size + 2 * padding[d] - (dilation[d] * (kernel[d] - 1) + 1)) / stride[d] + 1;
  }
  std::string pair(const int64_t values[2]) const {
    std::string text = "(";  // appended, not "(" + ...: GCC 12 warns falsely (-Wrestrict) on that form
    text += std::to_string(values[0]) + ", " + std::to_string(values[1]) + ")";
    return text;
  }
};

Blocks blocks_of(const ExpandingArray<2>& kernel, const ExpandingArray<2>& dilation, const ExpandingArray<2>& padding,
                 const ExpandingArray<2>& stride) {
  Blocks b{};
  for (int d = 0; d < 2; ++d) {
    b.kernel[d] = kernel[d];
    b.dilation[d] = dilation[d];
    b.padding[d] = padding[d];
    b.stride[d] = stride[d];
  }
  return b;
}

void check_kernel(const Blocks& b) {
  if (b.kernel[0] <= 0 || b.kernel[1] <= 0) {
    throw Error("kernel size should be greater than zero, but got kernel_height: " + std::to_string(b.kernel[0]) +
                " kernel_width: " + std::to_string(b.kernel[1]));
  }
}
void check_dilation(const Blocks& b) {
  if (b.dilation[0] <= 0 || b.dilation[1] <= 0) {
    throw Error("dilation should be greater than zero, but got dilation_height: " + std::to_string(b.dilation[0]) +
                " dilation_width: " + std::to_string(b.dilation[1]));
  }
}
void check_padding(const Blocks& b) {
  if (b.padding[0] < 0 || b.padding[1] < 0) {
    throw Error("padding should be non-negative, but got pad_height: " + std::to_string(b.padding[0]) +
                " pad_width: " + std::to_string(b.padding[1]));
  }
}
void check_stride(const Blocks& b) {
  if (b.stride[0] <= 0 || b.stride[1] <= 0) {
    throw Error("stride should be greater than zero, but got stride_height: " + std::to_string(b.stride[0]) +
                " stride_width: " + std::to_string(b.stride[1]));
  }
}

// For each column element (channel, kernel row, kernel column, block), its position in the flattened,
// padded planes of `channels` channels.
Tensor column_sources(int64_t channels, const Blocks& b, const Tensor& like) {
  const int64_t blocks_h = b.count(0), blocks_w = b.count(1);
  const int64_t plane = b.padded_height() * b.padded_width();
  std::vector<int64_t> sources;
  sources.reserve(static_cast<size_t>(channels * b.kernel[0] * b.kernel[1] * blocks_h * blocks_w));
  for (int64_t c = 0; c < channels; ++c) {
    for (int64_t ki = 0; ki < b.kernel[0]; ++ki) {
      for (int64_t kj = 0; kj < b.kernel[1]; ++kj) {
        for (int64_t by = 0; by < blocks_h; ++by) {
          for (int64_t bx = 0; bx < blocks_w; ++bx) {
            sources.push_back(c * plane + (ki * b.dilation[0] + by * b.stride[0]) * b.padded_width() +
                              kj * b.dilation[1] + bx * b.stride[1]);
          }
        }
      }
    }
  }
  return detail::host_positions(sources, like);
}

Tensor col2im(const Tensor& input, Blocks b);

// aten::im2col of a batched (4-D) or unbatched (3-D) input.
Tensor im2col(const Tensor& input, Blocks b) {
  check_kernel(b);
  check_dilation(b);
  check_padding(b);
  check_stride(b);
  const int64_t ndim = input.dim();
  bool valid = ndim == 3 || ndim == 4;
  for (int64_t d = ndim == 4 ? 1 : 0; valid && d < ndim; ++d) valid = input.size(d) != 0;
  if (!valid) {
    throw Error("Expected 3D or 4D (batch mode) tensor with possibly 0 batch size and other non-zero dimensions "
                "for input, but got: " + to_string(input.sizes()));
  }
  b.height = input.size(ndim - 2);
  b.width = input.size(ndim - 1);
  if (b.count(0) < 1 || b.count(1) < 1) {
    const int64_t spatial[2] = {b.height, b.height};  // sic: aten prints the height twice
    const int64_t counts[2] = {b.count(0), b.count(1)};
    throw Error("Given input with spatial size " + b.pair(spatial) + ", kernel_size=" + b.pair(b.kernel) +
                ", dilation=" + b.pair(b.dilation) + ", padding=" + b.pair(b.padding) +
                ", calculated shape of the array of sliding blocks as " + b.pair(counts) +
                ", but its components must be at least one.");
  }
  autograd::Record rec("Im2ColBackward0", {&input});
  const Tensor x = ndim == 4 ? input : input.unsqueeze(0);
  const int64_t batch = x.size(0), channels = x.size(1);
  const Tensor padded = b.padding[0] || b.padding[1]
                            ? pad(x, PadFuncOptions({b.padding[1], b.padding[1], b.padding[0], b.padding[0]}))
                            : x;
  Tensor cols = padded.reshape({batch, channels * b.padded_height() * b.padded_width()})
                    .index_select(1, column_sources(channels, b, x))
                    .view({batch, channels * b.kernel[0] * b.kernel[1], b.count(0) * b.count(1)});
  if (ndim == 3) cols = cols.squeeze(0);
  if (!rec) return cols;
  return rec.finish(cols, [b](autograd::FunctionNode&, const autograd::tensor_list& grads) {
    return autograd::tensor_list{col2im(grads[0], b)};
  });
}

// aten::col2im of a batched (3-D) or unbatched (2-D) input into planes of b.height × b.width.
Tensor col2im(const Tensor& input, Blocks b) {
  check_kernel(b);
  check_stride(b);
  check_dilation(b);
  check_padding(b);
  const int64_t ndim = input.dim();
  bool valid = ndim == 2 || ndim == 3;
  for (int64_t d = ndim == 3 ? 1 : 0; valid && d < ndim; ++d) valid = input.size(d) != 0;
  if (!valid) {
    throw Error("Expected 2D or 3D (batch mode) tensor for input with possibly 0 batch size and non-zero dimensions "
                "for input, but got: " + to_string(input.sizes()));
  }
  const int64_t kernel_volume = b.kernel[0] * b.kernel[1];
  const int64_t column_rows = input.size(ndim - 2);
  if (column_rows % kernel_volume != 0) {
    throw Error("Expected size of input's dimension 1 to be divisible by the product of kernel_size, but got "
                "input.size(1)=" + std::to_string(column_rows) + " and kernel_size=" + b.pair(b.kernel) + ".");
  }
  const int64_t blocks_h = b.count(0), blocks_w = b.count(1);
  const int64_t size[2] = {b.height, b.width};
  const std::string given = "Given output_size=" + b.pair(size) + ", kernel_size=" + b.pair(b.kernel) +
                            ", dilation=" + b.pair(b.dilation) + ", padding=" + b.pair(b.padding) +
                            ", stride=" + b.pair(b.stride);
  if (input.size(ndim - 1) != blocks_h * blocks_w) {
    throw Error(given + ", expected size of input's dimension 2 to match the calculated number of sliding blocks " +
                std::to_string(blocks_h) + " * " + std::to_string(blocks_w) + " = " +
                std::to_string(blocks_h * blocks_w) + ", but got input.size(2)=" + std::to_string(input.size(ndim - 1)) +
                ".");
  }
  if (blocks_h < 1 || blocks_w < 1) {
    const int64_t counts[2] = {blocks_h, blocks_w};
    throw Error(given + ", calculated shape of the array of sliding blocks as " + b.pair(counts) +
                ", which is too small (non-positive).");
  }
  autograd::Record rec("Col2ImBackward0", {&input});
  const Tensor cols = ndim == 3 ? input : input.unsqueeze(0);
  const int64_t batch = cols.size(0), channels = column_rows / kernel_volume;
  Tensor planes = zeros({batch, channels * b.padded_height() * b.padded_width()},
                        TensorOptions().dtype(input.dtype()).device(input.device()))
                      .index_add(1, column_sources(channels, b, input), cols.reshape({batch, column_rows * cols.size(2)}))
                      .view({batch, channels, b.padded_height(), b.padded_width()});
  if (b.padding[0] || b.padding[1]) {
    planes = planes.narrow(2, b.padding[0], b.height).narrow(3, b.padding[1], b.width).contiguous();
  }
  if (ndim == 2) planes = planes.squeeze(0);
  if (!rec) return planes;
  return rec.finish(planes, [b](autograd::FunctionNode&, const autograd::tensor_list& grads) {
    return autograd::tensor_list{im2col(grads[0], b)};
  });
}

}  // namespace

Tensor unfold(const Tensor& input, const UnfoldFuncOptions& options) {
  if (input.dim() != 4) {
    throw Error("Input Error: Only 4D input Tensors are supported (got " + std::to_string(input.dim()) + "D)");
  }
  return im2col(input, blocks_of(options.kernel_size(), options.dilation(), options.padding(), options.stride()));
}

Tensor fold(const Tensor& input, const FoldFuncOptions& options) {
  if (input.dim() != 3 && input.dim() != 2) {
    throw Error("Input Error: Only unbatched (2D) or batched (3D) input Tensors are supported (got " +
                std::to_string(input.dim()) + "D)");
  }
  Blocks b = blocks_of(options.kernel_size(), options.dilation(), options.padding(), options.stride());
  b.height = options.output_size()[0];
  b.width = options.output_size()[1];
  return col2im(input, b);
}

}  // namespace ember::nn::functional
