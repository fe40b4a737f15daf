// launch_item(): this invocation's item in a launch of one item per invocation, in rows of workgroups
// when one row cannot cover the launch (groups_for_items in contiguous_launch.h). No grid-stride loop: it
// cost llvmpipe a quarter of a plain copy's speed. The including shader defines WORKGROUP_SIZE.
#ifndef EMBER_LAUNCH_ITEM_GLSL
#define EMBER_LAUNCH_ITEM_GLSL

uint launch_item() {
  return gl_GlobalInvocationID.x + gl_GlobalInvocationID.y * gl_NumWorkGroups.x * WORKGROUP_SIZE;
}

#endif
