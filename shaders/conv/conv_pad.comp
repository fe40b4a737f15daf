#version 450
#extension GL_EXT_samplerless_texture_functions : require
// The padded copy of float32 planes that conv_rows.comp reads: padded[plane, r, x] = source[plane,
// r − shift_y, x − shift_x] where that lies inside the source plane, and zero elsewhere. Padded rows hold a
// multiple of four elements, written four at a time as one store.

#include "push_constants.glsl"

layout(local_size_x = 256) in;

layout(set = 0, binding = 0) writeonly buffer Padded { uvec4 padded_words[]; };
// The source through a texel view: llvmpipe fetches a texel for all lanes at once, where it loads a
// storage buffer lane by lane (which took most of this kernel's time).
layout(set = 0, binding = 1) uniform utextureBuffer source_texels;

struct Params {
  uint padded_first;  // padded's first word (of four elements) in its window
  uint source_first;  // source's first element in its view
  uint rows;          // padded rows to write: planes × padded_h
  uint source_h;
  uint source_w;
  uint padded_h;
  uint row_words;     // words per padded row
  int shift_y;
  int shift_x;
};
DECLARE_PUSH_CONSTANTS(Params)

// One invocation per padded row: llvmpipe divides lane by lane, so positions come from a division per
// row, not per word (per word, the divisions took most of the time).
void main() {
  COPY_PUSH_CONSTANTS();
  const uint row = gl_GlobalInvocationID.y * (gl_NumWorkGroups.x * 256u) + gl_GlobalInvocationID.x;
  if (row >= p.rows) return;
  const uint plane = row / p.padded_h;
  const int r = int(row - plane * p.padded_h) - p.shift_y;
  const bool inside_rows = r >= 0 && r < int(p.source_h);
  const int row_start = int(p.source_first + (plane * p.source_h + uint(max(r, 0))) * p.source_w);
  const int last_texel = textureSize(source_texels) - 1;
  uint word = p.padded_first + row * p.row_words;
  // Word w's elements x0 .. x0 + 3 (x0 = 4w − shift_x) of the source row lie in texels t + w and t + w + 1
  // from their element `phase`, the same for every word: each word fetches one texel and takes the other
  // from the word before.
  const int first = row_start - p.shift_x;
  const int t = first >> 2, phase = first & 3;
  vec4 lo = uintBitsToFloat(texelFetch(source_texels, clamp(t, 0, last_texel)));
  for (uint w = 0; w < p.row_words; ++w, ++word) {
    const int x0 = int(4u * w) - p.shift_x;
    const vec4 hi = uintBitsToFloat(texelFetch(source_texels, clamp(t + int(w) + 1, 0, last_texel)));
    const vec4 run = phase == 0 ? lo : phase == 1 ? vec4(lo.yzw, hi.x) : phase == 2 ? vec4(lo.zw, hi.xy) : vec4(lo.w, hi.xyz);
    vec4 value = vec4(0.0);
    for (int e = 0; e < 4; ++e) {
      if (inside_rows && x0 + e >= 0 && x0 + e < int(p.source_w)) value[e] = run[e];
    }
    padded_words[word] = floatBitsToUint(value);
    lo = hi;
  }
}
