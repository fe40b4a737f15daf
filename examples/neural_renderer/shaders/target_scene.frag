#version 450
// The picture the network learns: a dusk sky, a sun, two discs and a striped field. Edges are smoothed
// over one pixel so that the target has no detail finer than the pixel grid can hold.
layout(push_constant) uniform Frame { ivec2 size; } frame;
layout(location = 0) out vec4 colour;

float pixel;  // one pixel in uv units

vec3 over_disc(vec3 below, vec2 uv, vec2 centre, float radius, vec3 fill) {
  const float inside = 1.0 - smoothstep(radius - pixel, radius + pixel, distance(uv, centre));
  return mix(below, fill, inside);
}

void main() {
  const vec2 uv = gl_FragCoord.xy / vec2(frame.size);  // (0, 0) is the top left corner
  pixel = 1.0 / float(frame.size.x);
  vec3 c = mix(vec3(0.10, 0.15, 0.45), vec3(0.95, 0.60, 0.35), uv.y);
  c = over_disc(c, uv, vec2(0.70, 0.32), 0.17, vec3(1.00, 0.85, 0.20));
  c = over_disc(c, uv, vec2(0.28, 0.42), 0.14, vec3(0.85, 0.15, 0.25));
  c = over_disc(c, uv, vec2(0.45, 0.58), 0.10, vec3(0.20, 0.60, 0.95));
  const float ground = smoothstep(0.70 - pixel, 0.70 + pixel, uv.y);
  const float stripe = smoothstep(0.45, 0.55, abs(fract((uv.x + uv.y) * 5.0) * 2.0 - 1.0));
  c = mix(c, mix(vec3(0.10, 0.40, 0.15), vec3(0.30, 0.70, 0.25), stripe), ground);
  colour = vec4(c, 1.0);
}
