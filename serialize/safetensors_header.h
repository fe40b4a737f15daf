#pragma once
// The safetensors header, host side only: building it for save() and checking a file's header before
// load() allocates anything. Every number is checked against the file's length, with overflow checks, so
// a hostile header is an error and never a read out of bounds or a huge allocation.
#include <cstdint>
#include <map>
#include <string>
#include <string_view>
#include <vector>

#include "runtime/dtype.h"

namespace ember {

// The reference implementation's limit; real headers are a few megabytes at most.
inline constexpr uint64_t kSafetensorsMaxHeaderBytes = 100'000'000;

struct SafetensorsEntry {
  std::string name;
  DType dtype = DType::Float32;
  std::vector<int64_t> shape;
  uint64_t begin = 0;  // data_offsets, relative to the first byte after the header
  uint64_t end = 0;
};

struct SafetensorsHeader {
  std::vector<SafetensorsEntry> entries;  // in the header's order
  std::map<std::string, std::string> metadata;
  uint64_t data_start = 0;  // the file offset of the data section
};

// "F32", "BF16", "BOOL", ...
std::string_view safetensors_dtype_code(DType dtype);

// The header's bytes as save() writes them: JSON with the entries in the given order, padded with spaces
// so that the data starts 8-byte aligned. The 8-byte length is not included.
std::string safetensors_header_json(const std::vector<SafetensorsEntry>& entries,
                                    const std::map<std::string, std::string>& metadata);

// Reading a file is two steps: the header's length from the file's first 8 bytes (checked against the
// file's length and the limit), then the header itself. `source` names the file in errors. Both throw
// CheckpointError naming the problem: a length past the file or the limit, JSON that is not an object,
// an unknown or unsupported dtype, a shape whose byte count differs from its offsets, offsets out of the
// file, overlapping or leaving gaps (the reference reader rejects gaps too).
uint64_t safetensors_header_length(std::string_view first_8_bytes, uint64_t file_size, const std::string& source);
SafetensorsHeader parse_safetensors_header(std::string_view json, uint64_t file_size, const std::string& source);

}  // namespace ember
