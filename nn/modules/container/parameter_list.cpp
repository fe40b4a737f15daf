#include "nn/modules/container/parameter_list.h"

#include "autograd/grad_mode.h"

namespace ember::nn {

namespace {

// "Parameter containing: [float32 of size 3x4]", as Python's ParameterList and ParameterDict show one.
std::string parameter_summary(const Tensor& p) {
  std::string size;
  for (int64_t s : p.sizes()) {
    if (!size.empty()) size += 'x';
    size += std::to_string(s);
  }
  return "Parameter containing: [" + std::string(dtype_name(p.dtype())) + " of size " + size + "]";
}

// One line per parameter, indented as Python's extra_repr of these containers indents them.
std::string parameters_repr(const OrderedDict<std::string, Tensor>& parameters) {
  std::string text;
  for (const auto& item : parameters) {
    if (!text.empty()) text += '\n';
    text += "  (";
    text += item.key();
    text += "): ";
    text += parameter_summary(item.value());
  }
  return text;
}

Tensor cloned(const Tensor& p, const std::shared_ptr<Device>& device) {
  autograd::NoGradGuard no_grad;
  return device && p.device() != device ? p.to(device) : p.clone();
}

}  // namespace

ParameterListImpl::ParameterListImpl(const std::vector<Tensor>& parameters) { extend(parameters); }

std::shared_ptr<Module> ParameterListImpl::clone(const std::shared_ptr<Device>& device) const {
  auto copy = std::make_shared<ParameterListImpl>();
  for (const auto& item : parameters_) copy->append(cloned(item.value(), device), item.value().requires_grad());
  copy->train(is_training());
  return copy;
}

std::string ParameterListImpl::extra_repr() const { return parameters_repr(parameters_); }

void ParameterListImpl::append(Tensor parameter, bool requires_grad) {
  register_parameter(std::to_string(parameters_.size()), std::move(parameter), requires_grad);
}

void ParameterListImpl::extend(const std::vector<Tensor>& parameters) {
  for (const Tensor& p : parameters) append(p);
}

Tensor& ParameterListImpl::at(size_t index) {
  if (index >= parameters_.size()) {
    throw IndexError("index " + std::to_string(index) + " is out of range for a ParameterList of " +
                     std::to_string(parameters_.size()) + " parameters");
  }
  return parameters_[index].value();
}

ParameterDictImpl::ParameterDictImpl(const std::vector<std::pair<std::string, Tensor>>& parameters) {
  for (const auto& [key, p] : parameters) insert(key, p);
}

std::shared_ptr<Module> ParameterDictImpl::clone(const std::shared_ptr<Device>& device) const {
  auto copy = std::make_shared<ParameterDictImpl>();
  for (const auto& item : parameters_) {
    copy->insert(item.key(), cloned(item.value(), device), item.value().requires_grad());
  }
  copy->train(is_training());
  return copy;
}

std::string ParameterDictImpl::extra_repr() const { return parameters_repr(parameters_); }

Tensor& ParameterDictImpl::insert(const std::string& key, Tensor parameter, bool requires_grad) {
  if (Tensor* existing = parameters_.find(key)) return *existing = as_parameter(std::move(parameter), requires_grad);
  return register_parameter(key, std::move(parameter), requires_grad);
}

Tensor ParameterDictImpl::pop(const std::string& key) {
  if (!parameters_.contains(key)) throw IndexError("ParameterDict has no parameter '" + key + "'");
  return parameters_.pop(key);
}

Tensor& ParameterDictImpl::operator[](const std::string& key) {
  Tensor* p = parameters_.find(key);
  if (!p) throw IndexError("ParameterDict has no parameter '" + key + "'");
  return *p;
}

}  // namespace ember::nn
