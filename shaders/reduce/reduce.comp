#version 450
// One pass of a reduction. The launcher has split the input's dims into outer dims (kept: one result
// each, in output order) and inner dims (reduced). Groups of 2^k invocations share one output, so a
// workgroup serves 256 / 2^k outputs: short reductions take one invocation each, long ones a whole
// workgroup. Workgroup x of the grid is a chunk of the reduction; the y grid strides over output groups.
//
// Each invocation merges a short strided run of elements (at most 64), then its group merges
// the invocations as a tree in shared memory. A reduction longer than one chunk writes one partial
// state per (output, chunk) to a scratch buffer, and further passes of this shader (STAGE bit 0) merge
// those states in the same way, so every sum is a tree of short sequential runs.
//
// SUBGROUP_MERGE (the reduce_*_subgroup variants, for devices with subgroup shuffles in compute and
// subgroups of a power of two): the tree's levels within a subgroup are shuffles, and a group wider than a
// subgroup meets in shared memory once, so an output group costs two barriers instead of one per level.
// llvmpipe runs each barrier() as a switch through the workgroup's 32 coroutines: a sum of 1.6 M floats
// took 1.61-1.72 ms per pass this way against 1.91-1.93 with the tree (docs/PERFORMANCE.md).
#if defined(SUBGROUP_MERGE)
#extension GL_KHR_shader_subgroup_basic : enable
#extension GL_KHR_shader_subgroup_shuffle : enable
#endif
#include "typed_operands.glsl"
#include "push_constants.glsl"
#include "blocks.glsl"

#define WORKGROUP_SIZE 256
#define MAX_DIMS 11  // outer plus inner dims; 124 bytes of push constants
layout(local_size_x = WORKGROUP_SIZE) in;

layout(constant_id = 0) const uint IN_DT = DT_F32;
layout(constant_id = 1) const uint OUT_DT = DT_F32;
layout(constant_id = 2) const uint OP = 0;
// Bit 0: the input is partial states (binding 3) rather than elements; bit 1: write partial states
// (binding 4) rather than results; bit 2: read the elements in blocks of four (below).
layout(constant_id = 3) const uint STAGE = 0;
const bool READS_STATES = (STAGE & 1u) != 0u;
const bool WRITES_STATES = (STAGE & 2u) != 0u;
// READS_BLOCKS: the innermost reduced dim has stride 1 and every run of it starts on a whole block of
// four 32-bit elements (the host checks sizes, strides and offset), so each invocation reads four
// neighbouring elements through one uvec4 load (blocks.glsl) and merges them in order. On lavapipe a
// sum over 1.6 M floats read one element per load took 10 ms, against 1.8 ms for a ReLU over the same
// tensor through blocks (docs/PERFORMANCE.md).
const bool READS_BLOCKS = (STAGE & 4u) != 0u;
// Bit 3, READS_COLUMNS: the reduced dims lie outside the innermost kept dim, which has stride 1 and
// comes in whole blocks of four (a sum over the rows of a matrix, say). Each invocation serves four
// neighbouring outputs, reading one block per reduction index, where one output per invocation read
// one strided element per load: on lavapipe a sum over the rows of a 2048×2048 float32 matrix took
// 28 ms that way (0.56 GB/s), against 8 ms over its columns (docs/PERFORMANCE.md).
const bool READS_COLUMNS = (STAGE & 8u) != 0u;

#include "reduce_functions.glsl"

DECLARE_OPERAND(0, dst, writeonly)
DEFINE_STORE(dst, OUT_DT)
layout(set = 0, binding = 1) writeonly buffer Indices { uvec2 indices[]; };
DECLARE_OPERAND(2, src, readonly)
DEFINE_LOAD(src, IN_DT)
DECLARE_BLOCK_VIEWS(2, src, readonly)
DEFINE_LOAD4(src, IN_DT)
// TEXEL_READS (reduce_f32_subgroup_texel): float32 blocks come from a uvec4 texel view of the input's
// window (binding 5), which llvmpipe fetches for all lanes of a vector at once, where it loads a storage
// buffer lane by lane. The host takes it where the window starts on the texel alignment.
#if defined(TEXEL_READS)
layout(set = 0, binding = 5) uniform utextureBuffer src_texels;
compute4_t read_block(uint block) {
  if (IN_DT != DT_F32) return src_load4(block);
  return compute4_t(uintBitsToFloat(texelFetch(src_texels, int(block))));
}
#else
compute4_t read_block(uint block) { return src_load4(block); }
#endif
layout(set = 0, binding = 3) readonly buffer StatesIn { uint states_in[]; };
layout(set = 0, binding = 4) writeonly buffer StatesOut { uint states_out[]; };

