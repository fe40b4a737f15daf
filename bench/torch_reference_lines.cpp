#include "bench/torch_reference_lines.h"

#include <cstdio>
#include <cstdlib>
#include <sstream>

namespace ember_bench {

std::vector<std::vector<std::string>> torch_reference_lines(const std::string& script_and_args, const std::string& tag) {
  const char* python = std::getenv("EMBER_PYTHON");
  const std::string command = std::string(python && *python ? python : "/usr/bin/python3") + " " +
                              EMBER_SOURCE_DIR "/bench/" + script_and_args + " 2>&1";
  std::vector<std::vector<std::string>> answers;
  std::string other;
  if (FILE* pipe = popen(command.c_str(), "r")) {
    char line[512];
    while (fgets(line, sizeof line, pipe)) {
      std::istringstream in(line);
      std::string first;
      in >> first;
      if (first != tag) {
        other += line;
        continue;
      }
      std::vector<std::string> words;
      for (std::string word; in >> word;) words.push_back(word);
      answers.push_back(std::move(words));
    }
    pclose(pipe);
  }
  if (answers.empty()) std::fprintf(stderr, "no PyTorch reference from %s: %s\n", command.c_str(), other.c_str());
  return answers;
}

}  // namespace ember_bench
