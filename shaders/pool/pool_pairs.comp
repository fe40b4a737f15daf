#version 450
// 2×2 max and average pooling with stride 2 over float32 planes of an even height and width that lie one
// after the other in every operand (the CNN's pooling), forward and (BACKWARD) backward, four elements
// per invocation moved as whole uvec4 words: lavapipe stores a storage buffer one lane at a time, so one
// 16-byte store costs what a 4-byte one does, and the generic kernels' one store per element (three per
// output forward, with the int64 index) was most of their time. OP (pool_common.glsl) is POOL_OP_MAX or
// POOL_OP_AVG; average pooling has no indices, and binding 1 then holds the read operand, unused.
//
// Such planes flatten: output row r of the launch (over all its planes) pools input rows 2r and 2r + 1,
// so output j's window starts at element 2 (j + r out_w) of the input, and the window's two pairs of
// columns sit in one half of a uvec4 texel each. The host (pool_launcher.cpp) checks the layout.
#include "pool_common.glsl"
#include "launch_item.glsl"  // four elements per item

layout(set = 0, binding = 0) writeonly buffer Written { uvec4 written_v128[]; };
#if defined(BACKWARD)
layout(set = 0, binding = 1) uniform utextureBuffer indices_texels;
layout(set = 0, binding = 2) uniform utextureBuffer grad_out_texels;
#else
layout(set = 0, binding = 1) writeonly buffer Indices { uvec4 indices_v128[]; };
layout(set = 0, binding = 2) uniform utextureBuffer in_texels;
#endif


// Average pooling's divisor: the override, else the window's four elements (no padding reaches here).
float pairs_divisor() { return p.divisor_override != 0 ? float(p.divisor_override) : 4.0; }

#if defined(BACKWARD) && defined(WINDOW_ROWS)

// Planes of an even output width: outputs 2 item and 2 item + 1 lie in one output row, and their windows
// cover four adjacent elements of each of two input rows, which this invocation writes as two uvec4
// words. Each output's gradient and index are then fetched once, where the kernel below (any even input
// width) fetches them once per input row.
void main() {
  COPY_PUSH_CONSTANTS();
  const uint items = p.plane_sizes[0] * p.plane_sizes[1] * p.out_h * p.out_w / 2u;
  const uint item = launch_item();
  if (item >= items) return;
  const uint j = 2u * item;
  const uint row = divide_small(j, p.out_w);  // of the launch
  const uint col = j - row * p.out_w;
  const uint oh = row - divide_small(row, p.out_h) * p.out_h;  // of its plane
  const uint corner = 2u * oh * p.in_w + 2u * col;       // output j's window in its plane
  const float grad0 = float_from_texels(grad_out_texels, p.out_offset + j);
  const float grad1 = float_from_texels(grad_out_texels, p.out_offset + j + 1u);
  // The top row's four elements start at element 2 j + 2 row out_w of the launch (input rows hold 2 out_w).
  const uint top = (p.in_offset >> 2) + (j + row * p.out_w) / 2u;
  if (OP == POOL_OP_AVG) {
    const uint s0 = floatBitsToUint(grad0 / pairs_divisor()), s1 = floatBitsToUint(grad1 / pairs_divisor());
    for (uint r = 0; r < 2u; ++r) written_v128[top + r * (p.in_w >> 2)] = uvec4(s0, s0, s1, s1);
    return;
  }
  const uint g0 = floatBitsToUint(grad0), g1 = floatBitsToUint(grad1);
  // int64 indices: texel element 2e holds index e's low word.
  const uvec2 i0 = pair_from_texels(indices_texels, 2u * (p.indices_offset + j));
  const uvec2 i1 = pair_from_texels(indices_texels, 2u * (p.indices_offset + j + 1u));
  for (uint r = 0; r < 2u; ++r) {
    const uint at = corner + r * p.in_w;
    written_v128[top + r * (p.in_w >> 2)] = uvec4(i0 == uvec2(at, 0u) ? g0 : 0u, i0 == uvec2(at + 1u, 0u) ? g0 : 0u,
                                                  i1 == uvec2(at + 2u, 0u) ? g1 : 0u, i1 == uvec2(at + 3u, 0u) ? g1 : 0u);
  }
}

#elif defined(BACKWARD)

