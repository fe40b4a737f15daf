// PyTorch's .pt state dicts through libzip (serialize/pytorch.h describes the format).
#include "serialize/pytorch.h"

#include <zip.h>

#include <filesystem>
#include <map>

#include "nn/module.h"
#include "serialize/atomic_file.h"
#include "serialize/detail/formats.h"
#include "serialize/detail/host_copy.h"
#include "serialize/detail/pickle.h"
#include "tensor/functions.h"

namespace ember {
namespace {

using detail::PickledStateDict;
using detail::PickledStorage;
using detail::PickledTensor;

// data.pkl holds names and shapes only, about a hundred bytes per tensor.
constexpr uint64_t kMaxPickleBytes = 256ull << 20;

std::string zip_reason(int code) {
  zip_error_t error;
  zip_error_init_with_code(&error, code);
  std::string reason = zip_error_strerror(&error);
  zip_error_fini(&error);
  return reason;
}

// An archive opened for reading, closed (discarding nothing) when this goes out of scope.
class ZipReader {
 public:
  explicit ZipReader(const std::string& path) : path_(path) {
    int code = 0;
    archive_ = zip_open(path.c_str(), ZIP_RDONLY | ZIP_CHECKCONS, &code);
    if (!archive_) fail("not a readable zip archive (" + zip_reason(code) + ")");
  }
  ZipReader(const ZipReader&) = delete;
  ZipReader& operator=(const ZipReader&) = delete;
  ~ZipReader() { zip_discard(archive_); }

  [[noreturn]] void fail(const std::string& problem) const {
    throw CheckpointError("cannot load '" + path_ + "': " + problem);
  }

  // The folder every entry is under ("archive", or the name the file was saved as), from the first
  // entry as PyTorch's reader takes it.
  std::string folder() const {
    if (zip_get_num_entries(archive_, 0) < 1) fail("the zip archive is empty, not a PyTorch state dict");
    const char* first = zip_get_name(archive_, 0, ZIP_FL_ENC_RAW);
    const std::string name = first ? first : "";
    const size_t slash = name.find('/');
    if (slash == std::string::npos || slash == 0) {
      fail("zip entry '" + name + "' is not in a folder, as a PyTorch archive's entries are");
    }
    return name.substr(0, slash);
  }

  // The size of entry `name`, which must exist and be stored uncompressed, as torch.save stores every
  // entry; so its size is bounded by the file's and nothing is allocated from a claimed size alone.
  uint64_t stored_size(const std::string& name, const std::string& role) const {
    zip_stat_t info;
    zip_stat_init(&info);
    if (zip_stat(archive_, name.c_str(), 0, &info) != 0) fail("zip entry '" + name + "' (" + role + ") is missing");
    const uint64_t needed = ZIP_STAT_SIZE | ZIP_STAT_COMP_SIZE | ZIP_STAT_COMP_METHOD;
    if ((info.valid & needed) != needed) fail("zip entry '" + name + "' has no size");
    if (info.comp_method != ZIP_CM_STORE || info.comp_size != info.size) {
      fail("zip entry '" + name + "' is compressed (method " + std::to_string(info.comp_method) +
           "); torch.save stores entries uncompressed");
    }
    return info.size;
  }

  bool has(const std::string& name) const { return zip_name_locate(archive_, name.c_str(), 0) >= 0; }

  // Reads entry `name` of `bytes` bytes (from stored_size), checking its CRC.
  void read(const std::string& name, void* out, uint64_t bytes) const {
    zip_file_t* file = zip_fopen(archive_, name.c_str(), 0);
    if (!file) fail("cannot open zip entry '" + name + "': " + zip_strerror(archive_));
    char* at = static_cast<char*>(out);
    uint64_t left = bytes;
    std::string problem;
    while (left > 0 && problem.empty()) {
      const zip_int64_t got = zip_fread(file, at, left);
      if (got <= 0) {
        problem = got < 0 ? zip_file_strerror(file) : "it ends early";
      } else {
        at += got;
        left -= static_cast<uint64_t>(got);
      }
    }
    // Reading past the end is what makes libzip compare the CRC.
    char extra;
    if (problem.empty() && zip_fread(file, &extra, 1) != 0) problem = zip_file_strerror(file);
    zip_fclose(file);
    if (!problem.empty()) fail("cannot read zip entry '" + name + "': " + problem);
  }

