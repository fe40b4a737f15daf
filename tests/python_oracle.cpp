#include "tests/python_oracle.h"

#include <gtest/gtest.h>
#include <unistd.h>

#include <cstdio>
#include <cstdlib>
#include <fstream>
#include <sstream>

namespace ember::test {

const std::string& python_interpreter() {
  static const std::string path = [] {
    const char* chosen = std::getenv("EMBER_TEST_PYTHON");
    return std::string(chosen != nullptr && *chosen != '\0' ? chosen : "/usr/bin/python3");
  }();
  return path;
}

std::string run_python(const std::string& script) {
  char path[] = "/tmp/ember-python-XXXXXX";
  const int fd = mkstemp(path);
  if (fd < 0) return "NO-TORCH cannot create a temporary file";
  close(fd);
  std::ofstream(path) << script;
  std::string output;
  if (FILE* pipe = popen((python_interpreter() + " " + path + " 2>&1").c_str(), "r")) {
    char buffer[4096];
    size_t n;
    while ((n = std::fread(buffer, 1, sizeof buffer, pipe)) > 0) output.append(buffer, n);
    pclose(pipe);
  }
  std::remove(path);
  return output;
}

std::vector<std::string> python_answers(const std::string& script, std::string& unavailable) {
  if (access(python_interpreter().c_str(), X_OK) != 0) {
    unavailable = python_interpreter() + " is absent (install python3-torch)";
    return {};
  }
  const std::string output = run_python("import torch\nprint('READY')\n" + script);
  const size_t ready = output.find("READY\n");
  if (ready == std::string::npos) {
    unavailable = "PyTorch cannot be imported by " + python_interpreter() + ": " + output.substr(0, 500);
    return {};
  }
  std::vector<std::string> answers;
  const std::string marker = "\n@@END@@\n";
  for (size_t at = ready + 6;;) {
    const size_t end = output.find(marker, at);
    if (end == std::string::npos) {
      if (at < output.size()) answers.push_back(kScriptFailed + output.substr(at, 3000));
      break;
    }
    answers.push_back(output.substr(at, end - at));
    at = end + marker.size();
  }
  return answers;
}

std::string python_tensor(const at::Tensor& t) {
  std::ostringstream out;
  out.precision(17);
  out << "torch.tensor([";
  const at::Tensor flat = t.to(at::kDouble).flatten();
  for (int64_t i = 0; i < flat.numel(); ++i) out << flat[i].item<double>() << ",";
  out << "], dtype=torch.float64).to(" << (t.scalar_type() == at::kFloat ? "torch.float32" : "torch.float64")
      << ").reshape(" << c10::str(t.sizes()) << ")";
  return out.str();
}

std::vector<double> python_numbers(std::string answer) {
  for (char& c : answer) {
    if (c == '[' || c == ']' || c == ',' || c == '(' || c == ')') c = ' ';
  }
  std::istringstream in(answer);
  std::vector<double> numbers;
  for (std::string word; in >> word;) numbers.push_back(std::stod(word));
  return numbers;
}

std::string expect_python_prints(const std::vector<std::pair<std::string, std::string>>& cases) {
  std::string script;
  for (const auto& c : cases) script += "print(" + c.first + ")\nprint('@@END@@')\n";
  std::string unavailable;
  const std::vector<std::string> answers = python_answers(script, unavailable);
  if (!unavailable.empty()) return unavailable;
  EXPECT_EQ(answers.size(), cases.size()) << (answers.empty() ? "" : answers.back());
  for (size_t i = 0; i < cases.size() && i < answers.size(); ++i) EXPECT_EQ(cases[i].second, answers[i]) << cases[i].first;
  return "";
}

}  // namespace ember::test
