#include "nn/modules/fold.h"

#include "nn/functional/fold.h"
#include "nn/repr.h"

namespace ember::nn {

namespace {

std::string window_repr(const ExpandingArray<2>& dilation, const ExpandingArray<2>& padding,
                        const ExpandingArray<2>& stride) {
  return ", dilation=" + repr_tuple(dilation.vec()) + ", padding=" + repr_tuple(padding.vec()) +
         ", stride=" + repr_tuple(stride.vec());
}

}  // namespace

std::string FoldImpl::extra_repr() const {
  return "output_size=" + repr_tuple(options.output_size().vec()) + ", kernel_size=" +
         repr_tuple(options.kernel_size().vec()) + window_repr(options.dilation(), options.padding(), options.stride());
}

Tensor FoldImpl::forward(const Tensor& input) { return functional::fold(input, options); }

std::string UnfoldImpl::extra_repr() const {
  return "kernel_size=" + repr_tuple(options.kernel_size().vec()) +
         window_repr(options.dilation(), options.padding(), options.stride());
}

Tensor UnfoldImpl::forward(const Tensor& input) { return functional::unfold(input, options); }

}  // namespace ember::nn
