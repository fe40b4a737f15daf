#version 450
// Sorts every row (the elements along one dim, for one position of the other dims) and writes sorted
// positions [first, first + count) of each row: the elements (their bits, loaded again from `in`) and
// their positions in the row.
//
// Elements are sorted as (key, position) pairs. The key is an unsigned integer whose order is the order
// of the values (descending flips its bits), so that (key, position) is a total order: any sorting
// network then gives the stable result.
//
// STAGE_SEGMENTS sorts segments of up to a tile (4096 pairs, 2048 with 64-bit keys) in a workgroup with
// the bitonic network: whole rows, several per workgroup when they are short, written to the outputs;
// or tiles of longer rows, written to the scratch buffers. Each invocation holds ELEMS pairs in
// registers, and every step of the network compares slots whose indices differ in one bit. The slots an
// invocation holds differ in ELEM_BITS chosen bits of the index (a layout), so the steps on those bits
// run in registers; the pairs pass through shared memory only to change layouts, up to three times a
// merge level (four with 64-bit keys) instead of a barrier at every step. Slots without an element hold a
// sentinel larger than every pair.
//
// Rows longer than a tile continue on the scratch with the network in its one-direction form (every
// comparator puts the smaller pair in its lower slot; level k starts by comparing each slot with its
// mirror image in its block of k): STAGE_GLOBAL_STEP is one step of a level at a distance of a tile or
// more (one dispatch each), STAGE_TILE_MERGE the level's steps below a tile, in registers as above; the
// last level's merge writes the outputs. Slots past a row's end count as larger than everything; in that
// form no comparator moves them, so comparators that reach them are skipped.
#include "typed_bits.glsl"  // DECLARE_OPERAND, DT_* codes, DTYPE_BITS

#define WORKGROUP_SIZE 256
#define MAX_DIMS 4  // of the rows; the push constants are then exactly 128 bytes
layout(local_size_x = WORKGROUP_SIZE) in;

layout(constant_id = 0) const uint DT = DT_F32;
layout(constant_id = 1) const uint STAGE = 0;
#define STAGE_SEGMENTS 0u
#define STAGE_GLOBAL_STEP 1u
#define STAGE_TILE_MERGE 2u

// Keys of 64-bit dtypes are 64-bit; the others fit 32 bits, which doubles the elements shared memory
// holds (32 KiB either way).
#if KEY_BITS == 64
#define key_t uint64_t
#define KEY_MAX 0xfffffffffffffffful
#define TILE_LOG2 11u
#else
#define key_t uint
#define KEY_MAX 0xffffffffu
#define TILE_LOG2 12u
#endif
#define TILE (1u << TILE_LOG2)
#define ELEM_BITS (TILE_LOG2 - 8u)  // 256 invocations hold a tile
#define ELEMS (1u << ELEM_BITS)
#define EMPTY 0xffffffffu  // the position of a slot without an element

#define SHAPE_DESCENDING (1u << 8)
#define SHAPE_WRITES_VALUES (1u << 9)
#define SHAPE_WRITES_OUTPUTS (1u << 10)  // this dispatch writes values and indices (else the scratch)

DECLARE_OPERAND(0, values, writeonly)
layout(set = 0, binding = 1) writeonly buffer Indices { uvec2 indices_data[]; };
DECLARE_OPERAND(2, src, readonly)
layout(set = 0, binding = 3) buffer ScratchKeys { key_t scratch_keys[]; };
layout(set = 0, binding = 4) buffer ScratchPositions { uint scratch_positions[]; };

layout(push_constant) uniform Params {
  uint in_offset;  // first element of each operand in its window
  uint values_offset;
  uint indices_offset;
  uint rows;
  uint row_length;
  uint first;   // the first sorted position written
  uint count;   // sorted positions written per row
  uint in_step;  // strides along the sorted dim
  uint values_step;
  uint indices_step;
  // STAGE_SEGMENTS: log2 of the slots a segment takes (a row rounded up to a power of two, or TILE);
  // the merge stages: log2 of a row rounded up to a power of two.
  uint padded_log2;
  uint segments;     // STAGE_SEGMENTS: per workgroup
  uint chunks;       // STAGE_SEGMENTS: segments per row
  uint level_log2;   // the merge stages: the level being merged
  uint step_log2;    // STAGE_GLOBAL_STEP: log2 of the comparators' distance
  uint shape;        // bits 0-7: dims of the rows; SHAPE_* flags
  uint sizes[MAX_DIMS];  // of the rows' dims
  uint in_strides[MAX_DIMS];
  uint values_strides[MAX_DIMS];
  uint indices_strides[MAX_DIMS];
} p;

