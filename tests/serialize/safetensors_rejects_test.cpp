// Corrupt, truncated and hostile safetensors files: each is refused with a message naming the file and
// the problem, before anything is allocated, and a module that a failed load targeted is unchanged.
#include <chrono>

#include "ember.h"
#include "serialize/serialize.h"
#include "tests/serialize/checkpoint_files.h"
#include "tests/test_support.h"

namespace ember::test {
namespace {

class SafetensorsRejectsTest : public BackendTest {
 protected:
  // A file of an 8-byte length, `header` and `data`.
  std::string file_with(const std::string& header, const std::string& data = "", int64_t length = -1) {
    std::string bytes;
    const uint64_t n = length < 0 ? header.size() : static_cast<uint64_t>(length);
    for (int i = 0; i < 8; ++i) bytes.push_back(static_cast<char>(n >> (8 * i)));
    const std::string path = dir.path("bad.safetensors");
    write_file(path, bytes + header + data);
    return path;
  }
  // Loading `path` throws CheckpointError whose message is "cannot load '<path>': <problem>".
  void expect_rejected(const std::string& path, const std::string& problem) {
    expect_error<CheckpointError>([&] { load(path, device); }, "cannot load '" + path + "': " + problem);
  }
  TempDir dir;
};

TEST_P(SafetensorsRejectsTest, BadHeaderLengths) {
  expect_rejected(file_with(""), "the header length 0 is too small for a JSON object");
  write_file(dir.path("short"), "abc");
  expect_rejected(dir.path("short"), "the file has 3 bytes, fewer than the 8 of a safetensors header length (truncated?)");
  write_file(dir.path("empty"), "");
  expect_rejected(dir.path("empty"), "the file has 0 bytes, fewer than the 8 of a safetensors header length (truncated?)");
  expect_rejected(file_with("{}", "", int64_t{1} << 62),
                  "the header length 4611686018427387904 is larger than the 100000000 bytes safetensors allows "
                  "(corrupt or not a safetensors file)");
  expect_rejected(file_with("{}", "", 1000), "the header length 1000 runs past the end of the file (10 bytes; truncated?)");
}

TEST_P(SafetensorsRejectsTest, HeadersThatAreNotAJsonObjectOfTensorEntries) {
  expect_rejected(file_with("[1, 2]"), "the header does not start with '{': not a JSON object (corrupt or not a safetensors file)");
  const std::string broken = file_with("{\"a\": ");
  try {
    load(broken, device);
    ADD_FAILURE() << "no error";
  } catch (const CheckpointError& e) {
    EXPECT_TRUE(std::string(e.what()).starts_with("cannot load '" + broken + "': the header is not valid JSON: ")) << e.what();
  }
  expect_rejected(file_with(R"({"a": 3})"), "the header entry of tensor 'a' is a number, not an object");
  expect_rejected(file_with(R"({"a": {"dtype": "F32", "shape": [1]}})"), "the header entry of tensor 'a' has no \"data_offsets\"");
  expect_rejected(file_with(R"({"a": {"dtype": 7, "shape": [1], "data_offsets": [0, 4]}})", "1234"),
                  "the dtype of tensor 'a' is a number, not a string");
  expect_rejected(file_with(R"({"a": {"dtype": "F32", "shape": [-1], "data_offsets": [0, 4]}})", "1234"),
                  "each size in the shape of tensor 'a' must be a non-negative integer, not -1");
  expect_rejected(file_with(R"({"a": {"dtype": "F32", "shape": [1.5], "data_offsets": [0, 4]}})", "1234"),
                  "each size in the shape of tensor 'a' must be a non-negative integer, not 1.5");
  expect_rejected(file_with(R"({"a": {"dtype": "F32", "shape": [1], "data_offsets": [0]}})", "1234"),
                  "the data_offsets of tensor 'a' must be an array [begin, end], not an array of length 1");
  // Nested a million levels: the message must not print it (printing recurses once per level).
  expect_rejected(file_with(R"({"a": {"dtype": "F32", "shape": [1], "data_offsets": )" + std::string(1000000, '[') +
                                std::string(1000000, ']') + "}}",
                            "1234"),
                  "the data_offsets of tensor 'a' must be an array [begin, end], not an array of length 1");
  expect_rejected(file_with(R"({"a": {"dtype": "F32", "shape": [1], "data_offsets": [4, 0]}})", "1234"),
                  "the data_offsets of tensor 'a' end before they begin: [4,0]");
  expect_rejected(file_with(R"({"__metadata__": {"epoch": 3}})"), "__metadata__ maps strings to strings, but 'epoch' holds a number");
  expect_rejected(file_with(R"({"__metadata__": ["x"]})"), "__metadata__ is an array, not an object");
  expect_rejected(file_with(R"({"a": {"dtype": "F32", "shape": [], "data_offsets": [0, 4]},)"
                            R"( "a": {"dtype": "F32", "shape": [], "data_offsets": [4, 8]}})", "12345678"),
                  "the header names tensor 'a' twice");
}

TEST_P(SafetensorsRejectsTest, UnknownAndUnsupportedDtypes) {
  expect_rejected(file_with(R"({"a": {"dtype": "Q7", "shape": [1], "data_offsets": [0, 4]}})", "1234"),
                  "tensor 'a' has unknown dtype 'Q7'");
  expect_rejected(file_with(R"({"a": {"dtype": "U32", "shape": [1], "data_offsets": [0, 4]}})", "1234"),
                  "tensor 'a' has dtype U32, which ember does not support");
}

TEST_P(SafetensorsRejectsTest, ShapesThatDoNotMatchTheirBytes) {
  expect_rejected(file_with(R"({"w": {"dtype": "F32", "shape": [2, 3], "data_offsets": [0, 20]}})", std::string(20, 'x')),
                  "tensor 'w' has shape [2, 3] of float32 (24 bytes), but its data_offsets [0,20] hold 20 bytes");
  expect_rejected(file_with(R"({"w": {"dtype": "I64", "shape": [4294967296, 4294967296], "data_offsets": [0, 8]}})", "12345678"),
                  "tensor 'w' has shape [4294967296, 4294967296], too large to hold");
}

TEST_P(SafetensorsRejectsTest, OffsetsOutOfTheFileOverlappingOrLeavingGaps) {
  expect_rejected(file_with(R"({"a": {"dtype": "U8", "shape": [8], "data_offsets": [0, 8]}})", "1234"),
                  "the data_offsets [0, 8] of tensor 'a' run past the end of the file (its data section has 4 bytes; truncated?)");
  expect_rejected(file_with(R"({"a": {"dtype": "U8", "shape": [4], "data_offsets": [0, 4]},)"
                            R"( "b": {"dtype": "U8", "shape": [4], "data_offsets": [2, 6]}})", "123456"),
                  "tensors 'a' [0, 4] and 'b' [2, 6] overlap");
  expect_rejected(file_with(R"({"a": {"dtype": "U8", "shape": [2], "data_offsets": [2, 4]}})", "1234"),
                  "no tensor holds bytes [0, 2) of the data section");
  expect_rejected(file_with(R"({"a": {"dtype": "U8", "shape": [2], "data_offsets": [0, 2]}})", "1234"),
                  "the tensors hold 2 bytes, but the data section has 4");
}

// A header can claim any size; nothing is allocated before it is checked against the file.
TEST_P(SafetensorsRejectsTest, AHugeClaimedTensorAllocatesNothing) {
  const AllocatorStats before = device->allocator().stats();
  const auto start = std::chrono::steady_clock::now();
  expect_rejected(file_with(R"({"a": {"dtype": "F64", "shape": [1099511627776], "data_offsets": [0, 8796093022208]}})", "12345678"),
                  "the data_offsets [0, 8796093022208] of tensor 'a' run past the end of the file (its data section "
                  "has 8 bytes; truncated?)");
  EXPECT_LT(std::chrono::steady_clock::now() - start, std::chrono::seconds(2));
  EXPECT_EQ(device->allocator().stats().allocated_bytes, before.allocated_bytes);
}

// Every truncation of a valid file is refused, and flipping any byte of its header either still loads
// or is refused with a CheckpointError: never a crash or another error.
TEST_P(SafetensorsRejectsTest, EveryTruncationIsRefusedAndNoByteFlipCrashes) {
  OrderedDict<std::string, Tensor> tensors;
  tensors.insert("w", randn({3, 2}, TensorOptions().device(device)));
  tensors.insert("n", randint(0, 9, {2}, TensorOptions().device(device)));
  save(dir.path("good.safetensors"), tensors, {{"epoch", "2"}});
  const std::string good = read_file(dir.path("good.safetensors"));
  const std::string path = dir.path("cut.safetensors");
  for (size_t length = 0; length < good.size(); ++length) {
    write_file(path, good.substr(0, length));
    try {
      load(path, device);
      ADD_FAILURE() << "a file cut to " << length << " of " << good.size() << " bytes loaded";
    } catch (const CheckpointError&) {
    }
  }
  uint64_t header_length = 0;
  for (int i = 7; i >= 0; --i) header_length = (header_length << 8) | static_cast<uint8_t>(good[i]);
  size_t refused = 0;
  for (size_t at = 0; at < 8 + header_length; ++at) {
    for (unsigned char flip : {0x01, 0x80, 0x20}) {
      std::string bad = good;
      bad[at] = static_cast<char>(bad[at] ^ flip);
      write_file(path, bad);
      try {
        load(path, device);
      } catch (const CheckpointError&) {
        ++refused;
      }
    }
  }
  EXPECT_GT(refused, 0u);
}

TEST_P(SafetensorsRejectsTest, AFailedLoadLeavesTheModuleAsItWas) {
  nn::Linear model(4, 3);
  model->to(device);
  nn::Linear other(4, 3);
  other->to(device);
  save(dir.path("other.safetensors"), other);
  const std::vector<float> weight = model->weight.to_vector<float>(), bias = model->bias.to_vector<float>();
  auto unchanged = [&] {
    EXPECT_EQ(model->weight.to_vector<float>(), weight);
    EXPECT_EQ(model->bias.to_vector<float>(), bias);
  };
  // A truncated file: the weight's bytes are all there, the bias's are not.
  const std::string good = read_file(dir.path("other.safetensors"));
  write_file(dir.path("cut.safetensors"), good.substr(0, good.size() - 4));
  EXPECT_THROW(load(dir.path("cut.safetensors"), model), CheckpointError);
  unchanged();
  // A file whose second tensor has the wrong shape.
  OrderedDict<std::string, Tensor> wrong;
  wrong.insert("weight", randn({3, 4}, TensorOptions().device(device)));
  wrong.insert("bias", randn({4}, TensorOptions().device(device)));
  save(dir.path("wrong.safetensors"), wrong);
  EXPECT_THROW(load(dir.path("wrong.safetensors"), model), Error);
  unchanged();
  // A file that lacks a key.
  wrong.pop("bias");
  wrong["weight"] = randn({3, 4}, TensorOptions().device(device));
  save(dir.path("partial.safetensors"), wrong);
  EXPECT_THROW(load(dir.path("partial.safetensors"), model), Error);
  unchanged();
  // A folder, not a file.
  EXPECT_THROW(load(dir.path(""), model), CheckpointError);
  unchanged();
  EXPECT_THROW(load(dir.path("does-not-exist"), model), Error);
  unchanged();
}

INSTANTIATE_TEST_SUITE_P(Backends, SafetensorsRejectsTest, testing::Values("vulkan", "cuda"), backend_test_name);

}  // namespace
}  // namespace ember::test
