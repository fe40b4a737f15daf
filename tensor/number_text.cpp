#include "tensor/number_text.h"

#include <cmath>
#include <sstream>

namespace ember::detail {

std::string number_text(double value) {
  if (std::isnan(value)) return std::signbit(value) ? "-nan" : "nan";
  if (std::isinf(value)) return value > 0 ? "inf" : "-inf";
  std::ostringstream out;
  out << value;
  return out.str();
}

}  // namespace ember::detail
