#include "serialize/safetensors_header.h"

#include <nlohmann/json.hpp>

#include <algorithm>
#include <limits>
#include <set>

#include "serialize/checkpoint.h"

namespace ember {
namespace {

using Json = nlohmann::ordered_json;  // keeps the tensors in the order they were saved

[[noreturn]] void fail(const std::string& source, const std::string& problem) {
  throw CheckpointError("cannot load '" + source + "': " + problem);
}

std::string shape_text(const std::vector<int64_t>& shape) {
  std::string text = "[";
  for (size_t i = 0; i < shape.size(); ++i) text += (i ? ", " : "") + std::to_string(shape[i]);
  return text + "]";
}

const char* json_kind(const Json& value) {
  if (value.is_object()) return "an object";
  if (value.is_array()) return "an array";
  if (value.is_string()) return "a string";
  if (value.is_boolean()) return "a boolean";
  if (value.is_null()) return "null";
  return "a number";
}

// The ember dtype of a safetensors code. Codes the format has but ember lacks are named as such, so that
// the message tells an unsupported file from a corrupt one.
DType parse_dtype(const std::string& code, const std::string& name, const std::string& source) {
  for (DType dtype : kAllDTypes) {
    if (safetensors_dtype_code(dtype) == code) return dtype;
  }
  static const std::set<std::string> known_elsewhere = {"U16", "U32", "U64", "F8_E4M3", "F8_E5M2", "C64", "C128"};
  if (known_elsewhere.count(code)) {
    fail(source, "tensor '" + name + "' has dtype " + code + ", which ember does not support");
  }
  fail(source, "tensor '" + name + "' has unknown dtype '" + code + "'");
}

uint64_t parse_count(const Json& value, const std::string& what, const std::string& source) {
  if (!value.is_number_unsigned()) {
    fail(source, what + " must be a non-negative integer, not " + (value.is_number() ? value.dump() : json_kind(value)));
  }
  return value.get<uint64_t>();
}

SafetensorsEntry parse_entry(const std::string& name, const Json& info, const std::string& source) {
  if (!info.is_object()) fail(source, "the header entry of tensor '" + name + "' is " + json_kind(info) + ", not an object");
  for (const char* field : {"dtype", "shape", "data_offsets"}) {
    if (!info.contains(field)) fail(source, "the header entry of tensor '" + name + "' has no \"" + field + "\"");
  }
  SafetensorsEntry entry;
  entry.name = name;
  const Json& dtype = info["dtype"];
  if (!dtype.is_string()) fail(source, "the dtype of tensor '" + name + "' is " + json_kind(dtype) + ", not a string");
  entry.dtype = parse_dtype(dtype.get<std::string>(), name, source);

  const Json& shape = info["shape"];
  if (!shape.is_array()) fail(source, "the shape of tensor '" + name + "' is " + json_kind(shape) + ", not an array");
  uint64_t numel = 1;
  bool overflow = false;
  for (const Json& size : shape) {
    const uint64_t n = parse_count(size, "each size in the shape of tensor '" + name + "'", source);
    if (n > static_cast<uint64_t>(std::numeric_limits<int64_t>::max())) overflow = true;
    entry.shape.push_back(static_cast<int64_t>(std::min<uint64_t>(n, std::numeric_limits<int64_t>::max())));
    overflow = overflow || __builtin_mul_overflow(numel, n, &numel);
  }
  uint64_t bytes = 0;
  overflow = overflow || __builtin_mul_overflow(numel, element_size(entry.dtype), &bytes) ||
             bytes > static_cast<uint64_t>(std::numeric_limits<int64_t>::max());
  if (overflow) fail(source, "tensor '" + name + "' has shape " + shape_text(entry.shape) + ", too large to hold");

  const Json& offsets = info["data_offsets"];
  if (!offsets.is_array() || offsets.size() != 2) {
    fail(source, "the data_offsets of tensor '" + name + "' must be an array [begin, end], not " +
                     (offsets.is_array() ? "an array of length " + std::to_string(offsets.size()) : json_kind(offsets)));
  }
  entry.begin = parse_count(offsets[0], "the data_offsets of tensor '" + name + "'", source);
  entry.end = parse_count(offsets[1], "the data_offsets of tensor '" + name + "'", source);
  if (entry.end < entry.begin) {
    fail(source, "the data_offsets of tensor '" + name + "' end before they begin: " + offsets.dump());
  }
  if (entry.end - entry.begin != bytes) {
    fail(source, "tensor '" + name + "' has shape " + shape_text(entry.shape) + " of " +
                     std::string(dtype_name(entry.dtype)) + " (" + std::to_string(bytes) +
                     " bytes), but its data_offsets " + offsets.dump() + " hold " +
                     std::to_string(entry.end - entry.begin) + " bytes");
  }
  return entry;
}

std::map<std::string, std::string> parse_metadata(const Json& metadata, const std::string& source) {
  if (!metadata.is_object()) fail(source, "__metadata__ is " + std::string(json_kind(metadata)) + ", not an object");
  std::map<std::string, std::string> out;
  for (const auto& item : metadata.items()) {
    if (!item.value().is_string()) {
      fail(source, "__metadata__ maps strings to strings, but '" + item.key() + "' holds " + json_kind(item.value()));
    }
    out[item.key()] = item.value().get<std::string>();
  }
  return out;
}

}  // namespace

std::string_view safetensors_dtype_code(DType dtype) {
  switch (dtype) {
    case DType::Float32: return "F32";
    case DType::Float16: return "F16";
    case DType::BFloat16: return "BF16";
    case DType::Float64: return "F64";
    case DType::Int8: return "I8";
    case DType::UInt8: return "U8";
    case DType::Int16: return "I16";
    case DType::Int32: return "I32";
    case DType::Int64: return "I64";
    case DType::Bool: return "BOOL";
  }
  return "";
}

std::string safetensors_header_json(const std::vector<SafetensorsEntry>& entries,
                                    const std::map<std::string, std::string>& metadata) {
  Json header = Json::object();
  if (!metadata.empty()) {
    Json meta = Json::object();
    for (const auto& [key, value] : metadata) meta[key] = value;
    header["__metadata__"] = std::move(meta);
  }
  for (const SafetensorsEntry& entry : entries) {
    header[entry.name] = Json{{"dtype", safetensors_dtype_code(entry.dtype)},
                              {"shape", entry.shape},
                              {"data_offsets", {entry.begin, entry.end}}};
  }
  std::string text;
  try {
    text = header.dump();
  } catch (const Json::exception& e) {
    // The format's header is UTF-8 JSON, so a name or metadata value must be UTF-8.
    throw Error(std::string("a tensor name or metadata string is not valid UTF-8: ") + e.what());
  }
  text.append((8 - text.size() % 8) % 8, ' ');  // the 8-byte length keeps the data 8-byte aligned
  return text;
}

uint64_t safetensors_header_length(std::string_view first_8_bytes, uint64_t file_size, const std::string& source) {
  if (first_8_bytes.size() < 8 || file_size < 8) {
    fail(source, "the file has " + std::to_string(file_size) +
                     " bytes, fewer than the 8 of a safetensors header length (truncated?)");
  }
  uint64_t length = 0;
  for (int i = 7; i >= 0; --i) length = (length << 8) | static_cast<uint8_t>(first_8_bytes[i]);
  if (length > kSafetensorsMaxHeaderBytes) {
    fail(source, "the header length " + std::to_string(length) + " is larger than the " +
                     std::to_string(kSafetensorsMaxHeaderBytes) + " bytes safetensors allows (corrupt or not a safetensors file)");
  }
  if (length > file_size - 8) {
    fail(source, "the header length " + std::to_string(length) + " runs past the end of the file (" +
                     std::to_string(file_size) + " bytes; truncated?)");
  }
  if (length < 2) fail(source, "the header length " + std::to_string(length) + " is too small for a JSON object");
  return length;
}

SafetensorsHeader parse_safetensors_header(std::string_view json, uint64_t file_size, const std::string& source) {
  if (json.empty() || json.front() != '{') {
    fail(source, "the header does not start with '{': not a JSON object (corrupt or not a safetensors file)");
  }
  // Duplicate names would silently keep the last entry; the callback sees every top-level key.
  std::set<std::string> names;
  std::string duplicate;
  auto check_keys = [&](int depth, Json::parse_event_t event, Json& parsed) {
    if (event == Json::parse_event_t::key && depth == 1 && !names.insert(parsed.get<std::string>()).second) {
      duplicate = parsed.get<std::string>();
    }
    return true;
  };
  Json header;
  try {
    header = Json::parse(json.begin(), json.end(), check_keys);
  } catch (const Json::exception& e) {
    fail(source, std::string("the header is not valid JSON: ") + e.what());
  }
  if (!header.is_object()) fail(source, std::string("the header is ") + json_kind(header) + ", not a JSON object");
  if (!duplicate.empty()) fail(source, "the header names tensor '" + duplicate + "' twice");

  SafetensorsHeader out;
  out.data_start = 8 + json.size();
  for (const auto& item : header.items()) {
    if (item.key() == "__metadata__") {
      out.metadata = parse_metadata(item.value(), source);
    } else {
      out.entries.push_back(parse_entry(item.key(), item.value(), source));
    }
  }
  // The entries must tile the data section exactly: in offset order each begins where the previous
  // ended, and the last ends at the end of the file.
  const uint64_t data_size = file_size - out.data_start;
  std::vector<const SafetensorsEntry*> by_offset;
  for (const SafetensorsEntry& entry : out.entries) by_offset.push_back(&entry);
  std::stable_sort(by_offset.begin(), by_offset.end(), [](const SafetensorsEntry* a, const SafetensorsEntry* b) {
    return a->begin != b->begin ? a->begin < b->begin : a->end < b->end;
  });
  auto range = [](const SafetensorsEntry& e) {
    std::string text = "[";  // (built up in steps: GCC 12 warns falsely on "[" + string)
    text += std::to_string(e.begin) + ", " + std::to_string(e.end) + "]";
    return text;
  };
  uint64_t covered = 0;
  const SafetensorsEntry* previous = nullptr;
  for (const SafetensorsEntry* entry : by_offset) {
    if (entry->end > data_size) {
      fail(source, "the data_offsets " + range(*entry) + " of tensor '" + entry->name +
                       "' run past the end of the file (its data section has " + std::to_string(data_size) +
                       " bytes; truncated?)");
    }
    if (entry->begin < covered) {
      fail(source, "tensors '" + previous->name + "' " + range(*previous) + " and '" + entry->name + "' " +
                       range(*entry) + " overlap");
    }
    if (entry->begin > covered) {
      fail(source, "no tensor holds bytes [" + std::to_string(covered) + ", " + std::to_string(entry->begin) +
                       ") of the data section");
    }
    covered = entry->end;
    previous = entry;
  }
  if (covered != data_size) {
    fail(source, "the tensors hold " + std::to_string(covered) + " bytes, but the data section has " +
                     std::to_string(data_size));
  }
  return out;
}

}  // namespace ember
