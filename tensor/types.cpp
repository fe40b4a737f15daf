#include "tensor/types.h"

#include <atomic>
#include <ostream>

#include "runtime/error.h"

namespace ember {

bool IntArrayRef::operator==(const IntArrayRef& other) const {
  if (size_ != other.size_) return false;
  for (size_t i = 0; i < size_; ++i) {
    if (data_[i] != other.data_[i]) return false;
  }
  return true;
}

std::string to_string(IntArrayRef values) {
  std::string text = "[";
  for (size_t i = 0; i < values.size(); ++i) {
    if (i) text += ", ";
    text += std::to_string(values[i]);
  }
  return text + "]";
}

std::ostream& operator<<(std::ostream& out, IntArrayRef values) { return out << to_string(values); }

namespace {
std::atomic<DType> default_dtype{DType::Float32};
}

DType get_default_dtype() { return default_dtype.load(); }

void set_default_dtype(DType dtype) {
  if (!is_floating_point(dtype)) {
    throw Error("only floating-point types are supported as the default type");
  }
  default_dtype.store(dtype);
}

TensorOptions TensorOptions::dtype(DType dtype) const {
  TensorOptions copy = *this;
  copy.dtype_ = dtype;
  return copy;
}

TensorOptions TensorOptions::device(std::shared_ptr<Device> device) const {
  TensorOptions copy = *this;
  copy.device_ = std::move(device);
  return copy;
}

TensorOptions TensorOptions::device(std::string_view spec) const { return device(get_device(spec)); }

TensorOptions TensorOptions::requires_grad(bool requires_grad) const {
  TensorOptions copy = *this;
  copy.requires_grad_ = requires_grad;
  return copy;
}

std::shared_ptr<Device> TensorOptions::device_or_default() const {
  return device_ ? device_ : default_device();
}

}  // namespace ember
