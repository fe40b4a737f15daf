#version 450
// Inclusive scan along one dim. Each row (one position of the other dims) is scanned by a group of 2^k
// invocations, 256 / 2^k rows per workgroup. The group walks its row in steps of 2^k * CHAIN elements:
// each invocation totals CHAIN consecutive elements, the group scans the invocations' totals as a tree
// in shared memory (Hillis and Steele), each invocation scans its elements again from its prefix, and
// the row's running total carries to the next step.
//
// A long row among few rows would leave the device idle, so it is cut into chunks (STAGE 1 and 2): one
// pass totals each chunk, in order, into a scratch buffer; the next has each chunk's workgroup combine
// the totals before it and scan its chunk from there.
#include "typed_operands.glsl"
#include "push_constants.glsl"
#include "math.glsl"

#define WORKGROUP_SIZE 256
#define MAX_DIMS 5  // dims other than the scanned one; 120 bytes of push constants
#define CHAIN 32
layout(local_size_x = WORKGROUP_SIZE) in;

layout(constant_id = 0) const uint IN_DT = DT_F32;
layout(constant_id = 1) const uint OUT_DT = DT_F32;
layout(constant_id = 2) const uint OP = 0;
// 0: whole rows; 1: write each chunk's total; 2: scan each chunk from the totals before it.
layout(constant_id = 3) const uint STAGE = 0;

#include "scan_ops.glsl"  // SCAN_OP_*, generated from runtime/kernels/scan_ops.def

DECLARE_OPERAND(0, dst, writeonly)
DEFINE_STORE(dst, OUT_DT)
layout(set = 0, binding = 1) writeonly buffer Indices { uvec2 indices[]; };
DECLARE_OPERAND(2, src, readonly)
DEFINE_LOAD(src, IN_DT)
layout(set = 0, binding = 3) buffer Totals { uint totals[]; };

struct Params {
  uint in_offset;  // first element of each operand in its window
  uint out_offset;
  uint idx_offset;
  uint rows;
  uint row_length;
  uint shape;  // bits 0-7: log2 of the invocations per row; 8-15: dims; bit 16: write indices
  uint in_step;  // strides along the scanned dim
  uint out_step;
  uint idx_step;
  uint chunk;  // elements per chunk in stages 1 and 2 (one workgroup each, along x)
  uint sizes[MAX_DIMS];  // of the other dims
  uint in_strides[MAX_DIMS];
  uint out_strides[MAX_DIMS];
  uint idx_strides[MAX_DIMS];
};
DECLARE_PUSH_CONSTANTS(Params)

// A partial result: the value, and for CumMax/CumMin the index + 1 of the element it came from
// (0: none yet).
struct Item {
  compute_t v;
  uint c;
};

Item identity() {
  Item item = Item(compute_t(0), 0u);
  if (OP == SCAN_OP_CUMPROD) item.v = compute_t(1);
#if COMPUTE_IS_FLOAT
  if (OP == SCAN_OP_LOGCUMSUMEXP) item.v = -compute_t(uintBitsToFloat(0x7f800000u));
#endif
  return item;
}

