#include "nn/modules/rnn.h"

#include <algorithm>
#include <cmath>

#include "nn/functional/dropout.h"
#include "nn/init.h"
#include "nn/repr.h"

namespace ember::nn {

namespace {

using detail::RNNLayerWeights;
using detail::RNNMode;

int64_t gates_of(RNNMode mode) {
  switch (mode) {
    case RNNMode::LSTM:
      return 4;
    case RNNMode::GRU:
      return 3;
    case RNNMode::RNNTanh:
    case RNNMode::RNNReLU:
      return 1;
  }
  return 1;
}

RNNMode rnn_mode(const RNNNonlinearity& nonlinearity) {
  return std::holds_alternative<enumtype::kReLU>(nonlinearity) ? RNNMode::RNNReLU : RNNMode::RNNTanh;
}

// x W_ihᵀ plus the biases that add straight onto it: b_ih, and b_hh where it is not gated (all but
// GRU's). Folding b_hh here saves one addition per time step. x is 2-D.
Tensor project_input(const Tensor& x, const Tensor& w_ih, const Tensor& b_ih, const Tensor& b_hh_to_fold) {
  if (!b_ih.defined()) return x.mm(w_ih.t());
  const Tensor bias = b_hh_to_fold.defined() ? b_ih + b_hh_to_fold : b_ih;
  return bias.addmm(x, w_ih.t());
}

// The next hidden state of each recurrence, from the projected input of this step (`x_gates`, with the
// foldable biases in it) and the previous state.
Tensor rnn_step(const Tensor& x_gates, const Tensor& h, const Tensor& w_hh, RNNMode mode) {
  const Tensor sum = x_gates.addmm(h, w_hh.t());
  return mode == RNNMode::RNNReLU ? sum.relu() : sum.tanh();
}

std::tuple<Tensor, Tensor> lstm_step(const Tensor& x_gates, const Tensor& h, const Tensor& c, const Tensor& w_hh,
                                     const Tensor& w_hr) {
  const Tensor gates = x_gates.addmm(h, w_hh.t());
  const int64_t size = c.size(1);
  // PyTorch's gate order is input, forget, cell, output. One sigmoid over all four blocks (the cell
  // block's share unused) is one dispatch instead of three: dispatches, not FLOPs, bound small steps.
  const std::vector<Tensor> squashed = gates.sigmoid().chunk(4, 1);
  const Tensor candidate = gates.narrow(1, 2 * size, size).tanh();
  const Tensor c_next = (squashed[1] * c).addcmul(squashed[0], candidate);
  Tensor h_next = squashed[3] * c_next.tanh();
  if (w_hr.defined()) h_next = h_next.mm(w_hr.t());
  return {h_next, c_next};
}

// b_hh stays out of the input's projection: its candidate block is scaled by the reset gate.
Tensor gru_step(const Tensor& x_gates, const Tensor& h, const Tensor& w_hh, const Tensor& b_hh) {
  const Tensor h_gates = b_hh.defined() ? b_hh.addmm(h, w_hh.t()) : h.mm(w_hh.t());
  const int64_t size = h.size(1);
  const Tensor reset_update = x_gates.narrow(1, 0, 2 * size).add(h_gates.narrow(1, 0, 2 * size)).sigmoid();
  const Tensor reset = reset_update.narrow(1, 0, size), update = reset_update.narrow(1, size, size);
  const Tensor candidate = x_gates.narrow(1, 2 * size, size).addcmul(reset, h_gates.narrow(1, 2 * size, size)).tanh();
  return candidate.lerp(h, update);  // (1 - update) candidate + update h
}

struct DirectionResult {
  Tensor output;  // (rows, features), x's rows
  Tensor hidden, cell;
};

// One layer in one direction over x (rows, features), whose rows are step t's batch_sizes[t] rows after
// those of the steps before it, the longest sequences first (a padded batch is the case of equal
// sizes). Every step's input projection is one matmul; then the recurrence runs step by step (backwards
// for the reverse direction), each step over the sequences that have not ended.
DirectionResult run_direction(RNNMode mode, const Tensor& x, const std::vector<int64_t>& batch_sizes,
                              const RNNLayerWeights& w, const Tensor& h0, const Tensor& c0, bool reverse) {
  const int64_t steps = static_cast<int64_t>(batch_sizes.size()), batch = h0.size(0);
  const bool lstm = mode == RNNMode::LSTM;
  const Tensor folded_bias = mode == RNNMode::GRU ? Tensor() : w.bias_hh;
  const Tensor projected = project_input(x, w.weight_ih, w.bias_ih, folded_bias);
  // One split for all steps: its backward joins their gradients once.
  const std::vector<Tensor> x_gates = projected.split_with_sizes(batch_sizes, 0);
  // The forward direction drops ended sequences from the state and keeps their final states in
  // `ended`; the reverse one starts with the longest sequences and adds the others as they begin.
  int64_t running = reverse ? batch_sizes.back() : batch;
  Tensor h = running == batch ? h0 : h0.narrow(0, 0, running);
  Tensor c = !lstm || running == batch ? c0 : c0.narrow(0, 0, running);
  std::vector<Tensor> ended_h, ended_c;
  std::vector<Tensor> outputs(static_cast<size_t>(steps));
  for (int64_t i = 0; i < steps; ++i) {
    const int64_t t = reverse ? steps - 1 - i : i;
    const int64_t rows = batch_sizes[t];
    if (rows < running) {
      ended_h.push_back(h.narrow(0, rows, running - rows));
      h = h.narrow(0, 0, rows);
      if (lstm) {
        ended_c.push_back(c.narrow(0, rows, running - rows));
        c = c.narrow(0, 0, rows);
      }
    } else if (rows > running) {
      h = cat({h, h0.narrow(0, running, rows - running)}, 0);
      if (lstm) c = cat({c, c0.narrow(0, running, rows - running)}, 0);
    }
    running = rows;
    if (lstm) {
      std::tie(h, c) = lstm_step(x_gates[t], h, c, w.weight_hh, w.weight_hr);
    } else if (mode == RNNMode::GRU) {
      h = gru_step(x_gates[t], h, w.weight_hh, w.bias_hh);
    } else {
      h = rnn_step(x_gates[t], h, w.weight_hh, mode);
    }
    outputs[t] = h;
  }
  // The final states in the batch's order: the sequences still running, then those that ended, the
  // last to end first.
  const auto in_batch_order = [](const Tensor& last, std::vector<Tensor> ended) {
    if (ended.empty()) return last;
    ended.push_back(last);
    std::reverse(ended.begin(), ended.end());
    return cat(ended, 0);
  };
  return {cat(outputs, 0), in_batch_order(h, ended_h), lstm ? in_batch_order(c, ended_c) : c};
}

// "(2, 3, 4)" and "[2, 3, 4]": PyTorch's messages print the expected size as a tuple, the actual as a list.
std::string size_mismatch(const std::string& what, const std::vector<int64_t>& expected, const Tensor& actual) {
  return "Expected " + what + " size " + repr_tuple(expected) + ", got " + to_string(actual.sizes());
}

std::string dims(const Tensor& t) { return std::to_string(t.dim()) + "-D"; }

}  // namespace

namespace detail {

template <class Derived>
RNNImplBase<Derived>::RNNImplBase(const RNNOptionsBase& options_base) : options_base(options_base) {
  reset();
}

template <class Derived>
void RNNImplBase<Derived>::reset() {
  const auto& o = options_base;
  if (!(o.dropout() >= 0 && o.dropout() <= 1)) {
    throw Error("dropout should be a number in range [0, 1] representing the probability of an element being zeroed");
  }
  if (o.proj_size() < 0 || (o.proj_size() > 0 && o.proj_size() >= o.hidden_size())) {
    throw Error("proj_size has to be a positive integer, smaller than hidden_size or zero to disable projections");
  }
  const int64_t gate_rows = gates_of(o.mode()) * o.hidden_size();
  const int64_t state_features = o.proj_size() > 0 ? o.proj_size() : o.hidden_size();
  const int64_t directions = o.bidirectional() ? 2 : 1;
  layers_.clear();
  for (int64_t layer = 0; layer < o.num_layers(); ++layer) {
    const int64_t in_features = layer == 0 ? o.input_size() : state_features * directions;
    for (int64_t direction = 0; direction < directions; ++direction) {
      const std::string suffix = "_l" + std::to_string(layer) + (direction == 1 ? "_reverse" : "");
      RNNLayerWeights w;
      w.weight_ih = this->register_parameter("weight_ih" + suffix, ember::empty({gate_rows, in_features}));
      w.weight_hh = this->register_parameter("weight_hh" + suffix, ember::empty({gate_rows, state_features}));
      if (o.bias()) {
        w.bias_ih = this->register_parameter("bias_ih" + suffix, ember::empty({gate_rows}));
        w.bias_hh = this->register_parameter("bias_hh" + suffix, ember::empty({gate_rows}));
      }
      if (o.proj_size() > 0) {
        w.weight_hr = this->register_parameter("weight_hr" + suffix, ember::empty({o.proj_size(), o.hidden_size()}));
      }
      layers_.push_back(w);
    }
  }
  reset_parameters();
}

template <class Derived>
void RNNImplBase<Derived>::reset_parameters() {
  const double bound = options_base.hidden_size() > 0 ? 1 / std::sqrt(double(options_base.hidden_size())) : 0;
  for (const Tensor& weight : all_weights()) init::uniform_(weight, -bound, bound);
}

template <class Derived>
std::vector<Tensor> RNNImplBase<Derived>::all_weights() const {
  std::vector<Tensor> weights;
  for (const RNNLayerWeights& w : layers_) {
    for (const Tensor* t : {&w.weight_ih, &w.weight_hh, &w.bias_ih, &w.bias_hh, &w.weight_hr}) {
      if (t->defined()) weights.push_back(*t);
    }
  }
  return weights;
}

template <class Derived>
std::string RNNImplBase<Derived>::extra_repr() const {
  const auto& o = options_base;
  std::string text = std::to_string(o.input_size()) + ", " + std::to_string(o.hidden_size());
  if (o.proj_size() != 0) text += ", proj_size=" + std::to_string(o.proj_size());
  if (o.num_layers() != 1) text += ", num_layers=" + std::to_string(o.num_layers());
  if (!o.bias()) text += ", bias=False";
  if (o.batch_first()) text += ", batch_first=True";
  if (o.dropout() != 0) text += ", dropout=" + repr_float(o.dropout());
  if (o.bidirectional()) text += ", bidirectional=True";
  return text;
}

template <class Derived>
void RNNImplBase<Derived>::check_state_dims(bool batched, const Tensor& hx, const Tensor& cx) const {
  const int64_t want = batched ? 3 : 2;
  const std::string input_kind = batched ? "For batched 3-D input, " : "For unbatched 2-D input, ";
  if (options_base.mode() == RNNMode::LSTM) {
    if (hx.dim() != want || cx.dim() != want) {
      throw Error(input_kind + "hx and cx should also be " + std::to_string(want) + "-D but got (" + dims(hx) + ", " +
                  dims(cx) + ") tensors");
    }
  } else if (hx.dim() != want) {
    throw Error(input_kind + "hx should also be " + std::to_string(want) + "-D but got " + dims(hx) + " tensor");
  }
}

template <class Derived>
void RNNImplBase<Derived>::check_state_sizes(int64_t batch, const Tensor& hx, const Tensor& cx) const {
  const auto& o = options_base;
  const int64_t states = o.num_layers() * (o.bidirectional() ? 2 : 1);
  const std::vector<int64_t> hidden{states, batch, o.proj_size() > 0 ? o.proj_size() : o.hidden_size()};
  const bool lstm = o.mode() == RNNMode::LSTM;
  if (hx.sizes().vec() != hidden) throw Error(size_mismatch(lstm ? "hidden[0]" : "hidden", hidden, hx));
  const std::vector<int64_t> cell{states, batch, o.hidden_size()};
  if (lstm && cx.sizes().vec() != cell) throw Error(size_mismatch("hidden[1]", cell, cx));
}

template <class Derived>
typename RNNImplBase<Derived>::Result RNNImplBase<Derived>::run(const Tensor& input, Tensor hx, Tensor cx) const {
  const auto& o = options_base;
  const bool lstm = o.mode() == RNNMode::LSTM;
  if (input.dim() != 2 && input.dim() != 3) {
    throw Error(this->name() + ": Expected input to be 2-D or 3-D but received " + dims(input) + " tensor");
  }
  const bool batched = input.dim() == 3;
  const bool given_state = hx.defined() || cx.defined();
  if (given_state) check_state_dims(batched, hx, cx);
  const int64_t batch_dim = o.batch_first() ? 0 : 1;
  Tensor x = batched ? input : input.unsqueeze(batch_dim);
  if (o.batch_first()) x = x.transpose(0, 1);  // (seq, batch, features) from here on
  if (x.size(2) != o.input_size()) {
    throw Error("input.size(-1) must be equal to input_size. Expected " + std::to_string(o.input_size()) + ", got " +
                std::to_string(x.size(2)));
  }
  if (given_state && !batched) {
    hx = hx.unsqueeze(1);
    if (lstm) cx = cx.unsqueeze(1);
  }
  const int64_t steps = x.size(0), batch = x.size(1);
  std::tie(hx, cx) = initial_states(batch, x, hx, cx);
  if (steps == 0) throw Error("Expected sequence length to be larger than 0 in RNN");
  Result result = run_layers(x.reshape({steps * batch, x.size(2)}), std::vector<int64_t>(steps, batch), hx, cx);
  result.output = result.output.view({steps, batch, result.output.size(1)});
  if (o.batch_first()) result.output = result.output.transpose(0, 1);
  if (!batched) {
    result.output = result.output.squeeze(batch_dim);
    result.hidden = result.hidden.squeeze(1);
    if (lstm) result.cell = result.cell.squeeze(1);
  }
  return result;
}

template <class Derived>
std::tuple<Tensor, Tensor> RNNImplBase<Derived>::initial_states(int64_t batch, const Tensor& like, Tensor hx,
                                                                Tensor cx) const {
  const auto& o = options_base;
  const bool lstm = o.mode() == RNNMode::LSTM;
  if (hx.defined() || cx.defined()) {
    check_state_sizes(batch, hx, cx);
    return {hx, cx};
  }
  const int64_t states = o.num_layers() * (o.bidirectional() ? 2 : 1);
  const TensorOptions like_input = TensorOptions().dtype(like.dtype()).device(like.device());
  hx = zeros({states, batch, o.proj_size() > 0 ? o.proj_size() : o.hidden_size()}, like_input);
  if (lstm) cx = zeros({states, batch, o.hidden_size()}, like_input);
  return {hx, cx};
}

// LibTorch's checks of a packed input, then the states in the packing order and back.
template <class Derived>
typename RNNImplBase<Derived>::Result RNNImplBase<Derived>::run_packed(const utils::rnn::PackedSequence& input,
                                                                        Tensor hx, Tensor cx) const {
  const auto& o = options_base;
  const bool lstm = o.mode() == RNNMode::LSTM;
  const Tensor& x = input.data();
  if (x.dim() != 2) throw Error("input must have 2 dimensions, got " + std::to_string(x.dim()));
  if (x.size(1) != o.input_size()) {
    throw Error("input.size(-1) must be equal to input_size. Expected " + std::to_string(o.input_size()) + ", got " +
                std::to_string(x.size(1)));
  }
  if (input.batch_sizes().empty()) throw Error("Expected sequence length to be larger than 0 in RNN");
  const bool given_state = hx.defined() || cx.defined();
  std::tie(hx, cx) = initial_states(input.batch_sizes().front(), x, hx, cx);
  if (const Tensor& sorted = input.sorted_indices(); given_state && sorted.defined()) {
    hx = hx.index_select(1, sorted);
    if (lstm) cx = cx.index_select(1, sorted);
  }
  Result result = run_layers(x, input.batch_sizes(), hx, cx);
  if (const Tensor& unsorted = input.unsorted_indices(); unsorted.defined()) {
    result.hidden = result.hidden.index_select(1, unsorted);
    if (lstm) result.cell = result.cell.index_select(1, unsorted);
  }
  return result;
}

template <class Derived>
typename RNNImplBase<Derived>::Result RNNImplBase<Derived>::run_layers(const Tensor& x,
                                                                        const std::vector<int64_t>& batch_sizes,
                                                                        const Tensor& hx, const Tensor& cx) const {
  const auto& o = options_base;
  const bool lstm = o.mode() == RNNMode::LSTM;
  const int64_t directions = o.bidirectional() ? 2 : 1;
  const std::vector<Tensor> h_initial = hx.unbind(0);
  const std::vector<Tensor> c_initial = lstm ? cx.unbind(0) : std::vector<Tensor>(h_initial.size());
  std::vector<Tensor> h_final, c_final;
  Tensor layer_input = x;
  for (int64_t layer = 0; layer < o.num_layers(); ++layer) {
    // Dropout on every layer's output but the last, which is the next layer's input.
    if (layer > 0 && o.dropout() > 0 && this->is_training()) {
      layer_input = functional::detail::dropout(layer_input, o.dropout(), /*training=*/true, /*inplace=*/false);
    }
    std::vector<Tensor> outputs;
    for (int64_t direction = 0; direction < directions; ++direction) {
      const size_t index = size_t(layer * directions + direction);
      DirectionResult run = run_direction(o.mode(), layer_input, batch_sizes, layers_[index], h_initial[index],
                                          c_initial[index], direction == 1);
      outputs.push_back(run.output);
      h_final.push_back(run.hidden);
      c_final.push_back(run.cell);
    }
    layer_input = directions == 1 ? outputs[0] : cat(outputs, 1);
  }
  return {layer_input, stack(h_final, 0), lstm ? stack(c_final, 0) : Tensor()};
}

}  // namespace detail

RNNImpl::RNNImpl(const RNNOptions& options)
    : RNNImplBase(detail::RNNOptionsBase(rnn_mode(options.nonlinearity()), options.input_size(), options.hidden_size())
                      .num_layers(options.num_layers())
                      .bias(options.bias())
                      .batch_first(options.batch_first())
                      .dropout(options.dropout())
                      .bidirectional(options.bidirectional())),
      options(options) {}

std::tuple<Tensor, Tensor> RNNImpl::forward(const Tensor& input, Tensor hx) {
  Result result = run(input, std::move(hx), Tensor());
  return {result.output, result.hidden};
}

namespace {

// The output is packed as the input: the same batch sizes and order.
utils::rnn::PackedSequence packed_like(const utils::rnn::PackedSequence& input, const Tensor& output) {
  return utils::rnn::PackedSequence(output, input.batch_sizes(), input.sorted_indices(), input.unsorted_indices());
}

}  // namespace

std::tuple<utils::rnn::PackedSequence, Tensor> RNNImpl::forward_with_packed_input(
    const utils::rnn::PackedSequence& packed_input, Tensor hx) {
  Result result = run_packed(packed_input, std::move(hx), Tensor());
  return {packed_like(packed_input, result.output), result.hidden};
}

LSTMImpl::LSTMImpl(const LSTMOptions& options)
    : RNNImplBase(detail::RNNOptionsBase(RNNMode::LSTM, options.input_size(), options.hidden_size())
                      .num_layers(options.num_layers())
                      .bias(options.bias())
                      .batch_first(options.batch_first())
                      .dropout(options.dropout())
                      .bidirectional(options.bidirectional())
                      .proj_size(options.proj_size())),
      options(options) {}

std::tuple<Tensor, std::tuple<Tensor, Tensor>> LSTMImpl::forward(const Tensor& input,
                                                                 std::optional<std::tuple<Tensor, Tensor>> hx_opt) {
  Result result = hx_opt ? run(input, std::get<0>(*hx_opt), std::get<1>(*hx_opt)) : run(input, Tensor(), Tensor());
  return {result.output, {result.hidden, result.cell}};
}

std::tuple<utils::rnn::PackedSequence, std::tuple<Tensor, Tensor>> LSTMImpl::forward_with_packed_input(
    const utils::rnn::PackedSequence& packed_input, std::optional<std::tuple<Tensor, Tensor>> hx_opt) {
  Result result = hx_opt ? run_packed(packed_input, std::get<0>(*hx_opt), std::get<1>(*hx_opt))
                         : run_packed(packed_input, Tensor(), Tensor());
  return {packed_like(packed_input, result.output), {result.hidden, result.cell}};
}

GRUImpl::GRUImpl(const GRUOptions& options)
    : RNNImplBase(detail::RNNOptionsBase(RNNMode::GRU, options.input_size(), options.hidden_size())
                      .num_layers(options.num_layers())
                      .bias(options.bias())
                      .batch_first(options.batch_first())
                      .dropout(options.dropout())
                      .bidirectional(options.bidirectional())),
      options(options) {}

std::tuple<Tensor, Tensor> GRUImpl::forward(const Tensor& input, Tensor hx) {
  Result result = run(input, std::move(hx), Tensor());
  return {result.output, result.hidden};
}

std::tuple<utils::rnn::PackedSequence, Tensor> GRUImpl::forward_with_packed_input(
    const utils::rnn::PackedSequence& packed_input, Tensor hx) {
  Result result = run_packed(packed_input, std::move(hx), Tensor());
  return {packed_like(packed_input, result.output), result.hidden};
}

namespace detail {

template <class Derived>
RNNCellImplBase<Derived>::RNNCellImplBase(const RNNCellOptionsBase& options_base) : options_base(options_base) {
  reset();
}

template <class Derived>
void RNNCellImplBase<Derived>::reset() {
  const auto& o = options_base;
  const int64_t rows = o.num_chunks() * o.hidden_size();
  weight_ih = this->register_parameter("weight_ih", ember::empty({rows, o.input_size()}));
  weight_hh = this->register_parameter("weight_hh", ember::empty({rows, o.hidden_size()}));
  bias_ih = this->register_parameter("bias_ih", o.bias() ? ember::empty({rows}) : Tensor(), o.bias());
  bias_hh = this->register_parameter("bias_hh", o.bias() ? ember::empty({rows}) : Tensor(), o.bias());
  reset_parameters();
}

template <class Derived>
void RNNCellImplBase<Derived>::reset_parameters() {
  const double bound = options_base.hidden_size() > 0 ? 1 / std::sqrt(double(options_base.hidden_size())) : 0;
  for (Tensor* weight : {&weight_ih, &weight_hh, &bias_ih, &bias_hh}) {
    if (weight->defined()) init::uniform_(*weight, -bound, bound);
  }
}

template <class Derived>
std::string RNNCellImplBase<Derived>::extra_repr() const {
  std::string text = std::to_string(options_base.input_size()) + ", " + std::to_string(options_base.hidden_size());
  if (!options_base.bias()) text += ", bias=False";
  return text + nonlinearity_repr();
}

template <class Derived>
Tensor RNNCellImplBase<Derived>::batched_input(const Tensor& input) const {
  if (input.dim() != 1 && input.dim() != 2) {
    throw Error(this->name() + ": Expected input to be 1-D or 2-D but received " + dims(input) + " tensor");
  }
  const Tensor batch = input.dim() == 1 ? input.unsqueeze(0) : input;
  if (batch.size(1) != options_base.input_size()) {
    throw Error("input has inconsistent input_size: got " + std::to_string(batch.size(1)) + " expected " +
                std::to_string(options_base.input_size()));
  }
  return batch;
}

template <class Derived>
Tensor RNNCellImplBase<Derived>::batched_state(const Tensor& input, const Tensor& batch, const Tensor& state,
                                               const std::string& label) const {
  if (!state.defined()) {
    return zeros({batch.size(0), options_base.hidden_size()}, TensorOptions().dtype(batch.dtype()).device(batch.device()));
  }
  // PyTorch unsqueezes whatever state comes with a 1-D input; a state of the wrong dims is refused here
  // instead, in the words of its layers.
  if (state.dim() != input.dim()) {
    const std::string want = std::to_string(input.dim()) + "-D";
    throw Error((input.dim() == 2 ? "For batched " : "For unbatched ") + want + " input, " +
                (label == "[1]" ? "cx" : "hx") + " should also be " + want + " but got " + dims(state) + " tensor");
  }
  const Tensor batched = state.dim() == 1 ? state.unsqueeze(0) : state;
  if (batched.size(0) != batch.size(0)) {
    throw Error("Input batch size " + std::to_string(batch.size(0)) + " doesn't match hidden" + label +
                " batch size " + std::to_string(batched.size(0)));
  }
  if (batched.size(1) != options_base.hidden_size()) {
    throw Error("hidden" + label + " has inconsistent hidden_size: got " + std::to_string(batched.size(1)) +
                ", expected " + std::to_string(options_base.hidden_size()));
  }
  return batched;
}

}  // namespace detail

RNNCellImpl::RNNCellImpl(const RNNCellOptions& options)
    : RNNCellImplBase(detail::RNNCellOptionsBase(options.input_size(), options.hidden_size(), options.bias(), 1)),
      options(options) {}

Tensor RNNCellImpl::forward(const Tensor& input, Tensor hx) {
  const Tensor x = batched_input(input);
  const Tensor h = batched_state(input, x, hx, "");
  const Tensor x_gates = project_input(x, weight_ih, bias_ih, bias_hh);
  const Tensor next = rnn_step(x_gates, h, weight_hh, rnn_mode(options.nonlinearity()));
  return input.dim() == 1 ? next.squeeze(0) : next;
}

std::string RNNCellImpl::nonlinearity_repr() const {
  return std::holds_alternative<enumtype::kTanh>(options.nonlinearity()) ? "" : ", nonlinearity=relu";
}

LSTMCellImpl::LSTMCellImpl(const LSTMCellOptions& options)
    : RNNCellImplBase(detail::RNNCellOptionsBase(options.input_size(), options.hidden_size(), options.bias(), 4)),
      options(options) {}

std::tuple<Tensor, Tensor> LSTMCellImpl::forward(const Tensor& input,
                                                 std::optional<std::tuple<Tensor, Tensor>> hx_opt) {
  const Tensor x = batched_input(input);
  const Tensor h = batched_state(input, x, hx_opt ? std::get<0>(*hx_opt) : Tensor(), "[0]");
  const Tensor c = batched_state(input, x, hx_opt ? std::get<1>(*hx_opt) : Tensor(), "[1]");
  auto [h_next, c_next] = lstm_step(project_input(x, weight_ih, bias_ih, bias_hh), h, c, weight_hh, Tensor());
  if (input.dim() == 1) return {h_next.squeeze(0), c_next.squeeze(0)};
  return {h_next, c_next};
}

GRUCellImpl::GRUCellImpl(const GRUCellOptions& options)
    : RNNCellImplBase(detail::RNNCellOptionsBase(options.input_size(), options.hidden_size(), options.bias(), 3)),
      options(options) {}

Tensor GRUCellImpl::forward(const Tensor& input, Tensor hx) {
  const Tensor x = batched_input(input);
  const Tensor h = batched_state(input, x, hx, "");
  const Tensor next = gru_step(project_input(x, weight_ih, bias_ih, Tensor()), h, weight_hh, bias_hh);
  return input.dim() == 1 ? next.squeeze(0) : next;
}

template class detail::RNNImplBase<RNNImpl>;
template class detail::RNNImplBase<LSTMImpl>;
template class detail::RNNImplBase<GRUImpl>;
template class detail::RNNCellImplBase<RNNCellImpl>;
template class detail::RNNCellImplBase<LSTMCellImpl>;
template class detail::RNNCellImplBase<GRUCellImpl>;

}  // namespace ember::nn
