#pragma once
// Element types shared by every layer. runtime/ needs them because kernel arguments carry a dtype;
// type promotion and the rest of the semantics live in tensor/.
#include <cstddef>
#include <cstdint>
#include <iosfwd>
#include <string>
#include <string_view>

namespace ember {

enum class DType : uint8_t { Float32, Float16, BFloat16, Float64, Int8, UInt8, Int16, Int32, Int64, Bool };

inline constexpr DType kAllDTypes[] = {DType::Float32, DType::Float16, DType::BFloat16, DType::Float64,
                                       DType::Int8,    DType::UInt8,   DType::Int16,    DType::Int32,
                                       DType::Int64,   DType::Bool};

size_t element_size(DType dtype);
// PyTorch's spelling without the "torch." prefix: "float32", "int64", "bool".
std::string_view dtype_name(DType dtype);
// PyTorch's ScalarType names ("Float", "Long", "Bool"), which its error messages use.
std::string scalar_type_name(DType dtype);
// Prints the ScalarType name ("Float", "Long"), as LibTorch prints `std::cout << torch::kFloat`; tests'
// failure messages show it too.
std::ostream& operator<<(std::ostream& out, DType dtype);
bool is_floating_point(DType dtype);
// Int8 through Int64 and UInt8; Bool is not integral, as in PyTorch's isIntegralType(t, false).
bool is_integral(DType dtype);

}  // namespace ember
