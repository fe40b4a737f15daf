#include "optim/lbfgs.h"

#include <algorithm>
#include <cmath>
#include <set>

#include "autograd/grad_mode.h"
#include "optim/options_support.h"
#include "optim/profiler_region.h"
#include "runtime/error.h"
#include "runtime/record_function.h"
#include "tensor/functions.h"

namespace ember::optim {

namespace {

double read(const Tensor& scalar) { return scalar.item<double>(); }

// The minimum of the cubic through (x1, f1) and (x2, f2) with slopes g1 and g2, clamped to `bounds`
// (the interval between x1 and x2 when not given); the middle of the bounds when the cubic has none.
double cubic_interpolate(double x1, double f1, double g1, double x2, double f2, double g2,
                         std::optional<std::pair<double, double>> bounds = std::nullopt) {
  const auto [lo, hi] = bounds ? *bounds : std::pair<double, double>(std::min(x1, x2), std::max(x1, x2));
  const double d1 = g1 + g2 - 3 * (f1 - f2) / (x1 - x2);
  const double d2_square = d1 * d1 - g1 * g2;
  if (d2_square < 0) return (lo + hi) / 2;
  const double d2 = std::sqrt(d2_square);
  const double min_pos = x1 <= x2 ? x2 - (x2 - x1) * ((g2 + d2 - d1) / (g2 - g1 + 2 * d2))
                                  : x1 - (x1 - x2) * ((g1 + d2 - d1) / (g1 - g2 + 2 * d2));
  return std::min(std::max(min_pos, lo), hi);
}

// Python's constants of the line search (torch/optim/lbfgs.py's _strong_wolfe defaults, which step() does
// not override: its tolerance_change is 1e-9 whatever the option says).
constexpr double kArmijo = 1e-4;       // c1
constexpr double kCurvature = 0.9;     // c2
constexpr double kBracketTolerance = 1e-9;
constexpr int kMaxLineSearch = 25;

}  // namespace

// ---- options ----

LBFGSOptions::LBFGSOptions(double lr) : lr_(lr) {}

OptionItems LBFGSOptions::items() const {
  return {{"lr", lr()},
          {"max_iter", max_iter()},
          {"max_eval", max_eval() ? OptionValue(*max_eval()) : OptionValue(std::monostate{})},
          {"tolerance_grad", tolerance_grad()},
          {"tolerance_change", tolerance_change()},
          {"history_size", history_size()},
          {"line_search_fn", line_search_fn() ? OptionValue(*line_search_fn()) : OptionValue(std::monostate{})}};
}

bool LBFGSOptions::set_item(const std::string& key, const OptionValue& value) {
  if (key == "lr") lr(detail::option_double(key, value));
  else if (key == "max_iter") max_iter(detail::option_int(key, value));
  else if (key == "max_eval") {
    max_eval(std::holds_alternative<std::monostate>(value) ? std::nullopt
                                                          : std::optional<int64_t>(detail::option_int(key, value)));
  } else if (key == "tolerance_grad") tolerance_grad(detail::option_double(key, value));
  else if (key == "tolerance_change") tolerance_change(detail::option_double(key, value));
  else if (key == "history_size") history_size(detail::option_int(key, value));
  else if (key == "line_search_fn") line_search_fn(detail::option_optional_string(key, value));
  else return false;
  return true;
}

// ---- LBFGS ----

LBFGS::LBFGS(std::vector<OptimizerParamGroup> param_groups, LBFGSOptions defaults)
    : Optimizer(std::move(param_groups), std::make_unique<LBFGSOptions>(defaults)) {
  if (this->param_groups().size() != 1) {
    throw Error("LBFGS doesn't support per-parameter options (parameter groups)");
  }
  if (!defaults.max_eval()) {
    const int64_t max_eval = defaults.max_iter() * 5 / 4;
    static_cast<LBFGSOptions&>(this->param_groups()[0].options()).max_eval(max_eval);
    static_cast<LBFGSOptions&>(this->defaults()).max_eval(max_eval);
  }
}

LBFGS::LBFGS(std::vector<Tensor> params, LBFGSOptions defaults)
    : LBFGS(std::vector<OptimizerParamGroup>{OptimizerParamGroup(std::move(params))}, defaults) {}

void LBFGS::check_can_step() const {
  if (param_groups().size() != 1) throw Error("LBFGS doesn't support per-parameter options (parameter groups)");
  const std::vector<Tensor>& params = param_groups()[0].params();
  if (params.empty()) throw Error("LBFGS: the param group has no parameters");
  for (size_t i = 0; i < params.size(); ++i) {
    const Tensor& p = params[i];
    if (!p.is_floating_point()) {
      throw Error("LBFGS: parameters must be floating point, parameter " + std::to_string(i) + " is " +
                  std::string(dtype_name(p.dtype())));
    }
    if (p.device() != params[0].device() || p.dtype() != params[0].dtype()) {
      throw Error("LBFGS: all parameters must be on one device with one dtype; parameter " + std::to_string(i) +
                  " is " + std::string(dtype_name(p.dtype())) + " on " + p.device()->spec() + ", parameter 0 " +
                  std::string(dtype_name(params[0].dtype())) + " on " + params[0].device()->spec());
    }
  }
  const auto& options = static_cast<const LBFGSOptions&>(param_groups()[0].options());
  if (options.line_search_fn() && *options.line_search_fn() != "strong_wolfe") {
    throw Error("only 'strong_wolfe' is supported");
  }
}

int64_t LBFGS::numel() const {
  int64_t n = 0;
  for (const Tensor& p : param_groups()[0].params()) n += p.numel();
  return n;
}

Tensor LBFGS::gather_flat_grad() const {
  std::vector<Tensor> views;
  for (const Tensor& p : param_groups()[0].params()) {
    const Tensor& grad = p.grad();
    views.push_back(grad.defined() ? grad.reshape({-1})
                                   : zeros({p.numel()}, TensorOptions().dtype(p.dtype()).device(p.device())));
  }
  return cat(views, 0);
}

void LBFGS::add_grad(double step_size, const Tensor& update) {
  int64_t offset = 0;
  for (Tensor& p : param_groups()[0].params()) {
    p.add_(update.narrow(0, offset, p.numel()).view_as(p), step_size);
    offset += p.numel();
  }
}

std::vector<Tensor> LBFGS::clone_params() const {
  std::vector<Tensor> copies;
  for (const Tensor& p : param_groups()[0].params()) copies.push_back(p.clone());
  return copies;
}

void LBFGS::set_params(const std::vector<Tensor>& values) {
  std::vector<Tensor>& params = param_groups()[0].params();
  for (size_t i = 0; i < params.size(); ++i) params[i].copy_(values[i]);
}

namespace {
Tensor evaluate(const Optimizer::LossClosure& closure) {
  autograd::AutoGradMode enable(true);
  return closure();
}
}  // namespace

std::pair<double, Tensor> LBFGS::directional_evaluate(const LossClosure& closure, const std::vector<Tensor>& x,
                                                      double t, const Tensor& d) {
  add_grad(t, d);
  const double loss = read(evaluate(closure));
  Tensor flat_grad = gather_flat_grad();
  set_params(x);
  return {loss, flat_grad};
}

LBFGS::LineSearchResult LBFGS::strong_wolfe(const LossClosure& closure, double t, const Tensor& d, double f,
                                            const Tensor& g, double gtd) {
  const std::vector<Tensor> x = clone_params();
  const double d_norm = read(d.abs().max());
  auto [f_new, g_new] = directional_evaluate(closure, x, t, d);
  int64_t evals = 1;
  double gtd_new = read(g_new.dot(d));

  // Bracket an interval that holds a point satisfying the strong Wolfe conditions.
  double t_prev = 0, f_prev = f, gtd_prev = gtd;
  Tensor g_prev = g;
  bool done = false;
  int ls_iter = 0;
  std::vector<double> bracket, bracket_f, bracket_gtd;
  std::vector<Tensor> bracket_g;
  while (ls_iter < kMaxLineSearch) {
    if (f_new > f + kArmijo * t * gtd || (ls_iter > 1 && f_new >= f_prev)) {
      bracket = {t_prev, t}, bracket_f = {f_prev, f_new}, bracket_g = {g_prev, g_new};
      bracket_gtd = {gtd_prev, gtd_new};
      break;
    }
    if (std::abs(gtd_new) <= -kCurvature * gtd) {
      bracket = {t}, bracket_f = {f_new}, bracket_g = {g_new};
      done = true;
      break;
    }
    if (gtd_new >= 0) {
      bracket = {t_prev, t}, bracket_f = {f_prev, f_new}, bracket_g = {g_prev, g_new};
      bracket_gtd = {gtd_prev, gtd_new};
      break;
    }
    // Extrapolate by the cubic's minimum, between 1.01 t and 10 t.
    const double min_step = t + 0.01 * (t - t_prev);
    const double max_step = t * 10;
    const double previous = t;
    t = cubic_interpolate(t_prev, f_prev, gtd_prev, t, f_new, gtd_new, std::make_pair(min_step, max_step));
    t_prev = previous, f_prev = f_new, g_prev = g_new, gtd_prev = gtd_new;
    std::tie(f_new, g_new) = directional_evaluate(closure, x, t, d);
    ++evals;
    gtd_new = read(g_new.dot(d));
    ++ls_iter;
  }
  if (ls_iter == kMaxLineSearch) bracket = {0, t}, bracket_f = {f, f_new}, bracket_g = {g, g_new};

  // Zoom: shrink the bracket until a point satisfies the conditions.
  bool insufficient_progress = false;
  size_t low = bracket_f.front() <= bracket_f.back() ? 0 : 1, high = 1 - low;
  while (!done && ls_iter < kMaxLineSearch) {
    if (std::abs(bracket[1] - bracket[0]) * d_norm < kBracketTolerance) break;
    t = cubic_interpolate(bracket[0], bracket_f[0], bracket_gtd[0], bracket[1], bracket_f[1], bracket_gtd[1]);
    // A point too close to an end of the bracket moves a tenth of the bracket inwards, when the last one
    // was close too or it lies outside.
    const double top = std::max(bracket[0], bracket[1]), bottom = std::min(bracket[0], bracket[1]);
    const double eps = 0.1 * (top - bottom);
    if (std::min(top - t, t - bottom) < eps) {
      if (insufficient_progress || t >= top || t <= bottom) {
        t = std::abs(t - top) < std::abs(t - bottom) ? top - eps : bottom + eps;
        insufficient_progress = false;
      } else {
        insufficient_progress = true;
      }
    } else {
      insufficient_progress = false;
    }
    std::tie(f_new, g_new) = directional_evaluate(closure, x, t, d);
    ++evals;
    gtd_new = read(g_new.dot(d));
    ++ls_iter;
    if (f_new > f + kArmijo * t * gtd || f_new >= bracket_f[low]) {
      bracket[high] = t, bracket_f[high] = f_new, bracket_g[high] = g_new, bracket_gtd[high] = gtd_new;
      low = bracket_f[0] <= bracket_f[1] ? 0 : 1, high = 1 - low;
    } else {
      if (std::abs(gtd_new) <= -kCurvature * gtd) {
        done = true;
      } else if (gtd_new * (bracket[high] - bracket[low]) >= 0) {
        bracket[high] = bracket[low], bracket_f[high] = bracket_f[low], bracket_g[high] = bracket_g[low];
        bracket_gtd[high] = bracket_gtd[low];
      }
      bracket[low] = t, bracket_f[low] = f_new, bracket_g[low] = g_new, bracket_gtd[low] = gtd_new;
    }
  }
  return {bracket_f[low], bracket_g[low], bracket[low], evals};
}

Tensor LBFGS::step(LossClosure closure) {
  const profiler::RecordFunction region(profiler_region_name(*this, "step"));
  if (!closure) throw Error("LBFGS requires a closure function");
  check_can_step();
  autograd::NoGradGuard no_grad;
  const auto& o = static_cast<const LBFGSOptions&>(param_groups()[0].options());
  const int64_t max_eval = o.max_eval().value_or(o.max_iter() * 5 / 4);
  if (!history_) history_.emplace();
  History& h = *history_;

  Tensor orig_loss = evaluate(closure);
  double loss = read(orig_loss);
  int64_t current_evals = 1;
  h.func_evals += 1;
  Tensor flat_grad = gather_flat_grad();
  bool optimal = read(flat_grad.abs().max()) <= o.tolerance_grad();
  if (optimal) return orig_loss;

  for (int64_t n_iter = 1; n_iter <= o.max_iter(); ++n_iter) {
    h.n_iter += 1;
    // The direction: the steepest descent at first, then the two-loop recursion over the history.
    if (h.n_iter == 1) {
      h.d = flat_grad.neg();
      h.H_diag = full({}, 1, TensorOptions().dtype(flat_grad.dtype()).device(flat_grad.device()));
      h.old_dirs.clear(), h.old_stps.clear(), h.ro.clear();
    } else {
      Tensor y = flat_grad.sub(h.prev_flat_grad);
      Tensor s = h.d.mul(h.t);
      Tensor ys = y.dot(s);
      if (read(ys) > 1e-10) {
        if (static_cast<int64_t>(h.old_dirs.size()) == o.history_size()) {
          h.old_dirs.pop_front(), h.old_stps.pop_front(), h.ro.pop_front();
        }
        h.old_dirs.push_back(y);
        h.old_stps.push_back(s);
        h.ro.push_back(ys.reciprocal());
        h.H_diag = ys / y.dot(y);
      }
      // The scalars stay on the device: q and r take them as 0-dim tensors, so the recursion reads nothing.
      const size_t num_old = h.old_dirs.size();
      std::vector<Tensor> al(num_old);
      Tensor q = flat_grad.neg();
      for (size_t i = num_old; i-- > 0;) {
        al[i] = h.old_stps[i].dot(q) * h.ro[i];
        q -= h.old_dirs[i] * al[i];
      }
      Tensor r = q * h.H_diag;
      for (size_t i = 0; i < num_old; ++i) {
        Tensor be_i = h.old_dirs[i].dot(r) * h.ro[i];
        r += h.old_stps[i] * (al[i] - be_i);
      }
      h.d = r;
    }
    if (!h.prev_flat_grad.defined()) {
      h.prev_flat_grad = flat_grad.clone();
    } else {
      h.prev_flat_grad.copy_(flat_grad);
    }
    h.prev_loss = loss;

    // The step length: the first iteration's is scaled by the gradient's L1 norm.
    h.t = h.n_iter == 1 ? std::min(1.0, 1.0 / read(flat_grad.abs().sum())) * o.lr() : o.lr();
    const double gtd = read(flat_grad.dot(h.d));
    if (gtd > -o.tolerance_change()) break;  // not a descent direction any more

    int64_t ls_func_evals = 0;
    if (o.line_search_fn()) {
      LineSearchResult found = strong_wolfe(closure, h.t, h.d, loss, flat_grad, gtd);
      loss = found.loss, flat_grad = found.flat_grad, h.t = found.t, ls_func_evals = found.func_evals;
      add_grad(h.t, h.d);
      optimal = read(flat_grad.abs().max()) <= o.tolerance_grad();
    } else {
      add_grad(h.t, h.d);
      if (n_iter != o.max_iter()) {  // the last iteration's loss would go unused
        loss = read(evaluate(closure));
        flat_grad = gather_flat_grad();
        optimal = read(flat_grad.abs().max()) <= o.tolerance_grad();
        ls_func_evals = 1;
      }
    }
    current_evals += ls_func_evals;
    h.func_evals += ls_func_evals;

    if (n_iter == o.max_iter() || current_evals >= max_eval || optimal) break;
    if (read(h.d.mul(h.t).abs().max()) <= o.tolerance_change()) break;  // no progress in x
    if (std::abs(loss - h.prev_loss) < o.tolerance_change()) break;   // nor in the loss
  }
  return orig_loss;
}

void LBFGS::step_unless(const Tensor& /*found_inf*/) {
  throw UnsupportedError(
      "LBFGS cannot step with GradScaler: its closure re-evaluates the loss, which a scaled step cannot skip "
      "(PyTorch's GradScaler refuses closures too)");
}

OrderedDict<std::string, Tensor> LBFGS::state(const Tensor& param) const {
  OrderedDict<std::string, Tensor> out("Key");
  const std::vector<Tensor>& params = param_groups()[0].params();
  if (!history_ || params.empty() || !param.is_same(params[0])) return out;
  const History& h = *history_;
  const std::shared_ptr<Device>& device = params[0].device();
  auto number = [&](Scalar value, DType dtype) { return full({}, value, TensorOptions().dtype(dtype).device(device)); };
  out.insert("func_evals", number(h.func_evals, DType::Int64));
  out.insert("n_iter", number(h.n_iter, DType::Int64));
  if (!h.d.defined()) return out;
  out.insert("d", h.d);
  out.insert("t", number(h.t, DType::Float64));
  const std::pair<const char*, const std::deque<Tensor>*> lists[] = {
      {"old_dirs", &h.old_dirs}, {"old_stps", &h.old_stps}, {"ro", &h.ro}};
  for (const auto& [name, list] : lists) {
    for (size_t i = 0; i < list->size(); ++i) out.insert(std::string(name) + "." + std::to_string(i), (*list)[i]);
  }
  out.insert("H_diag", h.H_diag);
  out.insert("prev_flat_grad", h.prev_flat_grad);
  out.insert("prev_loss", number(h.prev_loss, DType::Float64));
  return out;
}

namespace {

// "old_dirs.3" -> {"old_dirs", 3}; a name without an index -> {name, -1}.
std::pair<std::string, int64_t> split_listed(const std::string& name) {
  const size_t dot = name.rfind('.');
  if (dot == std::string::npos || dot + 1 == name.size()) return {name, -1};
  const std::string index = name.substr(dot + 1);
  if (!std::all_of(index.begin(), index.end(), [](char c) { return c >= '0' && c <= '9'; }) || index.size() > 9) {
    return {name, -1};
  }
  return {name.substr(0, dot), std::stoll(index)};
}

}  // namespace

void LBFGS::check_loaded_state(const LoadedState& loaded,
                               const std::vector<std::unique_ptr<OptimizerOptions>>& /*options*/) const {
  const int64_t total = numel();
  for (const auto& [where, tensors] : loaded) {
    if (where != std::make_pair(size_t{0}, size_t{0})) {
      throw Error("load_state_dict: LBFGS keeps its state under the first parameter, not parameter " +
                  std::to_string(where.second) + " of group " + std::to_string(where.first));
    }
    const std::string prefix = "load_state_dict: LBFGS's state";
    std::map<std::string, std::set<int64_t>> listed;
    std::set<std::string> plain;
    for (const auto& [name, tensor] : tensors) {
      if (!tensor.defined()) throw Error(prefix + ": '" + name + "' is undefined");
      const auto [base, index] = split_listed(name);
      const bool vector = base == "d" || base == "prev_flat_grad" || base == "old_dirs" || base == "old_stps";
      const bool number = base == "func_evals" || base == "n_iter" || base == "t" || base == "prev_loss" ||
                          base == "H_diag" || base == "ro" || base == "al";
      const bool is_list = base == "old_dirs" || base == "old_stps" || base == "ro" || base == "al";
      if ((!vector && !number) || is_list != (index >= 0)) {
        throw Error(prefix + " has '" + name + "', which LBFGS does not keep");
      }
      const int64_t want = vector ? total : 1;
      if (tensor.numel() != want) {
        throw Error(prefix + ": '" + name + "' has " + std::to_string(tensor.numel()) + " elements, expected " +
                    std::to_string(want));
      }
      if (vector && !tensor.is_floating_point()) {
        throw Error(prefix + ": '" + name + "' is " + std::string(dtype_name(tensor.dtype())) + ", not floating point");
      }
      if (is_list) listed[base].insert(index);
      else plain.insert(base);
    }
    for (const char* name : {"func_evals", "n_iter"}) {
      if (!plain.count(name)) throw Error(prefix + " lacks '" + std::string(name) + "'");
    }
    if (plain.count("d")) {
      for (const char* name : {"t", "H_diag", "prev_flat_grad", "prev_loss"}) {
        if (!plain.count(name)) throw Error(prefix + " has 'd' but lacks '" + std::string(name) + "'");
      }
    }
    const size_t n = listed["old_dirs"].size();
    for (const char* name : {"old_dirs", "old_stps", "ro"}) {
      const std::set<int64_t>& indices = listed[name];
      if (indices.size() != n || (n > 0 && (*indices.begin() != 0 || *indices.rbegin() != static_cast<int64_t>(n) - 1))) {
        throw Error(prefix + ": old_dirs, old_stps and ro must number the same entries from 0; old_dirs has " +
                    std::to_string(n) + ", " + name + " has " + std::to_string(indices.size()));
      }
    }
  }
}

void LBFGS::restore_state(const LoadedState& loaded) {
  history_.reset();
  auto it = loaded.find({0, 0});
  if (it == loaded.end()) return;
  const std::map<std::string, Tensor>& saved = it->second;
  const Tensor& first = param_groups()[0].params()[0];
  // Copies on the parameters' device, floating point ones in their dtype, as Python's load_state_dict casts.
  auto own = [&](const Tensor& t) {
    return t.is_floating_point() ? t.to(first.device(), first.dtype(), false, true)
                               : t.to(first.device(), std::nullopt, false, true);
  };
  History h;
  h.func_evals = saved.at("func_evals").item<int64_t>();
  h.n_iter = saved.at("n_iter").item<int64_t>();
  if (saved.count("d")) {
    h.d = own(saved.at("d")).reshape({-1});
    h.t = read(saved.at("t"));
    h.H_diag = own(saved.at("H_diag")).reshape({});
    h.prev_flat_grad = own(saved.at("prev_flat_grad")).reshape({-1});
    h.prev_loss = read(saved.at("prev_loss"));
  }
  for (size_t i = 0; saved.count("old_dirs." + std::to_string(i)); ++i) {
    h.old_dirs.push_back(own(saved.at("old_dirs." + std::to_string(i))).reshape({-1}));
    h.old_stps.push_back(own(saved.at("old_stps." + std::to_string(i))).reshape({-1}));
    h.ro.push_back(own(saved.at("ro." + std::to_string(i))).reshape({}));
  }
  history_ = std::move(h);
}

}  // namespace ember::optim
