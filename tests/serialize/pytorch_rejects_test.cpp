// Corrupt and hostile .pt files: forbidden globals and opcodes, missing zip entries, storages that do not
// fit their tensors, truncations. Each is refused with a CheckpointError naming the problem, and a module
// that a failed load targeted is unchanged. The archives and pickles are built by hand
// (tests/serialize/checkpoint_files.h), so no Python is needed.
#include "ember.h"
#include "serialize/serialize.h"
#include "tests/serialize/checkpoint_files.h"
#include "tests/test_support.h"

namespace ember::test {
namespace {

constexpr const char* kAllowed =
    "a state dict holds only tensors, so ember's unpickler accepts only collections.OrderedDict, "
    "torch._utils._rebuild_tensor_v2, torch._utils._rebuild_parameter and the torch.*Storage classes";

class PyTorchRejectsTest : public BackendTest {
 protected:
  std::string write(const std::string& bytes) {
    const std::string path = dir.path("bad.pt");
    write_file(path, bytes);
    return path;
  }
  // A .pt file of the pickle and storages; loading it throws "cannot load '<path>': <problem>".
  void expect_rejected(const std::string& pickle, const std::vector<std::pair<std::string, std::string>>& storages,
                       const std::string& problem) {
    const std::string path = write(make_pt(pickle, storages));
    expect_error<CheckpointError>([&] { load_pytorch(path, device); }, "cannot load '" + path + "': " + problem);
  }
  // A valid state dict of one float tensor 'w' over storage '0' of four floats.
  static std::string one_tensor_pickle(const std::vector<int32_t>& sizes = {4}, const std::vector<int32_t>& strides = {1},
                                       int32_t offset = 0) {
    Pickle p;
    p.empty_ordered_dict().op('(').string("w").tensor("FloatStorage", "0", 4, offset, sizes, strides).op('u');
    return p.stop();
  }
  TempDir dir;
};

TEST_P(PyTorchRejectsTest, TheHandBuiltArchiveIsValid) {
  const float values[4] = {1, -2, 3.5f, 4};
  const std::string path = write(make_pt(one_tensor_pickle(), {{"0", std::string(reinterpret_cast<const char*>(values), 16)}}));
  const OrderedDict<std::string, Tensor> loaded = load_pytorch(path, device);
  ASSERT_EQ(loaded.keys(), std::vector<std::string>{"w"});
  EXPECT_EQ(loaded["w"].to_vector<float>(), std::vector<float>(values, values + 4));
}

TEST_P(PyTorchRejectsTest, ForbiddenGlobalsAreNamed) {
  for (const auto& [module, name] : std::vector<std::pair<std::string, std::string>>{
           {"os", "system"}, {"posix", "system"}, {"builtins", "eval"}, {"__builtin__", "eval"}, {"builtins", "getattr"},
           {"subprocess", "Popen"}, {"torch", "load"}, {"torch._utils", "_rebuild_qtensor"}, {"collections", "defaultdict"}}) {
    SCOPED_TRACE(module + "." + name);
    // GLOBAL at byte 2, right after PROTO 2.
    expect_rejected(Pickle().global(module, name).string("echo pwned").op('\x85').op('R').stop(), {},
                    "data.pkl: forbidden global '" + module + "." + name + "': " + kAllowed + " (opcode at byte 2)");
  }
  expect_rejected(Pickle().global("torch", "ComplexFloatStorage").stop(), {},
                  "data.pkl: global 'torch.ComplexFloatStorage' is a storage of a dtype ember does not support (opcode at byte 2)");
  // An allowed global used otherwise than a state dict uses it.
  const std::string call_storage = Pickle().global("torch", "FloatStorage").op(')').op('R').stop();
  expect_rejected(call_storage, {},
                  "data.pkl: global 'torch.FloatStorage' cannot be called: " + std::string(kAllowed) + " (opcode at byte 23)");
  expect_rejected(Pickle().global("collections", "OrderedDict").integer(1).op('\x85').op('R').stop(), {},
                  "data.pkl: collections.OrderedDict is called with arguments (opcode at byte 33)");
}

TEST_P(PyTorchRejectsTest, OpcodesOutsideProtocolTwoStateDictsAreNamed) {
  expect_rejected(std::string("\x80\x04\x95", 3), {},
                  "data.pkl: pickle protocol 4 is not supported (torch.save writes protocol 2) (opcode at byte 0)");
  expect_rejected(Pickle().global("collections", "OrderedDict").op(')').op('\x81').stop(), {},
                  "data.pkl: pickle opcode 0x81 is not allowed in a state dict (protocol 2 opcodes for dicts, tuples "
                  "and tensors only) (opcode at byte 28)");
  expect_rejected(Pickle().raw("(iposix\nsystem\n").stop(), {},
                  "data.pkl: pickle opcode 0x69 ('i') is not allowed in a state dict (protocol 2 opcodes for dicts, "
                  "tuples and tensors only) (opcode at byte 3)");
  expect_rejected(Pickle().raw("S'x'\n").stop(), {},
                  "data.pkl: pickle opcode 0x53 ('S') is not allowed in a state dict (protocol 2 opcodes for dicts, "
                  "tuples and tensors only) (opcode at byte 2)");
}

TEST_P(PyTorchRejectsTest, StateDictsHoldOnlyTensorsUnderStringKeys) {
  expect_rejected(Pickle().op(')').stop(), {}, "data.pkl: the pickled object is of type tuple, not a state dict (a dict of tensors)");
  expect_rejected(Pickle().op('}').string("w").integer(3).op('s').stop(), {},
                  "data.pkl: the value under 'w' is of type int, not a tensor (ember loads state dicts of tensors)");
  expect_rejected(Pickle().op('}').integer(3).string("w").op('s').stop(), {},
                  "data.pkl: the state dict has a key of type int, not str");
  expect_rejected(Pickle().empty_ordered_dict().op('}').string("__dict__").op('}').op('s').op('b').stop(), {},
                  "data.pkl: BUILD may set only a state dict's _metadata, not '__dict__' (opcode at byte 45)");
}

TEST_P(PyTorchRejectsTest, MissingZipEntriesAreNamed) {
  const float values[4] = {};
  const std::string storage(reinterpret_cast<const char*>(values), 16);
  std::string path = write(make_zip({{"archive/version", "3\n"}, {"archive/data/0", storage}}));
  expect_error<CheckpointError>([&] { load_pytorch(path, device); },
                                "cannot load '" + path + "': zip entry 'archive/data.pkl' (the pickled state dict) is missing");
  path = write(make_zip({{"archive/data.pkl", one_tensor_pickle()}, {"archive/data/0", storage}}));
  expect_error<CheckpointError>([&] { load_pytorch(path, device); },
                                "cannot load '" + path + "': zip entry 'archive/version' (the format version) is missing");
  expect_rejected(one_tensor_pickle(), {}, "zip entry 'archive/data/0' (storage '0') is missing");
  path = write(make_zip({{"data.pkl", one_tensor_pickle()}}));
  expect_error<CheckpointError>([&] { load_pytorch(path, device); },
                                "cannot load '" + path + "': zip entry 'data.pkl' is not in a folder, as a PyTorch archive's entries are");
  path = write(make_zip({{"archive/data.pkl", one_tensor_pickle(), true}, {"archive/version", "3\n"}}));
  expect_error<CheckpointError>([&] { load_pytorch(path, device); },
                                "cannot load '" + path + "': zip entry 'archive/data.pkl' is compressed (method 8); torch.save "
                                "stores entries uncompressed");
}

TEST_P(PyTorchRejectsTest, StoragesThatDoNotFitTheirTensorsAreRefused) {
  expect_rejected(one_tensor_pickle(), {{"0", std::string(8, '\0')}},
                  "zip entry 'archive/data/0' holds 8 bytes, but storage '0' of 4 float32 elements needs 16");
  const std::string storage(16, '\0');
  expect_rejected(one_tensor_pickle({5}), {{"0", storage}},
                  "data.pkl: tensor 'w' (size [5], stride [1], offset 0) reaches element 4 of storage '0', which holds 4 elements");
  expect_rejected(one_tensor_pickle({2, 2}, {3, 1}), {{"0", storage}},
                  "data.pkl: tensor 'w' (size [2, 2], stride [3, 1], offset 0) reaches element 4 of storage '0', which holds 4 elements");
  expect_rejected(one_tensor_pickle({1}, {1}, 4), {{"0", storage}},
                  "data.pkl: tensor 'w' (size [1], stride [1], offset 4) reaches element 4 of storage '0', which holds 4 elements");
  expect_rejected(one_tensor_pickle({2}, {-1}, 1), {{"0", storage}},
                  "data.pkl: tensor 'w' (size [2], stride [-1], offset 1) has a negative size or stride");
  // A storage that claims more elements than any file holds is refused by its entry's size, not allocated.
  Pickle huge;
  huge.empty_ordered_dict().op('(').string("w").tensor("DoubleStorage", "0", 2000000000, 0, {2000000000}, {1}).op('u');
  expect_rejected(huge.stop(), {{"0", storage}},
                  "zip entry 'archive/data/0' holds 16 bytes, but storage '0' of 2000000000 float64 elements needs 16000000000");
}

// Sixteen dimensions load; seventeen are refused while the pickle is read, so that many entries naming one
// tensor of a million dimensions cannot copy its description a million times.
TEST_P(PyTorchRejectsTest, TensorsOfMoreDimensionsThanEmberHoldsAreRefused) {
  const std::string storage(16, '\0');
  const std::string path = write(make_pt(one_tensor_pickle(std::vector<int32_t>(16, 1), std::vector<int32_t>(16, 0)), {{"0", storage}}));
  EXPECT_EQ(load_pytorch(path, device)["w"].dim(), 16);
  const std::string deeper = write(make_pt(one_tensor_pickle(std::vector<int32_t>(17, 1), std::vector<int32_t>(17, 0)), {{"0", storage}}));
  expect_error_containing([&] { load_pytorch(deeper, device); },
                          "cannot load '" + deeper + "': data.pkl: a tensor has 17 dimensions; ember's tensors have at most 16 "
                          "(opcode at byte ");
}

// PyTorch 2.1 and later write archive/byteorder; "little" loads as a file without it, anything else is
// refused rather than read with its bytes swapped.
TEST_P(PyTorchRejectsTest, TheByteOrderRecordIsHonoured) {
  const float values[4] = {1, -2, 3.5f, 4};
  const std::string storage(reinterpret_cast<const char*>(values), 16);
  auto archive = [&](const std::string& order) {
    return write(make_zip({{"archive/data.pkl", one_tensor_pickle()}, {"archive/byteorder", order},
                           {"archive/data/0", storage}, {"archive/version", "3\n"}}));
  };
  std::string path = archive("little");
  EXPECT_EQ(load_pytorch(path, device)["w"].to_vector<float>(), std::vector<float>(values, values + 4));
  path = archive("big");
  expect_error<CheckpointError>([&] { load_pytorch(path, device); },
                                "cannot load '" + path + "': zip entry 'archive/byteorder' holds 'big', not 'little'; ember "
                                "reads little-endian storages only");
  path = archive(std::string(40, 'x'));
  expect_error<CheckpointError>([&] { load_pytorch(path, device); },
                                "cannot load '" + path + "': zip entry 'archive/byteorder' holds 40 bytes, not 'little'; ember "
                                "reads little-endian storages only");
}

TEST_P(PyTorchRejectsTest, NotAZipArchive) {
  const std::string path = write(std::string("PK\x03\x04", 4) + "not really a zip archive");
  try {
    load_pytorch(path, device);
    ADD_FAILURE() << "no error";
  } catch (const CheckpointError& e) {
    EXPECT_TRUE(std::string(e.what()).starts_with("cannot load '" + path + "': not a readable zip archive (")) << e.what();
  }
}

// Nesting and self-reference cannot crash the unpickler (it never recurses) or leak.
TEST_P(PyTorchRejectsTest, DeepNestingAndCyclesAreHarmless) {
  Pickle deep;
  deep.op(')');
  for (int i = 0; i < 200000; ++i) deep.op('\x85');  // TUPLE1: ((((),),),) ...
  expect_rejected(deep.stop(), {}, "data.pkl: the pickled object is of type tuple, not a state dict (a dict of tensors)");
  // A dict that holds itself: d = {}; d['d'] = d.
  expect_rejected(Pickle().op('}').raw(std::string("q\x00", 2)).string("d").raw(std::string("h\x00", 2)).op('s').stop(), {},
                  "data.pkl: the value under 'd' is of type dict, not a tensor (ember loads state dicts of tensors)");
  expect_rejected(Pickle().raw(std::string("h\x07", 2)).stop(), {},
                  "data.pkl: the pickle reads memo entry 7, which it never stored (opcode at byte 2)");
  expect_rejected(Pickle().op('0').stop(), {}, "data.pkl: the pickle pops an empty stack (opcode at byte 2)");
}

// Every truncation of a valid pickle, and of a valid archive, is a CheckpointError.
TEST_P(PyTorchRejectsTest, EveryTruncationIsRefused) {
  const std::string pickle = one_tensor_pickle();
  const std::string storage(16, '\0');
  for (size_t length = 0; length < pickle.size(); ++length) {
    const std::string path = write(make_pt(pickle.substr(0, length), {{"0", storage}}));
    EXPECT_THROW(load_pytorch(path, device), CheckpointError) << "a pickle cut to " << length << " bytes";
  }
  OrderedDict<std::string, Tensor> sd;
  sd.insert("w", randn({3}, TensorOptions().device(device)));
  save_pytorch(dir.path("good.pt"), sd);
  const std::string good = read_file(dir.path("good.pt"));
  for (size_t length = 0; length < good.size(); ++length) {
    const std::string path = write(good.substr(0, length));
    try {
      load(path, device);  // a prefix too short for the zip magic is taken as safetensors: still refused
      ADD_FAILURE() << "an archive cut to " << length << " of " << good.size() << " bytes loaded";
    } catch (const CheckpointError&) {
    }
  }
}

TEST_P(PyTorchRejectsTest, AFailedLoadLeavesTheModuleAsItWas) {
  nn::Linear model(4, 1);
  model->to(device);
  const std::vector<float> weight = model->weight.to_vector<float>(), bias = model->bias.to_vector<float>();
  // The weight is fine; the bias names a forbidden global after it.
  Pickle p;
  p.empty_ordered_dict().op('(').string("weight").tensor("FloatStorage", "0", 4, 0, {1, 4}, {4, 1});
  p.string("bias").global("builtins", "eval").string("1").op('\x85').op('R').op('u');
  const std::string path = write(make_pt(p.stop(), {{"0", std::string(16, '\0')}}));
  EXPECT_THROW(load(path, model), CheckpointError);
  EXPECT_EQ(model->weight.to_vector<float>(), weight);
  EXPECT_EQ(model->bias.to_vector<float>(), bias);
}

INSTANTIATE_TEST_SUITE_P(Backends, PyTorchRejectsTest, testing::Values("vulkan", "cuda"), backend_test_name);

}  // namespace
}  // namespace ember::test