// log(exp(x) + exp(y)) without overflow; equal infinities give themselves, NaN propagates.
compute_t log_add_exp(compute_t x, compute_t y) {
#if COMPUTE_IS_FLOAT
  if (m_isnan(x) || m_isnan(y)) return x + y;
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
  if (OP == SCAN_OP_CUMSUM) return Item(earlier.v + later.v, 0u);
  if (OP == SCAN_OP_CUMPROD) return Item(earlier.v * later.v, 0u);
  if (OP == SCAN_OP_LOGCUMSUMEXP) return Item(log_add_exp(earlier.v, later.v), 0u);
  if (later.c == 0u) return earlier;
  if (earlier.c == 0u || m_isnan(later.v)) return later;
  if (m_isnan(earlier.v)) return earlier;
  const bool later_wins = OP == SCAN_OP_CUMMAX ? later.v >= earlier.v : later.v <= earlier.v;
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

// Chunk totals in the scratch: the value's words, then c.
#if defined(COMPUTE_F64) || defined(COMPUTE_I64)
#define VALUE_WORDS 2u
#else
#define VALUE_WORDS 1u
#endif

void store_total(uint i, Item item) {
  const uint w = i * (VALUE_WORDS + 1u);
#if defined(COMPUTE_F64)
  const uvec2 bits = unpackDouble2x32(item.v);
#elif defined(COMPUTE_I64)
  const uvec2 bits = unpack32(uint64_t(item.v));
#elif defined(COMPUTE_I32)
  const uvec2 bits = uvec2(uint(item.v), 0u);
#else
  const uvec2 bits = uvec2(floatBitsToUint(item.v), 0u);
#endif
  totals[w] = bits.x;
  if (VALUE_WORDS == 2u) totals[w + 1u] = bits.y;
  totals[w + VALUE_WORDS] = item.c;
}

Item load_total(uint i) {
  const uint w = i * (VALUE_WORDS + 1u);
  const uvec2 bits = uvec2(totals[w], VALUE_WORDS == 2u ? totals[w + 1u] : 0u);
#if defined(COMPUTE_F64)
  const compute_t v = packDouble2x32(bits);
#elif defined(COMPUTE_I64)
  const compute_t v = int64_t(pack64(bits));
#elif defined(COMPUTE_I32)
  const compute_t v = int(bits.x);
#else
  const compute_t v = uintBitsToFloat(bits.x);
#endif
  return Item(v, totals[w + VALUE_WORDS]);
}

// Combines the workgroup's items in invocation order (each invocation's covers elements before the
// next one's); every invocation gets the result. Every invocation must call it.
Item workgroup_combine(Item item) {
  const uint slot = gl_LocalInvocationID.x;
  put_shared(slot, item);
  barrier();
  for (uint width = 1u; width < WORKGROUP_SIZE; width <<= 1) {
    if ((slot & (2u * width - 1u)) == 0u) put_shared(slot, combine(get_shared(slot), get_shared(slot + width)));
    barrier();
  }
  const Item total = get_shared(0u);
  barrier();
  return total;
}

struct Row {
  bool valid;
  uint in_base;
  uint out_base;
  uint idx_base;
};

Row locate_row(uint row) {
  Row r = Row(row < p.rows, p.in_offset, p.out_offset, p.idx_offset);
  const uint ndim = (p.shape >> 8) & 0xffu;
  uint index = row;
  for (int d = int(ndim) - 1; d >= 0; --d) {
    const uint coordinate = index % p.sizes[d];
    index /= p.sizes[d];
    r.in_base += coordinate * p.in_strides[d];
    r.out_base += coordinate * p.out_strides[d];
    r.idx_base += coordinate * p.idx_strides[d];
  }
  return r;
}

// Scans elements [begin, end) of a row from `carry` with groups of `group` invocations, `lane` being
// this one's place in its group. Every invocation of the workgroup must call it with the same bounds.
void scan_range(Row row, uint begin, uint end, Item carry, uint lane, uint group) {
  const uint slot = gl_LocalInvocationID.x;
  const bool write_indices = (p.shape & (1u << 16)) != 0u;
  for (uint base = begin; base < end; base += group * CHAIN) {
    // Each invocation's total over its CHAIN elements...
    const uint start = base + lane * CHAIN;
    const uint stop = row.valid ? min(start + CHAIN, end) : start;
    Item total = identity();
    for (uint at = start; at < stop; ++at) total = combine(total, element(row.in_base, at));

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
      running = combine(running, element(row.in_base, at));
      dst_store(row.out_base + at * p.out_step, running.v);
      if (write_indices) indices[row.idx_base + at * p.idx_step] = uvec2(running.c - 1u, 0u);
    }
  }
}

void main() {
  COPY_PUSH_CONSTANTS();
  if (STAGE == 0u) {
    const uint group_log2 = p.shape & 0xffu;
    const uint group = 1u << group_log2;
    const uint rows_per_workgroup = WORKGROUP_SIZE >> group_log2;
    const uint lane = gl_LocalInvocationID.x & (group - 1u);
    for (uint first = gl_WorkGroupID.y * rows_per_workgroup; first < p.rows;
         first += gl_NumWorkGroups.y * rows_per_workgroup) {
      const Row row = locate_row(first + (gl_LocalInvocationID.x >> group_log2));
      scan_range(row, 0u, p.row_length, identity(), lane, group);
    }
    return;
  }

  // Stages 1 and 2: a whole workgroup per chunk of one row.
  const uint chunk_index = gl_WorkGroupID.x;
  const uint chunks = gl_NumWorkGroups.x;
  const uint begin = chunk_index * p.chunk;
  const uint end = begin + min(p.chunk, p.row_length - min(begin, p.row_length));
  const uint slot = gl_LocalInvocationID.x;
  for (uint row_index = gl_WorkGroupID.y; row_index < p.rows; row_index += gl_NumWorkGroups.y) {
    const Row row = locate_row(row_index);
    if (STAGE == 1u) {
      // Contiguous runs per invocation, combined in order.
      const uint run = (end - begin + WORKGROUP_SIZE - 1u) / WORKGROUP_SIZE;
      const uint start = begin + slot * run;
      const uint stop = min(start + run, end);
      Item total = identity();
      for (uint at = start; at < stop; ++at) total = combine(total, element(row.in_base, at));
      total = workgroup_combine(total);
      if (slot == 0u) store_total(row_index * chunks + chunk_index, total);
    } else {
      const uint run = (chunk_index + WORKGROUP_SIZE - 1u) / WORKGROUP_SIZE;
      const uint start = slot * run;
      const uint stop = min(start + run, chunk_index);
      Item before = identity();
      for (uint k = start; k < stop; ++k) before = combine(before, load_total(row_index * chunks + k));
      before = workgroup_combine(before);
      scan_range(row, begin, end, before, slot, WORKGROUP_SIZE);
    }
  }
}
