#include "nn/modules/upsampling.h"

#include <variant>

#include "nn/functional/upsampling.h"
#include "nn/repr.h"

namespace ember::nn {

UpsampleImpl::UpsampleImpl(const UpsampleOptions& options) : options(options) { reset(); }

void UpsampleImpl::reset() {}

std::string UpsampleImpl::extra_repr() const {
  std::string text;
  if (const auto& scale = options.scale_factor()) {
    if (scale->size() == 1) {
      text = "scale_factor=" + repr_float(scale->front());
    } else {
      text = "scale_factor=(";
      for (size_t i = 0; i < scale->size(); ++i) text += (i ? ", " : "") + repr_float((*scale)[i]);
      text += ")";
    }
  } else if (const auto& size = options.size()) {
    text = "size=" + (size->size() == 1 ? std::to_string(size->front()) : repr_tuple(*size));
  }
  return text + ", mode=" + std::string(enum_name(options.mode()));
}

Tensor UpsampleImpl::forward(const Tensor& input) {
  auto interpolation = functional::InterpolateFuncOptions().size(options.size()).align_corners(options.align_corners());
  interpolation.mode(std::visit([](auto tag) { return functional::InterpolateFuncOptions::mode_t(tag); }, options.mode()));
  if (auto scale = options.scale_factor()) {
    // Python's Upsample takes one factor for every spatial dim; interpolate wants one per dim.
    if (scale->size() == 1 && input.dim() > 3) scale->resize(static_cast<size_t>(input.dim() - 2), scale->front());
    interpolation.scale_factor(scale);
  }
  return functional::interpolate(input, interpolation);
}

}  // namespace ember::nn
