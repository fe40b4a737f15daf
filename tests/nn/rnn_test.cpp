// RNN, LSTM, GRU and their cells against LibTorch's torch::nn modules with the same parameters: outputs,
// final states and the gradients of the input, the initial states and every parameter, over layers,
// directions, batch_first, ReLU, no bias, LSTM's projection and unbatched input (which LibTorch 1.13's
// layers lack: its side runs a batch of one, as Python's layers do). Also dropout between layers (eval
// is dropout-free), parameter names and shapes, default init bounds, Python's reprs, and PyTorch's
// messages for bad inputs.
#include <torch/torch.h>

#include <cmath>
#include <functional>

#include "ember.h"
#include "tests/nn/torch_parameters.h"
#include "tests/oracle.h"
#include "tests/python_oracle.h"
#include "tests/test_support.h"

namespace ember::test {
namespace {

using Tensors = std::vector<Tensor>;
using TorchTensors = std::vector<at::Tensor>;
// A module's run on (input, initial states; none for zeros), as the list of what it returned.
using OurRun = std::function<Tensors(const Tensor&, const Tensors&)>;
using TheirRun = std::function<TorchTensors(const at::Tensor&, const TorchTensors&)>;

constexpr double kRtol = 1e-4, kAtol = 1e-5;

template <class T>
std::vector<T> flat(const std::tuple<T, T>& result) {
  return {std::get<0>(result), std::get<1>(result)};
}
template <class T>
std::vector<T> flat(const std::tuple<T, std::tuple<T, T>>& result) {
  return {std::get<0>(result), std::get<0>(std::get<1>(result)), std::get<1>(std::get<1>(result))};
}
template <class T>
std::vector<T> flat(const T& result) {
  return {result};
}

// Runs a LibTorch layer on an unbatched input as a batch of one, as Python's layers do: the input gets a
// batch dim at `batch_dim`, the states at dim 1; the output loses them again.
TheirRun as_batch_of_one(TheirRun run, int64_t batch_dim) {
  return [run, batch_dim](const at::Tensor& x, const TorchTensors& states) {
    TorchTensors batched;
    for (const at::Tensor& s : states) batched.push_back(s.unsqueeze(1));
    TorchTensors out = run(x.unsqueeze(batch_dim), batched);
    out[0] = out[0].squeeze(batch_dim);
    for (size_t i = 1; i < out.size(); ++i) out[i] = out[i].squeeze(1);
    return out;
  };
}

// The same for a cell, whose input and states are all batched at dim 0.
TheirRun cell_as_batch_of_one(TheirRun run) {
  return [run](const at::Tensor& x, const TorchTensors& states) {
    TorchTensors batched;
    for (const at::Tensor& s : states) batched.push_back(s.unsqueeze(0));
    TorchTensors out = run(x.unsqueeze(0), batched);
    for (at::Tensor& o : out) o = o.squeeze(0);
    return out;
  };
}

class RnnTest : public BackendTest {
 protected:
  // Copies LibTorch's parameters into ours (on the device), then compares what both return, and the
  // gradients of the input, the states and every parameter under a random weighting of all outputs.
  void expect_same(nn::Module& our_module, const OurRun& ours, torch::nn::Module& their_module, const TheirRun& theirs,
                   const at::Tensor& input, const TorchTensors& states = {}) {
    our_module.to(device);
    copy_parameters(our_module, their_module, device);
    const at::Tensor tx = input.clone().requires_grad_(true);
    const Tensor ex = from_torch(input, device).requires_grad_(true);
    TorchTensors t_states;
    Tensors e_states;
    for (const at::Tensor& s : states) {
      t_states.push_back(s.clone().requires_grad_(true));
      e_states.push_back(from_torch(s, device).requires_grad_(true));
    }
    const TorchTensors t_out = theirs(tx, t_states);
    const Tensors e_out = ours(ex, e_states);
    ASSERT_EQ(e_out.size(), t_out.size());
    at::Tensor t_loss = at::zeros({});
    Tensor e_loss = zeros({}, TensorOptions().device(device));
    for (size_t i = 0; i < t_out.size(); ++i) {
      SCOPED_TRACE("returned tensor " + std::to_string(i));
      EXPECT_TENSOR_EQ(e_out[i], t_out[i].detach(), kRtol, kAtol);
      const at::Tensor weighting = random_torch(t_out[i].sizes(), kFloat32, 100 + i);
      t_loss = t_loss + (t_out[i] * weighting).sum();
      e_loss = e_loss + (e_out[i] * from_torch(weighting, device)).sum();
    }
    t_loss.backward();
    e_loss.backward();
    EXPECT_TENSOR_EQ(ex.grad(), tx.grad(), kRtol, kAtol);
    for (size_t i = 0; i < states.size(); ++i) {
      SCOPED_TRACE("initial state " + std::to_string(i));
      EXPECT_TENSOR_EQ(e_states[i].grad(), t_states[i].grad(), kRtol, kAtol);
    }
    auto our_params = our_module.named_parameters();
    for (const auto& p : their_module.named_parameters()) {
      SCOPED_TRACE(p.key());
      ASSERT_TRUE(p.value().grad().defined());
      ASSERT_TRUE(our_params[p.key()].grad().defined());
      EXPECT_TENSOR_EQ(our_params[p.key()].grad(), p.value().grad(), kRtol, kAtol);
    }
  }

