#pragma once
// How deeply a JSON text nests its arrays and objects, found without parsing it. nlohmann's parser is
// iterative, but copying, comparing and printing a parsed value recurse once per level, so a state that
// a file supplies (an optimizer's or a scheduler's, in a checkpoint's metadata) is refused before
// parsing when it nests deeper than any state ember writes.
#include <cstddef>
#include <string_view>

namespace ember {

// Deep enough for every state ember saves (a SequentialLR's children nest five levels) with room to spare.
inline constexpr size_t kMaxStateNesting = 64;

// The deepest level of [ and { outside strings; an unbalanced or invalid text is left for the parser.
constexpr size_t json_nesting_depth(std::string_view text) {
  size_t depth = 0, deepest = 0;
  bool in_string = false, escaped = false;
  for (const char c : text) {
    if (in_string) {
      if (escaped) escaped = false;
      else if (c == '\\') escaped = true;
      else if (c == '"') in_string = false;
    } else if (c == '"') {
      in_string = true;
    } else if (c == '[' || c == '{') {
      if (++depth > deepest) deepest = depth;
    } else if ((c == ']' || c == '}') && depth > 0) {
      --depth;
    }
  }
  return deepest;
}

}  // namespace ember