shared key_t shared_keys[TILE];
shared uint shared_positions[TILE];

uvec2 load_bits(uint i) {
  const uint width = DTYPE_BITS(DT);
  if (width == 8u) return uvec2(uint(src_8[i]), 0u);
  if (width == 16u) return uvec2(uint(src_16[i]), 0u);
  if (width == 32u) return uvec2(src_32[i], 0u);
  return src_64[i];
}

void store_value(uint i, uvec2 bits) {
  const uint width = DTYPE_BITS(DT);
  if (width == 8u) values_8[i] = uint8_t(bits.x);
  else if (width == 16u) values_16[i] = uint16_t(bits.x);
  else if (width == 32u) values_32[i] = bits.x;
  else values_64[i] = bits;
}

// A float's key, for a format whose sign bit is `sign` and whose infinity's magnitude bits are
// `infinity`: negative values below zero in reverse magnitude order, both zeros equal, positive values
// above, every NaN at the top.
uint float_key(uint bits, uint sign, uint infinity) {
  const uint magnitude = bits & (sign - 1u);
  if (magnitude > infinity) return sign | (sign - 1u);
  if (magnitude == 0u) return sign;
  return (bits & sign) != 0u ? (sign - 1u) - magnitude : sign | magnitude;
}

key_t sort_key(uvec2 bits) {
  key_t key;
  if (DT == DT_BOOL || DT == DT_U8) key = key_t(bits.x);
  else if (DT == DT_I8) key = key_t(bits.x ^ 0x80u);
  else if (DT == DT_I16) key = key_t(bits.x ^ 0x8000u);
  else if (DT == DT_I32) key = key_t(bits.x ^ 0x80000000u);
  else if (DT == DT_F16) key = key_t(float_key(bits.x, 0x8000u, 0x7c00u));
  else if (DT == DT_BF16) key = key_t(float_key(bits.x, 0x8000u, 0x7f80u));
#if KEY_BITS == 64
  else if (DT == DT_I64) key = pack64(bits) ^ 0x8000000000000000ul;
  else if (DT == DT_F64) {
    const uint64_t sign = 0x8000000000000000ul;
    const uint64_t value = pack64(bits);
    const uint64_t magnitude = value & (sign - 1ul);
    if (magnitude > 0x7ff0000000000000ul) key = KEY_MAX;
    else if (magnitude == 0ul) key = sign;
    else key = (value & sign) != 0ul ? (sign - 1ul) - magnitude : sign | magnitude;
  }
#endif
  else key = key_t(float_key(bits.x, 0x80000000u, 0x7f800000u));
  return (p.shape & SHAPE_DESCENDING) != 0u ? ~key : key;
}

// Whether pair a comes before pair b: the total order the sort follows.
bool before(key_t key_a, uint position_a, key_t key_b, uint position_b) {
  return key_a < key_b || (key_a == key_b && position_a < position_b);
}

// Where a row's elements start in each operand.
struct Row {
  uint in_base;
  uint values_base;
  uint indices_base;
};

Row locate_row(uint row) {
  Row r = Row(p.in_offset, p.values_offset, p.indices_offset);
  const int ndim = int(p.shape & 0xffu);
  for (int d = ndim - 1; d >= 0; --d) {
    uint coordinate = row;  // the outermost dim needs no division: row < rows
    if (d > 0) {
      coordinate = row % p.sizes[d];
      row /= p.sizes[d];
    }
    r.in_base += coordinate * p.in_strides[d];
    r.values_base += coordinate * p.values_strides[d];
    r.indices_base += coordinate * p.indices_strides[d];
  }
  return r;
}

