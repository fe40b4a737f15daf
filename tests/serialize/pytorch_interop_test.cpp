// PyTorch's .pt state dicts both ways, with Debian's python3-torch as the other side: a model saved by
// Python's torch.save loads into the same ember module and gives the same outputs, and what ember saves
// loads with Python's torch.load with the same values, dtypes, shapes, strides and shared storages.
#include <filesystem>

#include "ember.h"
#include "serialize/serialize.h"
#include "tests/python_oracle.h"
#include "tests/serialize/checkpoint_files.h"
#include "tests/test_support.h"

namespace ember::test {
namespace {

class PyTorchInteropTest : public BackendTest {
 protected:
  Tensor sample(IntArrayRef shape, DType dtype, uint64_t seed) {
    manual_seed(seed);
    const Tensor base = randn(shape, TensorOptions().device(device)) * 50;
    if (dtype == kBool) return base.gt(0);
    return base.to(dtype);
  }
  // Runs `script`, which prints answers separated by '@@END@@' lines; skips the test without Python.
  std::vector<std::string> python(const std::string& script, size_t expected_answers) {
    std::string unavailable;
    std::vector<std::string> answers = python_answers(script, unavailable);
    if (!unavailable.empty()) {
      skipped_ = unavailable;
      return {};
    }
    EXPECT_EQ(answers.size(), expected_answers) << (answers.empty() ? "" : answers.back());
    answers.resize(expected_answers);
    return answers;
  }
  TempDir dir;
  std::string skipped_;
};

#define SKIP_WITHOUT_PYTHON() \
  if (!skipped_.empty()) GTEST_SKIP() << skipped_

// The flattened values Python printed ("%.17g" joined by ", ") against ember's tensor.
void expect_values(const std::string& python, const Tensor& ours, const std::string& name) {
  EXPECT_EQ("[" + python + "]", python_values(ours)) << name;
}

TEST_P(PyTorchInteropTest, AModelSavedByPythonLoadsIntoTheSameEmberModuleAndGivesItsOutputs) {
  const std::string weights = dir.path("model.pt"), io = dir.path("io.pt");
  python(R"(
torch.manual_seed(0)
model = torch.nn.Sequential(torch.nn.Conv2d(2, 4, 3, padding=1), torch.nn.BatchNorm2d(4), torch.nn.ReLU(),
                            torch.nn.Flatten(), torch.nn.Linear(4 * 5 * 5, 6))
model(torch.randn(8, 2, 5, 5))  # training mode: BatchNorm's running statistics move
model.eval()
x = torch.randn(3, 2, 5, 5)
with torch.no_grad():
    y = model(x)
torch.save(model.state_dict(), ')" + weights + R"(')
torch.save({'x': x, 'y': y}, ')" + io + R"(')
print('saved')
print('@@END@@')
)", 1);
  SKIP_WITHOUT_PYTHON();
  nn::Sequential ours(nn::Conv2d(nn::Conv2dOptions(2, 4, 3).padding(1)), nn::BatchNorm2d(4), nn::ReLU(), nn::Flatten(),
                      nn::Linear(4 * 5 * 5, 6));
  ours->to(device);
  ours->eval();
  const auto metadata = load(weights, ours);  // load() tells a .pt file from a safetensors one
  EXPECT_TRUE(metadata.empty());
  EXPECT_EQ(ours->state_dict()["1.num_batches_tracked"].item<int64_t>(), 1);
  const OrderedDict<std::string, Tensor> data = load_pytorch(io, device);
  ASSERT_EQ(data.keys(), (std::vector<std::string>{"x", "y"}));
  const Tensor y = ours->forward(data["x"]);
  EXPECT_TRUE(y.allclose(data["y"], 1e-4, 1e-5)) << (y - data["y"]).abs().max().item<double>();
}

TEST_P(PyTorchInteropTest, EveryDtypeStridesAndSharedStoragesSavedByPythonLoadInEmber) {
  const std::string path = dir.path("tensors.pt");
  const std::vector<std::string> answers = python(R"(
torch.manual_seed(1)
base = torch.randn(4, 6)
sd = {'float32': torch.randn(2, 3), 'float64': torch.randn(3).double(), 'float16': torch.randn(2, 2).half(),
      'bfloat16': torch.randn(2, 2).bfloat16(), 'int64': torch.randint(-9, 9, (3,)),
      'bool': torch.randn(5) > 0, 'int32': torch.randint(-9, 9, (2,), dtype=torch.int32),
      'int8': torch.randint(-9, 9, (2,), dtype=torch.int8), 'uint8': torch.randint(0, 9, (2,), dtype=torch.uint8),
      'int16': torch.randint(-9, 9, (2,), dtype=torch.int16), 'scalar': torch.tensor(2.5), 'empty': torch.zeros(0, 3),
      'base': base, 'transposed': base.t(), 'row': base[2], 'stepped': base[:, 1::2]}
torch.save(sd, ')" + path + R"(')
for name, t in sd.items():
    print(name, t.dtype, list(t.shape), list(t.stride()), t.storage_offset())
    print(', '.join('%.17g' % v for v in t.double().flatten().tolist()))
    print('@@END@@')
)", 16);
  SKIP_WITHOUT_PYTHON();
  const OrderedDict<std::string, Tensor> loaded = load_pytorch(path, device);
  ASSERT_EQ(loaded.size(), 16u);
  for (size_t i = 0; i < loaded.size(); ++i) {
    const std::string& name = loaded.items()[i].key();
    const Tensor& t = loaded.items()[i].value();
    const std::string& answer = answers[i];
    const size_t newline = answer.find('\n');
    std::string header = name + " " + python_dtype(t.dtype()) + " " + to_string(t.sizes()) + " " + to_string(t.strides()) +
                         " " + std::to_string(t.storage_offset());
    EXPECT_EQ(answer.substr(0, newline), header);
    expect_values(answer.substr(newline + 1), t, name);
    EXPECT_EQ(t.device(), device);
  }
  // Views of one storage in the file view one storage on the device.
  for (const char* view : {"transposed", "row", "stepped"}) EXPECT_EQ(loaded[view].storage(), loaded["base"].storage()) << view;
  EXPECT_NE(loaded["float32"].storage(), loaded["base"].storage());
}

TEST_P(PyTorchInteropTest, WhatEmberSavesLoadsInPythonWithTheSameValuesDtypesStridesAndSharing) {
  OrderedDict<std::string, Tensor> sd;
  uint64_t seed = 30;
  for (DType dtype : kAllDTypes) sd.insert(std::string(dtype_name(dtype)), sample({2, 3}, dtype, seed++));
  const Tensor base = sample({4, 6}, kFloat32, seed++);
  sd.insert("base", base);
  sd.insert("transposed", base.t());
  sd.insert("row", base[2]);
  sd.insert("stepped", base.slice(1, 1, 6, 2));
  sd.insert("scalar", sample({}, kFloat64, seed++));
  sd.insert("empty", sample({0, 3}, kFloat32, seed++));
  sd.insert("big_offset", sample({70000}, kInt8, seed++).slice(0, 66000, 70000, 1000));  // offsets past 16 bits
  const std::string path = dir.path("ember.pt");
  save_pytorch(path, sd);

  std::string script = "sd = torch.load('" + path + "')\nprint(type(sd).__name__)\nprint('@@END@@')\nexpected = {}\n";
  for (const auto& item : sd) {
    const Tensor& t = item.value();
    script += "expected['" + item.key() + "'] = (" + python_dtype(t.dtype()) + ", " + to_string(t.sizes()) + ", " +
              to_string(t.strides()) + ", " + std::to_string(t.storage_offset()) + ", " + python_values(t) + ")\n";
  }
  script += R"(
for name, (dtype, shape, stride, offset, values) in expected.items():
    t = sd[name]
    got = (t.dtype, list(t.shape), list(t.stride()), t.storage_offset())
    ok = got == (dtype, shape, stride, offset) and torch.equal(t.double().flatten(), torch.tensor(values, dtype=torch.float64))
    print(name, 'ok' if ok else 'MISMATCH %s %s' % (got, t.double().flatten().tolist()))
    print('@@END@@')
ptr = lambda name: sd[name].storage().data_ptr()
print(ptr('base') == ptr('transposed') == ptr('row') == ptr('stepped'), ptr('base') != ptr('float32'), sorted(sd) == sorted(expected))
print('@@END@@')
)";
  const std::vector<std::string> answers = python(script, sd.size() + 2);
  SKIP_WITHOUT_PYTHON();
  EXPECT_EQ(answers[0], "OrderedDict");
  for (size_t i = 0; i < sd.size(); ++i) EXPECT_EQ(answers[i + 1], sd.items()[i].key() + " ok");
  EXPECT_EQ(answers.back(), "True True True");
}

TEST_P(PyTorchInteropTest, AModelSavedByEmberLoadsIntoPythonAndGivesItsOutputs) {
  nn::Sequential model(nn::Linear(4, 3), nn::ReLU(), nn::Linear(3, 2));
  model->to(device);
  const Tensor x = sample({5, 4}, kFloat32, 3) / 50;
  OrderedDict<std::string, Tensor> io;
  io.insert("x", x);
  io.insert("y", model->forward(x));
  save_pytorch(dir.path("model.pt"), model);
  save_pytorch(dir.path("io.pt"), io);
  const std::vector<std::string> answers = python(R"(
model = torch.nn.Sequential(torch.nn.Linear(4, 3), torch.nn.ReLU(), torch.nn.Linear(3, 2))
print(model.load_state_dict(torch.load(')" + dir.path("model.pt") + R"(')))
print('@@END@@')
io = torch.load(')" + dir.path("io.pt") + R"(')
with torch.no_grad():
    print(torch.allclose(model(io['x']), io['y'], rtol=1e-5, atol=1e-6))
print('@@END@@')
)", 2);
  SKIP_WITHOUT_PYTHON();
  EXPECT_EQ(answers[0], "<All keys matched successfully>");
  EXPECT_EQ(answers[1], "True");
}

// A pickle that would run a shell command when Python unpickles it, made by torch.save itself.
TEST_P(PyTorchInteropTest, AHostilePickleMadeByTorchSaveIsRefusedWithoutRunningIt) {
  const std::string path = dir.path("hostile.pt"), marker = dir.path("pwned");
  python(R"(
import os
class Payload:
    def __reduce__(self):
        return (os.system, ('touch )" + marker + R"(',))
torch.save({'weight': torch.zeros(2), 'bias': Payload()}, ')" + path + R"(')
print('saved')
print('@@END@@')
)", 1);
  SKIP_WITHOUT_PYTHON();
  try {
    load_pytorch(path, device);
    ADD_FAILURE() << "no error";
  } catch (const CheckpointError& e) {
    // os.system is posix.system on Linux, which is what the pickle names.
    EXPECT_NE(std::string(e.what()).find("data.pkl: forbidden global 'posix.system': a state dict holds only tensors"),
              std::string::npos)
        << e.what();
  }
  EXPECT_FALSE(std::filesystem::exists(marker));
}

// A file in torch.save's legacy (non-zip) format is named as such, by load_pytorch and by load(), which
// would otherwise take it for a corrupt safetensors file.
TEST_P(PyTorchInteropTest, ALegacyFormatFileIsNamed) {
  const std::string path = dir.path("legacy.pt");
  python("torch.save({'w': torch.ones(3)}, '" + path + "', _use_new_zipfile_serialization=False)\nprint('@@END@@')\n", 1);
  SKIP_WITHOUT_PYTHON();
  const std::string message = "cannot load '" + path + "': it is in torch.save's legacy format (PyTorch before 1.6, or "
                              "_use_new_zipfile_serialization=False), which ember does not read; load it in Python and "
                              "torch.save it again in the default zip format";
  expect_error<CheckpointError>([&] { load_pytorch(path, device); }, message);
  expect_error<CheckpointError>([&] { load(path, device); }, message);
}

TEST_P(PyTorchInteropTest, EmberReadsBackWhatItSavedWithItsGeometryAndSharing) {
  const Tensor base = sample({4, 6}, kFloat16, 9);
  OrderedDict<std::string, Tensor> sd;
  sd.insert("stepped", base.slice(1, 1, 6, 2));
  sd.insert("base", base);
  sd.insert("flags", sample({3}, kBool, 10));
  save_pytorch(dir.path("again.pt"), sd);
  const OrderedDict<std::string, Tensor> loaded = load(dir.path("again.pt"), device).tensors;
  ASSERT_EQ(loaded.keys(), sd.keys());
  for (const auto& item : sd) {
    const Tensor& t = loaded[item.key()];
    EXPECT_EQ(to_string(t.strides()), to_string(item.value().strides())) << item.key();
    EXPECT_EQ(t.storage_offset(), item.value().storage_offset()) << item.key();
    EXPECT_EQ(t.to_vector<double>(), item.value().to_vector<double>()) << item.key();
  }
  EXPECT_EQ(loaded["stepped"].storage(), loaded["base"].storage());
  // The archive's folder is named after the file, as PyTorch names it.
  EXPECT_NE(read_file(dir.path("again.pt")).find("again/data.pkl"), std::string::npos);
  EXPECT_EQ(dir.files(), std::vector<std::string>{"again.pt"});
}

TEST_P(PyTorchInteropTest, SharingMemoryAsTwoDtypesIsRefusedAsPyTorchRefusesIt) {
  // Two tensors over one storage with different dtypes cannot be one typed storage in the file.
  const Tensor a = sample({4}, kFloat32, 1);
  Tensor b(std::make_shared<TensorImpl>(a.impl()));
  b.impl().dtype = kInt32;
  OrderedDict<std::string, Tensor> sd;
  sd.insert("a", a);
  sd.insert("b", b);
  expect_error<Error>([&] { save_pytorch(dir.path("mixed.pt"), sd); },
                      "Cannot save multiple tensors or storages that view the same data as different types: 'a' and 'b'");
  EXPECT_TRUE(dir.files().empty());
}

INSTANTIATE_TEST_SUITE_P(Backends, PyTorchInteropTest, testing::Values("vulkan", "cuda"), backend_test_name);

}  // namespace
}  // namespace ember::test