struct Params {
  uvec2 param;      // in compute_t's bits: correction, p, or the element count of Mean; Max, Min: see main()
  uint in_offset;   // first element (or state) of the input in its window
  uint out_offset;  // first result in the output window (or first state in the scratch)
  uint idx_offset;  // first result in the indices window
  uint outputs;
  uint reduced;     // elements (or states) reduced per output
  uint chunk;       // elements (or states) of one reduction per workgroup along x
  // Bits 0-7: log2 of the invocations per output; 8-15: outer dims; 16-23: inner dims; bit 24: write
  // values; bit 25: write indices.
  uint shape;
  uint sizes[MAX_DIMS];    // outer dims, then inner dims
  uint strides[MAX_DIMS];  // of the input, in elements (states)
};
DECLARE_PUSH_CONSTANTS(Params)

// Element offset of coordinate `index` over dims [first, first + count), row-major.
uint dims_offset(uint index, uint first, uint count) {
  if (count == 1u) return index * p.strides[first];
  uint offset = 0u;
  for (int d = int(first + count) - 1; d >= int(first); --d) {
    const uint size = p.sizes[d];
    offset += (index % size) * p.strides[d];
    index /= size;
  }
  return offset;
}

// Compute words of one state in the scratch: a, b, then c.
#if defined(COMPUTE_F64) || defined(COMPUTE_I64)
#define VALUE_WORDS 2u
#else
#define VALUE_WORDS 1u
#endif
#define STATE_WORDS (2u * VALUE_WORDS + 1u)

uvec2 value_to_words(compute_t v) {
#if defined(COMPUTE_F64)
  return unpackDouble2x32(v);
#elif defined(COMPUTE_I64)
  return unpack32(uint64_t(v));
#elif defined(COMPUTE_I32)
  return uvec2(uint(v), 0u);
#else
  return uvec2(floatBitsToUint(v), 0u);
#endif
}

compute_t value_from_words(uvec2 w) {
#if defined(COMPUTE_F64)
  return packDouble2x32(w);
#elif defined(COMPUTE_I64)
  return int64_t(pack64(w));
#elif defined(COMPUTE_I32)
  return int(w.x);
#else
  return uintBitsToFloat(w.x);
#endif
}

State load_state(uint i) {
  const uint w = i * STATE_WORDS;
  State s;
  s.a = value_from_words(uvec2(states_in[w], VALUE_WORDS == 2u ? states_in[w + 1u] : 0u));
  s.b = value_from_words(uvec2(states_in[w + VALUE_WORDS],
                               VALUE_WORDS == 2u ? states_in[w + VALUE_WORDS + 1u] : 0u));
  s.c = states_in[w + 2u * VALUE_WORDS];
  return s;
}

void store_state(uint i, State s) {
  const uint w = i * STATE_WORDS;
  const uvec2 a = value_to_words(s.a);
  const uvec2 b = value_to_words(s.b);
  states_out[w] = a.x;
  if (VALUE_WORDS == 2u) states_out[w + 1u] = a.y;
  states_out[w + VALUE_WORDS] = b.x;
  if (VALUE_WORDS == 2u) states_out[w + VALUE_WORDS + 1u] = b.y;
  states_out[w + 2u * VALUE_WORDS] = s.c;
}

shared compute_t shared_a[WORKGROUP_SIZE];
shared compute_t shared_b[WORKGROUP_SIZE];
shared uint shared_c[WORKGROUP_SIZE];

void put_shared(uint slot, State s) {
  shared_a[slot] = s.a;
  shared_b[slot] = s.b;
  shared_c[slot] = s.c;
}

State get_shared(uint slot) { return State(shared_a[slot], shared_b[slot], shared_c[slot]); }

// The invocation's place in the workgroup: subgroup by subgroup under SUBGROUP_MERGE, so that a group
// of up to a subgroup's size lies in one subgroup.
uint invocation_slot() {
#if defined(SUBGROUP_MERGE)
  return gl_SubgroupID * gl_SubgroupSize + gl_SubgroupInvocationID;
#else
  return gl_LocalInvocationID.x;
#endif
}

