// AtomicFile: a committed write replaces the file, an abandoned or killed one leaves the previous file
// as it was. Host only; the killed writer is a forked child that the test kills mid-write.
#include <gtest/gtest.h>
#include <signal.h>
#include <sys/wait.h>
#include <unistd.h>

#include <filesystem>

#include "serialize/atomic_file.h"
#include "runtime/error.h"
#include "tests/serialize/checkpoint_files.h"

namespace ember::test {
namespace {

TEST(AtomicFile, CommitReplacesTheFileAndLeavesNoTemporaryFile) {
  TempDir dir;
  const std::string path = dir.path("ckpt.bin");
  write_file(path, "old contents");
  {
    AtomicFile file(path);
    EXPECT_EQ(std::filesystem::path(file.temp_path()).parent_path(), std::filesystem::path(path).parent_path());
    file.write("new ", 4);
    EXPECT_EQ(read_file(path), "old contents");  // nothing shows before commit
    file.write("contents", 8);
    file.commit();
  }
  EXPECT_EQ(read_file(path), "new contents");
  EXPECT_EQ(dir.files(), std::vector<std::string>{"ckpt.bin"});
}

TEST(AtomicFile, CreatesAFileThatDidNotExist) {
  TempDir dir;
  {
    AtomicFile file(dir.path("fresh"));
    file.write("x", 1);
    file.commit();
  }
  EXPECT_EQ(read_file(dir.path("fresh")), "x");
}

TEST(AtomicFile, AnAbandonedWriteKeepsTheOldFileAndRemovesItsTemporaryFile) {
  TempDir dir;
  const std::string path = dir.path("ckpt.bin");
  write_file(path, "old contents");
  try {
    AtomicFile file(path);
    file.write("half of a checkpoint", 20);
    throw std::runtime_error("the writer failed");
  } catch (const std::runtime_error&) {
  }
  EXPECT_EQ(read_file(path), "old contents");
  EXPECT_EQ(dir.files(), std::vector<std::string>{"ckpt.bin"});
}

TEST(AtomicFile, AKilledWriterLeavesTheOldFileIntact) {
  TempDir dir;
  const std::string path = dir.path("ckpt.bin");
  const std::string old_contents(100000, 'o');
  write_file(path, old_contents);
  int ready[2];
  ASSERT_EQ(pipe(ready), 0);
  const pid_t child = fork();
  ASSERT_GE(child, 0);
  if (child == 0) {
    // The child writes half of a new checkpoint, tells the parent, and waits to be killed.
    try {
      AtomicFile file(path);
      const std::string half(50000, 'n');
      file.write(half.data(), half.size());
      (void)!write(ready[1], "w", 1);
      while (true) pause();
    } catch (...) {
      _exit(2);
    }
  }
  close(ready[1]);
  char signal_byte = 0;
  ASSERT_EQ(read(ready[0], &signal_byte, 1), 1) << "the child could not write";
  close(ready[0]);
  ASSERT_EQ(kill(child, SIGKILL), 0);
  int status = 0;
  ASSERT_EQ(waitpid(child, &status, 0), child);
  ASSERT_TRUE(WIFSIGNALED(status) && WTERMSIG(status) == SIGKILL);

  EXPECT_EQ(read_file(path), old_contents);
  // The partial write is in the child's temporary file, beside the intact old one.
  const std::vector<std::string> files = dir.files();
  ASSERT_EQ(files.size(), 2u);
  EXPECT_TRUE(files[0].starts_with(".ckpt.bin.tmp-" + std::to_string(child) + "-")) << files[0];
  EXPECT_EQ(read_file(dir.path(files[0])), std::string(50000, 'n'));
}

TEST(AtomicFile, AFolderThatDoesNotExistIsAnErrorNamingIt) {
  TempDir dir;
  try {
    AtomicFile file(dir.path("missing/ckpt.bin"));
    ADD_FAILURE() << "no error";
  } catch (const Error& e) {
    EXPECT_NE(std::string(e.what()).find("cannot create a temporary file in '" + dir.path("missing") + "'"),
              std::string::npos)
        << e.what();
  }
}

}  // namespace
}  // namespace ember::test
