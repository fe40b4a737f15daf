#pragma once
// Reading IDX files (the MNIST family's format: a big-endian magic number 0x0000TTDD, with TT the
// element type and DD the number of dims, then DD big-endian int32 sizes, then the elements), compressed
// with gzip or not: zlib reads both. Every failure throws Error with the file's path and the problem.
#include <cstdint>
#include <string>
#include <vector>

namespace ember::data::detail {

class IdxReader {
 public:
  // `what` prefixes every message ("FashionMNIST"). Throws when the file cannot be opened.
  IdxReader(std::string path, std::string what);
  ~IdxReader();
  IdxReader(const IdxReader&) = delete;
  IdxReader& operator=(const IdxReader&) = delete;

  // Reads the header of a file of unsigned bytes with `dims` dims and returns the sizes.
  std::vector<uint32_t> read_ubyte_header(int dims);
  // Reads `count` elements (bytes), which hold `description` ("the pixels of 60000 images").
  std::vector<uint8_t> read(uint64_t count, const std::string& description);
  // Throws unless the file ends here.
  void expect_end();
  [[noreturn]] void fail(const std::string& problem) const;

  const std::string& path() const { return path_; }

 private:
  // Reads up to `bytes`; returns how many came, after checking the gzip stream for errors.
  uint64_t read_some(void* out, uint64_t bytes);

  std::string path_;
  std::string what_;
  void* file_ = nullptr;  // gzFile
  uint64_t offset_ = 0;   // uncompressed bytes read so far
};

}  // namespace ember::data::detail