#if defined(SUBGROUP_MERGE)
compute_t shuffle_xor(compute_t v, uint mask) {
  const uvec2 w = value_to_words(v);
  return value_from_words(uvec2(subgroupShuffleXor(w.x, mask), VALUE_WORDS == 2u ? subgroupShuffleXor(w.y, mask) : 0u));
}

// Merges the states of each run of `width` lanes (a power of two, at most the subgroup) as a butterfly:
// at each level lane l and lane l ^ w merge the same two states, the lower lane's first, so every lane
// of the run ends with its total, and the pairs are those of the shared-memory tree below.
State subgroup_merge(State s, uint width) {
  for (uint w = width >> 1; w > 0u; w >>= 1) {
    const State other = State(shuffle_xor(s.a, w), shuffle_xor(s.b, w), subgroupShuffleXor(s.c, w));
    s = (gl_SubgroupInvocationID & w) == 0u ? merge(s, other) : merge(other, s);
  }
  return s;
}
#endif

// Merges the states of each group of `group` consecutive invocations (slots) as a pairwise tree; the
// group's first invocation gets the result. Every invocation of the workgroup must call it.
State group_merge(State s, uint lane, uint group) {
  if (group == 1u) return s;
  const uint slot = invocation_slot();
#if defined(SUBGROUP_MERGE)
  const uint size = gl_SubgroupSize;
  s = subgroup_merge(s, min(group, size));
  if (group <= size) return s;
  // One total per subgroup, through shared memory; each subgroup of the group then merges them all, in
  // order: sequentially per lane (every size-th total), then across its lanes.
  if (gl_SubgroupInvocationID == 0u) put_shared(slot, s);
  barrier();
  const uint first = slot - lane;
  const uint parts = group / size;
  State total = identity();
  for (uint q = gl_SubgroupInvocationID; q < parts; q += size) total = merge(total, get_shared(first + q * size));
  total = subgroup_merge(total, min(parts, size));
  barrier();  // shared memory is reused by the next output group
  return total;
#else
  put_shared(slot, s);
  barrier();
  for (uint width = group >> 1; width > 0u; width >>= 1) {
    if (lane < width) put_shared(slot, merge(get_shared(slot), get_shared(slot + width)));
    barrier();
  }
  const State total = get_shared(slot - lane);
  barrier();  // shared memory is reused by the next output group
  return total;
#endif
}

void store_result(uint output_index, State s, compute_t param) {
  if ((p.shape & (1u << 24)) != 0u) {
    if (RESULT_IS_COUNT) {
      const uint count = finalize_count(s);
      if (OUT_DT == DT_I64) {
        dst_64[p.out_offset + output_index] = uvec2(count, 0u);
      } else {
        dst_store(p.out_offset + output_index, compute_t(count));
      }
    } else {
      dst_store(p.out_offset + output_index, finalize_value(s, param));
    }
  }
  if ((p.shape & (1u << 25)) != 0u) indices[p.idx_offset + output_index] = uvec2(s.c - 1u, 0u);
}

// What main() and reduce_columns() read from the push constants and their invocation: the shape's fields,
// the invocation's group of `group` lanes sharing outputs, the op's parameter, and this workgroup's chunk
// [begin, end) of the reduction. Max and Min take no parameter: when the launcher splits a reduction into
// pieces along its reduced dims, the parameter is the reduction index of the piece's first element
// (index_base).
#define PASS_PROLOGUE                                                                                \
  const uint group_log2 = p.shape & 0xffu;                                                           \
  const uint outer_dims = (p.shape >> 8) & 0xffu;                                                    \
  const uint inner_dims = (p.shape >> 16) & 0xffu;                                                   \
  const uint group = 1u << group_log2;                                                               \
  const uint slot = invocation_slot();                                                               \
  const uint lane = slot & (group - 1u);                                                             \
  const compute_t param = scalar_from_bits(p.param);                                                 \
  const uint index_base = OP == REDUCE_KERNEL_OP_MAX || OP == REDUCE_KERNEL_OP_MIN ? p.param.x : 0u; \
  const uint chunk_index = gl_WorkGroupID.x;                                                         \
  const uint begin = chunk_index * p.chunk;                                                          \
  const uint end = begin + min(p.chunk, p.reduced - min(begin, p.reduced));

