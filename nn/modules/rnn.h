#pragma once
// Recurrent layers and their cells (https://pytorch.org/docs/1.13/nn.html#recurrent-layers), as LibTorch
// 1.13's torch::nn::RNN, LSTM, GRU, RNNCell, LSTMCell and GRUCell: the same options, parameter names and
// shapes (weight_ih_l0, weight_hh_l0_reverse, weight_hr_l1, ...), so state dicts load across, and the
// same forward signatures.
//
// Beyond LibTorch 1.13, unbatched input works as in Python: a 2-D (seq, feature) input to a layer, a 1-D
// (feature) input to a cell, with states unbatched likewise. Python's warning for dropout with a single
// layer is not given. forward_with_packed_input takes a PackedSequence (nn/utils/rnn.h), as LibTorch's.
//
// The layers are compositions of tensor ops (autograd comes from them): per layer and direction, one
// matmul projects the input of every time step at once, then a loop over the steps adds the hidden
// state's projection and applies the gates, each step over the sequences that have not ended.
#include <optional>
#include <string>
#include <tuple>
#include <vector>

#include "nn/cloneable.h"
#include "nn/module_holder.h"
#include "nn/options/rnn.h"
#include "nn/utils/rnn.h"

namespace ember::nn {
namespace detail {

// The parameters of one layer in one direction. Biases are undefined without bias, weight_hr without
// a projection (LSTM's proj_size).
struct RNNLayerWeights {
  Tensor weight_ih;  // (gates * hidden_size, layer input features)
  Tensor weight_hh;  // (gates * hidden_size, hidden_size or proj_size)
  Tensor bias_ih;    // (gates * hidden_size)
  Tensor bias_hh;    // (gates * hidden_size)
  Tensor weight_hr;  // (proj_size, hidden_size)
};

// What RNN, LSTM and GRU share: parameters, init, repr, PyTorch's checks and the run over the layers.
template <class Derived>
class RNNImplBase : public Cloneable<Derived> {
 public:
  explicit RNNImplBase(const RNNOptionsBase& options_base);
  void reset() override;
  // PyTorch's default: every parameter uniform(-1/sqrt(hidden_size), 1/sqrt(hidden_size)).
  void reset_parameters();
  std::string extra_repr() const override;
  // Every parameter in PyTorch's order: layer by layer, the forward direction before the reverse.
  std::vector<Tensor> all_weights() const;
  // LibTorch packs the weights for cuDNN here; ember's layers read them where they are.
  void flatten_parameters() {}

  RNNOptionsBase options_base;

 protected:
  struct Result {
    Tensor output;  // (seq, batch, directions * features), laid out as the input was
    Tensor hidden;  // (num_layers * directions, batch, features)
    Tensor cell;    // LSTM's, like hidden with hidden_size features; undefined for RNN and GRU
  };
  // Checks the input and the initial state as PyTorch does (undefined states start at zeros), runs
  // every layer, and returns the output and final states, unbatched again when the input was.
  Result run(const Tensor& input, Tensor hx, Tensor cx) const;
  // The same over packed sequences: the output is packed as the input, the final states are each
  // sequence's at its own last step, in the caller's order.
  Result run_packed(const utils::rnn::PackedSequence& input, Tensor hx, Tensor cx) const;

  std::vector<RNNLayerWeights> layers_;  // index layer * directions + direction

 private:
  void check_state_dims(bool batched, const Tensor& hx, const Tensor& cx) const;
  void check_state_sizes(int64_t batch, const Tensor& hx, const Tensor& cx) const;
  // Zeros for undefined states, else the states checked against `batch`.
  std::tuple<Tensor, Tensor> initial_states(int64_t batch, const Tensor& like, Tensor hx, Tensor cx) const;
  // Every layer over x (rows, features), whose rows are step t's batch_sizes[t] rows after those of the
  // steps before it; the output has x's rows.
  Result run_layers(const Tensor& x, const std::vector<int64_t>& batch_sizes, const Tensor& hx,
                    const Tensor& cx) const;
};

}  // namespace detail

// Elman RNN: h_t = tanh(x_t W_ihᵀ + b_ih + h_{t-1} W_hhᵀ + b_hh) per layer, or ReLU
// (https://pytorch.org/docs/1.13/generated/torch.nn.RNN.html).
//   nn::RNN rnn(nn::RNNOptions(10, 20).num_layers(2));  auto [out, h_n] = rnn(x);  // x: (5, 3, 10)
class RNNImpl : public detail::RNNImplBase<RNNImpl> {
 public:
  RNNImpl(int64_t input_size, int64_t hidden_size) : RNNImpl(RNNOptions(input_size, hidden_size)) {}
  explicit RNNImpl(const RNNOptions& options);
  // (output, h_n); hx (num_layers * directions, batch, hidden_size), zeros when undefined.
  std::tuple<Tensor, Tensor> forward(const Tensor& input, Tensor hx = {});
  std::tuple<utils::rnn::PackedSequence, Tensor> forward_with_packed_input(const utils::rnn::PackedSequence& packed_input,
                                                                           Tensor hx = {});

