#include "examples/char_gpt/corpus.h"

#include <algorithm>
#include <array>
#include <fstream>
#include <sstream>
#include <stdexcept>

namespace ember::char_gpt {

std::string Corpus::decode(const std::vector<int64_t>& tokens) const {
  std::string text;
  for (int64_t t : tokens) text += vocabulary.at(static_cast<size_t>(t));
  return text;
}

int64_t Corpus::encode(char c) const {
  const size_t at = vocabulary.find(c);
  return at == std::string::npos ? -1 : static_cast<int64_t>(at);
}

Corpus load_fortunes(const std::filesystem::path& folder) {
  std::vector<std::filesystem::path> files;
  if (std::filesystem::is_directory(folder)) {
    for (const auto& entry : std::filesystem::directory_iterator(folder)) {
      if (entry.is_regular_file() && !entry.is_symlink() && !entry.path().has_extension()) files.push_back(entry.path());
    }
  }
  if (files.empty()) {
    throw std::runtime_error("no fortune files in " + folder.string() +
                             " (Debian's `fortunes` package installs them: apt-get install fortunes)");
  }
  std::sort(files.begin(), files.end());
  std::string text;
  for (const auto& file : files) {
    std::ifstream in(file, std::ios::binary);
    std::ostringstream contents;
    contents << in.rdbuf();
    text += contents.str();
  }
  std::array<bool, 256> seen{};
  for (unsigned char c : text) seen[c] = true;
  Corpus corpus;
  std::array<int64_t, 256> code{};
  for (int c = 0; c < 256; ++c) {
    if (!seen[c]) continue;
    code[c] = static_cast<int64_t>(corpus.vocabulary.size());
    corpus.vocabulary += static_cast<char>(c);
  }
  const size_t split = text.size() * 9 / 10;
  for (size_t i = 0; i < text.size(); ++i) {
    (i < split ? corpus.train : corpus.validation).push_back(code[static_cast<unsigned char>(text[i])]);
  }
  return corpus;
}

}  // namespace ember::char_gpt
