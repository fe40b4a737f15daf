#pragma once
// The option values LibTorch spells as tags (`torch::kMean`, `torch::kSame`, `torch::kReflect`): each is
// its own type, so an options field is a std::variant of exactly the values it accepts, and a wrong one
// does not compile. `enum_name(value)` gives PyTorch's string ("mean").
#include <string_view>
#include <variant>

namespace ember {
namespace enumtype {

#define EMBER_ENUM_TAG(Tag, text) \
  struct Tag {                    \
    static constexpr std::string_view name = text; \
    bool operator==(const Tag&) const = default;   \
  };

EMBER_ENUM_TAG(kNone, "none")
EMBER_ENUM_TAG(kMean, "mean")
EMBER_ENUM_TAG(kSum, "sum")
EMBER_ENUM_TAG(kMax, "max")
EMBER_ENUM_TAG(kBatchMean, "batchmean")
EMBER_ENUM_TAG(kSame, "same")
EMBER_ENUM_TAG(kValid, "valid")
EMBER_ENUM_TAG(kZeros, "zeros")
EMBER_ENUM_TAG(kConstant, "constant")
EMBER_ENUM_TAG(kReflect, "reflect")
EMBER_ENUM_TAG(kReplicate, "replicate")
EMBER_ENUM_TAG(kCircular, "circular")
EMBER_ENUM_TAG(kNearest, "nearest")
EMBER_ENUM_TAG(kNearestExact, "nearest-exact")
EMBER_ENUM_TAG(kLinear, "linear")
EMBER_ENUM_TAG(kBilinear, "bilinear")
EMBER_ENUM_TAG(kBicubic, "bicubic")
EMBER_ENUM_TAG(kTrilinear, "trilinear")
EMBER_ENUM_TAG(kArea, "area")
EMBER_ENUM_TAG(kFanIn, "fan_in")
EMBER_ENUM_TAG(kFanOut, "fan_out")
EMBER_ENUM_TAG(kConv1D, "conv1d")
EMBER_ENUM_TAG(kConv2D, "conv2d")
EMBER_ENUM_TAG(kConv3D, "conv3d")
EMBER_ENUM_TAG(kConvTranspose1D, "conv_transpose1d")
EMBER_ENUM_TAG(kConvTranspose2D, "conv_transpose2d")
EMBER_ENUM_TAG(kConvTranspose3D, "conv_transpose3d")
EMBER_ENUM_TAG(kSigmoid, "sigmoid")
EMBER_ENUM_TAG(kTanh, "tanh")
EMBER_ENUM_TAG(kReLU, "relu")
EMBER_ENUM_TAG(kGELU, "gelu")
EMBER_ENUM_TAG(kLeakyReLU, "leaky_relu")
EMBER_ENUM_TAG(kSELU, "selu")

#undef EMBER_ENUM_TAG
}  // namespace enumtype

inline constexpr enumtype::kNone kNone{};
inline constexpr enumtype::kMean kMean{};
inline constexpr enumtype::kSum kSum{};
inline constexpr enumtype::kMax kMax{};
inline constexpr enumtype::kBatchMean kBatchMean{};
inline constexpr enumtype::kSame kSame{};
inline constexpr enumtype::kValid kValid{};
inline constexpr enumtype::kZeros kZeros{};
inline constexpr enumtype::kConstant kConstant{};
inline constexpr enumtype::kReflect kReflect{};
inline constexpr enumtype::kReplicate kReplicate{};
inline constexpr enumtype::kCircular kCircular{};
inline constexpr enumtype::kNearest kNearest{};
inline constexpr enumtype::kNearestExact kNearestExact{};
inline constexpr enumtype::kLinear kLinear{};
inline constexpr enumtype::kBilinear kBilinear{};
inline constexpr enumtype::kBicubic kBicubic{};
inline constexpr enumtype::kTrilinear kTrilinear{};
inline constexpr enumtype::kArea kArea{};
inline constexpr enumtype::kFanIn kFanIn{};
inline constexpr enumtype::kFanOut kFanOut{};
inline constexpr enumtype::kConv1D kConv1D{};
inline constexpr enumtype::kConv2D kConv2D{};
inline constexpr enumtype::kConv3D kConv3D{};
inline constexpr enumtype::kConvTranspose1D kConvTranspose1D{};
inline constexpr enumtype::kConvTranspose2D kConvTranspose2D{};
inline constexpr enumtype::kConvTranspose3D kConvTranspose3D{};
inline constexpr enumtype::kSigmoid kSigmoid{};
inline constexpr enumtype::kTanh kTanh{};
inline constexpr enumtype::kReLU kReLU{};
inline constexpr enumtype::kGELU kGELU{};
inline constexpr enumtype::kLeakyReLU kLeakyReLU{};
inline constexpr enumtype::kSELU kSELU{};

// PyTorch's string for a tag held in a variant.
template <class... Tags>
constexpr std::string_view enum_name(const std::variant<Tags...>& value) {
  return std::visit([](const auto& tag) { return std::decay_t<decltype(tag)>::name; }, value);
}

// The reduction every loss takes.
using LossReduction = std::variant<enumtype::kNone, enumtype::kMean, enumtype::kSum>;

}  // namespace ember
