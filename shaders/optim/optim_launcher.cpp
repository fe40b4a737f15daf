// Launcher of the fused optimizer step (optim.comp): every parameter of a call in one dispatch where the
// memory allows it.
//
// Why windows of shared blocks and a table in memory. A Vulkan dispatch sees memory through at most 8
// storage-buffer bindings here (push descriptors), and one binding reaches one buffer: a descriptor per
// tensor would allow one or two parameters per dispatch, each dispatch costing ~70 us on lavapipe. Device
// addresses would reach every tensor, but the runtime does not enable them, and on lavapipe they ran
// 3x slower than descriptors (docs DESIGN.md, "Binding limits"). Tensors, however, are sub-allocations of
// large blocks (runtime/allocator.h): a model's small parameters share a few 2 MiB blocks, its gradients
// a few more, and the optimizer keeps each state buffer of a group in one allocation (optim/). So each
// role (parameter, gradient, the three state slots, the step counts) gets one binding, a window of one
// block that covers that role's tensors, and a table in device memory (binding 0) lists the segments
// with their element offsets in the windows. A segment is a run of one parameter, so a parameter larger
// than a binding is split into segments; a launch ends where a role's next tensor lies in another block
// or beyond the window's reach (at most maxStorageBufferRange), or the workgroups would outnumber the
// device's limit, and the next launch takes new windows. The table depends only on where the tensors lie
// and on the per-parameter flags, which repeat from step to step, so it is uploaded once and cached.
//
// The windows cover memory of other tensors in between; the kernel touches only its own elements, and
// every allocation in a window has its use recorded, so no other stream or host write reuses it early.
#include <algorithm>
#include <cmath>
#include <cstring>
#include <list>
#include <mutex>
#include <string>

#include "runtime/allocator.h"
#include "runtime/error.h"
#include "runtime/kernels/optim.h"
#include "shaders/common/vulkan_family.h"
#include "shaders/reduce/reduce_plan.h"

namespace ember::vulkan {

namespace {

constexpr uint32_t kTile = 8192;             // TILE in optim.comp
constexpr uint32_t kEntryWords = 16;          // ENTRY_WORDS in optim.comp
constexpr int64_t kSegmentElements = 1 << 22;  // a segment stays well inside a window
constexpr int kRoles = 6;                      // param, grad, state 0 to 2, steps
constexpr int kStepsRole = 5;
constexpr int kTexelRoles = 5;  // optim_f32_texel reads param, grad and state 0 to 2 through texel views
constexpr size_t kCachedTables = 32;

// The launch's own flags, as optim.comp defines them, above the formulas' (optim_kernel_options).
constexpr uint32_t kBlocks = 128, kSkippable = 256;
constexpr uint32_t kSegmentFresh = 1, kSegmentParity = 2;

struct OptimParams {
  uint32_t first_entry;
  uint32_t entries;
  uint32_t flags;
  uint32_t skip_index;
  uint32_t h[10][2];
};
static_assert(sizeof(OptimParams) == 96);

const KernelAbiRegistration kAbis{
    {"optim_f32", 8, sizeof(OptimParams)},
    {"optim_f64", 8, sizeof(OptimParams)},
    {"optim_f32_texel", 7 + kTexelRoles, sizeof(OptimParams)},
};

// A byte range of one block: [begin, end) from the start of the block's buffer.
struct Range {
  Allocation* allocation = nullptr;
  uint64_t begin = 0;
  uint64_t end = 0;
};

// The memory one role's binding covers in a launch.
struct RoleWindow {
  Allocation* allocation = nullptr;  // any allocation of the block, for the binding
  uint64_t begin = 0;
  uint64_t end = 0;
  bool write = false;
};

struct Segment {
  size_t tensor;
  int64_t first;  // elements into the tensor
  int64_t count;
  std::array<Range, kRoles> ranges;
};

struct Launch {
  std::vector<Segment> segments;
  std::array<RoleWindow, kRoles> windows;
  uint32_t groups = 0;
};

uint64_t align_down(uint64_t value, uint64_t alignment) { return value / alignment * alignment; }

// Whether `window` can take `range` too and stay within `limit` bytes from its aligned start.
bool fits(const RoleWindow& window, const Range& range, uint64_t alignment, uint64_t limit) {
  if (!range.allocation || !window.allocation) return true;
  if (window.allocation->handle() != range.allocation->handle()) return false;
  const uint64_t begin = std::min(window.begin, range.begin);
  const uint64_t end = std::max(window.end, range.end);
  return end - align_down(begin, alignment) <= limit;
}

void widen(RoleWindow& window, const Range& range) {
  if (!range.allocation) return;
  if (!window.allocation) {
    window.allocation = range.allocation;
    window.begin = range.begin;
    window.end = range.end;
    return;
  }
  window.begin = std::min(window.begin, range.begin);
  window.end = std::max(window.end, range.end);
}

// Whether optim_f32_texel can read every role of `launch` through texel views of its windows.
bool texel_reads(const Context& context, const Launch& launch, uint64_t alignment) {
  for (int r = 0; r < kTexelRoles; ++r) {
    const RoleWindow& w = launch.windows[r];
    const uint64_t begin = align_down(w.begin, alignment);
    if (w.allocation && !can_read_as_texels(context, Binding{w.allocation, begin, w.end - begin, false})) return false;
  }
  return true;
}

uint32_t word(uint64_t value, const char* what) {
  if (value > UINT32_MAX) throw Error(std::string("optimizer step: ") + what + " does not fit 32 bits");
  return static_cast<uint32_t>(value);
}

class VulkanOptim final : public OptimKernels {
 public:
  explicit VulkanOptim(VulkanDevice& device) : device_(device) {}
  void step(Stream& stream, const OptimStepArgs& args) override;