  // The runs of a layer whose state is one tensor (RNN, GRU) or a pair (LSTM).
  template <class Ours, class Theirs>
  static std::pair<OurRun, TheirRun> runs(Ours ours, Theirs theirs) {
    OurRun our_run = [ours](const Tensor& x, const Tensors& s) {
      if constexpr (std::is_same_v<Ours, nn::LSTM> || std::is_same_v<Ours, nn::LSTMCell>) {
        return s.empty() ? flat(ours(x)) : flat(ours(x, std::make_tuple(s[0], s[1])));
      } else {
        return s.empty() ? flat(ours(x)) : flat(ours(x, s[0]));
      }
    };
    TheirRun their_run = [theirs](const at::Tensor& x, const TorchTensors& s) mutable {
      if constexpr (std::is_same_v<Theirs, torch::nn::LSTM> || std::is_same_v<Theirs, torch::nn::LSTMCell>) {
        return s.empty() ? flat(theirs->forward(x)) : flat(theirs->forward(x, std::make_tuple(s[0], s[1])));
      } else {
        return s.empty() ? flat(theirs->forward(x)) : flat(theirs->forward(x, s[0]));
      }
    };
    return {our_run, their_run};
  }

  template <class Ours, class Theirs>
  void expect_same_layer(Ours ours, Theirs theirs, const at::Tensor& input, const TorchTensors& states = {}) {
    auto [our_run, their_run] = runs(ours, theirs);
    expect_same(*ours, our_run, *theirs, their_run, input, states);
  }

  // An unbatched input against LibTorch's run of a batch of one.
  template <class Ours, class Theirs>
  void expect_same_unbatched_layer(Ours ours, Theirs theirs, const at::Tensor& input, const TorchTensors& states = {}) {
    auto [our_run, their_run] = runs(ours, theirs);
    const int64_t batch_dim = ours->options.batch_first() ? 0 : 1;
    expect_same(*ours, our_run, *theirs, as_batch_of_one(their_run, batch_dim), input, states);
  }

  template <class Ours, class Theirs>
  void expect_same_unbatched_cell(Ours ours, Theirs theirs, const at::Tensor& input, const TorchTensors& states = {}) {
    auto [our_run, their_run] = runs(ours, theirs);
    expect_same(*ours, our_run, *theirs, cell_as_batch_of_one(their_run), input, states);
  }

