// Printing in the format of PyTorch 1.13's Python repr(tensor) (torch/_tensor_str.py), so that output can
// be compared with PyTorch's character for character:
//
//   tensor([[ 1.0000, -2.5000],
//           [    nan,  3.1416]], device='vulkan:0', dtype=torch.float16)
//
// One difference is deliberate. PyTorch prints `device=...` only for tensors off the default device type
// (CPU), so a CUDA tensor shows device='cuda:0'. Every ember tensor lives on a device, as a CUDA tensor
// does, so ember always prints the device, spelled as Device::spec() ("vulkan:0", "cuda:0"). The suffix
// goes where PyTorch puts its device suffix (first), and counts toward the line width as PyTorch's does.
//
// toString() returns the same text. (LibTorch's at::Tensor::toString() returns a type name such as
// "CPUFloatType" instead; ember follows the Python form, which is what users compare against.)
#include <cmath>
#include <cstdio>

#include "autograd/node.h"
#include "tensor/ops_support.h"

namespace ember {

namespace {

PrintOptions& print_options() {
  static PrintOptions options;
  return options;
}

// The elements that printing shows, copied to the host in row-major order. A dim with more than
// 2 * edgeitems entries is summarised when the tensor has more than `threshold` elements: only its first
// and last edgeitems entries are shown, with "..." between them, so `sizes` holds 2 * edgeitems there.
struct Shown {
  std::vector<int64_t> sizes;
  std::vector<bool> summarised;
  int64_t edgeitems = 0;
  bool floating = false;
  bool boolean = false;
  std::vector<double> reals;   // floating dtypes (float16 and bfloat16 widen exactly, as PyTorch's do)
  std::vector<int64_t> ints;   // integer dtypes and bool (0 or 1)
};

void read_values(const Tensor& t, Shown& shown) {
  if (shown.floating) {
    shown.reals = t.to_vector<double>();
  } else {
    shown.ints = t.to_vector<int64_t>();
  }
}

// Copies only the shown elements from the device. Each summarised dim of size n and stride s becomes two
// dims, (2, edgeitems) with strides ((n - edgeitems) * s, s): a strided view that holds exactly the first
// and last edgeitems entries, so one device copy gathers them. Where that view would need more dims than
// a kernel takes, every element is read and the shown ones are picked on the host.
Shown gather_shown(const Tensor& t, const PrintOptions& options) {
  Shown shown;
  shown.edgeitems = options.edgeitems;
  shown.floating = t.is_floating_point();
  shown.boolean = t.dtype() == DType::Bool;
  const bool summarise = t.numel() > options.threshold;
  const int64_t edge = options.edgeitems;

  std::vector<int64_t> view_sizes, view_strides;
  for (int64_t d = 0; d < t.dim(); ++d) {
    const int64_t n = t.size(d), s = t.stride(d);
    const bool split = summarise && n > 2 * edge;
    shown.summarised.push_back(split);
    shown.sizes.push_back(split ? 2 * edge : n);
    if (split) {
      view_sizes.insert(view_sizes.end(), {2, edge});
      view_strides.insert(view_strides.end(), {(n - edge) * s, s});
    } else {
      view_sizes.push_back(n);
      view_strides.push_back(s);
    }
  }
  if (view_sizes.size() <= static_cast<size_t>(kMaxDims)) {
    read_values(detail::make_view(t, view_sizes, view_strides, t.storage_offset()), shown);
    return shown;
  }

  Shown all = shown;
  read_values(t, all);
  const int64_t count = detail::product(shown.sizes);
  const std::vector<int64_t> source_strides = detail::contiguous_strides(t.sizes());
  std::vector<int64_t> index(t.dim(), 0);  // position in the shown data
  for (int64_t i = 0; i < count; ++i) {
    int64_t source = 0;
    for (int64_t d = 0; d < t.dim(); ++d) {
      const int64_t k = index[d];
      source += (shown.summarised[d] && k >= edge ? t.size(d) - 2 * edge + k : k) * source_strides[d];
    }
    if (shown.floating) {
      shown.reals.push_back(all.reals[source]);
    } else {
      shown.ints.push_back(all.ints[source]);
    }
    for (int64_t d = t.dim() - 1; d >= 0 && ++index[d] == shown.sizes[d]; --d) index[d] = 0;
  }
  return shown;
}

std::string printf_string(const char* format, int precision, double value) {
  char buffer[512];
  const int n = std::snprintf(buffer, sizeof buffer, format, precision, value);
  if (n < static_cast<int>(sizeof buffer)) return std::string(buffer, n);
  std::string big(n + 1, '\0');
  std::snprintf(big.data(), big.size(), format, precision, value);
  big.resize(n);
  return big;
}

// Python's "{:.Nf}" / "{:.Ne}" / "{:.0f}". C's printf rounds the exact binary value as Python does; only
// the non-finite spellings differ (Python never prints "-nan").
std::string python_float(double value, int precision, char conversion) {
  if (std::isnan(value)) return "nan";
  if (std::isinf(value)) return value > 0 ? "inf" : "-inf";
  return printf_string(conversion == 'e' ? "%.*e" : "%.*f", precision, value);
}

// One width and one notation for every element, chosen as torch._tensor_str._Formatter chooses them.
class Formatter {
 public:
  Formatter(const Shown& shown, const PrintOptions& options) : shown_(shown), precision_(options.precision) {
    if (!shown.floating) {
      for (int64_t v : shown.ints) width_ = std::max(width_, integer_text(v).size());
    } else {
      choose_float_format(shown.reals);
    }
    if (options.sci_mode) sci_mode_ = *options.sci_mode;
  }

