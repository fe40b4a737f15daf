#include "nn/functional/detail/index_pool_backward.h"

#include <vector>

#include "autograd/record.h"
#include "tensor/ops_support.h"

namespace ember::nn::functional::detail {

Tensor index_pool_backward(const Tensor& grad, const Tensor& input, const Tensor& indices, size_t spatial_dims,
                           const char* node) {
  const std::vector<int64_t> input_sizes = input.sizes().vec();
  const size_t plane_dims = input_sizes.size() - spatial_dims;
  const int64_t planes = ember::detail::product(IntArrayRef(input_sizes.data(), plane_dims));
  const int64_t plane = ember::detail::product(IntArrayRef(input_sizes.data() + plane_dims, spatial_dims));
  const int64_t outputs = ember::detail::product(IntArrayRef(indices.sizes().data() + plane_dims, spatial_dims));
  autograd::Record rec(node, {&grad, &input});
  ember::detail::TrustedIndices trusted;  // the forward's own
  const Tensor flat_indices = indices.reshape({planes, outputs});
  Tensor grad_input = grad.new_zeros({planes, plane})
                          .scatter_add(1, flat_indices, grad.reshape({planes, outputs}))
                          .reshape(input_sizes);
  if (rec) {
    rec.save(flat_indices);
    grad_input = rec.finish(grad_input, [output_sizes = indices.sizes().vec(), input_sizes, planes, plane](
                                            autograd::FunctionNode& node, const autograd::tensor_list& g) {
      ember::detail::TrustedIndices trusted;
      return autograd::tensor_list{g[0].reshape({planes, plane}).gather(1, node.saved(0)).reshape(output_sizes),
                                   g[0].new_zeros(input_sizes)};
    });
  }
  return grad_input;
}

}  // namespace ember::nn::functional::detail
