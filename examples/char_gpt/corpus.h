#pragma once
// The character corpus: every fortune file of Debian's `fortunes` package, concatenated in name order,
// as byte codes over the bytes that occur (the vocabulary), split 90% / 10% into training and validation.
#include <cstdint>
#include <filesystem>
#include <string>
#include <vector>

namespace ember::char_gpt {

struct Corpus {
  std::string vocabulary;  // the distinct bytes, sorted; a token is an index into it
  std::vector<int64_t> train, validation;

  std::string decode(const std::vector<int64_t>& tokens) const;
  int64_t encode(char c) const;  // -1 for a byte outside the vocabulary
};

// Reads `folder` (the files without an extension: the .dat indexes and .u8 links are skipped). An absent
// or empty folder is an error that says which package provides it.
Corpus load_fortunes(const std::filesystem::path& folder);

}  // namespace ember::char_gpt
