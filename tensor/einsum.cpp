// einsum, as torch.einsum: the equation is parsed with PyTorch's checks and messages, every operand is
// aligned to one layout (output dims first, then the dims summed away; repeated labels become diagonals,
// missing labels size-1 dims), and the operands are contracted pairwise from left to right with bmm.
// It records no node of its own: the permutes, diagonals, sums and bmm it is made of carry the gradient.
#include <algorithm>
#include <array>
#include <numeric>
#include <string>

#include "tensor/ops_support.h"

namespace ember {

namespace {

// Labels are numbered as PyTorch numbers them, 'A'-'Z' then 'a'-'z', because an implicit output lists its
// labels in that order. The ellipsis gets the next number.
constexpr int kLetters = 26;
constexpr int kLabels = 2 * kLetters;
constexpr int kEllipsis = kLabels;

bool is_letter(char c) { return (c >= 'a' && c <= 'z') || (c >= 'A' && c <= 'Z'); }
int label_of(char c) { return c <= 'Z' ? c - 'A' : kLetters + (c - 'a'); }
char letter_of(int label) { return static_cast<char>(label < kLetters ? 'A' + label : 'a' + label - kLetters); }

// Whether the "..." that a '.' at `i` starts is whole; moves `i` to its last '.'.
bool take_ellipsis(std::string_view text, size_t& i) {
  if (i + 2 >= text.size() || text[i + 1] != '.' || text[i + 2] != '.') return false;
  i += 2;
  return true;
}

// The equation's labels per operand (kEllipsis where "..." stands), checked as PyTorch checks them.
std::vector<std::vector<int>> parse_inputs(std::string_view lhs, size_t num_operands) {
  std::vector<std::vector<int>> labels(num_operands);
  size_t operand = 0;
  bool has_ellipsis = false;
  for (size_t i = 0; i < lhs.size(); ++i) {
    const char c = lhs[i];
    if (c == ' ') continue;
    if (c == '.') {
      if (has_ellipsis) {
        throw Error("einsum(): found '.' for operand " + std::to_string(operand) +
                    " for which an ellipsis was already found");
      }
      if (!take_ellipsis(lhs, i)) {
        throw Error("einsum(): found '.' for operand " + std::to_string(operand) +
                    " that is not part of any ellipsis");
      }
      labels[operand].push_back(kEllipsis);
      has_ellipsis = true;
    } else if (c == ',') {
      if (++operand >= num_operands) {
        throw Error("einsum(): fewer operands were provided than specified in the equation");
      }
      has_ellipsis = false;
    } else if (is_letter(c)) {
      labels[operand].push_back(label_of(c));
    } else {
      throw Error("einsum(): invalid subscript given at index " + std::to_string(i) +
                  " in the equation string, subscripts must be in [a-zA-Z]");
    }
  }
  if (operand + 1 != num_operands) {
    throw Error("einsum(): more operands were provided than specified in the equation");
  }
  return labels;
}

// Where each label and the ellipsis dims sit in the aligned layout: the output's dims come first
// (`out_dims` of them), the summed ones after.
struct Layout {
  std::array<int64_t, kLabels> position;  // -1 for labels the equation does not use
  int64_t ellipsis_start = 0;
  int64_t ellipsis_dims = 0;  // the most dims any operand's "..." covers
  int64_t out_dims = 0;
  int64_t total_dims = 0;
};

Layout plan_layout(std::string_view equation, const std::vector<std::vector<int>>& labels,
                   const std::vector<Tensor>& operands) {
  Layout layout;
  layout.position.fill(-1);
  std::array<int64_t, kLabels> count{};
  for (size_t i = 0; i < operands.size(); ++i) {
    int64_t named = 0;
    bool has_ellipsis = false;
    for (int label : labels[i]) {
      if (label == kEllipsis) {
        has_ellipsis = true;
      } else {
        ++named;
        ++count[label];
      }
    }
    const int64_t ndim = operands[i].dim();
    const std::string counts = "einsum(): the number of subscripts in the equation (" + std::to_string(named);
    if (has_ellipsis && named > ndim) {
      throw Error(counts + ") is more than the number of dimensions (" + std::to_string(ndim) + ") for operand " +
                  std::to_string(i));
    }
    if (!has_ellipsis && named != ndim) {
      throw Error(counts + ") does not match the number of dimensions (" + std::to_string(ndim) + ") for operand " +
                  std::to_string(i) + " and no ellipsis was given");
    }
    if (has_ellipsis) layout.ellipsis_dims = std::max(layout.ellipsis_dims, ndim - named);
  }

  int64_t next = 0;
  bool ellipsis_in_output = false;
  const size_t arrow = equation.find("->");
  if (arrow == std::string_view::npos) {
    // Implicit output: the ellipsis dims, then the labels used once, in label order.
    next = layout.ellipsis_dims;
    ellipsis_in_output = true;
    for (int label = 0; label < kLabels; ++label) {
      if (count[label] == 1) layout.position[label] = next++;
    }
  } else {
    const std::string_view rhs = equation.substr(arrow + 2);
    for (size_t i = 0; i < rhs.size(); ++i) {
      const char c = rhs[i];
      if (c == ' ') continue;
      if (c == '.') {
        if (ellipsis_in_output) {
          throw Error("einsum(): found '.' for output but an ellipsis (...) was already found");
        }
        if (!take_ellipsis(rhs, i)) {
          throw Error("einsum(): found '.' for output that is not part of any ellipsis (...)");
        }
        layout.ellipsis_start = next;
        next += layout.ellipsis_dims;
        ellipsis_in_output = true;
      } else if (is_letter(c)) {
        const int label = label_of(c);
        if (count[label] == 0 || layout.position[label] != -1) {
          throw Error(std::string("einsum(): output subscript ") + c +
                      (layout.position[label] != -1 ? " appears more than once in the output"
                                                    : " does not appear in the equation for any input operand"));
        }
        layout.position[label] = next++;
      } else {
        throw Error("einsum(): invalid subscript given at index " + std::to_string(arrow + 2 + i) +
                    " in the equation string, subscripts must be in [a-zA-Z]");
      }
    }
  }
  layout.out_dims = next;
  // What the output does not keep is summed: the ellipsis dims first, then the labels in label order.
  if (!ellipsis_in_output) {
    layout.ellipsis_start = next;
    next += layout.ellipsis_dims;
  }
  for (int label = 0; label < kLabels; ++label) {
    if (count[label] > 0 && layout.position[label] == -1) layout.position[label] = next++;
  }
  layout.total_dims = next;
  return layout;
}

// Sizes seen so far per label and per ellipsis dim, for PyTorch's broadcasting checks (1 until a
// non-1 size is seen).
struct SeenSizes {
  std::array<int64_t, kLabels> label;
  std::vector<int64_t> ellipsis;
};

// The operand with one dim per layout position, in layout order: repeated labels taken as diagonals,
// labels it lacks as size-1 dims.
Tensor align(const Tensor& operand, size_t index, const std::vector<int>& labels, const Layout& layout,
             SeenSizes& seen) {
  Tensor op = operand;
  std::vector<int64_t> source(layout.total_dims, -1);  // the dim of `op` at each layout position
  int64_t dim = 0;
  for (int label : labels) {
    if (label == kEllipsis) {
      const int64_t covered = operand.dim() - (static_cast<int64_t>(labels.size()) - 1);
      for (int64_t j = layout.ellipsis_dims - covered; j < layout.ellipsis_dims; ++j) {
        const int64_t size = op.size(dim);
        if (size != 1) {
          if (seen.ellipsis[j] != 1 && seen.ellipsis[j] != size) {
            throw Error("einsum(): dimension " + std::to_string(dim) + " covered by ellipsis in operand " +
                        std::to_string(index) + "has size " + std::to_string(size) +
                        " which does not broadcast with previously seen ellipsis with size " +
                        std::to_string(seen.ellipsis[j]) + " for the respective dimension");
          }
          seen.ellipsis[j] = size;
        }
        source[layout.ellipsis_start + j] = dim++;
      }
      continue;
    }
    const int64_t position = layout.position[label];
    const int64_t size = op.size(dim);
    if (source[position] == -1) {
      if (size != 1) {
        if (seen.label[label] != 1 && seen.label[label] != size) {
          throw Error(std::string("einsum(): subscript ") + letter_of(label) + " has size " + std::to_string(size) +
                      " for operand " + std::to_string(index) + " which does not broadcast with previously seen size " +
                      std::to_string(seen.label[label]));
        }
        seen.label[label] = size;
      }
      source[position] = dim++;
      continue;
    }
    // A repeated label: the diagonal replaces both dims, at the first one's place.
    const int64_t first = source[position];
    if (size != op.size(first)) {
      throw Error(std::string("einsum(): subscript ") + letter_of(label) + " is repeated for operand " +
                  std::to_string(index) + " but the sizes don't match, " + std::to_string(size) +
                  " != " + std::to_string(op.size(first)));
    }
    op = op.diagonal(0, first, dim).movedim(-1, first);
  }
  for (int64_t& s : source) {
    if (s == -1) {
      op = op.unsqueeze(dim);
      s = dim++;
    }
  }
  return op.permute(source);
}

// `t` summed over `dims` with the dims kept; `t` itself when there are none.
Tensor sum_kept(const Tensor& t, const std::vector<int64_t>& dims) {
  return dims.empty() ? t : t.sum(dims, /*keepdim=*/true);
}

// a * b summed over `summed` (dims where both have the same size), as one bmm: a is laid out as
// (dims both keep, dims only a has, summed), b as (dims both keep, summed, dims only b has). Every dim
// stays, the summed ones with size 1, so the result is aligned like its operands.
Tensor contract_pair(const Tensor& a, const Tensor& b, const std::vector<int64_t>& summed) {
  if (summed.empty()) return a * b;
  const int64_t ndim = a.dim();
  std::vector<bool> is_summed(ndim, false);
  for (int64_t d : summed) is_summed[d] = true;
  std::vector<int64_t> batch, only_a, only_b, trivial;
  for (int64_t d = 0; d < ndim; ++d) {
    if (is_summed[d]) continue;
    const bool in_a = a.size(d) != 1, in_b = b.size(d) != 1;
    (in_a && in_b ? batch : in_a ? only_a : in_b ? only_b : trivial).push_back(d);
  }
  auto extent = [](const Tensor& t, const std::vector<int64_t>& dims) {
    int64_t n = 1;
    for (int64_t d : dims) n *= t.size(d);
    return n;
  };
  auto concat = [](std::initializer_list<const std::vector<int64_t>*> parts) {
    std::vector<int64_t> all;
    for (const auto* part : parts) all.insert(all.end(), part->begin(), part->end());
    return all;
  };
  const int64_t nb = extent(a, batch), na = extent(a, only_a), nb_only = extent(b, only_b), ns = extent(a, summed);
  const Tensor left = a.permute(concat({&batch, &only_a, &summed, &only_b, &trivial})).reshape({nb, na, ns});
  const Tensor right = b.permute(concat({&batch, &summed, &only_b, &only_a, &trivial})).reshape({nb, ns, nb_only});
  const std::vector<int64_t> order = concat({&batch, &only_a, &only_b, &summed, &trivial});
  std::vector<int64_t> shape;
  for (int64_t d : order) shape.push_back(is_summed[d] ? 1 : a.size(d) != 1 ? a.size(d) : b.size(d));
  std::vector<int64_t> back(ndim);
  for (int64_t i = 0; i < ndim; ++i) back[order[i]] = i;
  return left.bmm(right).reshape(shape).permute(back);
}

}  // namespace

Tensor einsum(std::string_view equation, const std::vector<Tensor>& tensors) {
  if (tensors.empty()) throw Error("einsum(): must provide at least one operand");
  for (const Tensor& t : tensors) detail::check_same_device({&tensors[0], &t});
  const std::vector<std::vector<int>> labels = parse_inputs(equation.substr(0, equation.find("->")), tensors.size());
  const Layout layout = plan_layout(equation, labels, tensors);

  SeenSizes seen;
  seen.label.fill(1);
  seen.ellipsis.assign(layout.ellipsis_dims, 1);
  std::vector<Tensor> ops;
  for (size_t i = 0; i < tensors.size(); ++i) ops.push_back(align(tensors[i], i, labels[i], layout, seen));

  const int64_t out = layout.out_dims, total = layout.total_dims;
  if (ops.size() == 1) {
    if (total == out) return ops[0];
    std::vector<int64_t> summed(total - out);
    std::iota(summed.begin(), summed.end(), out);
    return ops[0].sum(summed);
  }

  // Left to right: a summed dim is reduced as soon as no later operand has it (sizes of 1 do not count),
  // in the pair's bmm when both have it, else on the one side that does.
  Tensor result = ops[0];
  for (size_t k = 1; k < ops.size(); ++k) {
    Tensor next = ops[k];
    std::vector<int64_t> both, only_result, only_next;
    for (int64_t d = out; d < total; ++d) {
      bool later = false;
      for (size_t j = k + 1; j < ops.size() && !later; ++j) later = ops[j].size(d) != 1;
      if (later) continue;
      const bool in_result = result.size(d) != 1, in_next = next.size(d) != 1;
      if (in_result && in_next) {
        both.push_back(d);
      } else if (in_result) {
        only_result.push_back(d);
      } else if (in_next) {
        only_next.push_back(d);
      }
    }
    result = contract_pair(sum_kept(result, only_result), sum_kept(next, only_next), both);
  }
  if (total == out) return result;
  // Every summed dim now has size 1, so dropping them is a view whatever the strides (PyTorch's node too).
  return result.view(std::vector<int64_t>(result.sizes().begin(), result.sizes().begin() + out));
}

}  // namespace ember