// Writes sorted position `rank` of a row, which holds the row's element at `position`, where it is one
// of the positions written.
void write_output(Row r, uint rank, uint position) {
  if (rank < p.first || rank - p.first >= p.count) return;
  const uint at = rank - p.first;
  if ((p.shape & SHAPE_WRITES_VALUES) != 0u) {
    store_value(r.values_base + at * p.values_step, load_bits(r.in_base + position * p.in_step));
  }
  indices_data[r.indices_base + at * p.indices_step] = uvec2(position, 0u);
}

// The slots of comparator `q` of a step at distance 2^j_log2 (the one-direction form): the lower slot has
// bit j_log2 clear; the upper one is its mirror image in their block of 2^(j_log2 + 1), or the distance
// further.
uvec2 comparator(uint q, uint j_log2, bool mirror) {
  const uint distance = 1u << j_log2;
  const uint low = ((q >> j_log2) << (j_log2 + 1u)) | (q & (distance - 1u));
  return uvec2(low, mirror ? low ^ (2u * distance - 1u) : low + distance);
}

// ---- the network in registers ----

// The pairs an invocation holds: local arrays passed along (inout), which drivers keep in registers
// more readily than module-scope ones (measured on lavapipe).
#define REGISTERS inout key_t reg_keys[ELEMS], inout uint reg_positions[ELEMS]
#define PASS_REGISTERS reg_keys, reg_positions
// Code over the registers is written out per register (and the steps per bit), so that every index is a
// constant whatever loops a driver unrolls: registers indexed at run time become memory.
#if KEY_BITS == 64
#define FOR_EACH_REGISTER(X) X(0) X(1) X(2) X(3) X(4) X(5) X(6) X(7)
#define FOR_EACH_BIT_DOWN(X) X(2) X(1) X(0)
#else
#define FOR_EACH_REGISTER(X) X(0) X(1) X(2) X(3) X(4) X(5) X(6) X(7) X(8) X(9) X(10) X(11) X(12) X(13) X(14) X(15)
#define FOR_EACH_BIT_DOWN(X) X(3) X(2) X(1) X(0)
#endif

// The slot of register r in the layout `lo`, where this invocation's slots differ in bits
// [lo, lo + ELEM_BITS) of the slot index and the invocation's index gives the other bits.
uint slot_of(uint r, uint lo) {
  const uint below = gl_LocalInvocationID.x & ((1u << lo) - 1u);
  return ((gl_LocalInvocationID.x - below) << ELEM_BITS) | (r << lo) | below;
}

// The layout that holds bit b: ELEM_BITS bits at a time from bit 0, the last layout ending at the tile's
// top bit (with 64-bit keys it shares a bit with the one below).
uint layout_of_bit(uint b) { return min(b / ELEM_BITS * ELEM_BITS, TILE_LOG2 - ELEM_BITS); }

void to_shared(REGISTERS, uint lo) {
#define TO_SHARED(R)                                 \
  shared_keys[slot_of(R, lo)] = reg_keys[R];         \
  shared_positions[slot_of(R, lo)] = reg_positions[R];
  FOR_EACH_REGISTER(TO_SHARED)
#undef TO_SHARED
}

void from_shared(REGISTERS, uint lo) {
#define FROM_SHARED(R)                               \
  reg_keys[R] = shared_keys[slot_of(R, lo)];         \
  reg_positions[R] = shared_positions[slot_of(R, lo)];
  FOR_EACH_REGISTER(FROM_SHARED)
#undef FROM_SHARED
}

// Orders registers a < b (a constant pair, so that they stay registers): ascending puts the smaller pair
// in a. Branch-free; two sentinels, the only equal pairs, may swap harmlessly.
void order_registers(REGISTERS, uint a, uint b, bool ascending) {
  const key_t key_a = reg_keys[a];
  const key_t key_b = reg_keys[b];
  const uint position_a = reg_positions[a];
  const uint position_b = reg_positions[b];
  const uint b_first = uint(key_b < key_a) | (uint(key_b == key_a) & uint(position_b < position_a));
  const bool swap = (b_first == 1u) == ascending;
  reg_keys[a] = swap ? key_b : key_a;
  reg_keys[b] = swap ? key_a : key_b;
  reg_positions[a] = swap ? position_b : position_a;
  reg_positions[b] = swap ? position_a : position_b;
}

