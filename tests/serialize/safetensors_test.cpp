// save() and load() in the safetensors format: round trips of every dtype and layout, modules and
// metadata, the byte layout the spec fixes, and an independent reader in Python (struct and json, as the
// format's spec describes it) that must see the same tensors.
#include <nlohmann/json.hpp>

#include <cstring>

#include "ember.h"
#include "serialize/serialize.h"
#include "tests/python_oracle.h"
#include "tests/serialize/checkpoint_files.h"
#include "tests/test_support.h"

namespace ember::test {
namespace {

class SafetensorsTest : public BackendTest {
 protected:
  // A tensor of `dtype` with varied values (negative ones where the dtype has them).
  Tensor sample(IntArrayRef shape, DType dtype, uint64_t seed) {
    manual_seed(seed);
    const Tensor base = randn(shape, TensorOptions().device(device)) * 50;
    if (dtype == kBool) return base.gt(0);
    return base.to(dtype);
  }
};

void expect_same(const Tensor& actual, const Tensor& expected, const std::string& name) {
  SCOPED_TRACE(name);
  ASSERT_TRUE(actual.defined());
  EXPECT_EQ(actual.dtype(), expected.dtype());
  EXPECT_EQ(to_string(actual.sizes()), to_string(expected.sizes()));
  EXPECT_EQ(actual.to_vector<double>(), expected.to_vector<double>());
}

TEST_P(SafetensorsTest, RoundTripsEveryDtypeShapeAndTheMetadata) {
  TempDir dir;
  OrderedDict<std::string, Tensor> tensors;
  uint64_t seed = 1;
  for (DType dtype : kAllDTypes) {
    for (const std::vector<int64_t>& shape : std::vector<std::vector<int64_t>>{{3, 5}, {}, {0, 4}, {7}}) {
      tensors.insert(std::string(dtype_name(dtype)) + to_string(shape), sample(shape, dtype, seed++));
    }
  }
  const std::map<std::string, std::string> metadata = {
      {"epoch", "3"}, {"optimizer", R"({"param_groups": [{"lr": 0.001}]})"}, {"note", "ünïcode ✓"}};
  save(dir.path("all.safetensors"), tensors, metadata);
  const Checkpoint loaded = load(dir.path("all.safetensors"), device);
  EXPECT_EQ(loaded.metadata, metadata);
  ASSERT_EQ(loaded.tensors.keys(), tensors.keys());  // in the order they were saved
  for (const auto& item : tensors) {
    const Tensor& got = loaded.tensors[item.key()];
    expect_same(got, item.value(), item.key());
    EXPECT_EQ(got.device(), device);
    EXPECT_FALSE(got.requires_grad());
  }
}

TEST_P(SafetensorsTest, StridedAndSharedTensorsSaveTheirValues) {
  TempDir dir;
  const Tensor base = sample({4, 6}, kFloat32, 7);
  OrderedDict<std::string, Tensor> tensors;
  tensors.insert("transposed", base.t());
  tensors.insert("stepped", base.slice(1, 1, 6, 2));
  tensors.insert("row", base[2]);  // shares base's memory at an offset
  tensors.insert("base", base);
  tensors.insert("expanded", sample({3, 1}, kFloat16, 8).expand({3, 4}));
  save(dir.path("views.safetensors"), tensors);
  const Checkpoint loaded = load(dir.path("views.safetensors"), device);
  for (const auto& item : tensors) {
    expect_same(loaded.tensors[item.key()], item.value(), item.key());
    EXPECT_TRUE(loaded.tensors[item.key()].is_contiguous());
  }
}

TEST_P(SafetensorsTest, TheFileIsLaidOutAsTheSpecSays) {
  TempDir dir;
  OrderedDict<std::string, Tensor> tensors;
  tensors.insert("flags", sample({3}, kBool, 1));       // 3 bytes
  tensors.insert("weight", sample({2, 3}, kFloat32, 2));  // 24 bytes
  tensors.insert("steps", sample({2}, kInt64, 3));        // 16 bytes
  save(dir.path("layout.safetensors"), tensors, {{"epoch", "1"}});
  const std::string file = read_file(dir.path("layout.safetensors"));
  ASSERT_GE(file.size(), 8u);
  uint64_t length = 0;
  for (int i = 7; i >= 0; --i) length = (length << 8) | static_cast<uint8_t>(file[i]);
  EXPECT_EQ((8 + length) % 8, 0u) << "the data starts 8-byte aligned";
  ASSERT_LE(8 + length, file.size());
  const nlohmann::ordered_json header = nlohmann::ordered_json::parse(file.substr(8, length));
  EXPECT_EQ(header["__metadata__"], nlohmann::ordered_json({{"epoch", "1"}}));
  std::vector<std::string> names;
  for (const auto& item : header.items()) names.push_back(item.key());
  EXPECT_EQ(names, (std::vector<std::string>{"__metadata__", "flags", "weight", "steps"}));
  EXPECT_EQ(header["flags"]["dtype"], "BOOL");
  EXPECT_EQ(header["weight"]["dtype"], "F32");
  EXPECT_EQ(header["steps"]["dtype"], "I64");
  EXPECT_EQ(header["weight"]["shape"], nlohmann::ordered_json({2, 3}));
  // The data holds the largest elements first, so each tensor is aligned to its element size, and the
  // tensors tile the data section.
  EXPECT_EQ(header["weight"]["data_offsets"], nlohmann::ordered_json({16, 40}));
  EXPECT_EQ(header["steps"]["data_offsets"], nlohmann::ordered_json({0, 16}));
  EXPECT_EQ(header["flags"]["data_offsets"], nlohmann::ordered_json({40, 43}));
  EXPECT_EQ(file.size(), 8 + length + 43);
  const std::string data = file.substr(8 + length);
  std::vector<float> weight(6);
  std::memcpy(weight.data(), data.data() + 16, 24);
  EXPECT_EQ(weight, tensors["weight"].to_vector<float>());
  std::vector<int64_t> steps(2);
  std::memcpy(steps.data(), data.data(), 16);
  EXPECT_EQ(steps, tensors["steps"].to_vector<int64_t>());
  for (int i = 0; i < 3; ++i) EXPECT_EQ(data[40 + i] != 0, tensors["flags"].to_vector<bool>()[i]);
}

TEST_P(SafetensorsTest, AModuleRoundTripsItsParametersBuffersAndOutputs) {
  TempDir dir;
  auto make = [&] {
    nn::Sequential model(nn::Linear(5, 8), nn::BatchNorm1d(8), nn::ReLU(), nn::Linear(8, 3));
    model->to(device);
    return model;
  };
  nn::Sequential trained = make();
  const Tensor batch = sample({6, 5}, kFloat32, 11);
  trained->forward(batch);  // training mode: moves BatchNorm's running statistics
  trained->eval();
  save(dir.path("model.safetensors"), trained, {{"epoch", "4"}});

  nn::Sequential fresh = make();
  fresh->eval();
  const auto metadata = load(dir.path("model.safetensors"), fresh);
  EXPECT_EQ(metadata, (std::map<std::string, std::string>{{"epoch", "4"}}));
  const auto theirs = trained->state_dict();
  for (const auto& item : fresh->state_dict()) expect_same(item.value(), theirs[item.key()], item.key());
  expect_same(fresh->forward(batch), trained->forward(batch), "forward");
}

TEST_P(SafetensorsTest, ALoneTensorRoundTrips) {
  TempDir dir;
  const Tensor t = sample({2, 3, 4}, kBFloat16, 5);
  save(dir.path("t.safetensors"), t);
  Tensor loaded;
  load(dir.path("t.safetensors"), loaded, device);
  expect_same(loaded, t, "tensor");
  EXPECT_EQ(load(dir.path("t.safetensors"), device).tensors.keys(), std::vector<std::string>{kSingleTensorName});

  OrderedDict<std::string, Tensor> two;
  two.insert("a", t);
  two.insert("b", t);
  save(dir.path("two.safetensors"), two);
  expect_error<CheckpointError>([&] { load(dir.path("two.safetensors"), loaded); },
                                "cannot load '" + dir.path("two.safetensors") + "' into one tensor: it holds 2 tensors");
}

TEST_P(SafetensorsTest, SavingRefusesUndefinedTensorsAndTheReservedName) {
  TempDir dir;
  OrderedDict<std::string, Tensor> tensors;
  tensors.insert("missing", Tensor());
  expect_error<Error>([&] { save(dir.path("x.safetensors"), tensors); },
                      "cannot save tensor 'missing' to '" + dir.path("x.safetensors") + "': it is undefined");
  OrderedDict<std::string, Tensor> reserved;
  reserved.insert("__metadata__", sample({1}, kFloat32, 1));
  expect_error<Error>([&] { save(dir.path("x.safetensors"), reserved); },
                      "cannot save a tensor named '__metadata__': safetensors reserves that name");
  EXPECT_TRUE(dir.files().empty());
}

// Python reads ember's file with nothing but struct, json and torch.frombuffer, following the format's
// spec, and compares each tensor with the values ember had.
TEST_P(SafetensorsTest, AReaderWrittenFromTheSpecInPythonSeesTheSameTensors) {
  TempDir dir;
  OrderedDict<std::string, Tensor> tensors;
  uint64_t seed = 20;
  for (DType dtype : kAllDTypes) tensors.insert(std::string(dtype_name(dtype)), sample({2, 3}, dtype, seed++));
  tensors.insert("scalar", sample({}, kFloat64, seed++));
  tensors.insert("empty", sample({0, 3}, kFloat32, seed++));
  save(dir.path("spec.safetensors"), tensors, {{"format", "pt"}});
  std::string script = R"(
import json, struct
codes = {'F32': torch.float32, 'F16': torch.float16, 'BF16': torch.bfloat16, 'F64': torch.float64,
         'I8': torch.int8, 'U8': torch.uint8, 'I16': torch.int16, 'I32': torch.int32, 'I64': torch.int64,
         'BOOL': torch.bool}
raw = open(')" + dir.path("spec.safetensors") + R"(', 'rb').read()
(n,) = struct.unpack('<Q', raw[:8])
header = json.loads(raw[8:8 + n])
data = raw[8 + n:]
print(header.pop('__metadata__'))
print('@@END@@')
expected = {}
)";
  for (const auto& item : tensors) {
    script += "expected['" + item.key() + "'] = (" + python_dtype(item.value().dtype()) + ", " +
              to_string(item.value().sizes()) + ", " + python_values(item.value()) + ")\n";
  }
  script += R"(
for name, (dtype, shape, values) in expected.items():
    info = header.pop(name)
    begin, end = info['data_offsets']
    t = torch.frombuffer(bytearray(data[begin:end]), dtype=codes[info['dtype']]) if end > begin else torch.empty(0, dtype=codes[info['dtype']])
    t = t.reshape(info['shape'])
    ok = t.dtype == dtype and list(t.shape) == shape and torch.equal(t.double().flatten(), torch.tensor(values, dtype=torch.float64))
    print(name, 'ok' if ok else 'MISMATCH %s %s %s' % (t.dtype, list(t.shape), t.flatten().tolist()))
    print('@@END@@')
print(sorted(header))
print('@@END@@')
)";
  std::vector<std::string> answers;
  ASSERT_PYTHON_ANSWERS(answers, script, tensors.size() + 2);
  EXPECT_EQ(answers[0], "{'format': 'pt'}");
  for (size_t i = 0; i < tensors.size(); ++i) EXPECT_EQ(answers[i + 1], tensors.items()[i].key() + " ok");
  EXPECT_EQ(answers.back(), "[]") << "the header names no other tensor";
}

INSTANTIATE_TEST_SUITE_P(Backends, SafetensorsTest, testing::Values("vulkan", "cuda"), backend_test_name);

}  // namespace
}  // namespace ember::test
