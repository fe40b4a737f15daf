// DECLARE_PUSH_CONSTANTS(TYPE): the push-constant block, holding one TYPE (a struct with the shader's
// parameters), and `p`, a copy of it that main() makes first with COPY_PUSH_CONSTANTS().
//
// Why a copy: llvmpipe (lavapipe) loads a push constant with one scalar load only while every invocation
// of the vector must be active; after a branch or an early return, and inside a loop, each read becomes an
// eight-lane gather with a bounds check (its JIT code, read with gdb, 2026-12-05). Copied at the top of
// main(), every parameter costs one scalar load, and the shader's later reads are of registers.
#ifndef EMBER_PUSH_CONSTANTS_GLSL
#define EMBER_PUSH_CONSTANTS_GLSL

#define DECLARE_PUSH_CONSTANTS(TYPE)                             \
  layout(push_constant) uniform PushConstants { TYPE params; } push; \
  TYPE p;
#define COPY_PUSH_CONSTANTS() p = push.params

#endif
