#pragma once
// How module reprs print option values, as Python prints them: True/False, (2, 5), 0.1, None.
#include <string>
#include <vector>

namespace ember::nn {

inline std::string repr_bool(bool value) { return value ? "True" : "False"; }
// A tuple as Python prints it: "(2, 5)", "(3,)".
std::string repr_tuple(const std::vector<int64_t>& values);
// A float as Python's repr prints it: the shortest text that reads back the same ("0.1", "1e-05", "1.0").
std::string repr_float(double value);
// The class name Python shows for a module templated on its spatial dims: "Conv2d", "BatchNorm1d".
inline std::string name_with_dims(const char* family, size_t dims) { return family + std::to_string(dims) + "d"; }

}  // namespace ember::nn
