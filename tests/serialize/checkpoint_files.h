#pragma once
// Files for the checkpoint tests: a scratch folder, raw file access, and hand-built zip archives and
// pickles, so that the tests can write exactly the corrupt or hostile bytes they mean to.
#include <cstdint>
#include <string>
#include <vector>

#include "ember.h"

namespace ember::test {

// A new folder under /tmp, removed with everything in it when this goes out of scope.
class TempDir {
 public:
  TempDir();
  TempDir(const TempDir&) = delete;
  TempDir& operator=(const TempDir&) = delete;
  ~TempDir();
  std::string path(const std::string& name) const { return dir_ + "/" + name; }
  // The names of the files in the folder, sorted (temporary files included).
  std::vector<std::string> files() const;

 private:
  std::string dir_;
};

std::string read_file(const std::string& path);
void write_file(const std::string& path, const std::string& bytes);

// A zip archive of entries stored uncompressed, as torch.save writes them. `deflated` marks an entry
// as compressed (method 8) without compressing it, to test that such entries are refused.
struct ZipEntry {
  std::string name;
  std::string data;
  bool deflated = false;
};
std::string make_zip(const std::vector<ZipEntry>& entries);

// Pickle opcodes by hand: PROTO 2 and the values a state dict pickle holds.
struct Pickle {
  std::string bytes = std::string("\x80\x02", 2);
  Pickle& raw(const std::string& text) { bytes += text; return *this; }
  Pickle& op(char code) { bytes.push_back(code); return *this; }
  Pickle& global(const std::string& module, const std::string& name) { return raw("c" + module + "\n" + name + "\n"); }
  Pickle& string(const std::string& text);
  Pickle& integer(int32_t value);  // BININT
  Pickle& empty_ordered_dict() { return global("collections", "OrderedDict").op(')').op('R'); }
  // _rebuild_tensor_v2 of storage `key` (torch.<storage_class>, `numel` elements) with this geometry.
  Pickle& tensor(const std::string& storage_class, const std::string& key, int32_t numel, int32_t offset,
                 const std::vector<int32_t>& sizes, const std::vector<int32_t>& strides);
  std::string stop() { return bytes + "."; }
};

// A .pt archive ("archive/data.pkl", "archive/version" and the given storages "archive/data/<key>").
std::string make_pt(const std::string& pickle, const std::vector<std::pair<std::string, std::string>>& storages);

// Python's view of a tensor for scripts that check what Python loaded: its elements flattened in
// row-major order as a list literal with 17 significant digits ("[1, -0.5]", as Python's
// ', '.join('%.17g' % v ...) writes it), and "torch.float32" etc.
std::string python_values(const Tensor& tensor);
std::string python_dtype(DType dtype);

}  // namespace ember::test
