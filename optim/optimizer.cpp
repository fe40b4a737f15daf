#include "optim/optimizer.h"

#include <algorithm>
#include <array>
#include <map>
#include <nlohmann/json.hpp>
#include <optional>
#include <set>
#include <span>
#include <sstream>

#include "autograd/function.h"
#include "autograd/grad_mode.h"
#include "autograd/zero_grad.h"
#include "optim/profiler_region.h"
#include "runtime/error.h"
#include "runtime/json_nesting.h"
#include "runtime/record_function.h"
#include "tensor/ops_support.h"

namespace ember::optim {

// ---- OptimizerParamGroup ----

OptimizerParamGroup::OptimizerParamGroup(const OptimizerParamGroup& other)
    : params_(other.params_), options_(other.options_ ? other.options_->clone() : nullptr), extras_(other.extras_) {}

OptimizerParamGroup& OptimizerParamGroup::operator=(const OptimizerParamGroup& other) {
  if (this != &other) {
    params_ = other.params_;
    options_ = other.options_ ? other.options_->clone() : nullptr;
    extras_ = other.extras_;
  }
  return *this;
}

std::optional<double> OptimizerParamGroup::extra(const std::string& key) const {
  for (const auto& [k, v] : extras_) {
    if (k == key) return v;
  }
  return std::nullopt;
}

void OptimizerParamGroup::set_extra(const std::string& key, double value) {
  for (auto& [k, v] : extras_) {
    if (k == key) {
      v = value;
      return;
    }
  }
  extras_.emplace_back(key, value);
}

OptimizerOptions& OptimizerParamGroup::options() {
  if (!options_) throw Error("the param group has no options");
  return *options_;
}

const OptimizerOptions& OptimizerParamGroup::options() const {
  if (!options_) throw Error("the param group has no options");
  return *options_;
}

// ---- the state of a group ----

namespace {

// Each parameter's slice of a state allocation starts on this many bytes.
constexpr int64_t kSliceAlignment = 64;

bool same_layout(const Tensor& a, const Tensor& b) {
  if (!(a.sizes() == b.sizes())) return false;
  for (int64_t d = 0; d < a.dim(); ++d) {
    if (a.size(d) != 1 && a.stride(d) != b.stride(d)) return false;
  }
  return true;
}

}  // namespace

// The state of one param group: per (device, dtype) a bucket holding one allocation per state slot
// (every parameter of the bucket a slice of it) and the step scalars (optim_step_scalars: the step count,
// NAdam's mu_product), a float32 pair each per parameter.
struct Optimizer::GroupState {
  struct Bucket {
    std::shared_ptr<Device> device;
    DType dtype = DType::Float32;
    std::vector<size_t> members;   // the group's parameter indices
    std::vector<int64_t> offsets;  // per member, elements into the slot allocations
    int64_t total = 0;
    std::array<Tensor, kMaxOptimStates> slots;  // 1-D, allocated when an algorithm first needs them
    Tensor steps;                               // float32 [2 * scalars * members]
    int64_t scalars = 0;                        // per parameter, in `steps`
  };
  // What the layout was made for: each parameter's identity, dtype, device and geometry.
  std::vector<Tensor> params;
  std::vector<Bucket> buckets;
  std::vector<std::pair<size_t, size_t>> where;  // per parameter: bucket, member
  std::vector<int> parity;                       // per parameter: which step slot holds the count
  std::vector<bool> initialized;                 // per parameter: has PyTorch's state

  explicit GroupState(const std::vector<Tensor>& group_params) : params(group_params) {
    where.resize(params.size());
    parity.assign(params.size(), 0);
    initialized.assign(params.size(), false);
    for (size_t i = 0; i < params.size(); ++i) {
      const Tensor& p = params[i];
      auto it = std::find_if(buckets.begin(), buckets.end(), [&](const Bucket& b) {
        return b.device == p.device() && b.dtype == p.dtype();
      });
      if (it == buckets.end()) {
        buckets.push_back({p.device(), p.dtype(), {}, {}, 0, {}, {}, 0});
        it = buckets.end() - 1;
      }
      const int64_t align = kSliceAlignment / static_cast<int64_t>(p.element_size());
      it->total = (it->total + align - 1) / align * align;
      where[i] = {static_cast<size_t>(it - buckets.begin()), it->members.size()};
      it->members.push_back(i);
      it->offsets.push_back(it->total);
      it->total += p.numel();
    }
  }