 private:
  std::string path_;
  zip_t* archive_ = nullptr;
};

// An archive written into AtomicFile's temporary file. libzip itself writes to a file of its own and
// renames it over that path in close(); the AtomicFile then syncs and renames it into place.
class ZipWriter {
 public:
  explicit ZipWriter(const std::string& path) : path_(path) {
    int code = 0;
    archive_ = zip_open(path.c_str(), ZIP_CREATE | ZIP_TRUNCATE, &code);
    if (!archive_) throw Error("cannot write '" + path + "': " + zip_reason(code));
  }
  ZipWriter(const ZipWriter&) = delete;
  ZipWriter& operator=(const ZipWriter&) = delete;
  ~ZipWriter() {
    if (archive_) zip_discard(archive_);
  }

  // Adds an uncompressed entry; `data` must stay alive until close().
  void add(const std::string& name, const void* data, uint64_t bytes) {
    zip_source_t* source = zip_source_buffer(archive_, data, bytes, 0);
    if (!source) throw Error("cannot add '" + name + "' to '" + path_ + "': " + zip_strerror(archive_));
    const zip_int64_t index = zip_file_add(archive_, name.c_str(), source, ZIP_FL_ENC_UTF_8);
    if (index < 0) {
      zip_source_free(source);
      throw Error("cannot add '" + name + "' to '" + path_ + "': " + zip_strerror(archive_));
    }
    if (zip_set_file_compression(archive_, static_cast<zip_uint64_t>(index), ZIP_CM_STORE, 0) != 0) {
      throw Error("cannot store '" + name + "' uncompressed: " + zip_strerror(archive_));
    }
  }
  void close() {
    if (zip_close(archive_) != 0) throw Error("cannot write '" + path_ + "': " + zip_strerror(archive_));
    archive_ = nullptr;
  }

