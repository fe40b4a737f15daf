// What the host knows of integer values it uploaded, drew or copied (tensor/known_values.h): cross_entropy
// and the index ops skip their read-back for such values, and anything that may have changed them since
// brings the read-back back. Every case that leaves a value out of range must still get PyTorch's error,
// which LibTorch gives first for the same values.
#include <torch/nn/functional/loss.h>
#include <torch/torch.h>

#include <dlpack/dlpack.h>

#include "nn/functional/cross_entropy.h"
#include "tensor/dlpack.h"
#include "tensor/ops_support.h"
#include "tests/oracle.h"
#include "tests/test_support.h"

namespace ember::test {
namespace {

namespace F = ember::nn::functional;
namespace TF = torch::nn::functional;

class KnownValuesTest : public BackendTest {
 protected:
  Tensor upload(std::vector<int64_t> values) {
    return from_blob(values.data(), {static_cast<int64_t>(values.size())}, TensorOptions(kInt64).device(device));
  }
  // The dispatches `call` records, from an idle stream.
  uint64_t dispatches_of(const std::function<void()>& call) {
    device->synchronize();
    const uint64_t before = stream->stats().dispatches;
    call();
    return stream->stats().dispatches - before;
  }

  const at::Tensor scores = random_torch({4, 3}, DType::Float32, 1);
};

TEST_P(KnownValuesTest, CrossEntropySkipsTheReadBackOfUploadedTargets) {
  const Tensor x = from_torch(scores, device);
  const Tensor uploaded = upload({0, 2, 1, 2});
  const Tensor made = uploaded + 0;  // the same values, written by a kernel
  // The loss kernel alone; the made targets add the status words' clearing and their copy back.
  EXPECT_EQ(dispatches_of([&] { F::cross_entropy(x, uploaded); }), 1u);
  EXPECT_EQ(dispatches_of([&] { F::cross_entropy(x, made); }), 3u);
  const uint64_t waits = stream->stats().host_waits;
  const Tensor loss = F::cross_entropy(x, uploaded);
  EXPECT_EQ(stream->stats().host_waits, waits);
  EXPECT_TENSOR_EQ(loss, TF::cross_entropy(scores, to_torch(uploaded)));
  // Views of the upload are known too; randint's bound is, where it proves the targets classes.
  EXPECT_EQ(dispatches_of([&] { F::cross_entropy(x.narrow(0, 1, 2), uploaded.narrow(0, 1, 2)); }), 1u);
  const Tensor classes = randint(3, {4}, TensorOptions(kInt64).device(device));
  const Tensor wider = randint(0, 4, {4}, TensorOptions(kInt64).device(device));
  EXPECT_EQ(dispatches_of([&] { F::cross_entropy(x, classes); }), 1u);
  EXPECT_EQ(dispatches_of([&] {
              try {
                F::cross_entropy(x, wider);
              } catch (const IndexError&) {  // a 3 among them
              }
            }),
            3u);
  // An upload with a target out of range still finds it on the device, first one first.
  const std::vector<int64_t> bad = {0, 7, 4, 1};
  const std::string message = torch_error([&] { TF::cross_entropy(scores, torch::tensor(bad)); });
  expect_error<IndexError>([&] { F::cross_entropy(x, upload(bad)); }, message);
}

TEST_P(KnownValuesTest, InPlaceWritesBringTheCheckBack) {
  const Tensor x = from_torch(scores, device);
  struct Write {
    std::string name;
    std::function<void(Tensor&)> ember;
    std::function<void(at::Tensor&)> torch;
  };
  const std::vector<Write> writes = {
      {"fill_", [](Tensor& t) { t.fill_(5); }, [](at::Tensor& t) { t.fill_(5); }},
      {"a view's fill_", [](Tensor& t) { t.narrow(0, 1, 1).fill_(6); },
       [](at::Tensor& t) { t.narrow(0, 1, 1).fill_(6); }},
      {"detach().fill_", [](Tensor& t) { t.detach().narrow(0, 2, 1).fill_(-1); },
       [](at::Tensor& t) { t.detach().narrow(0, 2, 1).fill_(-1); }},
      {"add_", [](Tensor& t) { t.add_(2); }, [](at::Tensor& t) { t.add_(2); }},
      {"mul_", [](Tensor& t) { t.mul_(4); }, [](at::Tensor& t) { t.mul_(4); }},
      {"copy_", [this](Tensor& t) { t.copy_(upload({9, 0, 0, 0})); },
       [](at::Tensor& t) { t.copy_(torch::tensor(std::vector<int64_t>{9, 0, 0, 0})); }},
      {"index_put_", [](Tensor& t) { t.index_put_({3}, 8); },
       [](at::Tensor& t) { t.index_put_({3}, 8); }},
      {"index_fill_", [this](Tensor& t) { t.index_fill_(0, upload({2}), 3); },
       [](at::Tensor& t) { t.index_fill_(0, torch::tensor(std::vector<int64_t>{2}), 3); }},
      {"scatter_", [this](Tensor& t) { t.scatter_(0, upload({1}), 4); },
       [](at::Tensor& t) { t.scatter_(0, torch::tensor(std::vector<int64_t>{1}), 4); }},
      {"masked_fill_", [](Tensor& t) { t.masked_fill_(t.eq(2), 11); }, [](at::Tensor& t) { t.masked_fill_(t.eq(2), 11); }},
      {"clamp_", [](Tensor& t) { t.clamp_(3); }, [](at::Tensor& t) { t.clamp_(3); }},
      {"random_", [](Tensor& t) { t.random_(3, 4); }, [](at::Tensor& t) { t.random_(3, 4); }},
  };
  for (const Write& write : writes) {
    SCOPED_TRACE(write.name);
    Tensor target = upload({0, 2, 1, 2});
    at::Tensor expected = torch::tensor(std::vector<int64_t>{0, 2, 1, 2});
    write.ember(target);
    write.torch(expected);
    const std::string message = torch_error([&] { TF::cross_entropy(scores, expected); });
    ASSERT_FALSE(message.empty()) << "the write should have left a target out of range";
    expect_error<IndexError>([&] { F::cross_entropy(x, target); }, message);
  }
}

TEST_P(KnownValuesTest, ExportedMemoryIsReadBackAgain) {
  const Tensor x = from_torch(scores, device);
  const Tensor target = upload({0, 2, 1, 2});
  DLManagedTensor* exported = to_dlpack(target);
  const bool on_host = exported->dl_tensor.device.device_type == kDLCPU;
  if (on_host) static_cast<int64_t*>(exported->dl_tensor.data)[1] = 12;  // a CPU library writes in place
  exported->deleter(exported);
  if (!on_host) {
    EXPECT_EQ(dispatches_of([&] { F::cross_entropy(x, target); }), 3u);  // read back all the same
    GTEST_SKIP() << "this device exports its memory as a device pointer, which the host cannot write here";
  }
  const std::string message =
      torch_error([&] { TF::cross_entropy(scores, torch::tensor(std::vector<int64_t>{0, 12, 1, 2})); });
  expect_error<IndexError>([&] { F::cross_entropy(x, target); }, message);
}

TEST_P(KnownValuesTest, IndexOpsTakeTheExactRangeOfAnUploadOrAnArange) {
  const at::Tensor values = random_torch({5, 3}, DType::Float32, 2);
  const Tensor v = from_torch(values, device);
  const Tensor index = upload({4, 0, 2});
  const uint64_t trusted = dispatches_of([&] {
    detail::TrustedIndices trust;
    v.index_select(0, index);
  });
  EXPECT_EQ(dispatches_of([&] { v.index_select(0, index); }), trusted);
  EXPECT_GT(dispatches_of([&] { v.index_select(0, index + 0); }), trusted);
  EXPECT_TENSOR_EQ(v.index_select(0, index), values.index_select(0, to_torch(index)));
  // An expand of the whole upload reaches every value: gather takes its range as known.
  const Tensor columns = upload({2, 0, 1, 2});
  const Tensor by_row = columns.unsqueeze(0).expand({5, 4});
  const uint64_t trusted_gather = dispatches_of([&] {
    detail::TrustedIndices trust;
    v.gather(1, by_row);
  });
  EXPECT_EQ(dispatches_of([&] { v.gather(1, by_row); }), trusted_gather);
  EXPECT_TENSOR_EQ(v.gather(1, by_row), values.gather(1, to_torch(columns).unsqueeze(0).expand({5, 4})));
  const Tensor with_three = upload({2, 0, 3});
  expect_error<Error>([&] { v.gather(1, with_three.unsqueeze(0).expand({5, 3})); },
                      torch_error([&] { values.gather(1, to_torch(with_three).unsqueeze(0).expand({5, 3})); }));
  // A part of an upload may lack its extremes: [0, 1] of [0, 1, 7] is in range for 5 rows.
  const Tensor with_seven = upload({0, 1, 7});
  EXPECT_TENSOR_EQ(v.index_select(0, with_seven.narrow(0, 0, 2)), values.index_select(0, at::arange(2)));
  const std::string message =
      torch_error([&] { values.index_select(0, torch::tensor(std::vector<int64_t>{0, 1, 7})); });
  expect_error<IndexError>([&] { v.index_select(0, with_seven); }, message);
  // one_hot's class count is the exact max.
  EXPECT_TENSOR_EQ(one_hot(upload({0, 3, 1})), at::one_hot(torch::tensor(std::vector<int64_t>{0, 3, 1})));
  EXPECT_TENSOR_EQ(one_hot(upload({0, 3, 1}).narrow(0, 0, 1), -1), at::one_hot(torch::tensor(std::vector<int64_t>{0})));
  // An int64 arange's ends are its min and max, whichever way it steps.
  const TensorOptions longs = TensorOptions(kInt64).device(device);
  EXPECT_EQ(dispatches_of([&] { v.index_select(0, arange(0, 5, 2, longs)); }), trusted + 1);  // + the sequence
  EXPECT_TENSOR_EQ(one_hot(arange(0, 7, 3, longs)), at::one_hot(at::arange(0, 7, 3)));
  EXPECT_TENSOR_EQ(one_hot(arange(5, 0, -2, longs)), at::one_hot(at::arange(5, 0, -2)));
  expect_error<IndexError>([&] { v.index_select(0, arange(5, 0, -2, longs)); },
                           torch_error([&] { values.index_select(0, at::arange(5, 0, -2)); }));
}

TEST_P(KnownValuesTest, ClonesAndCastsCarryWhatTheyCan) {
  const Tensor x = from_torch(scores, device);
  // Labels uploaded as bytes and widened on the device are still known to be classes.
  const std::vector<uint8_t> bytes = {0, 2, 1, 2};
  const Tensor labels = from_blob(bytes.data(), {4}, TensorOptions(kUInt8).device(device)).to(kInt64);
  EXPECT_EQ(dispatches_of([&] { F::cross_entropy(x, labels); }), 1u);
  EXPECT_TENSOR_EQ(F::cross_entropy(x, labels), TF::cross_entropy(scores, to_torch(labels)));
  // A clone of a whole upload keeps its exact range, a clone of a part only a bound.
  const at::Tensor values = random_torch({5, 3}, DType::Float32, 3);
  const Tensor v = from_torch(values, device);
  const Tensor index = upload({4, 0, 2}).clone();
  const uint64_t trusted = dispatches_of([&] {
    detail::TrustedIndices trust;
    v.index_select(0, index);
  });
  EXPECT_EQ(dispatches_of([&] { v.index_select(0, index); }), trusted);
  EXPECT_TENSOR_EQ(one_hot(upload({0, 3, 1}).narrow(0, 0, 1).clone()),
                   at::one_hot(torch::tensor(std::vector<int64_t>{0})));
  // A cast that wraps some values knows nothing: 300 is 44 as a byte.
  const std::vector<int64_t> wide = {0, 300, 2};
  EXPECT_TENSOR_EQ(one_hot(upload(wide).to(kUInt8).to(kInt64)),
                   at::one_hot(torch::tensor(wide).to(at::kByte).to(at::kLong)));
}

INSTANTIATE_TEST_SUITE_P(Backends, KnownValuesTest, testing::Values("vulkan", "cuda"), backend_test_name);

}  // namespace
}  // namespace ember::test
