#pragma once
// Helpers for the op lists (*.def): each list makes an enum class, a name per value and a count, and
// the count is checked against the names the list produced.
#include <cstddef>
#include <iterator>
#include <string_view>

namespace ember {

// The name of op `op` from a list's names, or "unknown" for a value outside the list.
template <class Enum, size_t N>
constexpr std::string_view op_name(Enum op, const std::string_view (&names)[N]) {
  const auto i = static_cast<size_t>(op);
  return i < N ? names[i] : std::string_view("unknown");
}

}  // namespace ember
