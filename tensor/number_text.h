#pragma once
// A double as PyTorch's messages print it: C++ stream formatting (2, 0.5, 1.23457, 2.5e+10), and NaN
// with its sign ("nan", "-nan") and infinities as "inf" and "-inf" whatever the host's library does.
#include <string>

namespace ember::detail {

std::string number_text(double value);

}  // namespace ember::detail