// grad_in's elements 4 item .. 4 item + 3: two pairs of columns, each in one output's window.
void main() {
  COPY_PUSH_CONSTANTS();
  const uint items = p.plane_sizes[0] * p.plane_sizes[1] * p.in_h * p.in_w / 4u;
  const uint item = launch_item();
  if (item >= items) return;
  // Pair q of the launch lies in input row q / out_w (an input row holds out_w pairs), which is row
  // h of its plane, at pair column pc.
  const uint q = 2u * item;
  uint row = divide_small(q, p.out_w);
  uint pc = q - row * p.out_w;
  uint h = row - divide_small(row, p.in_h) * p.in_h;
  uint bits[4];
  for (int k = 0; k < 2; ++k) {
    const uint j = (row >> 1) * p.out_w + pc;
    const float grad = float_from_texels(grad_out_texels, p.out_offset + j);
    if (OP == POOL_OP_AVG) {
      bits[2 * k] = bits[2 * k + 1] = floatBitsToUint(grad / pairs_divisor());
    } else {
      const uint g = floatBitsToUint(grad);
      const uint e = p.indices_offset + j;  // an int64 index: texel element 2e holds its low word
      const uvec2 index = pair_from_texels(indices_texels, 2u * e);
      const uint first = h * p.in_w + 2u * pc;
      bits[2 * k] = index == uvec2(first, 0u) ? g : 0u;
      bits[2 * k + 1] = index == uvec2(first + 1u, 0u) ? g : 0u;
    }
    if (++pc == p.out_w) {
      pc = 0u;
      ++row;
      if (++h == p.in_h) h = 0u;
    }
  }
  written_v128[(p.in_offset >> 2) + item] = uvec4(bits[0], bits[1], bits[2], bits[3]);
}

#else

#define NEGATIVE_INFINITY uintBitsToFloat(0xff800000u)

// Outputs 4 item .. 4 item + 3, and max pooling's indices.
void main() {
  COPY_PUSH_CONSTANTS();
  const uint items = p.plane_sizes[0] * p.plane_sizes[1] * p.out_h * p.out_w / 4u;
  const uint item = launch_item();
  if (item >= items) return;
  const uint first = 4u * item;
  uint row = divide_small(first, p.out_w);  // of the launch
  uint col = first - row * p.out_w;
  uint oh = row - divide_small(row, p.out_h) * p.out_h;  // of its plane
  vec4 best;
  uvec4 where;
  for (int k = 0; k < 4; ++k) {
    const uint e = p.in_offset + 2u * (first + uint(k) + row * p.out_w);
    const uvec2 top = pair_from_texels(in_texels, e);
    const uvec2 bottom = pair_from_texels(in_texels, e + p.in_w);
    const float window[4] = {uintBitsToFloat(top.x), uintBitsToFloat(top.y), uintBitsToFloat(bottom.x),
                             uintBitsToFloat(bottom.y)};
    if (OP == POOL_OP_AVG) {
      // In PyTorch's order: from zero, row by row.
      float sum = 0.0;
      for (int i = 0; i < 4; ++i) sum += window[i];
      best[k] = sum / pairs_divisor();
    } else {
      // PyTorch's CPU rule, as pool.comp's max_window: the first largest, a NaN over any number and a
      // later NaN over an earlier one.
      const uint corner = 2u * oh * p.in_w + 2u * col;
      const uint offsets[4] = {0u, 1u, p.in_w, p.in_w + 1u};
      best[k] = NEGATIVE_INFINITY;
      where[k] = corner;
      for (int i = 0; i < 4; ++i) {
        if (window[i] > best[k] || isnan(window[i])) {
          best[k] = window[i];
          where[k] = corner + offsets[i];
        }
      }
    }
    if (++col == p.out_w) {
      col = 0u;
      ++row;
      if (++oh == p.out_h) oh = 0u;
    }
  }
  written_v128[(p.out_offset >> 2) + item] = floatBitsToUint(best);
  if (OP == POOL_OP_AVG) return;
  const uint index_words = (p.indices_offset >> 1) + 2u * item;
  indices_v128[index_words] = uvec4(where.x, 0u, where.y, 0u);
  indices_v128[index_words + 1u] = uvec4(where.z, 0u, where.w, 0u);
}

#endif
