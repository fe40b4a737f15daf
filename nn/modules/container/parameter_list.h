#pragma once
// ParameterList and ParameterDict: parameters held in a list ("0", "1", ...) or by name, registered on
// the container (https://pytorch.org/docs/1.13/generated/torch.nn.ParameterList.html).
//   nn::ParameterList scales;  scales->append(ember::ones({4}));  scales[0]
#include <string>
#include <utility>
#include <vector>

#include "nn/cloneable.h"
#include "nn/module_holder.h"

namespace ember::nn {

class ParameterListImpl : public Cloneable<ParameterListImpl> {
 public:
  ParameterListImpl() = default;
  explicit ParameterListImpl(const std::vector<Tensor>& parameters);

  void reset() override {}
  std::shared_ptr<Module> clone(const std::shared_ptr<Device>& device = nullptr) const override;
  std::string extra_repr() const override;

  // Registers `parameter` (requires_grad as given) as the next entry.
  void append(Tensor parameter, bool requires_grad = true);
  void extend(const std::vector<Tensor>& parameters);

  size_t size() const { return parameters_.size(); }
  bool is_empty() const { return parameters_.is_empty(); }
  Tensor& at(size_t index);
  Tensor& operator[](size_t index) { return at(index); }
  auto begin() const { return parameters_.begin(); }
  auto end() const { return parameters_.end(); }
};
EMBER_MODULE(ParameterList);

class ParameterDictImpl : public Cloneable<ParameterDictImpl> {
 public:
  ParameterDictImpl() = default;
  explicit ParameterDictImpl(const std::vector<std::pair<std::string, Tensor>>& parameters);

  void reset() override {}
  std::shared_ptr<Module> clone(const std::shared_ptr<Device>& device = nullptr) const override;
  std::string extra_repr() const override;

  // Adds `parameter` under `key`, or replaces the one there.
  Tensor& insert(const std::string& key, Tensor parameter, bool requires_grad = true);
  Tensor pop(const std::string& key);
  void clear() { parameters_.clear(); }

  size_t size() const { return parameters_.size(); }
  bool empty() const { return parameters_.is_empty(); }
  bool contains(const std::string& key) const { return parameters_.contains(key); }
  Tensor& operator[](const std::string& key);
  std::vector<std::string> keys() const { return parameters_.keys(); }
  std::vector<Tensor> values() const { return parameters_.values(); }
  auto begin() const { return parameters_.begin(); }
  auto end() const { return parameters_.end(); }
};
EMBER_MODULE(ParameterDict);

}  // namespace ember::nn
