#pragma once
// AtomicFile: a file that appears at its path complete or not at all. The bytes go to a temporary file in
// the same folder (so the final rename stays within one file system); commit() syncs it to disk, renames
// it over the path and syncs the folder, so that a crash at any moment leaves either the previous file
// or the new one, never a partial one. A writer that throws, or an AtomicFile destroyed without commit(),
// removes its temporary file. A process that is killed leaves it behind (".<name>.tmp-<pid>-<n>"), next
// to the intact previous file. A file that is replaced keeps its permission bits, and a symbolic link
// at the path stays one: the file it leads to is what gets replaced.
#include <cstddef>
#include <string>

namespace ember {

class AtomicFile {
 public:
  // Creates the temporary file beside `path`; throws Error naming the folder when it cannot.
  explicit AtomicFile(std::string path);
  AtomicFile(const AtomicFile&) = delete;
  AtomicFile& operator=(const AtomicFile&) = delete;
  ~AtomicFile();

  // Appends `bytes` bytes; throws Error with the system's reason (disk full, file too large).
  void write(const void* data, size_t bytes);
  // Syncs the temporary file, renames it over the path and syncs the folder. The temporary file may have
  // been replaced by path meanwhile (a library that writes its own way, as libzip does); what is at
  // temp_path() when commit() runs is what gets renamed.
  void commit();

  const std::string& path() const { return path_; }
  const std::string& temp_path() const { return temp_path_; }

 private:
  void close_descriptor();

  std::string path_;
  std::string target_;  // path_ through its symbolic links: the file that gets replaced
  std::string temp_path_;
  int fd_ = -1;
  bool committed_ = false;
};

}  // namespace ember
