#include "runtime/dtype.h"

#include <ostream>

namespace ember {

size_t element_size(DType dtype) {
  switch (dtype) {
    case DType::Float64:
    case DType::Int64: return 8;
    case DType::Float32:
    case DType::Int32: return 4;
    case DType::Float16:
    case DType::BFloat16:
    case DType::Int16: return 2;
    case DType::Int8:
    case DType::UInt8:
    case DType::Bool: return 1;
  }
  return 0;
}

std::string_view dtype_name(DType dtype) {
  switch (dtype) {
    case DType::Float32: return "float32";
    case DType::Float16: return "float16";
    case DType::BFloat16: return "bfloat16";
    case DType::Float64: return "float64";
    case DType::Int8: return "int8";
    case DType::UInt8: return "uint8";
    case DType::Int16: return "int16";
    case DType::Int32: return "int32";
    case DType::Int64: return "int64";
    case DType::Bool: return "bool";
  }
  return "unknown";
}

std::string scalar_type_name(DType dtype) {
  switch (dtype) {
    case DType::Float32: return "Float";
    case DType::Float64: return "Double";
    case DType::Float16: return "Half";
    case DType::BFloat16: return "BFloat16";
    case DType::Int8: return "Char";
    case DType::UInt8: return "Byte";
    case DType::Int16: return "Short";
    case DType::Int32: return "Int";
    case DType::Int64: return "Long";
    case DType::Bool: return "Bool";
  }
  return "Unknown";
}

std::ostream& operator<<(std::ostream& out, DType dtype) { return out << scalar_type_name(dtype); }

bool is_floating_point(DType dtype) {
  return dtype == DType::Float32 || dtype == DType::Float16 || dtype == DType::BFloat16 ||
         dtype == DType::Float64;
}

}  // namespace ember

namespace ember {

bool is_integral(DType dtype) {
  return dtype == DType::Int8 || dtype == DType::UInt8 || dtype == DType::Int16 ||
         dtype == DType::Int32 || dtype == DType::Int64;
}

}  // namespace ember
