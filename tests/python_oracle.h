#pragma once
// PyTorch's Python side as an oracle, for what LibTorch's C++ API lacks (reprs, state_dict messages):
// one Python run per test program part, since importing torch takes seconds. The interpreter is
// /usr/bin/python3 (python3-torch), or EMBER_TEST_PYTHON where torch lives in another one (the GPU
// machine's, whose /usr/bin/python3 has none).
#include <ATen/ATen.h>
#include <gtest/gtest.h>

#include <string>
#include <utility>
#include <vector>

namespace ember::test {

// EMBER_TEST_PYTHON, or /usr/bin/python3.
const std::string& python_interpreter();

// Runs `script` with python_interpreter() and returns its stdout and stderr together.
std::string run_python(const std::string& script);

// How the answer after the last complete one begins when the script stopped with an error.
inline const std::string kScriptFailed = "(the script failed) ";

// Runs `script`, which prints each answer followed by a line "@@END@@". Returns the answers, or sets
// `unavailable` when Python or torch is absent (tests skip saying so).
std::vector<std::string> python_answers(const std::string& script, std::string& unavailable);

// Runs `script` (python_answers) into `answers`, a std::vector<std::string>: skips the test, saying why,
// when Python or torch is absent, and fails it unless Python printed `count` answers (the last one shows
// Python's error when the script failed).
#define ASSERT_PYTHON_ANSWERS(answers, script, count)                                      \
  do {                                                                                     \
    std::string python_unavailable_;                                                       \
    (answers) = ::ember::test::python_answers((script), python_unavailable_);              \
    if (!python_unavailable_.empty()) GTEST_SKIP() << python_unavailable_;                 \
    ASSERT_EQ((answers).size(), (count)) << ((answers).empty() ? "" : (answers).back());   \
  } while (0)

// Prints each case's Python expression in one run and expects its text to equal the case's ember text
// (reprs). Returns why Python is unavailable, for the caller to skip with, or "" when it ran.
// `t` as a Python expression that rebuilds it exactly: torch.tensor([...], dtype=...).reshape(...).
std::string python_tensor(const at::Tensor& t);

// The numbers of an answer that printed a (nested) list, in order.
std::vector<double> python_numbers(std::string answer);

std::string expect_python_prints(const std::vector<std::pair<std::string, std::string>>& cases);

}  // namespace ember::test
