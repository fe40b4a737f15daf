// Max unpooling in one, two and three dims: ATen's max_unpool2d and max_unpool3d, each one node
// (MaxUnpool2DBackward0, MaxUnpool3DBackward0) with ATen's checks and messages, over LibTorch's output
// size. Each input element goes to the position its index names in a zero output plane (the output's
// last two or three dims, flattened), and its gradient is gathered from there. max_unpool1d is the 2-d
// op over a unit width, as in LibTorch.
#include <string>

#include "autograd/record.h"
#include "nn/functional/detail/pool_passes.h"
#include "nn/functional/pooling.h"
#include "runtime/kernels/index.h"
#include "tensor/indexing_support.h"
#include "tensor/ops_support.h"

namespace ember::nn::functional {

namespace {

std::string text(int64_t value) { return std::to_string(value); }

// ATen's max_unpool2d (two output sizes) and max_unpool3d (three, and the strides, which only it checks).
Tensor max_unpool_of(const Tensor& input, const Tensor& indices, const std::vector<int64_t>& out_sizes,
                     IntArrayRef stride) {
  const auto spatial = static_cast<int64_t>(out_sizes.size());
  const std::string op = "max_unpooling" + text(spatial) + "d";
  ember::detail::check_same_device({&input, &indices});
  if (indices.dtype() != DType::Int64) {
    throw Error("elements in indices should be type int64" +
                (spatial == 2 ? " but got: " + scalar_type_name(indices.dtype()) : std::string()));
  }
  const int64_t ndim = input.dim();
  if (ndim != spatial + 1 && ndim != spatial + 2) {
    throw Error("Input to " + op + " should be a " + text(spatial + 1) + "d or " + text(spatial + 2) +
                "d Tensor, but got a tensor with " + text(ndim) + " dimensions.");
  }
  if (input.sizes() != indices.sizes()) {
    throw Error("Expected shape of indices to be same as that of the input tensor (" + to_string(input.sizes()) +
                ") but got indices tensor with shape: " + to_string(indices.sizes()));
  }
  for (int64_t d = 1; d < ndim; ++d) {
    if (input.size(d) <= 0) {
      throw Error(op + "_forward_out_cpu(): Expected input to have non-zero size for non-batch dimensions, but got " +
                  to_string(input.sizes()) + " with dimension " + text(d) + " being empty.");
    }
  }
  for (int64_t s : stride) {
    if (s <= 0) throw Error("strides should be greater than zero, but got stride: " + to_string(stride));
  }
  std::vector<int64_t> sizes = input.sizes().vec();
  sizes.resize(ndim - spatial);
  std::vector<int64_t> flat = sizes;
  int64_t plane = 1;
  std::string plane_text;
  for (int64_t size : out_sizes) {
    sizes.push_back(size);
    plane *= size;
    if (!plane_text.empty()) plane_text += 'x';
    plane_text += text(size);
  }
  flat.push_back(plane);
  // As ATen's resize of its output: a negative size reads as an overflow unless another one is zero.
  if (ember::detail::product(sizes) > 0 && indices.numel() > 0) {
    // PyTorch's CPU kernel names the last index outside the output plane that it meets, the last one in
    // row-major order when one thread checks them all (and leaves its message's bracket open). It runs
    // only for a non-empty output.
    const Tensor invalid = indices.lt(0).logical_or(indices.ge(plane));
    if (invalid.any().item<bool>()) {
      throw Error("Found an invalid max index: " + text(indices.masked_select(invalid).select(0, -1).item<int64_t>()) +
                  " (output volumes are of size " + plane_text);
    }
  }
  autograd::Record rec(spatial == 2 ? "MaxUnpool2DBackward0" : "MaxUnpool3DBackward0", {&input});
  Tensor out = ember::detail::zeros_as(input, flat);
  if (out.numel() > 0) {
    // ATen's kernels write duplicate indices in no promised order (PyTorch flags max_unpool as
    // nondeterministic), so any colliding value may win: one scatter pass, not the ordered two.
    const Tensor flat_indices = indices.flatten(-spatial), flat_input = input.flatten(-spatial);
    ember::detail::index_kernels(out).scatter(ember::detail::stream_of(out),
                                              {.mode = ScatterMode::Assign,
                                               .out = out.ref(),
                                               .dim = static_cast<int>(out.dim()) - 1,
                                               .index = flat_indices.ref(),
                                               .src = Operand(flat_input.ref()),
                                               .any_collision_wins = true});
  }
  out = out.view(sizes);
  if (!rec) return out;
  rec.save(indices);
  return rec.finish(out, [spatial](autograd::FunctionNode& node, const autograd::tensor_list& g) {
    return autograd::tensor_list{detail::gather_positions(g[0], node.saved(0), spatial)};
  });
}

// LibTorch's _unpool_output_size over the input's last D dims, as Python's. (LibTorch reads dims 2 to
// D + 1, the same dims for a batched input, and past the last dim for an unbatched one.)
template <size_t D>
std::vector<int64_t> unpool_output_size(const Tensor& input, const MaxUnpoolFuncOptions<D>& options) {
  std::vector<int64_t> defaults;
  for (size_t d = 0; d < D; ++d) {
    defaults.push_back((input.size(input.dim() - static_cast<int64_t>(D) + static_cast<int64_t>(d)) - 1) *
                           options.stride()[d] +
                       options.kernel_size()[d] - 2 * options.padding()[d]);
  }
  if (!options.output_size()) return defaults;
  std::vector<int64_t> sizes = *options.output_size();
  if (sizes.size() == D + 2) sizes.erase(sizes.begin(), sizes.begin() + 2);
  if (sizes.size() != D) {
    throw Error("output_size should be a sequence containing " + text(D) + " or " + text(D + 2) +
                " elements, but it has a length of '" + text(static_cast<int64_t>(sizes.size())) + "'");
  }
  for (size_t d = 0; d < D; ++d) {
    const int64_t min_size = defaults[d] - options.stride()[d];
    const int64_t max_size = defaults[d] + options.stride()[d];
    if (!(min_size <= sizes[d] && sizes[d] <= max_size)) {
      // LibTorch prints the sizes as c10 prints a vector: "9 9".
      std::string listed;
      for (int64_t size : sizes) {
        if (!listed.empty()) listed += ' ';
        listed += text(size);
      }
      throw Error("invalid output_size " + listed + " (dim " + text(static_cast<int64_t>(d)) +
                  " must be between " + text(min_size) + " and " + text(max_size) + ")");
    }
  }
  return sizes;
}

}  // namespace

Tensor max_unpool1d(const Tensor& input, const Tensor& indices, const MaxUnpool1dFuncOptions& options) {
  const std::vector<int64_t> size = unpool_output_size(input, options);
  return max_unpool_of(input.unsqueeze(-1), indices.unsqueeze(-1), {size[0], 1}, {}).squeeze(-1);
}

Tensor max_unpool2d(const Tensor& input, const Tensor& indices, const MaxUnpool2dFuncOptions& options) {
  return max_unpool_of(input, indices, unpool_output_size(input, options), {});
}

Tensor max_unpool3d(const Tensor& input, const Tensor& indices, const MaxUnpool3dFuncOptions& options) {
  return max_unpool_of(input, indices, unpool_output_size(input, options), options.stride());
}

}  // namespace ember::nn::functional
