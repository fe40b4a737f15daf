#pragma once
// Options of Upsample and of functional::interpolate, with LibTorch 1.13's names, fields and defaults:
// `F::interpolate(x, F::InterpolateFuncOptions().size(std::vector<int64_t>{8, 8}).mode(kBilinear)
// .align_corners(false))`. A scale_factor has one value per spatial dim.
#include <cstdint>
#include <optional>
#include <variant>
#include <vector>

#include "nn/arg.h"
#include "nn/enums.h"

namespace ember::nn {

// Upsample: https://pytorch.org/docs/1.13/generated/torch.nn.Upsample.html
struct UpsampleOptions {
  EMBER_ARG(std::optional<std::vector<int64_t>>, size) = std::nullopt;
  EMBER_ARG(std::optional<std::vector<double>>, scale_factor) = std::nullopt;
  using mode_t = std::variant<enumtype::kNearest, enumtype::kLinear, enumtype::kBilinear, enumtype::kBicubic,
                              enumtype::kTrilinear>;
  EMBER_ARG(mode_t, mode) = kNearest;
  EMBER_ARG(std::optional<bool>, align_corners) = std::nullopt;
};

namespace functional {

// interpolate: https://pytorch.org/docs/1.13/generated/torch.nn.functional.interpolate.html
struct InterpolateFuncOptions {
  using mode_t = std::variant<enumtype::kNearest, enumtype::kLinear, enumtype::kBilinear, enumtype::kBicubic,
                              enumtype::kTrilinear, enumtype::kArea, enumtype::kNearestExact>;
  EMBER_ARG(std::optional<std::vector<int64_t>>, size) = std::nullopt;
  EMBER_ARG(std::optional<std::vector<double>>, scale_factor) = std::nullopt;
  EMBER_ARG(mode_t, mode) = kNearest;
  EMBER_ARG(std::optional<bool>, align_corners) = std::nullopt;
  EMBER_ARG(std::optional<bool>, recompute_scale_factor) = std::nullopt;
  EMBER_ARG(bool, antialias) = false;
};

}  // namespace functional

}  // namespace ember::nn
