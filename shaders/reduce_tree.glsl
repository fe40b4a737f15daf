// Workgroup tree reduction in shared memory: pairwise order, so the rounding error grows with the log of
// the count rather than linearly. Every invocation must call it.
#ifndef EMBER_REDUCE_TREE_GLSL
#define EMBER_REDUCE_TREE_GLSL

shared float tree[WORKGROUP_SIZE];

float workgroup_sum(float value) {
  tree[gl_LocalInvocationID.x] = value;
  barrier();
  for (uint width = WORKGROUP_SIZE / 2; width > 0; width /= 2) {
    if (gl_LocalInvocationID.x < width) {
      tree[gl_LocalInvocationID.x] += tree[gl_LocalInvocationID.x + width];
    }
    barrier();
  }
  return tree[0];
}

#endif
