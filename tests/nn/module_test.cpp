// nn::Module, holders, containers and state dicts against LibTorch's torch::nn (forward values, parameter
// names) and Python's torch.nn where LibTorch's C++ API has no counterpart (repr, state_dict errors).
#include <torch/torch.h>

#include <sstream>

#include "ember.h"
#include "tests/nn/torch_parameters.h"
#include "tests/oracle.h"
#include "tests/python_oracle.h"
#include "tests/test_support.h"

namespace ember::test {
namespace {

namespace F = ember::nn::functional;

class ModuleTest : public BackendTest {
 protected:
  void copy_parameters(nn::Module& ours, const torch::nn::Module& theirs) {
    test::copy_parameters(ours, theirs, device);
  }
};

TEST_P(ModuleTest, LinearMatchesLibTorchForwardAndGradients) {
  for (bool bias : {true, false}) {
    torch::nn::Linear theirs(torch::nn::LinearOptions(7, 5).bias(bias));
    nn::Linear ours(nn::LinearOptions(7, 5).bias(bias));
    ours->to(device);
    copy_parameters(*ours, *theirs);
    for (const std::vector<int64_t>& shape : std::vector<std::vector<int64_t>>{{3, 7}, {7}, {2, 4, 7}, {0, 7}}) {
      SCOPED_TRACE(to_string(shape));
      const at::Tensor x = random_torch(shape, kFloat32, 11);
      at::Tensor tx = x.clone().requires_grad_(true);
      Tensor ex = from_torch(x, device).requires_grad_(true);
      at::Tensor ty = theirs(tx);
      Tensor ey = ours(ex);
      EXPECT_TENSOR_EQ(ey, ty.detach());
      ty.sum().backward();
      ey.sum().backward();
      EXPECT_TENSOR_EQ(ex.grad(), tx.grad());
      EXPECT_TENSOR_EQ(ours->weight.grad(), theirs->weight.grad());
      if (bias) EXPECT_TENSOR_EQ(ours->bias.grad(), theirs->bias.grad());
      ours->zero_grad();
      theirs->zero_grad();
    }
  }
}

TEST_P(ModuleTest, LinearDefaultInitFollowsPyTorchBounds) {
  nn::Linear fc(400, 300);
  const double bound = 1 / std::sqrt(400.0);  // kaiming_uniform_(a = sqrt(5)) gives 1/sqrt(fan_in)
  const std::vector<float> w = fc->weight.to_vector<float>(), b = fc->bias.to_vector<float>();
  double sum = 0, squares = 0;
  for (float v : w) {
    ASSERT_LE(std::abs(v), bound);
    sum += v;
    squares += double(v) * v;
  }
  for (float v : b) ASSERT_LE(std::abs(v), bound);
  const double n = double(w.size()), mean = sum / n, variance = squares / n - mean * mean;
  EXPECT_NEAR(mean, 0, 4 * bound / std::sqrt(3 * n));
  EXPECT_NEAR(variance, bound * bound / 3, 0.02 * bound * bound);
  EXPECT_TRUE(fc->weight.requires_grad());
  EXPECT_TRUE(fc->weight.is_leaf());
}

TEST_P(ModuleTest, SequentialNamesParametersAsLibTorch) {
  torch::nn::Sequential theirs(torch::nn::Linear(4, 8), torch::nn::ReLU(), torch::nn::Linear(8, 2));
  nn::Sequential ours(nn::Linear(4, 8), nn::Functional([](const Tensor& x) { return x.relu(); }), nn::Linear(8, 2));
  ours->to(device);
  EXPECT_EQ(ours->named_parameters().keys(), theirs->named_parameters().keys());
  copy_parameters(*ours, *theirs);
  const at::Tensor x = random_torch({5, 4}, kFloat32, 3);
  EXPECT_TENSOR_EQ(ours(from_torch(x, device)), theirs->forward(x).detach());
  EXPECT_EQ(ours->size(), 3u);
  EXPECT_NE(ours[0]->as<nn::Linear>(), nullptr);
  EXPECT_EQ(ours[1]->as<nn::Linear>(), nullptr);
  EXPECT_EQ(ours->at<nn::LinearImpl>(2).options.out_features(), 2);
  expect_error<IndexError>([&] { ours[3]; }, "index 3 is out of range for a Sequential of 3 modules");

  nn::Sequential named({{"encoder", nn::Linear(4, 3)}, {"decoder", nn::Linear(3, 4)}});
  EXPECT_EQ(named->named_parameters().keys(),
            (std::vector<std::string>{"encoder.weight", "encoder.bias", "decoder.weight", "decoder.bias"}));
}

TEST_P(ModuleTest, SharedModulesAndParametersAreListedOnce) {
  nn::Linear shared(3, 3);
  nn::Sequential twice(shared, shared);
  EXPECT_EQ(twice->modules().size(), 2u);  // the Sequential and the one Linear, as Python lists them
  EXPECT_EQ(twice->named_modules().keys(), (std::vector<std::string>{"", "0"}));
  EXPECT_EQ(twice->parameters().size(), 2u);
  EXPECT_EQ(twice->named_parameters().keys(), (std::vector<std::string>{"0.weight", "0.bias"}));
  EXPECT_EQ(twice->children().size(), 1u);
  EXPECT_EQ(twice->modules(false).size(), 1u);
}

// A user module in LibTorch's style: members registered in the constructor, forward of its own.
struct BlockImpl : nn::Cloneable<BlockImpl> {
  explicit BlockImpl(int64_t width) : width(width) { reset(); }
  void reset() override {
    fc = register_module("fc", nn::Linear(width, width));
    scale = register_parameter("scale", ones({width}));
    register_buffer("steps", zeros({}, kInt64));
  }
  Tensor forward(const Tensor& x) { return fc(x) * scale; }
  int64_t width;
  nn::Linear fc{nullptr};
  Tensor scale;
};
EMBER_MODULE(Block);

struct NetImpl : nn::Module {
  NetImpl() {
    first = register_module("first", Block(4));
    second = register_module("second", Block(4));
  }
  Tensor forward(const Tensor& x) { return second(first(x)); }
  Block first{nullptr}, second{nullptr};
};
EMBER_MODULE(Net);

TEST_P(ModuleTest, TreesListInPythonsOrder) {
  Net net;
  EXPECT_EQ(net->named_parameters().keys(), (std::vector<std::string>{"first.scale", "first.fc.weight", "first.fc.bias",
                                                                      "second.scale", "second.fc.weight", "second.fc.bias"}));
  EXPECT_EQ(net->named_buffers().keys(), (std::vector<std::string>{"first.steps", "second.steps"}));
  EXPECT_EQ(net->state_dict().keys(),
            (std::vector<std::string>{"first.scale", "first.steps", "first.fc.weight", "first.fc.bias", "second.scale",
                                      "second.steps", "second.fc.weight", "second.fc.bias"}));
  EXPECT_EQ(net->named_modules().keys(),
            (std::vector<std::string>{"", "first", "first.fc", "second", "second.fc"}));
  EXPECT_EQ(net->named_children().keys(), (std::vector<std::string>{"first", "second"}));
  std::vector<std::string> visited;
  net->apply([&](const std::string& name, nn::Module&) { visited.push_back(name); });
  EXPECT_EQ(visited, (std::vector<std::string>{"first.fc", "first", "second.fc", "second", ""}));
  EXPECT_EQ(net->parameters(false).size(), 0u);
  EXPECT_EQ(net->name(), "Net");
  EXPECT_EQ(net->first->name(), "Block");
}

TEST_P(ModuleTest, TrainAndEvalReachEverySubmodule) {
  Net net;
  EXPECT_TRUE(net->is_training());
  net->eval();
  for (const auto& m : net->modules()) EXPECT_FALSE(m->is_training());
  net->train();
  for (const auto& m : net->modules()) EXPECT_TRUE(m->is_training());
}

TEST_P(ModuleTest, ToConvertsInPlaceAndKeepsHandles) {
  nn::Linear fc(3, 2);
  Tensor weight_handle = fc->weight;
  fc(ones({1, 3})).sum().backward();
  fc->to(device, kFloat64);
  EXPECT_EQ(fc->weight.dtype(), kFloat64);
  EXPECT_EQ(weight_handle.dtype(), kFloat64);  // the same parameter, converted in place
  EXPECT_EQ(fc->weight.grad().dtype(), kFloat64);
  EXPECT_TRUE(fc->weight.requires_grad());
  EXPECT_TRUE(fc->weight.is_leaf());
  EXPECT_EQ(fc->weight.device(), device);
  Block block(2);
  block->to(kFloat64);
  EXPECT_EQ(block->named_buffers()["steps"].dtype(), kInt64);  // integer buffers keep their dtype
}

TEST_P(ModuleTest, ZeroGradDropsOrZeroesGrads) {
  nn::Linear fc(3, 2);
  fc->to(device);
  fc(ones({4, 3}, TensorOptions().device(device))).sum().backward();
  ASSERT_TRUE(fc->weight.grad().defined());
  fc->zero_grad(false);
  EXPECT_EQ(fc->weight.grad().abs().sum().item<float>(), 0.0f);
  fc->zero_grad();
  EXPECT_FALSE(fc->weight.grad().defined());
}

TEST_P(ModuleTest, CloneIsDeep) {
  Net net;
  net->to(device);
  auto copy = std::dynamic_pointer_cast<NetImpl>(std::shared_ptr<nn::Module>(net.ptr()));
  ASSERT_NE(copy, nullptr);
  expect_error<Error>([&] { net->clone(); },
                      "clone() has not been implemented for Net. Subclass ember::nn::Cloneable<Net> instead of "
                      "ember::nn::Module to inherit the ability to clone.");
  Block block(3);
  block->to(device);
  block->eval();
  auto cloned = std::dynamic_pointer_cast<BlockImpl>(block->clone());
  ASSERT_NE(cloned, nullptr);
  const Tensor x = randn({2, 3}, TensorOptions().device(device));
  EXPECT_TRUE(cloned->forward(x).equal(block->forward(x)));
  EXPECT_FALSE(cloned->is_training());
  EXPECT_FALSE(cloned->fc->weight.is_same(block->fc->weight));
  EXPECT_FALSE(cloned->fc.ptr() == block->fc.ptr());
  {
    NoGradGuard no_grad;
    cloned->fc->weight.add_(1);
  }
  EXPECT_FALSE(cloned->forward(x).equal(block->forward(x)));
  EXPECT_EQ(cloned->named_parameters().keys(), block->named_parameters().keys());

  nn::Sequential seq(nn::Linear(3, 3), Block(3));
  auto seq_copy = std::dynamic_pointer_cast<nn::SequentialImpl>(seq->clone(device));
  ASSERT_NE(seq_copy, nullptr);
  seq->to(device);
  EXPECT_TRUE(seq_copy->forward(x).equal(seq->forward(x)));
  EXPECT_FALSE(seq_copy->ptr(0) == seq->ptr(0));
}

TEST_P(ModuleTest, LoadStateDictRoundTripsExactly) {
  Net source, target;
  source->to(device);
  target->to(device);
  const Tensor x = randn({2, 4}, TensorOptions().device(device));
  EXPECT_FALSE(target(x).equal(source(x)));
  const auto result = target->load_state_dict(source->state_dict());
  EXPECT_TRUE(result.missing_keys.empty());
  EXPECT_TRUE(result.unexpected_keys.empty());
  EXPECT_TRUE(target(x).equal(source(x)));
  // The state dict shares memory with the module but has no history.
  const auto state = source->state_dict();
  EXPECT_FALSE(state["first.scale"].requires_grad());
}

TEST_P(ModuleTest, ForwardHooksReplaceInputsAndOutputs) {
  nn::Linear fc(2, 2);
  fc->to(device);
  const Tensor x = ones({1, 2}, TensorOptions().device(device));
  const Tensor plain = fc(x);
  auto pre = fc->register_forward_pre_hook([](nn::Module&, const nn::tensor_list& in) -> std::optional<nn::tensor_list> {
    return nn::tensor_list{in[0] * 2};
  });
  int calls = 0;
  auto post = fc->register_forward_hook(
      [&](nn::Module& m, const nn::tensor_list& in, const nn::tensor_list& out) -> std::optional<nn::tensor_list> {
        ++calls;
        EXPECT_EQ(m.name(), "Linear");
        EXPECT_TRUE(in[0].equal(x * 2));  // what the pre-hook returned
        return nn::tensor_list{out[0] + 1};
      });
  const Tensor expected = F::linear(x * 2, fc->weight, fc->bias) + 1;
  EXPECT_TRUE(fc(x).allclose(expected));
  nn::Sequential seq(fc);
  EXPECT_TRUE(seq(x).allclose(expected));  // containers call through the hooks too
  EXPECT_EQ(calls, 2);
  EXPECT_TRUE(fc->forward(x).equal(plain));  // forward itself runs no hooks, as in PyTorch
  pre.remove();
  post.remove();
  post.remove();
  EXPECT_TRUE(fc(x).equal(plain));
  EXPECT_FALSE(fc->has_forward_hooks());
}

TEST_P(ModuleTest, RegistrationErrors) {
  Block block(2);
  expect_error<Error>([&] { block->register_parameter("scale", ones({2})); }, "Parameter 'scale' already defined");
  expect_error<Error>([&] { block->register_buffer("a.b", ones({2})); }, "Buffer name must not contain a dot (got 'a.b')");
  expect_error<Error>([&] { block->register_module("", nn::Linear(1, 1)); }, "Submodule name must not be empty");
  nn::Linear empty{nullptr};
  expect_error<Error>([&] { empty->weight; }, "Accessing empty ModuleHolder");
  // A parameter made from a tensor with history becomes a leaf, as nn.Parameter(x) does.
  Tensor base = ones({2}).requires_grad_();
  Tensor& p = block->register_parameter("derived", base * 2);
  EXPECT_TRUE(p.is_leaf());
  EXPECT_TRUE(p.requires_grad());
}

TEST_P(ModuleTest, ContainersOfModulesAndParameters) {
  nn::ModuleList list(nn::Linear(2, 3), nn::Linear(3, 4));
  list->push_back(nn::Identity());
  list->insert(0, nn::Linear(2, 2).ptr());
  EXPECT_EQ(list->size(), 4u);
  EXPECT_EQ(list->named_children().keys(), (std::vector<std::string>{"0", "1", "2", "3"}));
  EXPECT_EQ(list->at<nn::LinearImpl>(1).options.out_features(), 3);
  EXPECT_EQ(list->parameters().size(), 6u);

  nn::ModuleDict dict(std::vector<std::pair<std::string, std::shared_ptr<nn::Module>>>{{"a", nn::Linear(1, 2).ptr()},
                                                                                   {"b", nn::Identity().ptr()}});
  dict->insert("a", nn::Linear(1, 5));
  EXPECT_EQ(dict->keys(), (std::vector<std::string>{"a", "b"}));
  EXPECT_EQ(dict->at<nn::LinearImpl>("a").options.out_features(), 5);
  dict->pop("b");
  EXPECT_FALSE(dict->contains("b"));
  expect_error<IndexError>([&] { (*dict)["b"]; }, "ModuleDict has no module 'b'");

  nn::ParameterList params;
  params->append(ones({2}));
  params->append(zeros({3}), false);
  EXPECT_EQ(params->named_parameters().keys(), (std::vector<std::string>{"0", "1"}));
  EXPECT_FALSE((*params)[1].requires_grad());
  nn::ParameterDict named(std::vector<std::pair<std::string, Tensor>>{{"alpha", ones({1})}});
  named->insert("beta", zeros({2}));
  named->insert("alpha", full({1}, 3.0));
  EXPECT_EQ(named->keys(), (std::vector<std::string>{"alpha", "beta"}));
  EXPECT_EQ((*named)["alpha"].item<float>(), 3.0f);
  auto copy = std::dynamic_pointer_cast<nn::ParameterDictImpl>(named->clone());
  EXPECT_FALSE((*copy)["alpha"].is_same((*named)["alpha"]));
}

INSTANTIATE_TEST_SUITE_P(Backends, ModuleTest, testing::Values("vulkan", "cuda"), backend_test_name);

// ---- what only Python has: reprs and load_state_dict's messages ----

struct PythonCase {
  std::string python;  // an expression (or statements ending in an expression) whose str() is the answer
  std::function<std::string()> ember;
};

std::vector<PythonCase> python_cases() {
  return {
      {"print(torch.nn.Linear(7, 10))", [] { return nn::Linear(7, 10)->repr(); }},
      {"print(torch.nn.Linear(3, 4, bias=False))", [] { return nn::Linear(nn::LinearOptions(3, 4).bias(false))->repr(); }},
      {"print(torch.nn.Bilinear(20, 30, 40))", [] { return nn::Bilinear(20, 30, 40)->repr(); }},
      {"print(torch.nn.Sequential(torch.nn.Linear(784, 256), torch.nn.Flatten(), torch.nn.Unflatten(1, (2, 5)), "
       "torch.nn.Identity(), torch.nn.Sequential(torch.nn.Linear(2, 2))))",
       [] {
         return nn::Sequential(nn::Linear(784, 256), nn::Flatten(), nn::Unflatten(nn::UnflattenOptions(1, {2, 5})), nn::Identity(),
                               nn::Sequential(nn::Linear(2, 2)))
             ->repr();
       }},
      {"from collections import OrderedDict\n"
       "print(torch.nn.Sequential(OrderedDict([('fc', torch.nn.Linear(1, 2)), ('out', torch.nn.Linear(2, 1))])))",
       [] { return nn::Sequential({{"fc", nn::Linear(1, 2)}, {"out", nn::Linear(2, 1)}})->repr(); }},
      {"print(torch.nn.ModuleList([torch.nn.Linear(1, 2), torch.nn.Identity()]))",
       [] { return nn::ModuleList(nn::Linear(1, 2), nn::Identity())->repr(); }},
      {"print(torch.nn.ModuleDict({'a': torch.nn.Linear(1, 2)}))",
       [] {
         return nn::ModuleDict(std::vector<std::pair<std::string, std::shared_ptr<nn::Module>>>{{"a", nn::Linear(1, 2).ptr()}})
             ->repr();
       }},
      {"print(torch.nn.Flatten(0, 2))", [] { return nn::Flatten(nn::FlattenOptions().start_dim(0).end_dim(2))->repr(); }},
      {"try:\n"
       "    torch.nn.Linear(7, 10).load_state_dict({'weight': torch.zeros(3, 2), 'extra': torch.zeros(1)})\n"
       "except RuntimeError as e:\n"
       "    print(str(e).replace('torch.Size(', '').replace('])', ']'))",
       [] {
         OrderedDict<std::string, Tensor> state;
         state.insert("weight", zeros({3, 2}));
         state.insert("extra", zeros({1}));
         nn::Linear fc(7, 10);
         const Tensor before = fc->weight.clone();
         try {
           fc->load_state_dict(state);
         } catch (const Error& e) {
           // A failed load changes nothing.
           return fc->weight.equal(before) ? std::string(e.what()) : std::string("the failed load wrote the weight");
         }
         return std::string("no error");
       }},
      {"r = torch.nn.Linear(2, 2).load_state_dict({'weight': torch.zeros(2, 2), 'other': torch.zeros(1)}, strict=False)\n"
       "print(r.missing_keys, r.unexpected_keys)",
       [] {
         OrderedDict<std::string, Tensor> state;
         state.insert("weight", zeros({2, 2}));
         state.insert("other", zeros({1}));
         const auto result = nn::Linear(2, 2)->load_state_dict(state, false);
         auto python_list = [](const std::vector<std::string>& keys) {
           std::string text = "[";
           for (const std::string& key : keys) text += (text.size() > 1 ? ", '" : "'") + key + "'";
           return text + "]";
         };
         return python_list(result.missing_keys) + " " + python_list(result.unexpected_keys);
       }},
  };
}

TEST(ModulePythonTest, ReprsAndMessagesMatchPyTorch) {
  const std::vector<PythonCase> cases = python_cases();
  std::string script;
  for (const PythonCase& c : cases) script += c.python + "\nprint('@@END@@')\n";
  std::vector<std::string> answers;
  ASSERT_PYTHON_ANSWERS(answers, script, cases.size());
  for (size_t i = 0; i < cases.size(); ++i) {
    SCOPED_TRACE(cases[i].python);
    EXPECT_EQ(cases[i].ember(), answers[i]);
  }
  expect_no_validation_messages();
}

}  // namespace
}  // namespace ember::test
