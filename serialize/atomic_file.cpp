#include "serialize/atomic_file.h"

#include <fcntl.h>
#include <sys/stat.h>
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

// The file a write to `path` lands in: through any symbolic links, as open() follows them (a "latest.pt"
// link stays a link to the file that now holds the new bytes, as with torch.save).
std::filesystem::path followed_links(const std::string& path) {
  std::filesystem::path at(path);
  for (int hops = 0; hops < 40; ++hops) {  // Linux's own limit on links in a path
    std::error_code error;
    if (!std::filesystem::is_symlink(std::filesystem::symlink_status(at, error))) return at;
    const std::filesystem::path next = std::filesystem::read_symlink(at, error);
    if (error) throw Error("cannot read the symbolic link '" + at.string() + "': " + error.message());
    at = next.is_absolute() ? next : at.parent_path() / next;
  }
  throw Error("cannot write '" + path + "': too many levels of symbolic links");
}

}  // namespace

AtomicFile::AtomicFile(std::string path) : path_(std::move(path)) {
  if (path_.empty()) throw Error("cannot write a file at an empty path");
  const std::filesystem::path target = followed_links(path_);
  target_ = target.string();
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
      throw Error("cannot create a temporary file in '" + folder_of(target_) + "' to write '" + path_ +
                  "': " + system_reason());
    }
  }
  // A file being replaced keeps its permission bits, as when it is overwritten in place: a checkpoint
  // kept private (0600) must not become readable by others because it was saved again.
  struct stat existing {};
  if (::stat(target_.c_str(), &existing) == 0 && ::fchmod(fd_, existing.st_mode & 07777) != 0) {
    const std::string reason = system_reason();
    close_descriptor();
    ::unlink(temp_path_.c_str());
    throw Error("cannot give the temporary file '" + temp_path_ + "' the permissions of '" + target_ + "': " + reason);
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
  if (::rename(temp_path_.c_str(), target_.c_str()) != 0) {
    throw Error("cannot rename '" + temp_path_ + "' to '" + target_ + "': " + system_reason());
  }
  committed_ = true;
  // The rename itself is durable only once the folder's entries are synced.
  sync_path(folder_of(target_), O_RDONLY | O_DIRECTORY, "folder");
}

}  // namespace ember