// main() under READS_COLUMNS: output blocks of four take the place of outputs, and every merge happens
// once per output of the block (up to 64 elements per output, in main()'s order). The launcher gives an
// output block no more invocations than one subgroup holds (one without SUBGROUP_MERGE), so they merge by
// shuffles and the shader has no barrier: llvmpipe runs a shader that has one as a coroutine per
// subgroup, switching at each barrier, and a sum over 8 × 18432 floats took 0.39-0.62 ms per call with
// group_merge here against 0.26-0.36 ms without (docs/PERFORMANCE.md, "Reductions over outer dims").
void reduce_columns() {
  PASS_PROLOGUE
  const uint blocks_per_workgroup = WORKGROUP_SIZE >> group_log2;
  const uint blocks = p.outputs / uint(BLOCK_ELEMENTS);

  for (uint first = gl_WorkGroupID.y * blocks_per_workgroup; first < blocks;
       first += gl_NumWorkGroups.y * blocks_per_workgroup) {
    const uint block = first + (slot >> group_log2);
    State s[BLOCK_ELEMENTS];
    for (int e = 0; e < BLOCK_ELEMENTS; ++e) s[e] = identity();
    if (block < blocks) {
      const uint base = p.in_offset + dims_offset(block * uint(BLOCK_ELEMENTS), 0u, outer_dims);
      for (uint r = begin + lane; r < end; r += group) {
        const compute4_t v = read_block((base + dims_offset(r, outer_dims, inner_dims)) / uint(BLOCK_ELEMENTS));
        for (int e = 0; e < BLOCK_ELEMENTS; ++e) s[e] = merge(s[e], lift(v[e], r + index_base, param));
      }
    }
#if defined(SUBGROUP_MERGE)
    if (group > 1u) {
      for (int e = 0; e < BLOCK_ELEMENTS; ++e) s[e] = subgroup_merge(s[e], group);
    }
#endif
    if (lane == 0u && block < blocks) {
      for (int e = 0; e < BLOCK_ELEMENTS; ++e) {
        const uint output_index = block * uint(BLOCK_ELEMENTS) + uint(e);
        if (WRITES_STATES) {
          store_state(p.out_offset + output_index * gl_NumWorkGroups.x + chunk_index, s[e]);
        } else {
          store_result(output_index, s[e], param);
        }
      }
    }
  }
}

void main() {
  COPY_PUSH_CONSTANTS();
  if (READS_COLUMNS) {
    reduce_columns();
    return;
  }
  PASS_PROLOGUE
  const uint outputs_per_workgroup = WORKGROUP_SIZE >> group_log2;

  for (uint first = gl_WorkGroupID.y * outputs_per_workgroup; first < p.outputs;
       first += gl_NumWorkGroups.y * outputs_per_workgroup) {
    const uint output_index = first + (slot >> group_log2);
    State s = identity();
    if (output_index < p.outputs) {
      const uint base = p.in_offset + (outer_dims == 0u ? 0u : dims_offset(output_index, 0u, outer_dims));
      // Two reduced dims (say N and HW of NCHW) step as a two-digit counter: integer division runs one
      // lane at a time on lavapipe, so it happens once per invocation rather than per element. Other
      // counts use dims_offset, which needs no division for one dim.
      const bool counter = inner_dims == 2u;
      const uint low_size = counter ? p.sizes[outer_dims + 1u] : 1u;
      const uint step = READS_BLOCKS ? uint(BLOCK_ELEMENTS) : 1u;  // elements per read
      const uint high_step = group * step / low_size;
      const uint low_step = group * step % low_size;
      uint high = (begin + lane * step) / low_size;
      uint low = (begin + lane * step) % low_size;
      for (uint r = begin + lane * step; r < end; r += group * step) {
        const uint at = base + (counter ? high * p.strides[outer_dims] + low * p.strides[outer_dims + 1u]
                                        : dims_offset(r, outer_dims, inner_dims));
        if (READS_BLOCKS) {
          const compute4_t v = read_block(at / uint(BLOCK_ELEMENTS));
          for (int e = 0; e < BLOCK_ELEMENTS; ++e) s = merge(s, lift(v[e], r + uint(e) + index_base, param));
        } else {
          s = merge(s, READS_STATES ? load_state(at) : lift(src_load(at), r + index_base, param));
        }
        high += high_step;
        low += low_step;
        if (low >= low_size) {
          low -= low_size;
          ++high;
        }
      }
    }
    s = group_merge(s, lane, group);
    if (lane == 0u && output_index < p.outputs) {
      if (WRITES_STATES) {
        store_state(p.out_offset + output_index * gl_NumWorkGroups.x + chunk_index, s);
      } else {
        store_result(output_index, s, param);
      }
    }
  }
}