  // Whether the layout still fits `group_params` (none added, removed, moved or converted).
  bool matches(const std::vector<Tensor>& group_params) const {
    if (group_params.size() != params.size()) return false;
    for (size_t i = 0; i < params.size(); ++i) {
      const Tensor& now = group_params[i];
      if (!now.is_same(params[i]) || now.dtype() != bucket_of(i).dtype || now.device() != bucket_of(i).device ||
          now.sizes().vec() != layout_sizes[i] || now.strides().vec() != layout_strides[i]) {
        return false;
      }
    }
    return true;
  }
  void remember_geometry() {
    layout_sizes.clear();
    layout_strides.clear();
    for (const Tensor& p : params) {
      layout_sizes.push_back(p.sizes().vec());
      layout_strides.push_back(p.strides().vec());
    }
  }

  Bucket& bucket_of(size_t i) { return buckets[where[i].first]; }
  const Bucket& bucket_of(size_t i) const { return buckets[where[i].first]; }

  // Slot `slot` of parameter i: a view with the parameter's sizes and strides.
  Tensor slot_view(size_t i, int slot) const {
    const Bucket& b = bucket_of(i);
    const Tensor& p = params[i];
    return b.slots[slot].as_strided(p.sizes(), p.strides(), b.offsets[where[i].second]);
  }
  // The pairs of step scalars of parameter i, and scalar k as it is now.
  Tensor scalar_pairs(size_t i) const {
    const Bucket& b = bucket_of(i);
    return b.steps.as_strided({2 * b.scalars}, {1}, 2 * b.scalars * static_cast<int64_t>(where[i].second));
  }
  Tensor scalar_view(size_t i, size_t k) const {
    const Bucket& b = bucket_of(i);
    const int64_t pair = b.scalars * static_cast<int64_t>(where[i].second) + static_cast<int64_t>(k);
    return b.steps.as_strided({}, {}, 2 * pair + parity[i]);
  }

  // Allocates what `slots` and `scalars` step scalars need in the bucket of parameter i. A slot allocated
  // after some parameter has state starts at zero, as PyTorch's zeros_like.
  void ensure_memory(size_t i, const std::vector<OptimStateSlot>& slots, size_t scalars) {
    Bucket& b = bucket_of(i);
    const bool any_state = std::any_of(b.members.begin(), b.members.end(), [&](size_t m) { return initialized[m]; });
    const TensorOptions options = TensorOptions().dtype(b.dtype).device(b.device);
    for (const OptimStateSlot& s : slots) {
      if (b.slots[s.slot].defined()) continue;
      b.slots[s.slot] = any_state ? zeros({b.total}, options) : empty({b.total}, options);
    }
    if (scalars > 0 && !b.steps.defined()) {
      const TensorOptions f32 = TensorOptions().dtype(DType::Float32).device(b.device);
      b.scalars = static_cast<int64_t>(scalars);
      const int64_t n = 2 * b.scalars * static_cast<int64_t>(b.members.size());
      b.steps = any_state ? zeros({n}, f32) : empty({n}, f32);
    }
  }