  size_t width() const { return width_; }

  // Element i of the shown data, padded on the left to the common width.
  std::string format(size_t i) const {
    std::string text;
    if (!shown_.floating) {
      text = integer_text(shown_.ints[i]);
    } else {
      const double v = shown_.reals[i];
      if (sci_mode_) {
        text = python_float(v, precision_, 'e');
      } else if (int_mode_) {
        text = python_float(v, 0, 'f');
        if (std::isfinite(v)) text += '.';  // marks the tensor as floating
      } else {
        text = python_float(v, precision_, 'f');
      }
    }
    return text.size() < width_ ? std::string(width_ - text.size(), ' ') + text : text;
  }

 private:
  std::string integer_text(int64_t v) const {
    if (shown_.boolean) return v ? "True" : "False";
    return std::to_string(v);
  }

  // Only finite nonzero values take part: zero, inf and nan print however they print.
  void choose_float_format(const std::vector<double>& values) {
    std::vector<double> finite;
    for (double v : values) {
      if (std::isfinite(v) && v != 0) finite.push_back(v);
    }
    if (finite.empty()) return;
    double min_abs = INFINITY, max_abs = 0;
    for (double v : finite) {
      min_abs = std::min(min_abs, std::fabs(v));
      max_abs = std::max(max_abs, std::fabs(v));
      if (v != std::ceil(v)) int_mode_ = false;
    }
    const bool wide_range = max_abs / min_abs > 1000.0 || max_abs > 1.0e8;
    sci_mode_ = int_mode_ ? wide_range : wide_range || min_abs < 1.0e-4;
    for (double v : finite) {
      if (sci_mode_) {
        width_ = std::max(width_, python_float(v, precision_, 'e').size());
      } else if (int_mode_) {
        width_ = std::max(width_, python_float(v, 0, 'f').size() + 1);
      } else {
        width_ = std::max(width_, python_float(v, precision_, 'f').size());
      }
    }
  }

  const Shown& shown_;
  int precision_;
  bool int_mode_ = true;
  bool sci_mode_ = false;
  size_t width_ = 1;
};

class BodyPrinter {
 public:
  BodyPrinter(const Shown& shown, const Formatter& formatter, const PrintOptions& options)
      : shown_(shown), formatter_(formatter), linewidth_(options.linewidth),
        strides_(detail::contiguous_strides(shown.sizes)) {}

  std::string print(int64_t indent) const {
    if (shown_.sizes.empty()) return formatter_.format(0);
    return print_dim(0, 0, indent);
  }

 private:
  // The entries of dim `dim` in display order; -1 stands for the "..." of a summarised dim.
  std::vector<int64_t> entries(size_t dim) const {
    std::vector<int64_t> result;
    for (int64_t i = 0; i < shown_.sizes[dim]; ++i) {
      if (shown_.summarised[dim] && i == shown_.edgeitems) result.push_back(-1);
      result.push_back(i);
    }
    return result;
  }

  std::string print_dim(size_t dim, int64_t offset, int64_t indent) const {
    const size_t remaining = shown_.sizes.size() - dim;
    if (remaining == 1) return print_row(offset, indent);
    std::vector<std::string> slices;
    for (int64_t i : entries(dim)) {
      slices.push_back(i < 0 ? "..." : print_dim(dim + 1, offset + i * strides_[dim], indent + 1));
    }
    std::string separator = ",";
    separator.append(remaining - 1, '\n').append(indent + 1, ' ');
    return bracketed(join(slices, separator));
  }