 private:
  // The table's memory on `stream`, uploaded when no earlier step used the same words.
  std::shared_ptr<Allocation> table_for(Stream& stream, const std::vector<uint32_t>& words);

  struct CachedTable {
    std::weak_ptr<Stream> stream;
    std::vector<uint32_t> words;
    std::shared_ptr<Allocation> allocation;
  };
  VulkanDevice& device_;
  std::mutex mutex_;
  std::list<CachedTable> tables_;  // most recently used first
};

std::shared_ptr<Allocation> VulkanOptim::table_for(Stream& stream, const std::vector<uint32_t>& words) {
  std::lock_guard lock(mutex_);
  for (auto it = tables_.begin(); it != tables_.end(); ++it) {
    if (it->stream.lock().get() == &stream && it->words == words) {
      tables_.splice(tables_.begin(), tables_, it);
      return it->allocation;
    }
  }
  const uint64_t bytes = words.size() * sizeof(uint32_t);
  std::shared_ptr<Allocation> allocation = device_.allocator().allocate(bytes, stream.shared_from_this());
  stream.copy_from_host(*allocation, 0, words.data(), bytes);
  tables_.push_front({stream.shared_from_this(), words, allocation});
  if (tables_.size() > kCachedTables) tables_.pop_back();
  return allocation;
}

void VulkanOptim::step(Stream& stream, const OptimStepArgs& args) {
  args.check();
  if (args.tensors.empty()) return;
  const DType dtype = args.tensors.front().param.dtype;
  require_dtype(device_, dtype, "optimizer step");
  const Context& context = device_.context();
  // Float32 windows start where both a storage binding and a texel view may (both powers of two).
  const bool f32 = dtype == DType::Float32;
  const uint64_t alignment = std::max<uint64_t>(context.properties.limits.minStorageBufferOffsetAlignment,
                                                f32 ? context.properties.limits.minTexelBufferOffsetAlignment : 1);
  const uint64_t limit = max_window_bytes(context);
  const uint32_t max_groups = context.properties.limits.maxComputeWorkGroupCount[0];
  const uint64_t element = element_size(dtype);
  const int64_t segment_cap = std::min<int64_t>(kSegmentElements, static_cast<int64_t>(limit / element / 2));

  // Segments, and launches whose windows hold them.
  std::vector<Launch> launches(1);
  for (size_t t = 0; t < args.tensors.size(); ++t) {
    const OptimTensor& tensor = args.tensors[t];
    const int64_t numel = tensor.param.numel();
    for (int64_t first = 0; first < numel; first += segment_cap) {
      Segment segment{t, first, std::min(segment_cap, numel - first), {}};
      auto range_of = [&](const TensorRef& ref) {
        const uint64_t begin = ref.allocation->offset() + ref.byte_offset + segment.first * element;
        return Range{ref.allocation, begin, begin + segment.count * element};
      };
      segment.ranges[0] = range_of(tensor.param);
      segment.ranges[1] = range_of(tensor.grad);
      for (int s = 0; s < kMaxOptimStates; ++s) {
        if (tensor.state[s]) segment.ranges[2 + s] = range_of(*tensor.state[s]);
      }
      if (tensor.steps) {
        const uint64_t begin = tensor.steps->allocation->offset() + tensor.steps->byte_offset;
        segment.ranges[kStepsRole] = {tensor.steps->allocation, begin, begin + tensor.steps->numel() * sizeof(float)};
      }
      const uint32_t groups = static_cast<uint32_t>(ceil_div(segment.count, kTile));
      Launch* launch = &launches.back();
      bool room = launch->groups + static_cast<uint64_t>(groups) <= max_groups;
      for (int r = 0; r < kRoles && room; ++r) room = fits(launch->windows[r], segment.ranges[r], alignment, limit);
      if (!room) launch = &launches.emplace_back();
      for (int r = 0; r < kRoles; ++r) widen(launch->windows[r], segment.ranges[r]);
      launch->groups += groups;
      launch->segments.push_back(segment);
    }
  }
  if (launches.back().segments.empty()) return;  // nothing but empty tensors

  // The table: each launch's entries, with offsets in elements from its windows' aligned starts.
  std::vector<uint32_t> words;
  std::vector<uint32_t> first_words;
  for (Launch& launch : launches) {
    first_words.push_back(static_cast<uint32_t>(words.size()));
    uint32_t group = 0;
    for (const Segment& segment : launch.segments) {
      const OptimTensor& tensor = args.tensors[segment.tensor];
      uint32_t entry[kEntryWords] = {};
      entry[0] = group;
      entry[1] = static_cast<uint32_t>(segment.count);
      entry[2] = (tensor.fresh ? kSegmentFresh : 0) | (tensor.parity ? kSegmentParity : 0);
      for (int r = 0; r < kRoles; ++r) {
        const Range& range = segment.ranges[r];
        if (!range.allocation) continue;
        const uint64_t size = r == kStepsRole ? sizeof(float) : element;
        entry[3 + r] = word((range.begin - align_down(launch.windows[r].begin, alignment)) / size, "an offset");
      }
      words.insert(words.end(), entry, entry + kEntryWords);
      group += static_cast<uint32_t>(ceil_div(segment.count, kTile));
    }
  }
  const std::shared_ptr<Allocation> table = table_for(stream, words);
  const Window table_window = element_window(context, table.get(), 0, 4, static_cast<int64_t>(words.size()), false);

  // The options.
  const OptimKernelOptions options = optim_kernel_options(args.algorithm, args.hyper, dtype);
  const std::array<double, 10>& h = options.h;
  uint32_t flags = options.flags;
  // Windows start on the binding alignment; where that is a multiple of 16 bytes, segments whose offsets
  // are multiples of four elements move blocks of four as whole words.
  if (alignment % 16 == 0) flags |= kBlocks;
  // The skip flag (GradScaler's found_inf), read by every workgroup; without one the slot sees the table.
  Binding skip_binding = table_window.binding;
  uint32_t skip_index = 0;
  if (args.skip_if) {
    const Window window = element_window(context, args.skip_if->allocation, args.skip_if->byte_offset, 4, 1, false);
    skip_binding = window.binding;
    skip_index = window.first_element;
    flags |= kSkippable;
  }
  OptimParams params{};
  params.flags = flags;
  params.skip_index = skip_index;
  const bool f64 = dtype == DType::Float64;
  for (size_t i = 0; i < h.size(); ++i) {
    if (f64) {
      std::memcpy(params.h[i], &h[i], sizeof(double));
    } else {
      const float value = static_cast<float>(h[i]);
      std::memcpy(&params.h[i][0], &value, sizeof(float));
    }
  }

  VulkanStream& vs = vulkan_stream(stream);
  const std::vector<uint32_t> specialization{static_cast<uint32_t>(dtype), static_cast<uint32_t>(args.algorithm)};
  const Pipeline& pipeline = device_.pipelines().get(f64 ? "optim_f64" : "optim_f32", specialization);
  const std::shared_ptr<Stream> owner = stream.shared_from_this();
  for (size_t l = 0; l < launches.size(); ++l) {
    const Launch& launch = launches[l];
    Binding bindings[2 + kRoles];
    bindings[0] = table_window.binding;
    bindings[1 + kRoles] = skip_binding;
    for (int r = 0; r < kRoles; ++r) {
      const RoleWindow& w = launch.windows[r];
      if (!w.allocation) {
        bindings[1 + r] = table_window.binding;  // an unused slot sees the table, read-only
        continue;
      }
      const uint64_t begin = align_down(w.begin, alignment);
      const bool write = r != 1;  // all but the gradients
      bindings[1 + r] = {w.allocation, begin, (w.end - begin + 3) / 4 * 4, write};
    }
    params.first_entry = table_window.first_element + first_words[l];
    params.entries = static_cast<uint32_t>(launch.segments.size());
    const Binding& table_binding = table_window.binding;
    const bool texels = f32 && (flags & kBlocks) && texel_reads(context, launch, alignment) &&
                        params.first_entry % 4 == 0 && can_read_as_texels(context, table_binding);
    if (!texels) {
      vs.dispatch(pipeline, bindings, &params, sizeof params, launch.groups);
    } else {
      // optim_f32_texel binds the table, the storage buffers of all roles but the gradients, the skip flag,
      // then the texel views of param, grad and state 0 to 2 (an absent role's view shows the parameters).
      Binding texel_bindings[1 + kRoles + kTexelRoles];
      size_t n = 0;
      for (int i = 0; i < 2 + kRoles; ++i) {
        if (i != 2) texel_bindings[n++] = bindings[i];
      }
      for (int r = 0; r < kTexelRoles; ++r) {
        texel_bindings[n] = bindings[1 + (launch.windows[r].allocation ? r : 0)];
        texel_bindings[n++].write = false;
      }
      vs.dispatch(device_.pipelines().get("optim_f32_texel", specialization), texel_bindings, &params, sizeof params,
                  launch.groups);
    }
    // The bindings record their own allocations' use; the other tensors in the windows need theirs too.
    const uint64_t value = stream.pending_value();
    for (const Segment& segment : launch.segments) {
      for (const Range& range : segment.ranges) {
        if (range.allocation) range.allocation->record_use(owner, value);
      }
    }
  }
}

}  // namespace

EMBER_VULKAN_KERNELS(OptimKernels, VulkanOptim);

}  // namespace ember::vulkan
