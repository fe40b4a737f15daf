// The autocast state of each thread and its casts (tensor/autocast.h).
#include "tensor/autocast.h"

#include <unordered_map>

#include "autograd/grad_mode.h"
#include "runtime/error.h"

namespace ember::autocast {

namespace {

// A parameter's cast, kept while the parameter lives unchanged (same memory version) and the dtype is
// the one asked for.
struct CachedCast {
  std::weak_ptr<TensorImpl> source;
  uint64_t version = 0;
  Tensor cast;
};

struct State {
  bool enabled = false;
  DType dtype = DType::Float16;
  bool cache_enabled = true;
  int guards = 0;       // live AutocastGuards; the outermost clears the cache
  int suspensions = 0;  // live SuspendGuards
  std::unordered_map<const TensorImpl*, CachedCast> cache;
};

State& state() {
  thread_local State s;
  return s;
}

void check_dtype(DType dtype) {
  if (dtype != DType::Float16 && dtype != DType::BFloat16) {
    throw Error("autocast: the autocast dtype must be float16 or bfloat16, got " + std::string(dtype_name(dtype)));
  }
}

// PyTorch's is_eligible: floating, and not float64, which autocast never narrows.
bool eligible(const Tensor& t) { return t.defined() && t.is_floating_point() && t.dtype() != DType::Float64; }

// PyTorch caches the lower-precision casts of float32 leaves that require grad: the parameters, which
// one forward pass may use several times. Only with grad mode on, so that a cached cast carries its
// ToCopyBackward0 node into every later use.
bool cacheable(const Tensor& t) {
  return state().cache_enabled && t.dtype() == DType::Float32 && t.is_leaf() && t.requires_grad() &&
         !t.impl().view_base && autograd::GradMode::is_enabled();
}

}  // namespace

bool is_enabled() { return state().enabled; }
void set_enabled(bool enabled) { state().enabled = enabled; }
DType get_autocast_dtype() { return state().dtype; }

void set_autocast_dtype(DType dtype) {
  check_dtype(dtype);
  state().dtype = dtype;
}

bool is_autocast_cache_enabled() { return state().cache_enabled; }
void set_autocast_cache_enabled(bool enabled) { state().cache_enabled = enabled; }
void clear_cache() { state().cache.clear(); }

AutocastGuard::AutocastGuard(DType dtype, bool enabled, bool cache_enabled)
    : previous_enabled_(is_enabled()), previous_dtype_(get_autocast_dtype()),
      previous_cache_enabled_(is_autocast_cache_enabled()) {
  check_dtype(dtype);
  State& s = state();
  s.enabled = enabled;
  s.dtype = dtype;
  s.cache_enabled = cache_enabled;
  ++s.guards;
}

AutocastGuard::~AutocastGuard() {
  State& s = state();
  if (--s.guards == 0) s.cache.clear();
  s.enabled = previous_enabled_;
  s.dtype = previous_dtype_;
  s.cache_enabled = previous_cache_enabled_;
}

SuspendGuard::SuspendGuard() { ++state().suspensions; }
SuspendGuard::~SuspendGuard() { --state().suspensions; }

bool is_active() {
  const State& s = state();
  return s.enabled && s.suspensions == 0;
}

Tensor to_lower_precision(const Tensor& t) {
  State& s = state();
  if (!eligible(t) || t.dtype() == s.dtype) return t;
  if (!cacheable(t)) return t.to(s.dtype);
  CachedCast& entry = s.cache[t.impl_ptr().get()];
  // A stale entry (another tensor now at the same address, an in-place change, another dtype) is redone.
  if (!entry.cast.defined() || entry.source.lock() != t.impl_ptr() || entry.version != t._version() ||
      entry.cast.dtype() != s.dtype) {
    entry = {t.impl_ptr(), t._version(), t.to(s.dtype)};
  }
  return entry.cast;
}

Tensor to_float32(const Tensor& t) {
  if (!eligible(t) || t.dtype() == DType::Float32) return t;
  return t.to(DType::Float32);
}

std::optional<DType> float32_dtype(const Tensor& input, std::optional<DType> dtype) {
  if (dtype) return dtype;
  if (eligible(input)) return DType::Float32;
  return std::nullopt;
}

}  // namespace ember::autocast
