#include "data/detail/idx_file.h"

#include <zlib.h>

#include <cerrno>
#include <cstdio>
#include <cstring>
#include <limits>

#include "runtime/error.h"

namespace ember::data::detail {

namespace {

gzFile as_gz(void* file) { return static_cast<gzFile>(file); }

std::string hex32(uint32_t value) {
  char text[16];
  std::snprintf(text, sizeof text, "0x%08X", value);
  return text;
}

}  // namespace

IdxReader::IdxReader(std::string path, std::string what) : path_(std::move(path)), what_(std::move(what)) {
  errno = 0;
  file_ = gzopen(path_.c_str(), "rb");
  if (!file_) {
    fail(std::string("cannot open the file: ") + (errno ? std::strerror(errno) : "out of memory"));
  }
  gzbuffer(as_gz(file_), 1 << 20);
}

IdxReader::~IdxReader() {
  if (file_) gzclose(as_gz(file_));
}

void IdxReader::fail(const std::string& problem) const { throw Error(what_ + ": " + path_ + ": " + problem); }

uint64_t IdxReader::read_some(void* out, uint64_t bytes) {
  auto* cursor = static_cast<unsigned char*>(out);
  uint64_t done = 0;
  while (done < bytes) {
    const auto chunk = static_cast<unsigned>(std::min<uint64_t>(bytes - done, 1u << 30));
    const int got = gzread(as_gz(file_), cursor + done, chunk);
    int code = Z_OK;
    const char* message = gzerror(as_gz(file_), &code);
    // A gzip stream cut short reads as Z_BUF_ERROR ("unexpected end of file"): a truncated file.
    if (got < 0 || (code != Z_OK && code != Z_BUF_ERROR)) {
      fail(std::string("corrupt gzip data after ") + std::to_string(offset_ + done) +
           " uncompressed bytes (zlib: " + (message ? message : "unknown error") + ")");
    }
    if (code == Z_BUF_ERROR) {
      fail("truncated: the gzip stream ends early, after " + std::to_string(offset_ + done + got) +
           " uncompressed bytes (zlib: " + message + ")");
    }
    if (got == 0) break;
    done += static_cast<uint64_t>(got);
  }
  offset_ += done;
  return done;
}

std::vector<uint32_t> IdxReader::read_ubyte_header(int dims) {
  unsigned char magic[4];
  if (read_some(magic, 4) != 4) fail("truncated: the file ends inside the IDX magic number");
  const uint32_t found = (uint32_t{magic[0]} << 24) | (uint32_t{magic[1]} << 16) |
                         (uint32_t{magic[2]} << 8) | uint32_t{magic[3]};
  const uint32_t expected = 0x0800u | static_cast<uint32_t>(dims);
  if (found != expected) {
    fail("bad magic number " + hex32(found) + ": an IDX file of unsigned bytes with " +
         std::to_string(dims) + (dims == 1 ? " dim" : " dims") + " starts with " + hex32(expected));
  }
  std::vector<uint32_t> sizes(static_cast<size_t>(dims));
  for (uint32_t& size : sizes) {
    unsigned char word[4];
    if (read_some(word, 4) != 4) fail("truncated: the file ends inside the IDX header");
    size = (uint32_t{word[0]} << 24) | (uint32_t{word[1]} << 16) | (uint32_t{word[2]} << 8) | uint32_t{word[3]};
  }
  return sizes;
}

std::vector<uint8_t> IdxReader::read(uint64_t count, const std::string& description) {
  std::vector<uint8_t> bytes(count);
  const uint64_t got = read_some(bytes.data(), count);
  if (got != count) {
    fail("truncated: the file ends after " + std::to_string(got) + " of the " + std::to_string(count) +
         " bytes of " + description);
  }
  return bytes;
}

void IdxReader::expect_end() {
  unsigned char extra;
  if (read_some(&extra, 1) != 0) {
    fail("unexpected data at byte " + std::to_string(offset_ - 1) + ", where the IDX data should have ended");
  }
}

}  // namespace ember::data::detail
