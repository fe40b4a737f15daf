#pragma once
// Options of F::pad and of the padding modules, with LibTorch 1.13's fields and defaults:
// `F::PadFuncOptions({1, 2}).mode(ember::kReflect)`, `ReflectionPad2dOptions({1, 1, 2, 0})`.
// https://pytorch.org/docs/1.13/nn.html#padding-layers
#include <cstdint>
#include <variant>
#include <vector>

#include "nn/arg.h"
#include "nn/enums.h"
#include "nn/expanding_array.h"

namespace ember::nn {

// Padding sizes as (left, right, top, bottom, front, back): the last dim's pair first.
template <size_t D>
struct ReflectionPadOptions {
  ReflectionPadOptions(ExpandingArray<D * 2> padding) : padding_(padding) {}
  EMBER_ARG(ExpandingArray<D * 2>, padding);
};
using ReflectionPad1dOptions = ReflectionPadOptions<1>;
using ReflectionPad2dOptions = ReflectionPadOptions<2>;
using ReflectionPad3dOptions = ReflectionPadOptions<3>;

template <size_t D>
struct ReplicationPadOptions {
  ReplicationPadOptions(ExpandingArray<D * 2> padding) : padding_(padding) {}
  EMBER_ARG(ExpandingArray<D * 2>, padding);
};
using ReplicationPad1dOptions = ReplicationPadOptions<1>;
using ReplicationPad2dOptions = ReplicationPadOptions<2>;
using ReplicationPad3dOptions = ReplicationPadOptions<3>;

struct ZeroPad2dOptions {
  ZeroPad2dOptions(ExpandingArray<4> padding) : padding_(padding) {}
  EMBER_ARG(ExpandingArray<4>, padding);
};

template <size_t D>
struct ConstantPadOptions {
  ConstantPadOptions(ExpandingArray<D * 2> padding, double value) : padding_(padding), value_(value) {}
  EMBER_ARG(ExpandingArray<D * 2>, padding);
  EMBER_ARG(double, value);
};
using ConstantPad1dOptions = ConstantPadOptions<1>;
using ConstantPad2dOptions = ConstantPadOptions<2>;
using ConstantPad3dOptions = ConstantPadOptions<3>;

namespace functional {

struct PadFuncOptions {
  using mode_t = std::variant<enumtype::kConstant, enumtype::kReflect, enumtype::kReplicate, enumtype::kCircular>;
  PadFuncOptions(std::vector<int64_t> pad) : pad_(std::move(pad)) {}
  EMBER_ARG(std::vector<int64_t>, pad);
  EMBER_ARG(mode_t, mode) = enumtype::kConstant{};
  EMBER_ARG(double, value) = 0;
};

}  // namespace functional

}  // namespace ember::nn