// Comparator of register R at bit K of the layout, where R is the lower register of its pair.
#define COMPARE(K, R)                                                                    \
  if ((((R) >> (K)) & 1) == 0) {                                                         \
    order_registers(PASS_REGISTERS, R, (R) | (1 << (K)),                                 \
                    all_ascending || ((slot_of(R, lo) >> level) & 1u) == 0u);            \
  }
#define COMPARE_AT_0(R) COMPARE(0, R)
#define COMPARE_AT_1(R) COMPARE(1, R)
#define COMPARE_AT_2(R) COMPARE(2, R)
#define COMPARE_AT_3(R) COMPARE(3, R)
#define STEP_AT(K) \
  if (lo + K <= top && lo + K >= bottom) { FOR_EACH_REGISTER(COMPARE_AT_##K) }

// The steps at bits top down to bottom, which layout `lo` holds, of merge level `level`: comparators
// ascend where bit `level` of the slot is clear and descend elsewhere (the bitonic network's
// alternating blocks), or all ascend (the last level of a segment, and the one-direction form).
void register_steps(REGISTERS, uint lo, uint level, uint top, uint bottom, bool all_ascending) {
  FOR_EACH_BIT_DOWN(STEP_AT)
}

// Runs merge level `level`'s steps at bits top down to 0, changing layouts through shared memory where
// the next bit is another layout's. `lo` is the registers' layout, before and after (it ends at 0).
void merge_level(REGISTERS, inout uint lo, uint level, uint top, bool all_ascending) {
  for (int bit = int(top); bit >= 0;) {
    const uint next = layout_of_bit(uint(bit));
    if (next != lo) {
      to_shared(PASS_REGISTERS, lo);
      barrier();
      from_shared(PASS_REGISTERS, next);
      lo = next;
    }
    uint bottom = uint(bit);
    while (bottom > 0u && layout_of_bit(bottom - 1u) == next) --bottom;
    register_steps(PASS_REGISTERS, next, level, uint(bit), bottom, all_ascending);
    bit = int(bottom) - 1;
  }
}

// ---- the stages ----

// A segment slot of this workgroup's `segments` segments of 2^segment_log2 slots from `group_first`:
// its row and position there, and whether it holds an element.
struct SegmentSlot {
  uint row;
  uint position;
  bool holds;
};

SegmentSlot segment_slot(uint group_first, uint slot) {
  const uint segment_log2 = p.padded_log2;
  const uint segment = group_first + (slot >> segment_log2);
  // A branch rather than a select: lavapipe divides one lane at a time, and skips a branch no lane takes.
  uint row = segment;
  if (p.chunks != 1u) row = segment / p.chunks;
  const uint position = ((segment - row * p.chunks) << segment_log2) + (slot & ((1u << segment_log2) - 1u));
  const bool holds = (slot >> segment_log2) < p.segments && segment < p.rows * p.chunks && position < p.row_length;
  return SegmentSlot(row, position, holds);
}

// Register r of a segment slot in layout 0: loaded with its element's key (or the sentinel), stored to
// the outputs or the scratch.
void load_segment_register(REGISTERS, uint r, uint group_first) {
  const SegmentSlot at = segment_slot(group_first, slot_of(r, 0u));
  reg_keys[r] = KEY_MAX;
  reg_positions[r] = EMPTY;
  if (at.holds) {
    reg_keys[r] = sort_key(load_bits(locate_row(at.row).in_base + at.position * p.in_step));
    reg_positions[r] = at.position;
  }
}

void store_segment_register(REGISTERS, uint r, uint group_first, bool writes_outputs) {
  const SegmentSlot at = segment_slot(group_first, slot_of(r, 0u));
  if (!at.holds) return;
  if (writes_outputs) {
    write_output(locate_row(at.row), at.position, reg_positions[r]);
  } else {
    scratch_keys[at.row * p.row_length + at.position] = reg_keys[r];
    scratch_positions[at.row * p.row_length + at.position] = reg_positions[r];
  }
}

void sort_segments() {
  const uint segment_log2 = p.padded_log2;
  const uint total = p.rows * p.chunks;
  const bool writes_outputs = (p.shape & SHAPE_WRITES_OUTPUTS) != 0u;
  key_t reg_keys[ELEMS];
  uint reg_positions[ELEMS];
  for (uint group_first = gl_WorkGroupID.x * p.segments; group_first < total;
       group_first += gl_NumWorkGroups.x * p.segments) {
#define LOAD(R) load_segment_register(PASS_REGISTERS, R, group_first);
    FOR_EACH_REGISTER(LOAD)
#undef LOAD
    uint lo = 0u;
    for (uint level = 1u; level <= segment_log2; ++level) {
      merge_level(PASS_REGISTERS, lo, level, level - 1u, level == segment_log2);
    }
#define STORE(R) store_segment_register(PASS_REGISTERS, R, group_first, writes_outputs);
    FOR_EACH_REGISTER(STORE)
#undef STORE
    barrier();  // the next segments reuse shared memory
  }
}

void global_step() {
  const uint pairs_log2 = p.padded_log2 - 1u;  // comparators per row
  const uint total = p.rows << pairs_log2;
  const bool mirror = p.step_log2 + 1u == p.level_log2;
  for (uint q = gl_GlobalInvocationID.x; q < total; q += gl_NumWorkGroups.x * WORKGROUP_SIZE) {
    const uint row = q >> pairs_log2;
    const uvec2 pair = comparator(q & ((1u << pairs_log2) - 1u), p.step_log2, mirror);
    if (pair.y >= p.row_length) continue;
    const uint low = row * p.row_length + pair.x;
    const uint high = row * p.row_length + pair.y;
    const key_t low_key = scratch_keys[low];
    const key_t high_key = scratch_keys[high];
    const uint low_position = scratch_positions[low];
    const uint high_position = scratch_positions[high];
    if (before(high_key, high_position, low_key, low_position)) {
      scratch_keys[low] = high_key;
      scratch_keys[high] = low_key;
      scratch_positions[low] = high_position;
      scratch_positions[high] = low_position;
    }
  }
}

// Register r of a tile: loaded from slot s of the tile (the sentinel past the row's end), stored from
// its slot in layout 0 to the outputs or back to the scratch.
void load_tile_register(REGISTERS, uint r, uint s, uint start, uint base) {
  const bool inside = start + s < p.row_length;
  reg_keys[r] = inside ? scratch_keys[base + s] : KEY_MAX;
  reg_positions[r] = inside ? scratch_positions[base + s] : EMPTY;
}

void store_tile_register(REGISTERS, uint r, uint start, uint base, Row bases, bool writes_outputs) {
  const uint s = slot_of(r, 0u);
  if (start + s >= p.row_length) return;
  if (writes_outputs) {
    write_output(bases, start + s, reg_positions[r]);
  } else {
    scratch_keys[base + s] = reg_keys[r];
    scratch_positions[base + s] = reg_positions[r];
  }
}

void merge_tiles() {
  const uint tiles_per_row = (p.row_length + TILE - 1u) / TILE;
  const uint total = p.rows * tiles_per_row;
  const bool writes_outputs = (p.shape & SHAPE_WRITES_OUTPUTS) != 0u;
  const uint top_layout = layout_of_bit(TILE_LOG2 - 1u);
  key_t reg_keys[ELEMS];
  uint reg_positions[ELEMS];
  for (uint tile = gl_WorkGroupID.x; tile < total; tile += gl_NumWorkGroups.x) {
    const uint row = tile / tiles_per_row;
    const uint start = (tile - row * tiles_per_row) * TILE;
    const uint base = row * p.row_length + start;
#define LOAD(R) load_tile_register(PASS_REGISTERS, R, slot_of(R, top_layout), start, base);
    FOR_EACH_REGISTER(LOAD)
#undef LOAD
    uint lo = top_layout;
    merge_level(PASS_REGISTERS, lo, p.level_log2, TILE_LOG2 - 1u, true);
    const Row bases = locate_row(row);
#define STORE(R) store_tile_register(PASS_REGISTERS, R, start, base, bases, writes_outputs);
    FOR_EACH_REGISTER(STORE)
#undef STORE
    barrier();
  }
}

void main() {
  if (STAGE == STAGE_SEGMENTS) sort_segments();
  else if (STAGE == STAGE_GLOBAL_STEP) global_step();
  else merge_tiles();
}