  // A layer's runs over sequences of `lengths` packed from the padded input (unsorted, so that the
  // order comes back too): the output padded again, then the final states.
  template <class Ours, class Theirs>
  void expect_same_packed(Ours ours, Theirs theirs, const std::vector<int64_t>& lengths, const at::Tensor& input,
                          const TorchTensors& states = {}) {
    constexpr bool lstm = std::is_same_v<Ours, nn::LSTM>;
    const bool batch_first = ours->options.batch_first();
    OurRun our_run = [ours, lengths, batch_first](const Tensor& x, const Tensors& s) mutable {
      const auto packed = nn::utils::rnn::pack_padded_sequence(x, lengths, batch_first, /*enforce_sorted=*/false);
      const auto padded = [&](const nn::utils::rnn::PackedSequence& y) {
        return std::get<0>(nn::utils::rnn::pad_packed_sequence(y, batch_first));
      };
      if constexpr (lstm) {
        auto [y, state] = s.empty() ? ours->forward_with_packed_input(packed)
                                    : ours->forward_with_packed_input(packed, std::make_tuple(s[0], s[1]));
        return Tensors{padded(y), std::get<0>(state), std::get<1>(state)};
      } else {
        auto [y, h] = s.empty() ? ours->forward_with_packed_input(packed) : ours->forward_with_packed_input(packed, s[0]);
        return Tensors{padded(y), h};
      }
    };
    TheirRun their_run = [theirs, lengths, batch_first](const at::Tensor& x, const TorchTensors& s) mutable {
      const auto packed = torch::nn::utils::rnn::pack_padded_sequence(x, torch::tensor(lengths), batch_first, false);
      const auto padded = [&](const torch::nn::utils::rnn::PackedSequence& y) {
        return std::get<0>(torch::nn::utils::rnn::pad_packed_sequence(y, batch_first));
      };
      if constexpr (lstm) {
        auto [y, state] = s.empty() ? theirs->forward_with_packed_input(packed)
                                    : theirs->forward_with_packed_input(packed, std::make_tuple(s[0], s[1]));
        return TorchTensors{padded(y), std::get<0>(state), std::get<1>(state)};
      } else {
        auto [y, h] = s.empty() ? theirs->forward_with_packed_input(packed) : theirs->forward_with_packed_input(packed, s[0]);
        return TorchTensors{padded(y), h};
      }
    };
    expect_same(*ours, our_run, *theirs, their_run, input, states);
  }

