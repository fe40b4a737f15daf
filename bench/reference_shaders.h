#pragma once
// The plainest shaders that do what ember's add and copy kernels do (bench/shaders/: one float32 element
// per invocation through storage-buffer descriptors), the reference that elementwise kernels are compared
// with in the same run. Vulkan devices only.
#include <cstdint>
#include <memory>

#include "ember.h"

namespace ember_bench {

// Which reference a kernel is compared with: the add reads two arrays, the copy one.
enum class Reference { Add, Copy };

// Float32 arrays of `bytes` each (out, then the inputs) and the dispatch of a reference shader over them.
class ReferenceLaunch {
 public:
  ReferenceLaunch(ember::Device& device, Reference kind, uint64_t bytes);
  void record(ember::Stream& stream) const;
  // Bytes read and written by one op.
  uint64_t bytes_per_op() const { return (kind_ == Reference::Add ? 3 : 2) * bytes_; }

 private:
  ember::Device& device_;
  Reference kind_;
  uint64_t bytes_;
  std::shared_ptr<ember::Allocation> out_, a_, b_;
};

// Whether the bench device runs the reference shaders.
bool has_reference_shaders();
// The reference's rate (bytes read and written per second) at `bytes`, measured once per run and size.
double reference_bytes_per_second(Reference kind, uint64_t bytes);

}  // namespace ember_bench
