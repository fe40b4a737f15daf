#include "tests/serialize/checkpoint_files.h"

#include <algorithm>
#include <cstdio>
#include <filesystem>
#include <fstream>
#include <sstream>
#include <stdexcept>

#include "ember.h"

namespace ember::test {

TempDir::TempDir() {
  char pattern[] = "/tmp/ember-ckpt-XXXXXX";
  if (!mkdtemp(pattern)) throw std::runtime_error("mkdtemp failed");
  dir_ = pattern;
}

TempDir::~TempDir() {
  std::error_code ignored;
  std::filesystem::remove_all(dir_, ignored);
}

std::vector<std::string> TempDir::files() const {
  std::vector<std::string> names;
  for (const auto& entry : std::filesystem::directory_iterator(dir_)) names.push_back(entry.path().filename().string());
  std::sort(names.begin(), names.end());
  return names;
}

std::string read_file(const std::string& path) {
  std::ifstream in(path, std::ios::binary);
  std::ostringstream out;
  out << in.rdbuf();
  return out.str();
}

void write_file(const std::string& path, const std::string& bytes) {
  std::ofstream(path, std::ios::binary | std::ios::trunc).write(bytes.data(), static_cast<std::streamsize>(bytes.size()));
}

namespace {

uint32_t crc32(const std::string& data) {
  uint32_t crc = 0xffffffffu;
  for (unsigned char c : data) {
    crc ^= c;
    for (int bit = 0; bit < 8; ++bit) crc = (crc >> 1) ^ (0xedb88320u & (0u - (crc & 1u)));
  }
  return ~crc;
}

void put(std::string& out, uint64_t value, int bytes) {
  for (int i = 0; i < bytes; ++i) out.push_back(static_cast<char>(value >> (8 * i)));
}

}  // namespace

std::string make_zip(const std::vector<ZipEntry>& entries) {
  std::string out, directory;
  for (const ZipEntry& e : entries) {
    const uint64_t offset = out.size();
    const uint32_t crc = crc32(e.data);
    const int method = e.deflated ? 8 : 0;
    put(out, 0x04034b50, 4);  // local file header
    put(out, 20, 2);          // version needed
    put(out, 0, 2);           // flags
    put(out, method, 2);
    put(out, 0, 4);  // time, date
    put(out, crc, 4);
    put(out, e.data.size(), 4);
    put(out, e.data.size(), 4);
    put(out, e.name.size(), 2);
    put(out, 0, 2);  // extra length
    out += e.name + e.data;

    put(directory, 0x02014b50, 4);  // central directory header
    put(directory, 20, 2);          // version made by
    put(directory, 20, 2);
    put(directory, 0, 2);
    put(directory, method, 2);
    put(directory, 0, 4);
    put(directory, crc, 4);
    put(directory, e.data.size(), 4);
    put(directory, e.data.size(), 4);
    put(directory, e.name.size(), 2);
    put(directory, 0, 2);  // extra
    put(directory, 0, 2);  // comment
    put(directory, 0, 2);  // disk
    put(directory, 0, 2);  // internal attributes
    put(directory, 0, 4);  // external attributes
    put(directory, offset, 4);
    directory += e.name;
  }
  const uint64_t directory_offset = out.size();
  out += directory;
  put(out, 0x06054b50, 4);  // end of central directory
  put(out, 0, 2);
  put(out, 0, 2);
  put(out, entries.size(), 2);
  put(out, entries.size(), 2);
  put(out, directory.size(), 4);
  put(out, directory_offset, 4);
  put(out, 0, 2);
  return out;
}

Pickle& Pickle::string(const std::string& text) {
  op('X');
  put(bytes, text.size(), 4);
  bytes += text;
  return *this;
}

Pickle& Pickle::integer(int32_t value) {
  op('J');
  put(bytes, static_cast<uint32_t>(value), 4);
  return *this;
}

Pickle& Pickle::tensor(const std::string& storage_class, const std::string& key, int32_t numel, int32_t offset,
                       const std::vector<int32_t>& sizes, const std::vector<int32_t>& strides) {
  global("torch._utils", "_rebuild_tensor_v2").op('(');
  op('(').string("storage").global("torch", storage_class).string(key).string("cpu").integer(numel).op('t').op('Q');
  integer(offset);
  op('(');
  for (int32_t s : sizes) integer(s);
  op('t').op('(');
  for (int32_t s : strides) integer(s);
  op('t');
  op('\x89');  // requires_grad = False
  empty_ordered_dict();
  return op('t').op('R');
}

std::string make_pt(const std::string& pickle, const std::vector<std::pair<std::string, std::string>>& storages) {
  std::vector<ZipEntry> entries = {{"archive/data.pkl", pickle}};
  for (const auto& [key, data] : storages) entries.push_back({"archive/data/" + key, data});
  entries.push_back({"archive/version", "3\n"});
  return make_zip(entries);
}

std::string python_values(const Tensor& tensor) {
  std::string text = "[";
  for (double v : tensor.flatten().to_vector<double>()) {
    char number[40];
    std::snprintf(number, sizeof number, "%s%.17g", text.size() > 1 ? ", " : "", v);
    text += number;
  }
  return text + "]";
}

std::string python_dtype(DType dtype) { return "torch." + std::string(dtype_name(dtype)); }

}  // namespace ember::test
