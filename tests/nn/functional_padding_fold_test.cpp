// F::pad, F::unfold and F::fold against LibTorch's torch::nn::functional beyond what their rows say:
// every mode on 1-d to 3-d, batched and unbatched, negative (cropping) sizes, empty batches, values, and
// PyTorch's error messages. The rows (tests/ops/conv.cpp) cover layouts, dtypes, gradients and names.
#include <torch/nn/functional/fold.h>
#include <torch/nn/functional/padding.h>

#include <string>
#include <vector>

#include "nn/functional/fold.h"
#include "nn/functional/padding.h"
#include "tests/autograd_oracle.h"
#include "tests/oracle.h"

namespace ember::test {
namespace {

namespace EF = ember::nn::functional;
namespace TF = torch::nn::functional;

enum class Mode { Constant, Reflect, Replicate, Circular };
const char* kModeNames[] = {"constant", "reflect", "replicate", "circular"};

Tensor pad_ember(const Tensor& x, const std::vector<int64_t>& pad, Mode mode, double value) {
  EF::PadFuncOptions o(pad);
  switch (mode) {
    case Mode::Constant: o.mode(kConstant); break;
    case Mode::Reflect: o.mode(kReflect); break;
    case Mode::Replicate: o.mode(kReplicate); break;
    case Mode::Circular: o.mode(kCircular); break;
  }
  return EF::pad(x, o.value(value));
}

at::Tensor pad_torch(const at::Tensor& x, const std::vector<int64_t>& pad, Mode mode, double value) {
  TF::PadFuncOptions o(pad);
  switch (mode) {
    case Mode::Constant: o.mode(torch::kConstant); break;
    case Mode::Reflect: o.mode(torch::kReflect); break;
    case Mode::Replicate: o.mode(torch::kReplicate); break;
    case Mode::Circular: o.mode(torch::kCircular); break;
  }
  return TF::pad(x, o.value(value));
}

class PaddingFoldTest : public GradTest {};

struct PadCase {
  std::vector<int64_t> sizes, pad;
  Mode mode;
  double value = 0;
};

// Each case: the output and the input gradient, or LibTorch's error where it refuses.
TEST_P(PaddingFoldTest, PadMatchesLibTorch) {
  const std::vector<PadCase> cases = {
      {{2, 3, 5}, {1, 2}, Mode::Constant, 1.5},
      {{2, 3, 5}, {-1, 2, 0, 1}, Mode::Constant, -2},
      {{4}, {3, -2}, Mode::Constant},
      {{2, 3, 4, 5, 2}, {1, 1, 0, 2, 1, 0, 1, 1}, Mode::Constant},
      {{2, 3, 4}, {-2, -2}, Mode::Constant},
      {{2, 3, 5}, {2, 3}, Mode::Reflect},
      {{3, 5}, {4, 1}, Mode::Reflect},
      {{2, 3, 5}, {-1, 2}, Mode::Reflect},
      {{1, 2, 4, 5}, {1, 3, 3, 2}, Mode::Reflect},
      {{2, 4, 5}, {2, 0, 1, 1}, Mode::Reflect},
      {{1, 2, 3, 4, 5}, {1, 1, 2, 0, 2, 2}, Mode::Reflect},
      {{0, 2, 3, 4}, {1, 1, 1, 1}, Mode::Reflect},
      {{2, 3, 5}, {7, 1}, Mode::Replicate},
      {{1, 2, 4, 5}, {1, 3, 3, 2}, Mode::Replicate},
      {{2, 3, 4, 5}, {0, 1, 2, 3, 1, 0}, Mode::Replicate},
      {{2, 3, 5}, {-2, 1}, Mode::Replicate},
      {{2, 3, 5}, {2, 3}, Mode::Circular},
      {{1, 2, 4, 5}, {1, 3, 3, 2}, Mode::Circular},
      {{1, 2, 3, 4, 5}, {1, 1, 2, 0, 3, 2}, Mode::Circular},
      {{2, 3, 5}, {-2, 1}, Mode::Circular},
  };
  for (const PadCase& c : cases) {
    SCOPED_TRACE(std::string(kModeNames[static_cast<int>(c.mode)]) + " " + to_string(c.sizes) + " pad " +
                 to_string(c.pad));
    const at::Tensor x = random_torch(c.sizes, DType::Float32, 1, -2, 2);
    check({x}, "pad", [&](const Ins& in) { return pad_ember(in[0], c.pad, c.mode, c.value); },
          [&](const TIns& in) { return pad_torch(in[0], c.pad, c.mode, c.value); });
  }
}

TEST_P(PaddingFoldTest, PadErrors) {
  const std::vector<PadCase> cases = {
      {{2, 3, 4}, {1, 2, 3}, Mode::Constant},
      {{2, 3}, {1, 1, 1, 1, 1, 1}, Mode::Constant},
      {{2, 3, 4}, {-4, -1}, Mode::Constant},
      {{2, 3, 4}, {-3, -2}, Mode::Constant},
      {{1, 2, 3, 4}, {1, 2}, Mode::Reflect},
      {{4}, {1, 1}, Mode::Replicate},
      {{2, 3, 4}, {1, 1}, Mode::Reflect, 2},
      {{2, 3, 4}, {4, 1}, Mode::Reflect},
      {{1, 2, 3, 4}, {4, 1, 1, 1}, Mode::Reflect},
      {{1, 2, 3, 4}, {1, 1, 3, 1}, Mode::Reflect},
      {{1, 2, 3, 4, 5}, {1, 1, 1, 1, 1, 3}, Mode::Reflect},
      {{1, 2, 0}, {1, 1}, Mode::Reflect},
      {{1, 0, 3, 4}, {1, 1, 1, 1}, Mode::Reflect},
      {{1, 2, 3, 0, 5}, {1, 1, 1, 1, 1, 1}, Mode::Reflect},
      {{1, 2, 0}, {1, 1}, Mode::Replicate},
      {{2, 3, 4}, {-5, 1}, Mode::Replicate},
      {{2, 3, 4}, {5, 1}, Mode::Circular},
      {{2, 3}, {1, 1}, Mode::Circular},
  };
  for (const PadCase& c : cases) {
    SCOPED_TRACE(std::string(kModeNames[static_cast<int>(c.mode)]) + " " + to_string(c.sizes) + " pad " +
                 to_string(c.pad));
    const at::Tensor x = at::zeros(c.sizes);
    const std::string expected = torch_error([&] { pad_torch(x, c.pad, c.mode, c.value); });
    expect_error<Error>([&] { pad_ember(from_torch(x, device), c.pad, c.mode, c.value); }, expected);
  }
}

struct BlockCase {
  std::vector<int64_t> sizes;
  std::vector<int64_t> output_size;  // fold only
  std::vector<int64_t> kernel, dilation, padding, stride;
};

Tensor unfold_ember(const Tensor& x, const BlockCase& c) {
  return EF::unfold(x, EF::UnfoldFuncOptions(c.kernel).dilation(c.dilation).padding(c.padding).stride(c.stride));
}
at::Tensor unfold_torch(const at::Tensor& x, const BlockCase& c) {
  return TF::unfold(x, TF::UnfoldFuncOptions(c.kernel).dilation(c.dilation).padding(c.padding).stride(c.stride));
}
Tensor fold_ember(const Tensor& x, const BlockCase& c) {
  return EF::fold(x, EF::FoldFuncOptions(c.output_size, c.kernel).dilation(c.dilation).padding(c.padding).stride(c.stride));
}
at::Tensor fold_torch(const at::Tensor& x, const BlockCase& c) {
  return TF::fold(x, TF::FoldFuncOptions(c.output_size, c.kernel).dilation(c.dilation).padding(c.padding).stride(c.stride));
}

TEST_P(PaddingFoldTest, UnfoldAndFoldMatchLibTorch) {
  const std::vector<BlockCase> unfolds = {
      {{2, 3, 7, 6}, {}, {3, 2}, {1, 2}, {1, 0}, {2, 1}},
      {{1, 1, 28, 28}, {}, {3, 3}, {1, 1}, {1, 1}, {1, 1}},
      {{3, 2, 4, 4}, {}, {4, 4}, {1, 1}, {0, 0}, {1, 1}},
  };
  for (const BlockCase& c : unfolds) {
    SCOPED_TRACE("unfold " + to_string(c.sizes));
    check({random_torch(c.sizes, DType::Float32, 2, -1, 1)}, "unfold",
          [&](const Ins& in) { return unfold_ember(in[0], c); }, [&](const TIns& in) { return unfold_torch(in[0], c); });
  }
  const std::vector<BlockCase> folds = {
      {{2, 6, 16}, {7, 6}, {3, 2}, {1, 2}, {1, 0}, {2, 1}},
      {{12, 25}, {7, 8}, {2, 2}, {2, 1}, {0, 1}, {1, 2}},
      {{0, 4, 9}, {4, 4}, {2, 2}, {1, 1}, {0, 0}, {1, 1}},
  };
  for (const BlockCase& c : folds) {
    SCOPED_TRACE("fold " + to_string(c.sizes));
    check({random_torch(c.sizes, DType::Float32, 3, -1, 1)}, "fold", [&](const Ins& in) { return fold_ember(in[0], c); },
          [&](const TIns& in) { return fold_torch(in[0], c); });
  }
}

TEST_P(PaddingFoldTest, UnfoldAndFoldErrors) {
  const std::vector<BlockCase> unfolds = {
      {{2, 3, 4}, {}, {2, 2}, {1, 1}, {0, 0}, {1, 1}},
      {{1, 2, 3, 4}, {}, {5, 3}, {1, 1}, {0, 0}, {1, 1}},
      {{1, 2, 3, 4}, {}, {0, 2}, {0, 1}, {0, 0}, {0, 1}},
      {{1, 2, 3, 4}, {}, {2, 2}, {0, 1}, {0, 0}, {0, 1}},
      {{1, 2, 3, 4}, {}, {2, 2}, {1, 1}, {-1, 0}, {0, 1}},
      {{1, 2, 3, 4}, {}, {2, 2}, {1, 1}, {0, 0}, {0, 1}},
      {{1, 0, 3, 4}, {}, {2, 2}, {1, 1}, {0, 0}, {1, 1}},
  };
  for (const BlockCase& c : unfolds) {
    SCOPED_TRACE("unfold " + to_string(c.sizes));
    const at::Tensor x = at::zeros(c.sizes);
    expect_error<Error>([&] { unfold_ember(from_torch(x, device), c); }, torch_error([&] { unfold_torch(x, c); }));
  }
  const std::vector<BlockCase> folds = {
      {{1, 12, 6, 1}, {3, 4}, {2, 2}, {1, 1}, {0, 0}, {1, 1}},
      {{1, 10, 6}, {3, 4}, {2, 2}, {1, 1}, {0, 0}, {1, 1}},
      {{1, 12, 6}, {3, 4}, {2, 3}, {1, 1}, {0, 0}, {1, 1}},
      {{1, 12, 6}, {0, 4}, {2, 2}, {1, 1}, {0, 0}, {1, 1}},
      {{1, 12, 6}, {3, 4}, {0, 2}, {0, 1}, {0, 0}, {0, 1}},
      {{1, 12, 6}, {3, 4}, {2, 2}, {0, 1}, {-1, 0}, {0, 1}},
      {{1, 12, 6}, {3, 4}, {2, 2}, {0, 1}, {-1, 0}, {1, 1}},
      {{1, 0, 6}, {3, 4}, {2, 2}, {1, 1}, {0, 0}, {1, 1}},
  };
  for (const BlockCase& c : folds) {
    SCOPED_TRACE("fold " + to_string(c.sizes));
    const at::Tensor x = at::zeros(c.sizes);
    expect_error<Error>([&] { fold_ember(from_torch(x, device), c); }, torch_error([&] { fold_torch(x, c); }));
  }
}

INSTANTIATE_TEST_SUITE_P(Backends, PaddingFoldTest, testing::Values("vulkan", "cuda"), backend_test_name);

}  // namespace
}  // namespace ember::test
