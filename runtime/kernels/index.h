#pragma once
// The index kernel family: gather and scatter along a dim, triangles, and the coordinates of nonzeros.
// Scatter's modes come from scatter_modes.def.
#include "runtime/kernels/kernels.h"
#include "runtime/kernels/op_list.h"

namespace ember {

enum class ScatterMode : uint8_t {
#define EMBER_SCATTER_MODE(Enum, name) Enum,
#include "runtime/kernels/scatter_modes.def"
#undef EMBER_SCATTER_MODE
};
inline constexpr std::string_view kScatterModeNames[] = {
#define EMBER_SCATTER_MODE(Enum, name) #name,
#include "runtime/kernels/scatter_modes.def"
#undef EMBER_SCATTER_MODE
};
inline constexpr size_t kScatterModeCount = std::size(kScatterModeNames);
constexpr std::string_view scatter_mode_name(ScatterMode mode) { return op_name(mode, kScatterModeNames); }

// out[p] = in[p with coordinate `dim` replaced by index[p]] for every position p of out. index is int64
// with out's sizes (any strides, broadcast allowed); in has out's sizes except along dim. Negative
// indices count from the end. tensor/ checks bounds before it calls; an index still outside
// [-size, size) reads zero rather than memory it does not own.
struct GatherArgs {
  TensorRef out;
  TensorRef in;
  int dim = 0;
  TensorRef index;
};

// out[p with coordinate dim replaced by index[p]] (mode)= src[p] for every position p of index; src
// (tensor or scalar) has index's sizes. An index out of range writes nothing.
struct ScatterArgs {
  ScatterMode mode = ScatterMode::Assign;
  TensorRef out;
  int dim = 0;
  TensorRef index;
  Operand src;
  Scalar alpha = 1;  // Add scales src by alpha
  // Assign from a tensor keeps the last of positions that collide along dim, as PyTorch's CPU kernels do.
  // An op that PyTorch documents as nondeterministic under duplicate indices (max_unpool) may let any of
  // them win instead, which takes one pass rather than an ordered claim-and-store.
  bool any_collision_wins = false;
};

// Keeps in's elements on or below (upper: on or above) `diagonal` of the last two dims; zeroes the rest.
struct TriangleArgs {
  TensorRef out;
  TensorRef in;
  int64_t diagonal = 0;
  bool upper = false;
};

// For each nonzero element of `in` (row-major order) writes its coordinates as a row of out
// (n × in.ndim, int64). `positions` is the inclusive cumulative count of nonzeros, int64, contiguous.
struct NonzeroArgs {
  TensorRef out;
  TensorRef in;
  TensorRef positions;
};

class IndexKernels : public KernelFamily {
 public:
  static constexpr std::string_view kName = "index";
  virtual void gather(Stream& stream, const GatherArgs& args) = 0;
  virtual void scatter(Stream& stream, const ScatterArgs& args) = 0;
  virtual void triangle(Stream& stream, const TriangleArgs& args) = 0;
  virtual void nonzero(Stream& stream, const NonzeroArgs& args) = 0;
};

}  // namespace ember