 private:
  std::string path_;
  zip_t* archive_ = nullptr;
};

}  // namespace

OrderedDict<std::string, Tensor> load_pytorch(const std::string& path, const std::shared_ptr<Device>& device) {
  if (detail::is_legacy_torch_file(path)) {
    throw CheckpointError("cannot load '" + path + "': it is in torch.save's legacy format (PyTorch before 1.6, or "
                          "_use_new_zipfile_serialization=False), which ember does not read; load it in Python and "
                          "torch.save it again in the default zip format");
  }
  const ZipReader zip(path);
  const std::string folder = zip.folder() + "/";

  const uint64_t version_bytes = zip.stored_size(folder + "version", "the format version");
  if (version_bytes == 0 || version_bytes > 16) zip.fail("zip entry '" + folder + "version' is not a version number");
  std::string version(version_bytes, '\0');
  zip.read(folder + "version", version.data(), version_bytes);
  if (version.find_first_not_of("0123456789\n") != std::string::npos || version[0] == '\n') {
    zip.fail("zip entry '" + folder + "version' is not a version number");
  }

  // PyTorch 2.1 and later note the byte order the storages were written in; 1.13 wrote none (little).
  if (zip.has(folder + "byteorder")) {
    const uint64_t bytes = zip.stored_size(folder + "byteorder", "the byte order");
    std::string holds = std::to_string(bytes) + " bytes";
    if (bytes <= 16) {
      std::string order(bytes, '\0');
      zip.read(folder + "byteorder", order.data(), bytes);
      if (order == "little") holds.clear();
      else holds = "'" + order + "'";
    }
    if (!holds.empty()) {
      zip.fail("zip entry '" + folder + "byteorder' holds " + holds + ", not 'little'; ember reads little-endian storages only");
    }
  }

  const uint64_t pickle_bytes = zip.stored_size(folder + "data.pkl", "the pickled state dict");
  if (pickle_bytes > kMaxPickleBytes) {
    zip.fail("zip entry '" + folder + "data.pkl' has " + std::to_string(pickle_bytes) +
             " bytes, more than a state dict's pickle holds");
  }
  std::string pickle(pickle_bytes, '\0');
  zip.read(folder + "data.pkl", pickle.data(), pickle_bytes);
  const PickledStateDict state = detail::unpickle_state_dict(pickle, path);

  // Every storage is checked against its entry before anything is allocated on the device.
  for (const auto& [key, storage] : state.storages) {
    const std::string name = folder + "data/" + key;
    const uint64_t bytes = zip.stored_size(name, "storage '" + key + "'");
    const uint64_t needed = static_cast<uint64_t>(storage.numel) * element_size(storage.dtype);
    if (storage.numel > 0 && needed / static_cast<uint64_t>(storage.numel) != element_size(storage.dtype)) {
      zip.fail("storage '" + key + "' of " + std::to_string(storage.numel) + " elements is too large");
    }
    if (bytes != needed) {
      zip.fail("zip entry '" + name + "' holds " + std::to_string(bytes) + " bytes, but storage '" + key + "' of " +
               std::to_string(storage.numel) + " " + std::string(dtype_name(storage.dtype)) + " elements needs " +
               std::to_string(needed));
    }
  }

  const std::shared_ptr<Device> target = device ? device : default_device();
  std::map<std::string, Tensor> storages;
  std::vector<std::byte> buffer;
  for (const auto& [key, storage] : state.storages) {
    buffer.resize(static_cast<size_t>(storage.numel) * element_size(storage.dtype));
    zip.read(folder + "data/" + key, buffer.data(), buffer.size());
    storages[key] = from_blob(buffer.data(), {storage.numel}, TensorOptions().dtype(storage.dtype).device(target));
  }
  OrderedDict<std::string, Tensor> out("Key");
  for (const PickledTensor& t : state.tensors) {
    Tensor view = storages.at(t.storage_key).as_strided(t.sizes, t.strides, t.storage_offset);
    if (t.requires_grad) view = view.detach().requires_grad_(true);
    out.insert(t.name, view);
  }
  return out;
}

void save_pytorch(const std::string& path, const OrderedDict<std::string, Tensor>& state_dict) {
  // One storage per distinct memory, keyed "0", "1", ... in order of first use, as torch.save numbers them.
  std::vector<PickledStorage> storages;
  std::vector<Future<std::vector<std::byte>>> reads;
  std::map<const Storage*, std::pair<size_t, std::string>> seen;  // storage -> (index, first tensor's name)
  std::vector<PickledTensor> tensors;
  for (const auto& item : state_dict) {
    const Tensor& t = item.value();
    if (!t.defined()) throw Error("cannot save tensor '" + item.key() + "' to '" + path + "': it is undefined");
    auto [it, inserted] = seen.try_emplace(t.storage().get(), storages.size(), item.key());
    if (inserted) {
      storages.push_back({std::to_string(storages.size()), t.dtype(),
                          static_cast<int64_t>(t.storage()->nbytes / t.element_size())});
      reads.push_back(detail::read_storage_async(t));
    } else if (storages[it->second.first].dtype != t.dtype()) {
      throw Error("Cannot save multiple tensors or storages that view the same data as different types: '" +
                  it->second.second + "' and '" + item.key() + "'");
    }
    tensors.push_back({item.key(), storages[it->second.first].key, t.storage_offset(),
                       std::vector<int64_t>(t.sizes().begin(), t.sizes().end()),
                       std::vector<int64_t>(t.strides().begin(), t.strides().end()), t.requires_grad()});
  }
  const std::string pickle = detail::pickle_state_dict(tensors, storages);
  static const std::string version = "3\n";  // the format version PyTorch 1.13 writes

  // PyTorch names the archive's folder after the file, without its extension.
  std::string folder = std::filesystem::path(path).stem().string();
  if (folder.empty() || folder.starts_with(".")) folder = "archive";
  AtomicFile file(path);
  std::vector<std::vector<std::byte>> bytes;
  for (auto& read : reads) bytes.push_back(std::move(read.wait()));
  ZipWriter zip(file.temp_path());
  zip.add(folder + "/data.pkl", pickle.data(), pickle.size());
  for (size_t i = 0; i < storages.size(); ++i) zip.add(folder + "/data/" + storages[i].key, bytes[i].data(), bytes[i].size());
  zip.add(folder + "/version", version.data(), version.size());
  zip.close();
  file.commit();
}

void save_pytorch(const std::string& path, const nn::Module& module) { save_pytorch(path, module.state_dict()); }

}  // namespace ember
