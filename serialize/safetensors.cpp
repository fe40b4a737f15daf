// save() and load() in the safetensors format (serialize/checkpoint.h describes it).
#include <fcntl.h>
#include <sys/stat.h>
#include <unistd.h>

#include <algorithm>
#include <cerrno>
#include <cstring>

#include "serialize/atomic_file.h"
#include "serialize/detail/formats.h"
#include "serialize/detail/host_copy.h"
#include "serialize/safetensors_header.h"
#include "tensor/functions.h"

namespace ember::detail {
namespace {

// A file opened for reading, closed when this goes out of scope.
class InputFile {
 public:
  explicit InputFile(const std::string& path) : path_(path) {
    fd_ = ::open(path.c_str(), O_RDONLY | O_CLOEXEC);
    if (fd_ < 0) throw Error("cannot open '" + path + "': " + std::strerror(errno));
    struct stat info {};
    if (::fstat(fd_, &info) != 0 || !S_ISREG(info.st_mode)) {
      ::close(fd_);
      throw CheckpointError("cannot load '" + path + "': not a regular file");
    }
    size_ = static_cast<uint64_t>(info.st_size);
  }
  InputFile(const InputFile&) = delete;
  InputFile& operator=(const InputFile&) = delete;
  ~InputFile() { ::close(fd_); }

  uint64_t size() const { return size_; }
  // Exactly `bytes` bytes at `offset` (which the caller checked against size()).
  void read(uint64_t offset, void* out, uint64_t bytes) const {
    char* at = static_cast<char*>(out);
    while (bytes > 0) {
      const ssize_t got = ::pread(fd_, at, bytes, static_cast<off_t>(offset));
      if (got < 0 && errno == EINTR) continue;
      if (got < 0) throw Error("cannot read '" + path_ + "': " + std::strerror(errno));
      if (got == 0) throw CheckpointError("cannot load '" + path_ + "': the file shrank while it was read");
      at += got;
      offset += static_cast<uint64_t>(got);
      bytes -= static_cast<uint64_t>(got);
    }
  }

 private:
  std::string path_;
  int fd_ = -1;
  uint64_t size_ = 0;
};

void write_le64(AtomicFile& file, uint64_t value) {
  unsigned char bytes[8];
  for (int i = 0; i < 8; ++i) bytes[i] = static_cast<unsigned char>(value >> (8 * i));
  file.write(bytes, sizeof bytes);
}

}  // namespace

void save_safetensors(const std::string& path, const OrderedDict<std::string, Tensor>& tensors,
                      const std::map<std::string, std::string>& metadata) {
  for (const auto& item : tensors) {
    if (!item.value().defined()) throw Error("cannot save tensor '" + item.key() + "' to '" + path + "': it is undefined");
    if (item.key() == "__metadata__") throw Error("cannot save a tensor named '__metadata__': safetensors reserves that name");
  }
  // Every read starts before the first wait, so the device streams them back while the file is written.
  std::vector<Future<std::vector<std::byte>>> reads;
  for (const auto& item : tensors) reads.push_back(read_back_async(item.value()));

  // The header lists the tensors in the caller's order; the data section holds them by element size,
  // largest first (stable), so that each tensor starts aligned to its element size, as the reference
  // writer arranges them.
  std::vector<size_t> data_order(tensors.size());
  for (size_t i = 0; i < data_order.size(); ++i) data_order[i] = i;
  std::stable_sort(data_order.begin(), data_order.end(), [&](size_t a, size_t b) {
    return tensors.items()[a].value().element_size() > tensors.items()[b].value().element_size();
  });
  std::vector<SafetensorsEntry> entries(tensors.size());
  uint64_t offset = 0;
  for (size_t i : data_order) {
    const Tensor& t = tensors.items()[i].value();
    entries[i] = {tensors.items()[i].key(), t.dtype(), std::vector<int64_t>(t.sizes().begin(), t.sizes().end()),
                  offset, offset + t.nbytes()};
    offset += t.nbytes();
  }
  const std::string header = safetensors_header_json(entries, metadata);

  AtomicFile file(path);
  write_le64(file, header.size());
  file.write(header.data(), header.size());
  for (size_t i : data_order) {
    std::vector<std::byte> bytes = std::move(reads[i].wait());
    file.write(bytes.data(), bytes.size());
  }
  file.commit();
}

Checkpoint load_safetensors(const std::string& path, const std::shared_ptr<Device>& device) {
  const InputFile file(path);
  char length_bytes[8] = {};
  if (file.size() >= 8) file.read(0, length_bytes, 8);
  const uint64_t length = safetensors_header_length(std::string_view(length_bytes, 8), file.size(), path);
  std::string json(length, '\0');
  file.read(8, json.data(), length);
  // Everything is checked against the file's length here, before any tensor is allocated.
  const SafetensorsHeader header = parse_safetensors_header(json, file.size(), path);

  const std::shared_ptr<Device> target = device ? device : default_device();
  Checkpoint out;
  out.metadata = header.metadata;
  std::vector<std::byte> buffer;
  for (const SafetensorsEntry& entry : header.entries) {
    buffer.resize(entry.end - entry.begin);
    file.read(header.data_start + entry.begin, buffer.data(), buffer.size());
    out.tensors.insert(entry.name, from_blob(buffer.data(), entry.shape, TensorOptions().dtype(entry.dtype).device(target)));
  }
  return out;
}

namespace {
bool starts_with_bytes(const std::string& path, std::string_view prefix) {
  const int fd = ::open(path.c_str(), O_RDONLY | O_CLOEXEC);
  if (fd < 0) return false;
  std::string start(prefix.size(), '\0');
  const bool match = ::pread(fd, start.data(), start.size(), 0) == static_cast<ssize_t>(start.size()) && start == prefix;
  ::close(fd);
  return match;
}
}  // namespace

bool is_zip_file(const std::string& path) { return starts_with_bytes(path, std::string_view("PK\x03\x04", 4)); }

bool is_legacy_torch_file(const std::string& path) {
  // PROTO 2, LONG1 of 10 bytes: torch.serialization's MAGIC_NUMBER 0x1950a86a20f9469cfc6c, little-endian.
  return starts_with_bytes(path, std::string_view("\x80\x02\x8a\x0a\x6c\xfc\x9c\x46\xf9\x20\x6a\xa8\x50\x19", 14));
}

}  // namespace ember::detail
