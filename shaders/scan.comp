#version 450
// Inclusive scan along one dim. Each row (one position of the other dims) is scanned by a group of 2^k
// invocations, 256 / 2^k rows per workgroup. The group walks its row in steps of 2^k * CHAIN elements:
// each invocation totals CHAIN consecutive elements, the group scans the invocations' totals as a tree
// in shared memory (Hillis and Steele), each invocation scans its elements again from its prefix, and
// the row's running total carries to the next step.
#include "typed_operands.glsl"
#include "math.glsl"

#define WORKGROUP_SIZE 256
#define MAX_DIMS 5  // dims other than the scanned one; 116 bytes of push constants
#define CHAIN 32
layout(local_size_x = WORKGROUP_SIZE) in;

layout(constant_id = 0) const uint IN_DT = DT_F32;
layout(constant_id = 1) const uint OUT_DT = DT_F32;
layout(constant_id = 2) const uint OP = 0;

// Kernel ops, in the order of ember::ScanOp.
#define OP_CUMSUM 0
#define OP_CUMPROD 1
#define OP_CUMMAX 2
#define OP_CUMMIN 3
#define OP_LOGCUMSUMEXP 4

DECLARE_OPERAND(0, dst, writeonly)
DEFINE_STORE(dst, OUT_DT)
layout(set = 0, binding = 1) writeonly buffer Indices { uvec2 indices[]; };
DECLARE_OPERAND(2, src, readonly)
DEFINE_LOAD(src, IN_DT)

layout(push_constant) uniform Params {
  uint in_offset;  // first element of each operand in its window
  uint out_offset;
  uint idx_offset;
  uint rows;
  uint row_length;
  uint shape;  // bits 0-7: log2 of the invocations per row; 8-15: dims; bit 16: write indices
  uint in_step;  // strides along the scanned dim
  uint out_step;
  uint idx_step;
  uint sizes[MAX_DIMS];  // of the other dims
  uint in_strides[MAX_DIMS];
  uint out_strides[MAX_DIMS];
  uint idx_strides[MAX_DIMS];
} p;

// A partial result: the value, and for CumMax/CumMin the index + 1 of the element it came from
// (0: none yet).
struct Item {
  compute_t v;
  uint c;
};

#if COMPUTE_IS_FLOAT
bool value_is_nan(compute_t x) { return isnan(x); }
#else
bool value_is_nan(compute_t x) { return false; }
#endif

Item identity() {
  Item item = Item(compute_t(0), 0u);
  if (OP == OP_CUMPROD) item.v = compute_t(1);
#if COMPUTE_IS_FLOAT
  if (OP == OP_LOGCUMSUMEXP) item.v = -compute_t(uintBitsToFloat(0x7f800000u));
#endif
  return item;
}

// log(exp(x) + exp(y)) without overflow; equal infinities give themselves, NaN propagates.
compute_t log_add_exp(compute_t x, compute_t y) {
#if COMPUTE_IS_FLOAT
  if (value_is_nan(x) || value_is_nan(y)) return x + y;
  const compute_t high = max(x, y);
  const compute_t low = min(x, y);
  if (isinf(high)) return high;
  return high + m_log1p(m_exp(low - high));
#else
  return x;
#endif
}

// `earlier` covers elements before `later`'s. CumMax and CumMin move to the later element on ties and
// on any NaN, as PyTorch does, and stay on NaN otherwise.
Item combine(Item earlier, Item later) {
  if (OP == OP_CUMSUM) return Item(earlier.v + later.v, 0u);
  if (OP == OP_CUMPROD) return Item(earlier.v * later.v, 0u);
  if (OP == OP_LOGCUMSUMEXP) return Item(log_add_exp(earlier.v, later.v), 0u);
  if (later.c == 0u) return earlier;
  if (earlier.c == 0u || value_is_nan(later.v)) return later;
  if (value_is_nan(earlier.v)) return earlier;
  const bool later_wins = OP == OP_CUMMAX ? later.v >= earlier.v : later.v <= earlier.v;
  return later_wins ? later : earlier;
}

Item element(uint row_base, uint at) { return Item(src_load(row_base + at * p.in_step), at + 1u); }

shared compute_t shared_v[WORKGROUP_SIZE];
shared uint shared_c[WORKGROUP_SIZE];

void put_shared(uint slot, Item item) {
  shared_v[slot] = item.v;
  shared_c[slot] = item.c;
}

Item get_shared(uint slot) { return Item(shared_v[slot], shared_c[slot]); }

void main() {
  const uint group_log2 = p.shape & 0xffu;
  const uint ndim = (p.shape >> 8) & 0xffu;
  const bool write_indices = (p.shape & (1u << 16)) != 0u;
  const uint group = 1u << group_log2;
  const uint lane = gl_LocalInvocationID.x & (group - 1u);
  const uint slot = gl_LocalInvocationID.x;
  const uint rows_per_workgroup = WORKGROUP_SIZE >> group_log2;

  for (uint first = gl_WorkGroupID.y * rows_per_workgroup; first < p.rows;
       first += gl_NumWorkGroups.y * rows_per_workgroup) {
    const uint row = first + (slot >> group_log2);
    const bool row_valid = row < p.rows;
    uint in_base = p.in_offset;
    uint out_base = p.out_offset;
    uint idx_base = p.idx_offset;
    uint index = row;
    for (int d = int(ndim) - 1; d >= 0; --d) {
      const uint coordinate = index % p.sizes[d];
      index /= p.sizes[d];
      in_base += coordinate * p.in_strides[d];
      out_base += coordinate * p.out_strides[d];
      idx_base += coordinate * p.idx_strides[d];
    }

    Item carry = identity();
    for (uint base = 0u; base < p.row_length; base += group * CHAIN) {
      // Each invocation's total over its CHAIN elements...
      const uint start = base + lane * CHAIN;
      const uint stop = row_valid ? min(start + CHAIN, p.row_length) : start;
      Item total = identity();
      for (uint at = start; at < stop; ++at) total = combine(total, element(in_base, at));

      // ... scanned across the group ...
      put_shared(slot, total);
      barrier();
      for (uint offset = 1u; offset < group; offset <<= 1) {
        Item before = identity();
        if (lane >= offset) before = get_shared(slot - offset);
        barrier();
        if (lane >= offset) put_shared(slot, combine(before, get_shared(slot)));
        barrier();
      }
      Item running = carry;
      if (lane > 0u) running = combine(carry, get_shared(slot - 1u));
      carry = combine(carry, get_shared(slot - lane + group - 1u));
      barrier();  // the next step reuses shared memory

      // ... gives the prefix each invocation continues from, reading its elements again (from cache).
      for (uint at = start; at < stop; ++at) {
        running = combine(running, element(in_base, at));
        dst_store(out_base + at * p.out_step, running.v);
        if (write_indices) indices[idx_base + at * p.idx_step] = uvec2(running.c - 1u, 0u);
      }
    }
  }
}
