#version 450
// The padded copy of float32 planes that conv_rows.comp reads: padded[plane, r, x] = source[plane,
// r − shift_y, x − shift_x] where that lies inside the source plane, and zero elsewhere. Padded rows hold a
// multiple of four elements, written four at a time as one store.

layout(local_size_x = 256) in;

layout(set = 0, binding = 0) writeonly buffer Padded { uvec4 padded_words[]; };
layout(set = 0, binding = 1) readonly buffer Source { float source_data[]; };

layout(push_constant) uniform Params {
  uint padded_first;  // padded's first word (of four elements) in its window
  uint source_first;  // source's first element in its window
  uint rows;          // padded rows to write: planes × padded_h
  uint source_h;
  uint source_w;
  uint padded_h;
  uint row_words;     // words per padded row
  int shift_y;
  int shift_x;
} p;

// One invocation per padded row: llvmpipe divides lane by lane, so positions come from a division per
// row, not per word (per word, the divisions took most of the time).
void main() {
  const uint row = gl_GlobalInvocationID.y * (gl_NumWorkGroups.x * 256u) + gl_GlobalInvocationID.x;
  if (row >= p.rows) return;
  const uint plane = row / p.padded_h;
  const int r = int(row - plane * p.padded_h) - p.shift_y;
  const bool inside_rows = r >= 0 && r < int(p.source_h);
  const uint source_row = p.source_first + (plane * p.source_h + uint(max(r, 0))) * p.source_w;
  uint word = p.padded_first + row * p.row_words;
  for (uint w = 0; w < p.row_words; ++w, ++word) {
    vec4 value = vec4(0.0);
    for (uint e = 0; e < 4u; ++e) {
      const int x = int(4u * w + e) - p.shift_x;
      if (inside_rows && x >= 0 && x < int(p.source_w)) value[e] = source_data[source_row + uint(x)];
    }
    padded_words[word] = floatBitsToUint(value);
  }
}