  static at::Tensor random(at::IntArrayRef sizes, uint64_t seed) { return random_torch(sizes, kFloat32, seed, -1, 1); }
};

TEST_P(RnnTest, RNNMatchesLibTorch) {
  {
    SCOPED_TRACE("two layers, bidirectional, tanh, initial state");
    nn::RNN ours(nn::RNNOptions(3, 5).num_layers(2).bidirectional(true));
    torch::nn::RNN theirs(torch::nn::RNNOptions(3, 5).num_layers(2).bidirectional(true));
    expect_same_layer(ours, theirs, random({4, 2, 3}, 1), {random({4, 2, 5}, 2)});
  }
  {
    SCOPED_TRACE("ReLU, no bias, batch_first, zero state");
    nn::RNN ours(nn::RNNOptions(4, 6).nonlinearity(ember::kReLU).bias(false).batch_first(true));
    torch::nn::RNN theirs(torch::nn::RNNOptions(4, 6).nonlinearity(torch::kReLU).bias(false).batch_first(true));
    expect_same_layer(ours, theirs, random({2, 5, 4}, 3));
  }
  {
    SCOPED_TRACE("unbatched, two layers");
    nn::RNN ours(nn::RNNOptions(3, 4).num_layers(2));
    torch::nn::RNN theirs(torch::nn::RNNOptions(3, 4).num_layers(2));
    expect_same_unbatched_layer(ours, theirs, random({5, 3}, 4), {random({2, 4}, 5)});
  }
}

TEST_P(RnnTest, LSTMMatchesLibTorch) {
  {
    SCOPED_TRACE("two layers, bidirectional, batch_first, initial state");
    nn::LSTM ours(nn::LSTMOptions(3, 5).num_layers(2).bidirectional(true).batch_first(true));
    torch::nn::LSTM theirs(torch::nn::LSTMOptions(3, 5).num_layers(2).bidirectional(true).batch_first(true));
    expect_same_layer(ours, theirs, random({2, 4, 3}, 10), {random({4, 2, 5}, 11), random({4, 2, 5}, 12)});
  }
  {
    SCOPED_TRACE("projection, two layers, bidirectional");
    nn::LSTM ours(nn::LSTMOptions(4, 6).proj_size(3).num_layers(2).bidirectional(true));
    torch::nn::LSTM theirs(torch::nn::LSTMOptions(4, 6).proj_size(3).num_layers(2).bidirectional(true));
    expect_same_layer(ours, theirs, random({3, 2, 4}, 13), {random({4, 2, 3}, 14), random({4, 2, 6}, 15)});
  }
  {
    SCOPED_TRACE("no bias, zero state");
    nn::LSTM ours(nn::LSTMOptions(3, 4).bias(false));
    torch::nn::LSTM theirs(torch::nn::LSTMOptions(3, 4).bias(false));
    expect_same_layer(ours, theirs, random({5, 2, 3}, 16));
  }
  {
    SCOPED_TRACE("unbatched, projection, batch_first");
    nn::LSTM ours(nn::LSTMOptions(3, 5).proj_size(2).batch_first(true));
    torch::nn::LSTM theirs(torch::nn::LSTMOptions(3, 5).proj_size(2).batch_first(true));
    expect_same_unbatched_layer(ours, theirs, random({4, 3}, 17), {random({1, 2}, 18), random({1, 5}, 19)});
  }
}

TEST_P(RnnTest, GRUMatchesLibTorch) {
  {
    SCOPED_TRACE("two layers, bidirectional, initial state");
    nn::GRU ours(nn::GRUOptions(3, 5).num_layers(2).bidirectional(true));
    torch::nn::GRU theirs(torch::nn::GRUOptions(3, 5).num_layers(2).bidirectional(true));
    expect_same_layer(ours, theirs, random({4, 2, 3}, 20), {random({4, 2, 5}, 21)});
  }
  {
    SCOPED_TRACE("no bias, batch_first, zero state");
    nn::GRU ours(nn::GRUOptions(4, 6).bias(false).batch_first(true));
    torch::nn::GRU theirs(torch::nn::GRUOptions(4, 6).bias(false).batch_first(true));
    expect_same_layer(ours, theirs, random({3, 5, 4}, 22));
  }
  {
    SCOPED_TRACE("empty batch");
    nn::GRU ours(nn::GRUOptions(3, 4).num_layers(2));
    torch::nn::GRU theirs(torch::nn::GRUOptions(3, 4).num_layers(2));
    expect_same_layer(ours, theirs, random({3, 0, 3}, 25));
  }
  {
    SCOPED_TRACE("unbatched, bidirectional");
    nn::GRU ours(nn::GRUOptions(3, 4).bidirectional(true));
    torch::nn::GRU theirs(torch::nn::GRUOptions(3, 4).bidirectional(true));
    expect_same_unbatched_layer(ours, theirs, random({5, 3}, 23), {random({2, 4}, 24)});
  }
}

TEST_P(RnnTest, PackedSequencesMatchLibTorch) {
  {
    SCOPED_TRACE("RNN, two layers, bidirectional, initial state");
    nn::RNN ours(nn::RNNOptions(3, 5).num_layers(2).bidirectional(true));
    torch::nn::RNN theirs(torch::nn::RNNOptions(3, 5).num_layers(2).bidirectional(true));
    expect_same_packed(ours, theirs, {2, 4, 1}, random({4, 3, 3}, 40), {random({4, 3, 5}, 41)});
  }
  {
    SCOPED_TRACE("LSTM, projection, bidirectional, batch_first, initial states");
    nn::LSTM ours(nn::LSTMOptions(3, 5).proj_size(2).bidirectional(true).batch_first(true));
    torch::nn::LSTM theirs(torch::nn::LSTMOptions(3, 5).proj_size(2).bidirectional(true).batch_first(true));
    expect_same_packed(ours, theirs, {3, 5, 5, 1}, random({4, 5, 3}, 42), {random({2, 4, 2}, 43), random({2, 4, 5}, 44)});
  }
  {
    SCOPED_TRACE("LSTM, zero states");
    nn::LSTM ours(nn::LSTMOptions(2, 4));
    torch::nn::LSTM theirs(torch::nn::LSTMOptions(2, 4));
    expect_same_packed(ours, theirs, {1, 3, 2}, random({3, 3, 2}, 45));
  }
  {
    SCOPED_TRACE("GRU, two layers, equal lengths, zero state");
    nn::GRU ours(nn::GRUOptions(3, 4).num_layers(2).bidirectional(true));
    torch::nn::GRU theirs(torch::nn::GRUOptions(3, 4).num_layers(2).bidirectional(true));
    expect_same_packed(ours, theirs, {3, 3}, random({3, 2, 3}, 46));
  }
  {
    SCOPED_TRACE("GRU, initial state, sequences shorter than the input");
    nn::GRU ours(nn::GRUOptions(3, 4));
    torch::nn::GRU theirs(torch::nn::GRUOptions(3, 4));
    expect_same_packed(ours, theirs, {2, 1, 3}, random({5, 3, 3}, 47), {random({1, 3, 4}, 48)});
  }
}

TEST_P(RnnTest, CellsMatchLibTorch) {
  {
    nn::RNNCell ours(3, 5);
    torch::nn::RNNCell theirs(3, 5);
    expect_same_layer(ours, theirs, random({2, 3}, 30), {random({2, 5}, 31)});
    expect_same_unbatched_cell(ours, theirs, random({3}, 32), {random({5}, 33)});
  }
  {
    nn::RNNCell ours(nn::RNNCellOptions(4, 3).nonlinearity(ember::kReLU).bias(false));
    torch::nn::RNNCell theirs(torch::nn::RNNCellOptions(4, 3).nonlinearity(torch::kReLU).bias(false));
    expect_same_layer(ours, theirs, random({3, 4}, 34));
  }
  {
    nn::LSTMCell ours(3, 4);
    torch::nn::LSTMCell theirs(3, 4);
    expect_same_layer(ours, theirs, random({2, 3}, 35), {random({2, 4}, 36), random({2, 4}, 37)});
    expect_same_unbatched_cell(ours, theirs, random({3}, 38), {random({4}, 39), random({4}, 40)});
  }
  {
    nn::LSTMCell ours(nn::LSTMCellOptions(3, 4).bias(false));
    torch::nn::LSTMCell theirs(torch::nn::LSTMCellOptions(3, 4).bias(false));
    expect_same_layer(ours, theirs, random({2, 3}, 41));
  }
  {
    nn::GRUCell ours(3, 5);
    torch::nn::GRUCell theirs(3, 5);
    expect_same_layer(ours, theirs, random({2, 3}, 42), {random({2, 5}, 43)});
    expect_same_unbatched_cell(ours, theirs, random({3}, 44));
  }
  {
    nn::GRUCell ours(nn::GRUCellOptions(4, 3).bias(false));
    torch::nn::GRUCell theirs(torch::nn::GRUCellOptions(4, 3).bias(false));
    expect_same_layer(ours, theirs, random({3, 4}, 45), {random({3, 3}, 46)});
  }
}

TEST_P(RnnTest, DropoutActsBetweenLayersInTrainingOnly) {
  nn::LSTM ours(nn::LSTMOptions(3, 4).num_layers(3).dropout(0.5));
  torch::nn::LSTM theirs(torch::nn::LSTMOptions(3, 4).num_layers(3).dropout(0.5));
  ours->eval();
  theirs->eval();
  const at::Tensor x = random({4, 2, 3}, 50);
  expect_same_layer(ours, theirs, x);
  // The same weights without dropout give exactly the same output in eval.
  nn::LSTM plain(nn::LSTMOptions(3, 4).num_layers(3));
  plain->to(device);
  plain->load_state_dict(ours->state_dict());
  plain->eval();
  const Tensor ex = from_torch(x, device);
  EXPECT_TRUE(std::get<0>(plain(ex)).equal(std::get<0>(ours(ex))));
  // In training some of the 2 * 2 * 4 values reaching each upper layer are dropped: the output changes.
  ours->train();
  EXPECT_FALSE(std::get<0>(ours(ex)).allclose(std::get<0>(plain(ex))));
}

TEST_P(RnnTest, ParameterNamesAndShapesAreLibTorchs) {
  auto expect_same_parameters = [](const nn::Module& ours, const torch::nn::Module& theirs) {
    std::vector<std::string> our_names = ours.named_parameters().keys(), their_names;
    for (const auto& p : theirs.named_parameters()) their_names.push_back(p.key());
    EXPECT_EQ(our_names, their_names);
    auto our_params = ours.named_parameters();
    for (const auto& p : theirs.named_parameters()) {
      if (our_params.contains(p.key())) {
        EXPECT_EQ(our_params[p.key()].sizes().vec(), p.value().sizes().vec()) << p.key();
      }
    }
  };
  expect_same_parameters(*nn::RNN(nn::RNNOptions(3, 5).num_layers(3).bidirectional(true)),
                         *torch::nn::RNN(torch::nn::RNNOptions(3, 5).num_layers(3).bidirectional(true)));
  expect_same_parameters(*nn::LSTM(nn::LSTMOptions(3, 5).num_layers(2).proj_size(2).bidirectional(true)),
                         *torch::nn::LSTM(torch::nn::LSTMOptions(3, 5).num_layers(2).proj_size(2).bidirectional(true)));
  expect_same_parameters(*nn::LSTM(nn::LSTMOptions(3, 5).proj_size(2).bias(false)),
                         *torch::nn::LSTM(torch::nn::LSTMOptions(3, 5).proj_size(2).bias(false)));
  expect_same_parameters(*nn::GRU(nn::GRUOptions(3, 5).num_layers(2).bias(false)),
                         *torch::nn::GRU(torch::nn::GRUOptions(3, 5).num_layers(2).bias(false)));
  expect_same_parameters(*nn::RNNCell(3, 5), *torch::nn::RNNCell(3, 5));
  expect_same_parameters(*nn::LSTMCell(nn::LSTMCellOptions(3, 5).bias(false)),
                         *torch::nn::LSTMCell(torch::nn::LSTMCellOptions(3, 5).bias(false)));
  expect_same_parameters(*nn::GRUCell(3, 5), *torch::nn::GRUCell(3, 5));
  // A clone owns copies of the parameters and computes the same.
  nn::GRU gru(nn::GRUOptions(3, 4).num_layers(2));
  gru->to(device);
  auto copy = std::dynamic_pointer_cast<nn::GRUImpl>(gru->clone());
  ASSERT_TRUE(copy);
  EXPECT_FALSE(copy->named_parameters()["weight_hh_l1"].is_same(gru->named_parameters()["weight_hh_l1"]));
  const Tensor x = from_torch(random({3, 2, 3}, 51), device);
  EXPECT_TRUE(std::get<0>(copy->forward(x)).equal(std::get<0>(gru(x))));
}

TEST_P(RnnTest, DefaultInitIsUniformWithinOneOverSqrtHidden) {
  nn::LSTM lstm(nn::LSTMOptions(16, 64).num_layers(2).proj_size(8).bidirectional(true));
  nn::GRUCell cell(16, 64);
  for (nn::Module* module : std::initializer_list<nn::Module*>{lstm.get(), cell.get()}) {
    module->to(device);
    for (const auto& p : module->named_parameters()) {
      SCOPED_TRACE(module->name() + " " + p.key());
      const Tensor magnitude = p.value().abs();
      EXPECT_LE(magnitude.max().item<float>(), 1 / std::sqrt(64.0));
      // Uniform over the interval: its mean magnitude is half the bound.
      EXPECT_NEAR(magnitude.mean().item<float>(), 0.5 / std::sqrt(64.0), 0.1 / std::sqrt(64.0));
    }
  }
}

TEST_P(RnnTest, BadInputsFailAsInLibTorch) {
  nn::RNN ours(nn::RNNOptions(3, 4));
  torch::nn::RNN theirs(torch::nn::RNNOptions(3, 4));
  ours->to(device);
  expect_error<Error>([&] { ours(from_torch(at::zeros({5, 2, 4}), device)); },
                      torch_error([&] { theirs->forward(at::zeros({5, 2, 4})); }));
  nn::LSTMCell our_cell(3, 4);
  torch::nn::LSTMCell their_cell(3, 4);
  our_cell->to(device);
  const at::Tensor x = at::zeros({2, 3}), h = at::zeros({2, 4}), bad_c = at::zeros({3, 4});
  expect_error<Error>([&] { our_cell(from_torch(x, device), std::make_tuple(from_torch(h, device), from_torch(bad_c, device))); },
                      torch_error([&] { their_cell->forward(x, std::make_tuple(h, bad_c)); }));
  expect_error<Error>([] { nn::LSTM(nn::LSTMOptions(3, 4).proj_size(4)); },
                      torch_error([] { torch::nn::LSTM(torch::nn::LSTMOptions(3, 4).proj_size(4)); }));
  expect_error<Error>([] { nn::GRU(nn::GRUOptions(3, 4).dropout(1.5)); },
                      torch_error([] { torch::nn::GRU(torch::nn::GRUOptions(3, 4).dropout(1.5)); }));
  // Packed input: data of the wrong width.
  const at::Tensor wide = at::zeros({2, 2, 4});
  const auto their_packed = torch::nn::utils::rnn::pack_padded_sequence(wide, torch::tensor({2, 1}));
  expect_error<Error>(
      [&] { ours->forward_with_packed_input(nn::utils::rnn::pack_padded_sequence(from_torch(wide, device), {2, 1})); },
      torch_error([&] { theirs->forward_with_packed_input(their_packed); }));
}

INSTANTIATE_TEST_SUITE_P(Backends, RnnTest, testing::Values("vulkan", "cuda"), backend_test_name);

TEST(RnnPythonTest, ReprsMatchPyTorch) {
  const std::vector<std::pair<std::string, std::string>> cases = {
      {"torch.nn.LSTM(10, 20, num_layers=2, batch_first=True, bidirectional=True)",
       nn::LSTM(nn::LSTMOptions(10, 20).num_layers(2).batch_first(true).bidirectional(true))->repr()},
      {"torch.nn.LSTM(10, 20, proj_size=5, num_layers=2, bias=False, dropout=0.25)",
       nn::LSTM(nn::LSTMOptions(10, 20).proj_size(5).num_layers(2).bias(false).dropout(0.25))->repr()},
      {"torch.nn.RNN(10, 20, nonlinearity='relu')", nn::RNN(nn::RNNOptions(10, 20).nonlinearity(ember::kReLU))->repr()},
      {"torch.nn.GRU(4, 8, num_layers=3, dropout=0.1)", nn::GRU(nn::GRUOptions(4, 8).num_layers(3).dropout(0.1))->repr()},
      {"torch.nn.RNNCell(10, 20)", nn::RNNCell(10, 20)->repr()},
      {"torch.nn.RNNCell(10, 20, bias=False, nonlinearity='relu')",
       nn::RNNCell(nn::RNNCellOptions(10, 20).bias(false).nonlinearity(ember::kReLU))->repr()},
      {"torch.nn.LSTMCell(10, 20, bias=False)", nn::LSTMCell(nn::LSTMCellOptions(10, 20).bias(false))->repr()},
      {"torch.nn.GRUCell(10, 20)", nn::GRUCell(10, 20)->repr()},
  };
  if (const std::string why = expect_python_prints(cases); !why.empty()) GTEST_SKIP() << why;
  expect_no_validation_messages();
}

// Python's layers take unbatched input, and their messages about it, and about the states' shapes, are
// Python's own (LibTorch 1.13 words the shapes differently).
TEST(RnnPythonTest, StateErrorsAreInPythonsWords) {
  struct Case {
    std::string python;  // a call that raises
    std::function<void()> ember;
  };
  auto z = [](std::vector<int64_t> sizes) { return zeros(sizes); };
  nn::RNN rnn(nn::RNNOptions(3, 4).num_layers(2));
  nn::LSTM lstm(nn::LSTMOptions(3, 4).proj_size(2));
  nn::GRU gru(nn::GRUOptions(3, 4).batch_first(true));
  nn::GRUCell cell(3, 4);
  const std::vector<Case> cases = {
      {"torch.nn.RNN(3, 4, num_layers=2)(torch.zeros(5, 2, 3), torch.zeros(2, 3, 4))",
       [&] { rnn(z({5, 2, 3}), z({2, 3, 4})); }},
      {"torch.nn.RNN(3, 4, num_layers=2)(torch.zeros(5, 3), torch.zeros(2, 1, 4))", [&] { rnn(z({5, 3}), z({2, 1, 4})); }},
      {"torch.nn.RNN(3, 4, num_layers=2)(torch.zeros(0, 2, 3))", [&] { rnn(z({0, 2, 3})); }},
      {"torch.nn.LSTM(3, 4, proj_size=2)(torch.zeros(5, 2, 3), (torch.zeros(1, 2, 2), torch.zeros(1, 2, 2)))",
       [&] { lstm(z({5, 2, 3}), std::make_tuple(z({1, 2, 2}), z({1, 2, 2}))); }},
      {"torch.nn.LSTM(3, 4, proj_size=2)(torch.zeros(5, 2, 3), (torch.zeros(1, 2, 4), torch.zeros(1, 2, 4)))",
       [&] { lstm(z({5, 2, 3}), std::make_tuple(z({1, 2, 4}), z({1, 2, 4}))); }},
      {"torch.nn.LSTM(3, 4, proj_size=2)(torch.zeros(5, 2, 3), (torch.zeros(2, 2), torch.zeros(1, 2, 4)))",
       [&] { lstm(z({5, 2, 3}), std::make_tuple(z({2, 2}), z({1, 2, 4}))); }},
      {"torch.nn.GRU(3, 4, batch_first=True)(torch.zeros(2, 5, 3), torch.zeros(1, 5, 4))",
       [&] { gru(z({2, 5, 3}), z({1, 5, 4})); }},
      {"torch.nn.GRU(3, 4, batch_first=True)(torch.zeros(2, 5, 3), torch.zeros(2, 4))", [&] { gru(z({2, 5, 3}), z({2, 4})); }},
      {"torch.nn.GRUCell(3, 4)(torch.zeros(1, 2, 3))", [&] { cell(z({1, 2, 3})); }},
      {"torch.nn.GRUCell(3, 4)(torch.zeros(2, 5))", [&] { cell(z({2, 5})); }},
  };
  std::string script = "def message(call):\n  try:\n    call()\n    print('no error')\n  except Exception as e:\n    print(e)\n";
  for (const Case& c : cases) script += "message(lambda: " + c.python + ")\nprint('@@END@@')\n";
  std::vector<std::string> answers;
  ASSERT_PYTHON_ANSWERS(answers, script, cases.size());
  for (size_t i = 0; i < cases.size(); ++i) {
    SCOPED_TRACE(cases[i].python);
    expect_error<Error>(cases[i].ember, answers[i]);
  }
  // PyTorch 1.13 unsqueezes a 4-D input and then reports 5 dimensions; ember names what it received.
  expect_error<Error>([&] { gru(z({1, 2, 5, 3})); }, "GRU: Expected input to be 2-D or 3-D but received 4-D tensor");
  expect_no_validation_messages();
}

}  // namespace
}  // namespace ember::test