  // The last dim: as many elements per line as fit in linewidth, each counted at the common width.
  std::string print_row(int64_t offset, int64_t indent) const {
    const size_t last = shown_.sizes.size() - 1;
    std::vector<std::string> elements;
    for (int64_t i : entries(last)) {
      elements.push_back(i < 0 ? " ..." : formatter_.format(offset + i * strides_[last]));
    }
    const int64_t element_length = static_cast<int64_t>(formatter_.width()) + 2;
    const int64_t room = linewidth_ - indent;
    const size_t per_line = static_cast<size_t>(std::max<int64_t>(1, room >= 0 ? room / element_length : 0));
    std::vector<std::string> lines;
    for (size_t start = 0; start < elements.size(); start += per_line) {
      const size_t end = std::min(elements.size(), start + per_line);
      lines.push_back(join({elements.begin() + start, elements.begin() + end}, ", "));
    }
    std::string separator = ",\n";
    separator.append(indent + 1, ' ');
    return bracketed(join(lines, separator));
  }

  static std::string bracketed(const std::string& text) {
    std::string out = "[";
    out.append(text).push_back(']');
    return out;
  }

  static std::string join(const std::vector<std::string>& parts, const std::string& separator) {
    std::string out;
    for (size_t i = 0; i < parts.size(); ++i) {
      if (i) out += separator;
      out += parts[i];
    }
    return out;
  }

  const Shown& shown_;
  const Formatter& formatter_;
  int64_t linewidth_;
  std::vector<int64_t> strides_;
};

// Python's str(tuple(sizes)): "(0, 3)", "(0,)".
std::string python_tuple(IntArrayRef sizes) {
  std::string out = "(";
  for (size_t i = 0; i < sizes.size(); ++i) out += (i ? ", " : "") + std::to_string(sizes[i]);
  return out + (sizes.size() == 1 ? ",)" : ")");
}

// Appends ", suffix" to the text, or ",\n<indent>suffix" where the line would pass linewidth. The line
// length is counted as PyTorch counts it (two more than the last line's characters).
std::string add_suffixes(std::string text, const std::vector<std::string>& suffixes, int64_t indent,
                         int64_t linewidth) {
  const size_t newline = text.rfind('\n');
  int64_t last_line = static_cast<int64_t>(text.size()) -
                      (newline == std::string::npos ? -1 : static_cast<int64_t>(newline)) + 1;
  for (const std::string& suffix : suffixes) {
    const int64_t length = static_cast<int64_t>(suffix.size());
    if (last_line + length + 2 > linewidth) {
      text += ",\n" + std::string(indent, ' ') + suffix;
      last_line = indent + length;
    } else {
      text += ", " + suffix;
      last_line += length + 2;
    }
  }
  return text + ")";
}

}  // namespace

void set_printoptions(const PrintOptions& options) {
  if (options.precision < 0) throw Error("set_printoptions: precision must be >= 0");
  // PyTorch's behaviour with edgeitems = 0 is an accident (1-D tensors print all elements after "...",
  // others fail), so ember asks for at least one.
  if (options.edgeitems < 1) throw Error("set_printoptions: edgeitems must be >= 1");
  print_options() = options;
}

const PrintOptions& get_printoptions() { return print_options(); }

std::string Tensor::toString() const {
  if (!defined()) return "[ Tensor (undefined) ]";  // LibTorch's text; Python has no undefined tensor
  const PrintOptions options = print_options();
  const std::string prefix = "tensor(";
  const int64_t indent = static_cast<int64_t>(prefix.size());

  std::vector<std::string> suffixes = {"device='" + device()->spec() + "'"};
  const std::string dtype_suffix = "dtype=torch." + std::string(dtype_name(dtype()));
  std::string body;
  if (numel() == 0) {
    // An empty tensor has no elements to show its dtype, so every non-default dtype is named.
    if (dim() != 1) suffixes.push_back("size=" + python_tuple(sizes()));
    if (dtype() != get_default_dtype()) suffixes.push_back(dtype_suffix);
    body = "[]";
  } else {
    if (dtype() != get_default_dtype() && dtype() != DType::Int64 && dtype() != DType::Bool) {
      suffixes.push_back(dtype_suffix);
    }
    const Shown shown = gather_shown(*this, options);
    const Formatter formatter(shown, options);
    body = BodyPrinter(shown, formatter, options).print(indent);
  }
  if (auto fn = grad_fn()) {
    suffixes.push_back("grad_fn=<" + fn->name() + ">");
  } else if (requires_grad()) {
    suffixes.push_back("requires_grad=True");
  }
  return add_suffixes(prefix + body, suffixes, indent, options.linewidth);
}

std::ostream& operator<<(std::ostream& out, const Tensor& tensor) { return out << tensor.toString(); }

}  // namespace ember
