#version 450
// Draws the network's prediction: ember's tensor of H*W*3 floats (row-major pixels, RGB in [0, 1]),
// bound as a storage buffer. The colour attachment is UNORM, so values outside [0, 1] clamp.
layout(std430, set = 0, binding = 0) readonly buffer Prediction { float rgb[]; } prediction;
layout(push_constant) uniform Frame { ivec2 size; } frame;
layout(location = 0) out vec4 colour;

void main() {
  const ivec2 texel = ivec2(gl_FragCoord.xy);
  const int first = (texel.y * frame.size.x + texel.x) * 3;
  colour = vec4(prediction.rgb[first], prediction.rgb[first + 1], prediction.rgb[first + 2], 1.0);
}