  std::vector<std::vector<int64_t>> layout_sizes;
  std::vector<std::vector<int64_t>> layout_strides;
};

// ---- Optimizer ----

Optimizer::Optimizer(std::vector<OptimizerParamGroup> param_groups, std::unique_ptr<OptimizerOptions> defaults)
    : defaults_(std::move(defaults)) {
  for (const OptimizerParamGroup& group : param_groups) add_param_group(group);
}

Optimizer::Optimizer(std::vector<Tensor> parameters, std::unique_ptr<OptimizerOptions> defaults)
    : Optimizer(std::vector<OptimizerParamGroup>{OptimizerParamGroup(std::move(parameters))}, std::move(defaults)) {}

Optimizer::~Optimizer() = default;

namespace {

// Throws unless every tensor of `params` can join `groups` (the optimizer's groups, or all but the one the
// tensors join): defined, a leaf, not in any group yet and not listed twice. Python only warns about a
// tensor listed twice in a group ("in future, this will cause an error") and then steps it twice in a row
// with one state; the fused step, whose table would list one buffer twice, cannot give that result.
void check_joining(const std::vector<Tensor>& params, std::span<const OptimizerParamGroup> groups) {
  std::map<const TensorImpl*, size_t> seen;  // by identity, as Python's set of tensors
  for (const OptimizerParamGroup& group : groups) {
    for (const Tensor& q : group.params()) seen.emplace(&q.impl(), SIZE_MAX);
  }
  for (size_t i = 0; i < params.size(); ++i) {
    const Tensor& p = params[i];
    if (!p.defined()) throw Error("optimizer can only optimize Tensors, but one of the params is undefined");
    if (!p.is_leaf()) throw Error("can't optimize a non-leaf Tensor");
    const auto [where, first] = seen.emplace(&p.impl(), i);
    if (first) continue;
    if (where->second == SIZE_MAX) throw Error("some parameters appear in more than one parameter group");
    throw Error("optimizer contains a parameter group with duplicate parameters: params " +
                std::to_string(where->second) + " and " + std::to_string(i) + " are the same tensor");
  }
}

}  // namespace

void Optimizer::add_param_group(const OptimizerParamGroup& param_group) {
  check_joining(param_group.params(), param_groups_);
  OptimizerParamGroup group(param_group);
  if (!group.has_options()) group.set_options(defaults_->clone());
  param_groups_.push_back(std::move(group));
  group_states_.emplace_back();  // made on first use; Adagrad's state by its constructor or first step
}

void Optimizer::add_parameters(const std::vector<Tensor>& parameters) {
  if (param_groups_.empty()) {
    add_param_group(OptimizerParamGroup(parameters));
    return;
  }
  std::vector<Tensor>& params = param_groups_.front().params();
  std::vector<Tensor> joined = params;
  joined.insert(joined.end(), parameters.begin(), parameters.end());
  check_joining(joined, std::span<const OptimizerParamGroup>(param_groups_).subspan(1));
  params = std::move(joined);
}

const std::vector<Tensor>& Optimizer::parameters() const noexcept { return param_groups_.at(0).params(); }
std::vector<Tensor>& Optimizer::parameters() noexcept { return param_groups_.at(0).params(); }

size_t Optimizer::size() const noexcept {
  size_t n = 0;
  for (const OptimizerParamGroup& group : param_groups_) n += group.params().size();
  return n;
}

std::string profiler_region_name(const Optimizer& optimizer, const char* method) {
  if (!profiler::recording()) return {};
  std::string name = autograd::demangled_name(typeid(optimizer).name());
  if (const size_t scope = name.rfind("::"); scope != std::string::npos) name = name.substr(scope + 2);
  return std::string("Optimizer.") + method + "#" + name + "." + method;
}

void Optimizer::zero_grad(bool set_to_none) {
  const profiler::RecordFunction region(profiler_region_name(*this, "zero_grad"));
  for (OptimizerParamGroup& group : param_groups_) {
    for (Tensor& p : group.params()) autograd::zero_grad(p, set_to_none);
  }
}

Optimizer::GroupState& Optimizer::group_state(size_t g) const {
  std::unique_ptr<GroupState>& state = group_states_.at(g);
  const std::vector<Tensor>& params = param_groups_[g].params();
  if (state && state->matches(params)) return *state;
  for (const Tensor& p : params) {
    if (!p.is_floating_point()) {
      throw Error("optimizer step: parameters must be floating point, got " + std::string(dtype_name(p.dtype())));
    }
    if (!is_dense(p.ref())) {
      throw UnsupportedError("optimizer step: a parameter of sizes " + ember::to_string(p.sizes()) +
                             " is not dense (its elements do not fill one range of memory)");
    }
  }
  auto fresh = std::make_unique<GroupState>(params);
  fresh->remember_geometry();
  if (state) {
    // Carry the state of parameters that stay over into the new layout.
    const OptimHyperparameters hyper = hyperparameters(param_groups_[g].options());
    const std::vector<OptimStateSlot> slots = optim_state_slots(algorithm(), hyper);
    const size_t scalars = optim_step_scalars(algorithm()).size();
    for (size_t i = 0; i < params.size(); ++i) {
      for (size_t j = 0; j < state->params.size(); ++j) {
        if (!state->initialized[j] || !state->params[j].is_same(params[i])) continue;
        fresh->ensure_memory(i, slots, scalars);
        for (const OptimStateSlot& s : slots) {
          if (state->bucket_of(j).slots[s.slot].defined()) fresh->slot_view(i, s.slot).copy_(state->slot_view(j, s.slot));
        }
        for (size_t k = 0; k < scalars; ++k) fresh->scalar_view(i, k).copy_(state->scalar_view(j, k));
        fresh->initialized[i] = true;
      }
    }
  }
  state = std::move(fresh);
  return *state;
}

void Optimizer::make_eager_state() {
  for (size_t g = 0; g < param_groups_.size(); ++g) {
    const std::optional<double> value = eager_state_value(param_groups_[g].options());
    if (!value) continue;
    GroupState& st = group_state(g);
    const OptimHyperparameters hyper = hyperparameters(param_groups_[g].options());
    const std::vector<OptimStateSlot> slots = optim_state_slots(algorithm(), hyper);
    const size_t scalars = optim_step_scalars(algorithm()).size();
    for (GroupState::Bucket& b : st.buckets) {
      const bool none = std::none_of(b.members.begin(), b.members.end(), [&](size_t m) { return st.initialized[m]; });
      for (size_t m : b.members) {
        if (st.initialized[m]) continue;
        st.ensure_memory(m, slots, scalars);
        if (!none) {
          for (const OptimStateSlot& s : slots) st.slot_view(m, s.slot).fill_(*value);
          st.scalar_pairs(m).zero_();
        }
      }
      if (none && !b.members.empty()) {  // the whole bucket at once
        for (const OptimStateSlot& s : slots) b.slots[s.slot].fill_(*value);
        b.steps.zero_();
      }
      for (size_t m : b.members) {
        st.initialized[m] = true;
        st.parity[m] = 0;
      }
    }
  }
}

Tensor Optimizer::step(LossClosure closure) {
  const profiler::RecordFunction region(profiler_region_name(*this, "step"));
  Tensor loss;
  if (closure) {
    autograd::AutoGradMode enable(true);
    loss = closure();
  }
  autograd::NoGradGuard no_grad;
  for (size_t g = 0; g < param_groups_.size(); ++g) step_group(g, Tensor());
  return loss;
}

void Optimizer::step_unless(const Tensor& found_inf) {
  if (!found_inf.defined() || found_inf.dtype() != DType::Float32 || found_inf.numel() != 1) {
    throw Error("step_unless: found_inf must be a float32 tensor of one element");
  }
  const profiler::RecordFunction region(profiler_region_name(*this, "step"));
  autograd::NoGradGuard no_grad;
  for (size_t g = 0; g < param_groups_.size(); ++g) step_group(g, found_inf);
}

void Optimizer::step_group(size_t g, const Tensor& skip_if) {
  const std::vector<Tensor>& params = param_groups_[g].params();
  if (params.empty()) return;
  GroupState& st = group_state(g);
  if (eager_state_value(param_groups_[g].options()) &&
      std::any_of(st.initialized.begin(), st.initialized.end(), [](bool b) { return !b; })) {
    make_eager_state();
  }
  const OptimAlgorithm alg = algorithm();
  const OptimHyperparameters hyper = hyperparameters(param_groups_[g].options());
  const std::vector<OptimStateSlot> slots = optim_state_slots(alg, hyper);
  const size_t scalars = optim_step_scalars(alg).size();
  for (GroupState::Bucket& bucket : st.buckets) {
    OptimStepArgs args;
    args.algorithm = alg;
    args.hyper = hyper;
    std::vector<size_t> stepped;
    std::vector<Tensor> alive;  // gradients copied into the parameter's layout
    for (size_t i : bucket.members) {
      const Tensor& p = params[i];
      const Tensor& grad = p.grad();
      if (!grad.defined()) continue;  // as PyTorch: parameters without a gradient keep their state
      if (grad.dtype() != p.dtype() || grad.device() != p.device() || !(grad.sizes() == p.sizes())) {
        throw Error("optimizer step: the gradient of a parameter of sizes " + ember::to_string(p.sizes()) +
                    " has sizes " + ember::to_string(grad.sizes()) + " and dtype " +
                    std::string(dtype_name(grad.dtype())) + ", expected the parameter's");
      }
      Tensor g_like = grad;
      if (!same_layout(grad, p)) {
        g_like = empty_strided(p.sizes(), p.strides(), TensorOptions().dtype(p.dtype()).device(p.device()));
        g_like.copy_(grad);
        alive.push_back(g_like);
      }
      st.ensure_memory(i, slots, scalars);
      OptimTensor t;
      t.param = p.ref();
      t.grad = g_like.ref();
      for (const OptimStateSlot& s : slots) t.state[s.slot] = st.slot_view(i, s.slot).ref();
      if (scalars > 0) t.steps = st.scalar_pairs(i).ref();
      t.parity = st.parity[i];
      t.fresh = !st.initialized[i];
      args.tensors.push_back(t);
      stepped.push_back(i);
    }
    if (args.tensors.empty()) continue;
    if (skip_if.defined()) {
      const Tensor flag = skip_if.to(bucket.device).contiguous();
      args.skip_if = flag.ref();
      alive.push_back(flag);
    }
    detail::kernels_for<OptimKernels>(*bucket.device).step(*detail::stream_for(*bucket.device), args);
    for (size_t i : stepped) {
      st.initialized[i] = true;
      if (scalars > 0) st.parity[i] ^= 1;
      detail::bump_version(params[i]);
    }
  }
}

OrderedDict<std::string, Tensor> Optimizer::state(const Tensor& param) const {
  OrderedDict<std::string, Tensor> out("Key");
  for (size_t g = 0; g < param_groups_.size(); ++g) {
    const std::vector<Tensor>& params = param_groups_[g].params();
    for (size_t i = 0; i < params.size(); ++i) {
      if (!params[i].is_same(param)) continue;
      const GroupState& st = group_state(g);
      if (!st.initialized[i]) return out;
      const OptimHyperparameters hyper = hyperparameters(param_groups_[g].options());
      const std::vector<std::string_view> scalars = optim_step_scalars(algorithm());
      for (size_t k = 0; k < scalars.size(); ++k) out.insert(std::string(scalars[k]), st.scalar_view(i, k));
      for (const OptimStateSlot& s : optim_state_slots(algorithm(), hyper)) {
        if (st.bucket_of(i).slots[s.slot].defined()) out.insert(std::string(s.name), st.slot_view(i, s.slot));
      }
      return out;
    }
  }
  return out;
}

OptimAlgorithm Optimizer::algorithm() const {
  throw UnsupportedError("this optimizer has no fused elementwise step");
}

OptimHyperparameters Optimizer::hyperparameters(const OptimizerOptions& /*options*/) const {
  throw UnsupportedError("this optimizer has no fused elementwise step");
}

// ---- state_dict ----

namespace {

using Json = nlohmann::ordered_json;

Json to_json(const OptionValue& value) {
  return std::visit(
      [](const auto& v) -> Json {
        using V = std::decay_t<decltype(v)>;
        if constexpr (std::is_same_v<V, std::monostate>) {
          return nullptr;
        } else {
          return Json(v);
        }
      },
      value);
}

OptionValue from_json(const std::string& key, const Json& value) {
  if (value.is_null()) return std::monostate{};
  if (value.is_boolean()) return value.get<bool>();
  if (value.is_number_integer()) return value.get<int64_t>();
  if (value.is_number()) return value.get<double>();
  if (value.is_string()) return value.get<std::string>();
  if (value.is_array()) {
    std::vector<double> numbers;
    for (const Json& x : value) {
      if (!x.is_number()) throw Error("load_state_dict: param group option '" + key + "' holds a non-number");
      numbers.push_back(x.get<double>());
    }
    return numbers;
  }
  throw Error("load_state_dict: param group option '" + key + "' has an unsupported value of type " + value.type_name());
}

}  // namespace

OptimizerStateDict Optimizer::state_dict() const {
  OptimizerStateDict out;
  Json groups = Json::array();
  size_t index = 0;
  for (size_t g = 0; g < param_groups_.size(); ++g) {
    const OptimizerParamGroup& group = param_groups_[g];
    Json packed = Json::object();
    for (const auto& [key, value] : group.options().items()) packed[key] = to_json(value);
    for (const auto& [key, value] : group.extras()) packed[key] = value;
    Json indices = Json::array();
    for (const Tensor& p : group.params()) {
      for (const auto& item : state(p)) {
        out.tensors.insert("state." + std::to_string(index) + "." + item.key(), item.value());
      }
      indices.push_back(index++);
    }
    packed["params"] = indices;
    groups.push_back(packed);
  }
  out.param_groups_json = groups.dump();
  return out;
}

void Optimizer::load_state_dict(const OptimizerStateDict& state_dict) {
  // Everything is checked first; nothing changes unless all of it is right.
  Json saved;
  if (const size_t depth = json_nesting_depth(state_dict.param_groups_json); depth > kMaxStateNesting) {
    throw Error("load_state_dict: param_groups_json nests " + std::to_string(depth) + " levels deep, more than the " +
                std::to_string(kMaxStateNesting) + " any optimizer's state needs");
  }
  try {
    saved = Json::parse(state_dict.param_groups_json);
  } catch (const nlohmann::json::exception& e) {
    throw Error(std::string("load_state_dict: param_groups_json is not valid JSON: ") + e.what());
  }
  if (!saved.is_array()) throw Error("load_state_dict: param_groups_json must be a list of param groups");
  if (saved.size() != param_groups_.size()) {
    throw Error("loaded state dict has a different number of parameter groups");
  }
  std::map<int64_t, std::pair<size_t, size_t>> id_map;  // saved index -> (group, parameter)
  std::vector<std::unique_ptr<OptimizerOptions>> new_options;
  std::vector<std::vector<std::pair<std::string, double>>> new_extras(saved.size());
  for (size_t g = 0; g < saved.size(); ++g) {
    const Json& group = saved[g];
    if (!group.is_object() || !group.contains("params") || !group["params"].is_array()) {
      throw Error("load_state_dict: param group " + std::to_string(g) + " has no list of params");
    }
    if (group["params"].size() != param_groups_[g].params().size()) {
      throw Error("loaded state dict contains a parameter group that doesn't match the size of optimizer's group");
    }
    for (size_t i = 0; i < group["params"].size(); ++i) {
      const Json& id = group["params"][i];
      if (!id.is_number_integer()) throw Error("load_state_dict: parameter indices must be integers");
      id_map[id.get<int64_t>()] = {g, i};
    }
    std::unique_ptr<OptimizerOptions> options = param_groups_[g].options().clone();
    for (const auto& [key, value] : group.items()) {
      if (key == "params") continue;
      const OptionValue option = from_json(key, value);
      if (!options->set_item(key, option) && value.is_number()) new_extras[g].emplace_back(key, value.get<double>());
    }
    new_options.push_back(std::move(options));
  }

  // The state tensors, by parameter, checked against the options they will be used with.
  LoadedState loaded;
  for (const auto& item : state_dict.tensors) {
    const std::string& key = item.key();
    const size_t dot = key.find('.', 6);
    int64_t id = -1;
    if (key.rfind("state.", 0) == 0 && dot != std::string::npos) {
      try {
        size_t used = 0;
        id = std::stoll(key.substr(6, dot - 6), &used);
        if (used != dot - 6) id = -1;
      } catch (const std::exception&) {
        id = -1;
      }
    }
    if (id < 0) throw Error("load_state_dict: unexpected key '" + key + "' (expected state.<index>.<name>)");
    auto where = id_map.find(id);
    if (where == id_map.end()) {
      throw Error("load_state_dict: '" + key + "' is the state of parameter " + std::to_string(id) +
                  ", which no param group lists");
    }
    loaded[where->second][key.substr(dot + 1)] = item.value();
  }
  check_loaded_state(loaded, new_options);

  // Apply.
  for (size_t g = 0; g < param_groups_.size(); ++g) {
    param_groups_[g].set_options(std::move(new_options[g]));
    for (const auto& [key, value] : new_extras[g]) param_groups_[g].set_extra(key, value);
  }
  restore_state(loaded);
}

void Optimizer::check_loaded_state(const LoadedState& loaded,
                                   const std::vector<std::unique_ptr<OptimizerOptions>>& options) const {
  const std::vector<std::string_view> scalars = optim_step_scalars(algorithm());
  for (const auto& [where, tensors] : loaded) {
    const auto [g, i] = where;
    const Tensor& p = param_groups_[g].params()[i];
    const std::string prefix = "load_state_dict: the state of parameter " + std::to_string(i) + " of group " +
                               std::to_string(g);
    std::set<std::string> expected;
    for (const OptimStateSlot& s : optim_state_slots(algorithm(), hyperparameters(*options[g]))) {
      expected.insert(std::string(s.name));
    }
    for (std::string_view name : scalars) expected.insert(std::string(name));
    for (const auto& [name, tensor] : tensors) {
      if (!expected.count(name)) throw Error(prefix + " has '" + name + "', which these options do not keep");
      if (!tensor.defined()) throw Error(prefix + ": '" + name + "' is undefined");
      const bool scalar = std::find(scalars.begin(), scalars.end(), name) != scalars.end();
      const int64_t want = scalar ? 1 : p.numel();
      if (tensor.numel() != want) {
        throw Error(prefix + ": '" + name + "' has " + std::to_string(tensor.numel()) + " elements, expected " +
                    std::to_string(want));
      }
      if (!tensor.is_floating_point() && name != "step") {
        throw Error(prefix + ": '" + name + "' is " + std::string(dtype_name(tensor.dtype())) + ", not floating point");
      }
    }
    for (const std::string& name : expected) {
      if (!tensors.count(name)) throw Error(prefix + " lacks '" + name + "'");
    }
  }
}

void Optimizer::restore_state(const LoadedState& loaded) {
  const std::vector<std::string_view> scalars = optim_step_scalars(algorithm());
  autograd::NoGradGuard no_grad;
  for (size_t g = 0; g < param_groups_.size(); ++g) {
    GroupState& st = group_state(g);
    std::fill(st.initialized.begin(), st.initialized.end(), false);
    std::fill(st.parity.begin(), st.parity.end(), 0);
    const std::vector<OptimStateSlot> slots = optim_state_slots(algorithm(), hyperparameters(param_groups_[g].options()));
    for (size_t i = 0; i < st.params.size(); ++i) {
      auto it = loaded.find({g, i});
      if (it == loaded.end()) continue;
      st.ensure_memory(i, slots, scalars.size());
      for (const OptimStateSlot& s : slots) st.slot_view(i, s.slot).copy_(it->second.at(std::string(s.name)));
      for (size_t k = 0; k < scalars.size(); ++k) {
        st.scalar_view(i, k).copy_(it->second.at(std::string(scalars[k])).reshape({}));
      }
    }
    for (size_t i = 0; i < st.params.size(); ++i) st.initialized[i] = loaded.count({g, i}) > 0;
  }
  make_eager_state();  // Adagrad's parameters that had no saved state
}

}  // namespace ember::optim
