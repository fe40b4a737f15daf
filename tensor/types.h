#pragma once
// Value types of the tensor API, spelled as LibTorch spells them: dtype constants, IntArrayRef and
// TensorOptions.
#include <cstdint>
#include <initializer_list>
#include <iosfwd>
#include <memory>
#include <optional>
#include <span>
#include <string>
#include <string_view>
#include <vector>

#include "runtime/device.h"
#include "runtime/dtype.h"
#include "runtime/scalar.h"

namespace ember {

inline constexpr DType kFloat32 = DType::Float32, kFloat = DType::Float32;
inline constexpr DType kFloat16 = DType::Float16, kHalf = DType::Float16;
inline constexpr DType kBFloat16 = DType::BFloat16;
inline constexpr DType kFloat64 = DType::Float64, kDouble = DType::Float64;
inline constexpr DType kInt8 = DType::Int8, kChar = DType::Int8;
inline constexpr DType kUInt8 = DType::UInt8, kByte = DType::UInt8;
inline constexpr DType kInt16 = DType::Int16, kShort = DType::Int16;
inline constexpr DType kInt32 = DType::Int32, kInt = DType::Int32;
inline constexpr DType kInt64 = DType::Int64, kLong = DType::Int64;
inline constexpr DType kBool = DType::Bool;

// A borrowed list of sizes, strides or dims; binds to braces, vectors and single values as
// at::IntArrayRef does. It does not own its elements: keep the source alive while it is used.
class IntArrayRef {
 public:
  IntArrayRef() = default;
  // The braces' array lives until the end of the full expression, which is as long as a call uses it.
#if defined(__GNUC__) && !defined(__clang__)
#pragma GCC diagnostic push
#pragma GCC diagnostic ignored "-Winit-list-lifetime"
#endif
  IntArrayRef(std::initializer_list<int64_t> values) : data_(values.begin()), size_(values.size()) {}
#if defined(__GNUC__) && !defined(__clang__)
#pragma GCC diagnostic pop
#endif
  IntArrayRef(const std::vector<int64_t>& values) : data_(values.data()), size_(values.size()) {}
  IntArrayRef(std::span<const int64_t> values) : data_(values.data()), size_(values.size()) {}
  IntArrayRef(const int64_t& value) : data_(&value), size_(1) {}
  IntArrayRef(const int64_t* data, size_t size) : data_(data), size_(size) {}

  const int64_t* begin() const { return data_; }
  const int64_t* end() const { return data_ + size_; }
  const int64_t* data() const { return data_; }
  size_t size() const { return size_; }
  bool empty() const { return size_ == 0; }
  int64_t operator[](size_t i) const { return data_[i]; }
  std::vector<int64_t> vec() const { return {begin(), end()}; }
  bool operator==(const IntArrayRef& other) const;

 private:
  const int64_t* data_ = nullptr;
  size_t size_ = 0;
};

std::string to_string(IntArrayRef values);  // "[2, 3]"
// Prints to_string(values), as LibTorch prints sizes and strides (`std::cout << t.sizes()`).
std::ostream& operator<<(std::ostream& out, IntArrayRef values);

// The default float dtype (float32 unless changed), as torch.get_default_dtype.
DType get_default_dtype();
void set_default_dtype(DType dtype);

class TensorOptions {
 public:
  TensorOptions() = default;
  TensorOptions(DType dtype) : dtype_(dtype) {}

  TensorOptions dtype(DType dtype) const;
  TensorOptions device(std::shared_ptr<Device> device) const;
  TensorOptions device(std::string_view spec) const;  // "vulkan:0", "cuda"
  TensorOptions requires_grad(bool requires_grad) const;

  std::optional<DType> dtype_opt() const { return dtype_; }
  const std::shared_ptr<Device>& device_opt() const { return device_; }
  bool requires_grad() const { return requires_grad_; }
  // The dtype, or `fallback` when none was set.
  DType dtype_or(DType fallback) const { return dtype_.value_or(fallback); }
  // The device, or the default device when none was set.
  std::shared_ptr<Device> device_or_default() const;

 private:
  std::optional<DType> dtype_;
  std::shared_ptr<Device> device_;
  bool requires_grad_ = false;
};

// Shorthands as in torch::dtype(...) and torch::device(...).
inline TensorOptions dtype(DType d) { return TensorOptions().dtype(d); }
inline TensorOptions device(std::shared_ptr<Device> d) { return TensorOptions().device(std::move(d)); }

}  // namespace ember
