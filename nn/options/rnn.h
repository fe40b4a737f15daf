#pragma once
// Options of the recurrent layers and their cells, with LibTorch 1.13's fields and defaults
// (torch::nn::RNNOptions, LSTMOptions, GRUOptions, RNNCellOptions, LSTMCellOptions, GRUCellOptions;
// https://pytorch.org/docs/1.13/nn.html#recurrent-layers).
#include <cstdint>
#include <variant>

#include "nn/arg.h"
#include "nn/enums.h"

namespace ember::nn {

// The nonlinearity of an Elman RNN and its cell: tanh (the default) or ReLU.
using RNNNonlinearity = std::variant<enumtype::kTanh, enumtype::kReLU>;

// RNN: num_layers stacked layers of h' = nonlinearity(x W_ihᵀ + b_ih + h W_hhᵀ + b_hh). dropout applies
// to each layer's output but the last, in training only.
struct RNNOptions {
  using nonlinearity_t = RNNNonlinearity;
  RNNOptions(int64_t input_size, int64_t hidden_size) : input_size_(input_size), hidden_size_(hidden_size) {}
  EMBER_ARG(int64_t, input_size);
  EMBER_ARG(int64_t, hidden_size);
  EMBER_ARG(int64_t, num_layers) = 1;
  EMBER_ARG(nonlinearity_t, nonlinearity) = ember::kTanh;
  EMBER_ARG(bool, bias) = true;
  EMBER_ARG(bool, batch_first) = false;  // input and output (batch, seq, feature) instead of (seq, batch, feature)
  EMBER_ARG(double, dropout) = 0.0;
  EMBER_ARG(bool, bidirectional) = false;
};

// LSTM; proj_size > 0 projects each hidden state to proj_size features (weight_hr).
struct LSTMOptions {
  LSTMOptions(int64_t input_size, int64_t hidden_size) : input_size_(input_size), hidden_size_(hidden_size) {}
  EMBER_ARG(int64_t, input_size);
  EMBER_ARG(int64_t, hidden_size);
  EMBER_ARG(int64_t, num_layers) = 1;
  EMBER_ARG(bool, bias) = true;
  EMBER_ARG(bool, batch_first) = false;
  EMBER_ARG(double, dropout) = 0.0;
  EMBER_ARG(bool, bidirectional) = false;
  EMBER_ARG(int64_t, proj_size) = 0;
};

struct GRUOptions {
  GRUOptions(int64_t input_size, int64_t hidden_size) : input_size_(input_size), hidden_size_(hidden_size) {}
  EMBER_ARG(int64_t, input_size);
  EMBER_ARG(int64_t, hidden_size);
  EMBER_ARG(int64_t, num_layers) = 1;
  EMBER_ARG(bool, bias) = true;
  EMBER_ARG(bool, batch_first) = false;
  EMBER_ARG(double, dropout) = 0.0;
  EMBER_ARG(bool, bidirectional) = false;
};

struct RNNCellOptions {
  using nonlinearity_t = RNNNonlinearity;
  RNNCellOptions(int64_t input_size, int64_t hidden_size) : input_size_(input_size), hidden_size_(hidden_size) {}
  EMBER_ARG(int64_t, input_size);
  EMBER_ARG(int64_t, hidden_size);
  EMBER_ARG(bool, bias) = true;
  EMBER_ARG(nonlinearity_t, nonlinearity) = ember::kTanh;
};

struct LSTMCellOptions {
  LSTMCellOptions(int64_t input_size, int64_t hidden_size) : input_size_(input_size), hidden_size_(hidden_size) {}
  EMBER_ARG(int64_t, input_size);
  EMBER_ARG(int64_t, hidden_size);
  EMBER_ARG(bool, bias) = true;
};

struct GRUCellOptions {
  GRUCellOptions(int64_t input_size, int64_t hidden_size) : input_size_(input_size), hidden_size_(hidden_size) {}
  EMBER_ARG(int64_t, input_size);
  EMBER_ARG(int64_t, hidden_size);
  EMBER_ARG(bool, bias) = true;
};

namespace detail {

// Which recurrence a layer runs; the variant of RNN follows from its nonlinearity.
enum class RNNMode { RNNTanh, RNNReLU, LSTM, GRU };

// What RNN, LSTM and GRU share, as LibTorch's detail::RNNOptionsBase: the modules run from it.
struct RNNOptionsBase {
  RNNOptionsBase(RNNMode mode, int64_t input_size, int64_t hidden_size)
      : mode_(mode), input_size_(input_size), hidden_size_(hidden_size) {}
  EMBER_ARG(RNNMode, mode);
  EMBER_ARG(int64_t, input_size);
  EMBER_ARG(int64_t, hidden_size);
  EMBER_ARG(int64_t, num_layers) = 1;
  EMBER_ARG(bool, bias) = true;
  EMBER_ARG(bool, batch_first) = false;
  EMBER_ARG(double, dropout) = 0.0;
  EMBER_ARG(bool, bidirectional) = false;
  EMBER_ARG(int64_t, proj_size) = 0;
};

// What the cells share: num_chunks gate blocks of hidden_size rows in each weight (1, 4 or 3).
struct RNNCellOptionsBase {
  RNNCellOptionsBase(int64_t input_size, int64_t hidden_size, bool bias, int64_t num_chunks)
      : input_size_(input_size), hidden_size_(hidden_size), bias_(bias), num_chunks_(num_chunks) {}
  EMBER_ARG(int64_t, input_size);
  EMBER_ARG(int64_t, hidden_size);
  EMBER_ARG(bool, bias);
  EMBER_ARG(int64_t, num_chunks);
};

}  // namespace detail
}  // namespace ember::nn