  RNNOptions options;
};
EMBER_MODULE(RNN);

// Long short-term memory: input, forget, cell and output gates over a cell state c_t
// (https://pytorch.org/docs/1.13/generated/torch.nn.LSTM.html).
//   nn::LSTM lstm(nn::LSTMOptions(10, 20).batch_first(true));  auto [out, state] = lstm(x);  // x: (3, 5, 10)
class LSTMImpl : public detail::RNNImplBase<LSTMImpl> {
 public:
  LSTMImpl(int64_t input_size, int64_t hidden_size) : LSTMImpl(LSTMOptions(input_size, hidden_size)) {}
  explicit LSTMImpl(const LSTMOptions& options);
  // (output, (h_n, c_n)); hx_opt (h_0, c_0), zeros when absent. h has proj_size features when it is set.
  std::tuple<Tensor, std::tuple<Tensor, Tensor>> forward(const Tensor& input,
                                                         std::optional<std::tuple<Tensor, Tensor>> hx_opt = {});
  std::tuple<utils::rnn::PackedSequence, std::tuple<Tensor, Tensor>> forward_with_packed_input(
      const utils::rnn::PackedSequence& packed_input, std::optional<std::tuple<Tensor, Tensor>> hx_opt = {});

  LSTMOptions options;
};
EMBER_MODULE(LSTM);

// Gated recurrent unit: reset and update gates over a candidate state
// (https://pytorch.org/docs/1.13/generated/torch.nn.GRU.html).
//   nn::GRU gru(nn::GRUOptions(10, 20).bidirectional(true));  auto [out, h_n] = gru(x);  // out: (5, 3, 40)
class GRUImpl : public detail::RNNImplBase<GRUImpl> {
 public:
  GRUImpl(int64_t input_size, int64_t hidden_size) : GRUImpl(GRUOptions(input_size, hidden_size)) {}
  explicit GRUImpl(const GRUOptions& options);
  std::tuple<Tensor, Tensor> forward(const Tensor& input, Tensor hx = {});
  std::tuple<utils::rnn::PackedSequence, Tensor> forward_with_packed_input(const utils::rnn::PackedSequence& packed_input,
                                                                           Tensor hx = {});

  GRUOptions options;
};
EMBER_MODULE(GRU);

namespace detail {

// What the cells share: weight_ih (chunks * hidden, input), weight_hh (chunks * hidden, hidden), the two
// biases, their init and repr, and PyTorch's checks.
template <class Derived>
class RNNCellImplBase : public Cloneable<Derived> {
 public:
  explicit RNNCellImplBase(const RNNCellOptionsBase& options_base);
  void reset() override;
  // PyTorch's default: every parameter uniform(-1/sqrt(hidden_size), 1/sqrt(hidden_size)).
  void reset_parameters();
  std::string extra_repr() const override;

  RNNCellOptionsBase options_base;
  Tensor weight_ih, weight_hh, bias_ih, bias_hh;

 protected:
  // The input as a batch (a 1-D input as a batch of one), after the dims check.
  Tensor batched_input(const Tensor& input) const;
  // A state for `batch` (the checked, batched input): zeros when undefined, unbatched ones as a batch of
  // one. `label` names it in errors as LibTorch does ("", "[0]", "[1]").
  Tensor batched_state(const Tensor& input, const Tensor& batch, const Tensor& state, const std::string& label) const;
  virtual std::string nonlinearity_repr() const { return ""; }
};

}  // namespace detail

// One step of an Elman RNN: h' = tanh(x W_ihᵀ + b_ih + h W_hhᵀ + b_hh), or ReLU
// (https://pytorch.org/docs/1.13/generated/torch.nn.RNNCell.html).
//   nn::RNNCell cell(10, 20);  h = cell(x, h);  // x: (3, 10), h: (3, 20)
class RNNCellImpl : public detail::RNNCellImplBase<RNNCellImpl> {
 public:
  RNNCellImpl(int64_t input_size, int64_t hidden_size) : RNNCellImpl(RNNCellOptions(input_size, hidden_size)) {}
  explicit RNNCellImpl(const RNNCellOptions& options);
  Tensor forward(const Tensor& input, Tensor hx = {});

  RNNCellOptions options;

 protected:
  std::string nonlinearity_repr() const override;
};
EMBER_MODULE(RNNCell);

// One step of an LSTM: (h', c') from (x, (h, c)) (https://pytorch.org/docs/1.13/generated/torch.nn.LSTMCell.html).
//   nn::LSTMCell cell(10, 20);  auto [h, c] = cell(x, std::make_tuple(h0, c0));
class LSTMCellImpl : public detail::RNNCellImplBase<LSTMCellImpl> {
 public:
  LSTMCellImpl(int64_t input_size, int64_t hidden_size) : LSTMCellImpl(LSTMCellOptions(input_size, hidden_size)) {}
  explicit LSTMCellImpl(const LSTMCellOptions& options);
  std::tuple<Tensor, Tensor> forward(const Tensor& input, std::optional<std::tuple<Tensor, Tensor>> hx_opt = {});

  LSTMCellOptions options;
};
EMBER_MODULE(LSTMCell);

// One step of a GRU (https://pytorch.org/docs/1.13/generated/torch.nn.GRUCell.html).
//   nn::GRUCell cell(10, 20);  h = cell(x, h);
class GRUCellImpl : public detail::RNNCellImplBase<GRUCellImpl> {
 public:
  GRUCellImpl(int64_t input_size, int64_t hidden_size) : GRUCellImpl(GRUCellOptions(input_size, hidden_size)) {}
  explicit GRUCellImpl(const GRUCellOptions& options);
  Tensor forward(const Tensor& input, Tensor hx = {});

  GRUCellOptions options;
};
EMBER_MODULE(GRUCell);

}  // namespace ember::nn
