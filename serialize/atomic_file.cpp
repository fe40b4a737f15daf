#include "serialize/atomic_file.h"

#include <fcntl.h>
#include <unistd.h>

#include <atomic>
#include <cerrno>
#include <cstring>
#include <filesystem>

#include "runtime/error.h"

namespace ember {
namespace {

std::string system_reason() { return std::strerror(errno); }

// The folder that holds `path` ("." for a bare file name).
std::string folder_of(const std::string& path) {
  const std::string parent = std::filesystem::path(path).parent_path().string();
  return parent.empty() ? "." : parent;
}

// Syncs what `path` names (a file, or a folder's entries) to disk.
void sync_path(const std::string& path, int flags, const std::string& what) {
  const int fd = ::open(path.c_str(), flags | O_CLOEXEC);
  if (fd < 0) throw Error("cannot open " + what + " '" + path + "' to sync it: " + system_reason());
  const int result = ::fsync(fd);
  const std::string reason = result != 0 ? system_reason() : "";
  ::close(fd);
  if (result != 0) throw Error("cannot sync " + what + " '" + path + "' to disk: " + reason);
}

}  // namespace

AtomicFile::AtomicFile(std::string path) : path_(std::move(path)) {
  if (path_.empty()) throw Error("cannot write a file at an empty path");
  const std::filesystem::path target(path_);
  // Unique within the folder: the process id tells writers in other processes apart, the counter
  // writers in this one; O_EXCL settles any remaining race.
  static std::atomic<uint64_t> counter{0};
  for (int attempt = 0; fd_ < 0; ++attempt) {
    std::string name = ".";  // (built up in steps: GCC 12 warns falsely on "." + string)
    name += target.filename().string();
    name += ".tmp-" + std::to_string(::getpid()) + "-" + std::to_string(counter++);
    temp_path_ = (target.parent_path() / name).string();
    // 0666 as any new file, narrowed by the umask, so the checkpoint gets the permissions a plain write
    // would give it.
    fd_ = ::open(temp_path_.c_str(), O_WRONLY | O_CREAT | O_EXCL | O_CLOEXEC, 0666);
    if (fd_ < 0 && (errno != EEXIST || attempt > 100)) {
      throw Error("cannot create a temporary file in '" + folder_of(path_) + "' to write '" + path_ +
                  "': " + system_reason());
    }
  }
}

AtomicFile::~AtomicFile() {
  close_descriptor();
  if (!committed_) ::unlink(temp_path_.c_str());
}

void AtomicFile::close_descriptor() {
  if (fd_ >= 0) ::close(fd_);
  fd_ = -1;
}

void AtomicFile::write(const void* data, size_t bytes) {
  if (fd_ < 0) throw Error("cannot write '" + path_ + "': the file was already committed");
  const char* at = static_cast<const char*>(data);
  while (bytes > 0) {
    const ssize_t written = ::write(fd_, at, bytes);
    if (written < 0) {
      if (errno == EINTR) continue;
      throw Error("cannot write '" + path_ + "' (through '" + temp_path_ + "'): " + system_reason());
    }
    at += written;
    bytes -= static_cast<size_t>(written);
  }
}

void AtomicFile::commit() {
  if (committed_) throw Error("'" + path_ + "' was already committed");
  // close() can report a deferred write error (on network file systems), so its result counts.
  if (fd_ >= 0) {
    const int result = ::close(fd_);
    fd_ = -1;
    if (result != 0) throw Error("cannot write '" + path_ + "' (through '" + temp_path_ + "'): " + system_reason());
  }
  sync_path(temp_path_, O_RDONLY, "file");
  if (::rename(temp_path_.c_str(), path_.c_str()) != 0) {
    throw Error("cannot rename '" + temp_path_ + "' to '" + path_ + "': " + system_reason());
  }
  committed_ = true;
  // The rename itself is durable only once the folder's entries are synced.
  sync_path(folder_of(path_), O_RDONLY | O_DIRECTORY, "folder");
}

}  // namespace ember
