// The convolution family on CUDA, through cuDNN: cudnnConvolutionForward, BackwardData and
// BackwardFilter with the heuristics' algorithm and its workspace from the caching allocator, the bias
// added by cudnnAddTensor, the bias gradient summed by the reduce family, relu run after. The
// descriptors and the algorithm are kept per problem (DnnPlan): cuDNN 9's v7 heuristics query costs a
// few hundred microseconds of host time, more than the GPU spends on the convolutions of a small
// training step. A 1-d convolution runs as a 2-d one of height 1. float16 and bfloat16 compute in
// float32 (tensor cores allowed); float32 in float32 without TF32 (CUDNN_FMA_MATH), as the kernel
// interface promises; float64 in float64. Errors carry cuDNN's status text.
//
// cuDNN takes the sizes its formula gives: O = (I + 2·padding − dilation·(kernel − 1) − 1) / stride + 1.
// The kernel interface allows others (asymmetric "same" padding, output_padding past the stride). Those
// run on a zero-padded copy of the input (forward, weight gradient) or into a padded scratch gradient
// (input gradient) with padding 0, sized exactly to the formula, and copies in or out.
#include <cudnn.h>

#include <array>
#include <climits>
#include <map>
#include <memory>
#include <mutex>
#include <string>
#include <vector>

#include "kernels_cuda/common/cuda_family.h"
#include "kernels_cuda/common/strided_index.cuh"
#include "runtime/kernels/conv.h"
#include "runtime/kernels/elementwise.h"
#include "runtime/kernels/memory.h"
#include "runtime/kernels/reduce.h"

namespace ember::cuda {

namespace {

void check_dnn(cudnnStatus_t status, const char* what) {
  if (status == CUDNN_STATUS_SUCCESS) return;
  throw Error(std::string(what) + " failed: " + cudnnGetErrorString(status));
}

bool fits_int(int64_t value) { return value >= 0 && value <= INT_MAX; }

struct DnnTypes {
  cudnnDataType_t data;
  cudnnDataType_t compute;
  cudnnMathType_t math;
  bool double_scalars;
};

DnnTypes dnn_types(DType dtype) {
  switch (dtype) {
    case DType::Float32: return {CUDNN_DATA_FLOAT, CUDNN_DATA_FLOAT, CUDNN_FMA_MATH, false};
    case DType::Float16: return {CUDNN_DATA_HALF, CUDNN_DATA_FLOAT, CUDNN_TENSOR_OP_MATH, false};
    case DType::BFloat16: return {CUDNN_DATA_BFLOAT16, CUDNN_DATA_FLOAT, CUDNN_TENSOR_OP_MATH, false};
    case DType::Float64: return {CUDNN_DATA_DOUBLE, CUDNN_DATA_DOUBLE, CUDNN_DEFAULT_MATH, true};
    default: throw UnsupportedError("the cuda backend has no conv kernel for " + std::string(dtype_name(dtype)));
  }
}

// Owns one cuDNN descriptor.
template <class Handle, cudnnStatus_t (*Create)(Handle*), cudnnStatus_t (*Destroy)(Handle)>
class Descriptor {
 public:
  Descriptor() { check_dnn(Create(&handle_), "cudnnCreate descriptor"); }
  ~Descriptor() { Destroy(handle_); }
  Descriptor(const Descriptor&) = delete;
  Descriptor& operator=(const Descriptor&) = delete;
  Handle get() const { return handle_; }

 private:
  Handle handle_ = nullptr;
};
using TensorDescriptor = Descriptor<cudnnTensorDescriptor_t, cudnnCreateTensorDescriptor, cudnnDestroyTensorDescriptor>;
using FilterDescriptor = Descriptor<cudnnFilterDescriptor_t, cudnnCreateFilterDescriptor, cudnnDestroyFilterDescriptor>;
using ConvolutionDescriptor =
    Descriptor<cudnnConvolutionDescriptor_t, cudnnCreateConvolutionDescriptor, cudnnDestroyConvolutionDescriptor>;

// The sizes cuDNN sees: at least two spatial dims (a 1-d convolution gets height 1).
std::vector<int> dnn_sizes(int64_t batch, int64_t channels, const std::array<int64_t, 3>& spatial, int dims) {
  std::vector<int> sizes = {static_cast<int>(batch), static_cast<int>(channels)};
  for (int d = 0; d < dims; ++d) sizes.push_back(static_cast<int>(spatial[d]));
  return sizes;
}

void set_tensor(const TensorDescriptor& desc, cudnnDataType_t type, const std::vector<int>& sizes) {
  std::vector<int> strides(sizes.size());
  int stride = 1;
  for (size_t d = sizes.size(); d-- > 0;) {
    strides[d] = stride;
    stride *= std::max(sizes[d], 1);
  }
  check_dnn(cudnnSetTensorNdDescriptor(desc.get(), type, static_cast<int>(sizes.size()), sizes.data(), strides.data()),
            "cudnnSetTensorNdDescriptor");
}

// One convolution as cuDNN sees it: its (at least 2-d) spatial geometry, padding included or not.
struct DnnProblem {
  int dims = 2;
  int64_t batch = 0, in_channels = 0, out_channels = 0, groups = 1;
  std::array<int64_t, 3> in{1, 1, 1}, out{1, 1, 1}, kernel{1, 1, 1};
  std::array<int, 3> stride{1, 1, 1}, padding{0, 0, 0}, dilation{1, 1, 1};

  int64_t formula(int d, int64_t in_size) const {
    return (in_size + 2 * padding[d] - dilation[d] * (kernel[d] - 1) - 1) / stride[d] + 1;
  }
  bool native() const {
    for (int d = 0; d < dims; ++d) {
      if (in[d] + 2 * padding[d] < dilation[d] * (kernel[d] - 1) + 1 || formula(d, in[d]) != out[d]) return false;
    }
    return true;
  }
  // The same convolution with padding 0 over an input padded to exactly the formula's size.
  DnnProblem padded() const {
    DnnProblem p = *this;
    for (int d = 0; d < dims; ++d) {
      p.padding[d] = 0;
      p.in[d] = (out[d] - 1) * stride[d] + dilation[d] * (kernel[d] - 1) + 1;
    }
    return p;
  }
};

DnnProblem problem_of(const ConvShape& s, const ConvGeometry& g) {
  DnnProblem p;
  p.dims = std::max(2, s.spatial);
  p.batch = s.batch;
  p.in_channels = s.in_channels;
  p.out_channels = s.out_channels;
  p.groups = s.groups;
  const int shift = p.dims - s.spatial;  // a 1-d convolution's height of 1 comes first
  for (int d = 0; d < s.spatial; ++d) {
    p.in[shift + d] = s.in_size[d];
    p.out[shift + d] = s.out_size[d];
    p.kernel[shift + d] = s.kernel_size[d];
    p.stride[shift + d] = static_cast<int>(g.stride[d]);
    p.padding[shift + d] = static_cast<int>(g.padding[d]);
    p.dilation[shift + d] = static_cast<int>(g.dilation[d]);
  }
  return p;
}

// The descriptors of one problem.
struct DnnCall {
  TensorDescriptor x, y;
  FilterDescriptor w;
  ConvolutionDescriptor conv;

  DnnCall(const DnnProblem& p, const DnnTypes& types) {
    set_tensor(x, types.data, dnn_sizes(p.batch, p.in_channels, p.in, p.dims));
    set_tensor(y, types.data, dnn_sizes(p.batch, p.out_channels, p.out, p.dims));
    const std::vector<int> filter = dnn_sizes(p.out_channels, p.in_channels / p.groups, p.kernel, p.dims);
    check_dnn(cudnnSetFilterNdDescriptor(w.get(), types.data, CUDNN_TENSOR_NCHW, static_cast<int>(filter.size()),
                                         filter.data()),
              "cudnnSetFilterNdDescriptor");
    check_dnn(cudnnSetConvolutionNdDescriptor(conv.get(), p.dims, p.padding.data(), p.stride.data(),
                                              p.dilation.data(), CUDNN_CROSS_CORRELATION, types.compute),
              "cudnnSetConvolutionNdDescriptor");
    check_dnn(cudnnSetConvolutionGroupCount(conv.get(), static_cast<int>(p.groups)), "cudnnSetConvolutionGroupCount");
    check_dnn(cudnnSetConvolutionMathType(conv.get(), types.math), "cudnnSetConvolutionMathType");
  }
};

enum class Direction { Forward, InputGrad, WeightGrad };

// One direction of one problem, ready to run: its descriptors, the heuristics' first algorithm (as an
// int, the three directions' enums differ) and that algorithm's workspace.
struct DnnPlan {
  DnnCall call;
  int algo = 0;
  size_t workspace_bytes = 0;

  DnnPlan(cudnnHandle_t h, Direction direction, const DnnProblem& p, const DnnTypes& types) : call(p, types) {
    int found = 0;
    switch (direction) {
      case Direction::Forward: {
        cudnnConvolutionFwdAlgoPerf_t perf[CUDNN_CONVOLUTION_FWD_ALGO_COUNT];
        check_dnn(cudnnGetConvolutionForwardAlgorithm_v7(h, call.x.get(), call.w.get(), call.conv.get(), call.y.get(),
                                                         CUDNN_CONVOLUTION_FWD_ALGO_COUNT, &found, perf),
                  "cudnnGetConvolutionForwardAlgorithm_v7");
        algo = perf[0].algo;
        check_dnn(cudnnGetConvolutionForwardWorkspaceSize(h, call.x.get(), call.w.get(), call.conv.get(), call.y.get(),
                                                          perf[0].algo, &workspace_bytes),
                  "cudnnGetConvolutionForwardWorkspaceSize");
        break;
      }
      case Direction::InputGrad: {
        cudnnConvolutionBwdDataAlgoPerf_t perf[CUDNN_CONVOLUTION_BWD_DATA_ALGO_COUNT];
        check_dnn(cudnnGetConvolutionBackwardDataAlgorithm_v7(h, call.w.get(), call.y.get(), call.conv.get(),
                                                              call.x.get(), CUDNN_CONVOLUTION_BWD_DATA_ALGO_COUNT,
                                                              &found, perf),
                  "cudnnGetConvolutionBackwardDataAlgorithm_v7");
        algo = perf[0].algo;
        check_dnn(cudnnGetConvolutionBackwardDataWorkspaceSize(h, call.w.get(), call.y.get(), call.conv.get(),
                                                               call.x.get(), perf[0].algo, &workspace_bytes),
                  "cudnnGetConvolutionBackwardDataWorkspaceSize");
        break;
      }
      case Direction::WeightGrad: {
        cudnnConvolutionBwdFilterAlgoPerf_t perf[CUDNN_CONVOLUTION_BWD_FILTER_ALGO_COUNT];
        check_dnn(cudnnGetConvolutionBackwardFilterAlgorithm_v7(h, call.x.get(), call.y.get(), call.conv.get(),
                                                                call.w.get(), CUDNN_CONVOLUTION_BWD_FILTER_ALGO_COUNT,
                                                                &found, perf),
                  "cudnnGetConvolutionBackwardFilterAlgorithm_v7");
        algo = perf[0].algo;
        check_dnn(cudnnGetConvolutionBackwardFilterWorkspaceSize(h, call.x.get(), call.y.get(), call.conv.get(),
                                                                 call.w.get(), perf[0].algo, &workspace_bytes),
                  "cudnnGetConvolutionBackwardFilterWorkspaceSize");
        break;
      }
    }
  }
};

// Everything that tells two plans apart.
using DnnPlanKey = std::array<int64_t, 25>;

DnnPlanKey plan_key(Direction direction, DType dtype, const DnnProblem& p) {
  DnnPlanKey key{static_cast<int64_t>(direction), static_cast<int64_t>(dtype), p.dims, p.batch, p.in_channels,
                 p.out_channels, p.groups};
  size_t at = 7;
  for (int d = 0; d < 3; ++d) {
    for (int64_t value : {p.in[d], p.out[d], p.kernel[d], int64_t{p.stride[d]}, int64_t{p.padding[d]},
                          int64_t{p.dilation[d]}}) {
      key[at++] = value;
    }
  }
  return key;
}

// A contiguous view of `ref`'s elements placed inside a larger zeroed tensor of `sizes`, at spatial offset
// `offset` (the copy between them is made by the caller).
TensorRef window_of(const TensorRef& big, const TensorRef& small, const std::array<int64_t, 3>& offset, int spatial) {
  TensorRef view = big;
  view.sizes = small.sizes;
  for (int d = 0; d < spatial; ++d) {
    view.byte_offset += static_cast<uint64_t>(offset[d] * big.strides[2 + d]) * element_size(big.dtype);
  }
  return view;
}

class CudaConv final : public ConvKernels {
 public:
  explicit CudaConv(CudaDevice& device) : device_(device) {}
  ~CudaConv() override;
  CudaConv(const CudaConv&) = delete;
  CudaConv& operator=(const CudaConv&) = delete;

  void forward(Stream& stream, const ConvForwardArgs& args) override;
  void input_grad(Stream& stream, const ConvInputGradArgs& args) override;
  void weight_grad(Stream& stream, const ConvWeightGradArgs& args) override;

 private:
  // Runs one cuDNN call on contiguous operands whose sizes are cuDNN's: y from (x, w), x from (y, w), or
  // w from (x, y), then adds `bias` (per channel of the result) where given.
  void run(Stream& stream, Direction direction, const DnnProblem& p, const TensorRef& x, const TensorRef& y,
           const TensorRef& w, const std::optional<TensorRef>& bias);
  // `ref`'s elements inside a zeroed scratch tensor of the padded problem's input sizes, `padding` in.
  TensorRef padded_copy(Stream& stream, const TensorRef& ref, const DnnProblem& padded, const ConvShape& s,
                        const ConvGeometry& g, std::vector<std::shared_ptr<Allocation>>& scratch);
  TensorRef scratch_like(Stream& stream, DType dtype, int64_t batch, int64_t channels, const DnnProblem& p,
                         const ConvShape& s, std::vector<std::shared_ptr<Allocation>>& scratch);
  void broadcast_bias(Stream& stream, const TensorRef& out, const TensorRef& bias);
  MemoryKernels& memory() const { return device_.kernels().get<MemoryKernels>(); }
  cudnnHandle_t handle(int device_index);
  const DnnPlan& plan(cudnnHandle_t h, Direction direction, const DnnProblem& p, DType dtype);

  CudaDevice& device_;
  std::mutex mutex_;  // a cuDNN handle is bound to one stream at a time
  cudnnHandle_t handle_ = nullptr;
  int handle_device_ = -1;
  std::map<DnnPlanKey, std::unique_ptr<DnnPlan>> plans_;
};

CudaConv::~CudaConv() {
  if (handle_ == nullptr) return;
  int current = -1;
  if (cudaGetDevice(&current) == cudaSuccess && cudaSetDevice(handle_device_) == cudaSuccess) {
    cudnnDestroy(handle_);
    cudaSetDevice(current);
  }
  cudaGetLastError();
}

cudnnHandle_t CudaConv::handle(int device_index) {
  if (handle_ != nullptr) return handle_;
  check_dnn(cudnnCreate(&handle_), "cudnnCreate");
  handle_device_ = device_index;
  return handle_;
}

const DnnPlan& CudaConv::plan(cudnnHandle_t h, Direction direction, const DnnProblem& p, DType dtype) {
  std::unique_ptr<DnnPlan>& planned = plans_[plan_key(direction, dtype, p)];
  if (!planned) planned = std::make_unique<DnnPlan>(h, direction, p, dnn_types(dtype));
  return *planned;
}

void CudaConv::run(Stream& stream, Direction direction, const DnnProblem& p, const TensorRef& x, const TensorRef& y,
                   const TensorRef& w, const std::optional<TensorRef>& bias) {
  const DnnTypes types = dnn_types(x.dtype);
  for (const TensorRef* ref : {&x, &y, &w}) {
    if (!fits_int(ref->numel())) throw UnsupportedError("the cuda backend's conv takes tensors below 2^31 elements");
  }
  CudaStream& cuda_stream = CudaStream::of(stream);
  ScopedDevice scoped(cuda_stream.context());
  void* x_data = device_pointer(*x.allocation, x.byte_offset);
  void* y_data = device_pointer(*y.allocation, y.byte_offset);
  void* w_data = device_pointer(*w.allocation, w.byte_offset);
  const float one_f = 1, zero_f = 0;
  const double one_d = 1, zero_d = 0;
  const void* one = types.double_scalars ? static_cast<const void*>(&one_d) : &one_f;
  const void* zero = types.double_scalars ? static_cast<const void*>(&zero_d) : &zero_f;
  std::shared_ptr<Allocation> workspace;
  std::lock_guard lock(mutex_);
  cudnnHandle_t h = handle(cuda_stream.context().index());
  check_dnn(cudnnSetStream(h, cuda_stream.handle()), "cudnnSetStream");
  const DnnPlan& planned = plan(h, direction, p, x.dtype);
  const DnnCall& call = planned.call;
  const size_t bytes = planned.workspace_bytes;
  if (bytes > 0) workspace = device_.allocator().allocate(bytes, stream.shared_from_this());
  void* space = workspace ? device_pointer(*workspace, 0) : nullptr;
  switch (direction) {
    case Direction::Forward:
      check_dnn(cudnnConvolutionForward(h, one, call.x.get(), x_data, call.w.get(), w_data, call.conv.get(),
                                        static_cast<cudnnConvolutionFwdAlgo_t>(planned.algo), space, bytes, zero,
                                        call.y.get(), y_data),
                "cudnnConvolutionForward");
      break;
    case Direction::InputGrad:
      check_dnn(cudnnConvolutionBackwardData(h, one, call.w.get(), w_data, call.y.get(), y_data, call.conv.get(),
                                             static_cast<cudnnConvolutionBwdDataAlgo_t>(planned.algo), space, bytes,
                                             zero, call.x.get(), x_data),
                "cudnnConvolutionBackwardData");
      break;
    case Direction::WeightGrad:
      check_dnn(cudnnConvolutionBackwardFilter(h, one, call.x.get(), x_data, call.y.get(), y_data, call.conv.get(),
                                               static_cast<cudnnConvolutionBwdFilterAlgo_t>(planned.algo), space,
                                               bytes, zero, call.w.get(), w_data),
                "cudnnConvolutionBackwardFilter");
      break;
  }
  if (bias) {
    // The result's channels: y's for the forward, x's for the input gradient.
    const bool on_y = direction == Direction::Forward;
    TensorDescriptor bias_desc;
    std::vector<int> bias_sizes(static_cast<size_t>(p.dims) + 2, 1);
    bias_sizes[1] = static_cast<int>(on_y ? p.out_channels : p.in_channels);
    set_tensor(bias_desc, types.data, bias_sizes);
    check_dnn(cudnnAddTensor(h, one, bias_desc.get(), device_pointer(*bias->allocation, bias->byte_offset), one,
                             on_y ? call.y.get() : call.x.get(), on_y ? y_data : x_data),
              "cudnnAddTensor");
  }
  check_launch(cuda_stream, "the conv kernel's launch");
  std::initializer_list<Allocation*> touched = {x.allocation, y.allocation, w.allocation,
                                                bias ? bias->allocation : x.allocation,
                                                workspace ? workspace.get() : x.allocation};
  cuda_stream.note_dispatch(touched);
}

TensorRef CudaConv::scratch_like(Stream& stream, DType dtype, int64_t batch, int64_t channels, const DnnProblem& p,
                                 const ConvShape& s, std::vector<std::shared_ptr<Allocation>>& scratch) {
  const int shift = p.dims - s.spatial;
  TensorRef ref;
  ref.dtype = dtype;
  ref.ndim = s.spatial + 2;
  ref.sizes[0] = batch;
  ref.sizes[1] = channels;
  for (int d = 0; d < s.spatial; ++d) ref.sizes[2 + d] = p.in[shift + d];
  int64_t stride = 1;
  for (int d = ref.ndim - 1; d >= 0; --d) {
    ref.strides[d] = stride;
    stride *= ref.sizes[d];
  }
  scratch.push_back(device_.allocator().allocate(std::max<uint64_t>(ref.numel() * element_size(dtype), 1),
                                                 stream.shared_from_this()));
  ref.allocation = scratch.back().get();
  memory().fill(stream, {ref, 0});
  return ref;
}

TensorRef CudaConv::padded_copy(Stream& stream, const TensorRef& ref, const DnnProblem& padded, const ConvShape& s,
                                const ConvGeometry& g, std::vector<std::shared_ptr<Allocation>>& scratch) {
  const TensorRef big = scratch_like(stream, ref.dtype, ref.sizes[0], ref.sizes[1], padded, s, scratch);
  // The input's positions that the padded problem reaches: from `padding` on, as many as fit.
  TensorRef source = ref;
  std::array<int64_t, 3> offset{};
  for (int d = 0; d < s.spatial; ++d) {
    offset[d] = g.padding[d];
    source.sizes[2 + d] = std::min(ref.sizes[2 + d], big.sizes[2 + d] - g.padding[d]);
  }
  if (source.numel() > 0) memory().copy(stream, {window_of(big, source, offset, s.spatial), source});
  return big;
}

void CudaConv::broadcast_bias(Stream& stream, const TensorRef& out, const TensorRef& bias) {
  TensorRef broadcast = bias;
  broadcast.ndim = out.ndim;
  broadcast.sizes = out.sizes;
  broadcast.strides = {};
  broadcast.strides[1] = bias.strides[0];
  memory().copy(stream, {out, broadcast});
}

void CudaConv::forward(Stream& stream, const ConvForwardArgs& args) {
  const ConvShape s = check_conv_args(args);
  if (args.output.numel() == 0) return;
  if (args.input.numel() == 0 || args.weight.numel() == 0) {
    if (args.bias) broadcast_bias(stream, args.output, *args.bias);
    else memory().fill(stream, {args.output, 0});
  } else if (const DnnProblem p = problem_of(s, args.geometry); p.native()) {
    run(stream, Direction::Forward, p, args.input, args.output, args.weight, args.bias);
  } else {
    std::vector<std::shared_ptr<Allocation>> scratch;
    const DnnProblem padded = p.padded();
    const TensorRef x = padded_copy(stream, args.input, padded, s, args.geometry, scratch);
    run(stream, Direction::Forward, padded, x, args.output, args.weight, args.bias);
  }
  conv_relu_in_place(device_.kernels().get<ElementwiseKernels>(), stream, args);
}

void CudaConv::input_grad(Stream& stream, const ConvInputGradArgs& args) {
  const ConvShape s = check_conv_args(args);
  if (args.grad_input.numel() == 0) return;
  if (args.grad_output.numel() == 0 || args.weight.numel() == 0) {
    if (args.bias) return broadcast_bias(stream, args.grad_input, *args.bias);
    return memory().fill(stream, {args.grad_input, 0});
  }
  const DnnProblem p = problem_of(s, args.geometry);
  if (p.native()) {
    return run(stream, Direction::InputGrad, p, args.grad_input, args.grad_output, args.weight, args.bias);
  }
  // Into a padded gradient, then its positions from `padding` on into grad_input (zero where the
  // padded problem does not reach), and the bias.
  std::vector<std::shared_ptr<Allocation>> scratch;
  const DnnProblem padded = p.padded();
  const TensorRef big = scratch_like(stream, args.grad_input.dtype, s.batch, s.in_channels, padded, s, scratch);
  run(stream, Direction::InputGrad, padded, big, args.grad_output, args.weight, std::nullopt);
  TensorRef target = args.grad_input;
  std::array<int64_t, 3> offset{};
  bool whole = true;
  for (int d = 0; d < s.spatial; ++d) {
    offset[d] = args.geometry.padding[d];
    target.sizes[2 + d] = std::min(args.grad_input.sizes[2 + d], big.sizes[2 + d] - args.geometry.padding[d]);
    whole = whole && target.sizes[2 + d] == args.grad_input.sizes[2 + d];
  }
  if (!whole) memory().fill(stream, {args.grad_input, 0});
  if (target.numel() > 0) memory().copy(stream, {target, window_of(big, target, offset, s.spatial)});
  if (args.bias) {
    TensorRef broadcast = *args.bias;
    broadcast.ndim = args.grad_input.ndim;
    broadcast.sizes = args.grad_input.sizes;
    broadcast.strides = {};
    broadcast.strides[1] = args.bias->strides[0];
    device_.kernels().get<ElementwiseKernels>().binary(
        stream, {.op = BinaryOp::Add, .out = args.grad_input, .a = args.grad_input, .b = broadcast,
                 .compute = args.grad_input.dtype});
  }
}

void CudaConv::weight_grad(Stream& stream, const ConvWeightGradArgs& args) {
  const ConvShape s = check_conv_args(args);
  conv_bias_grad_by_reduction(device_.kernels().get<ReduceKernels>(), stream, args);
  if (args.grad_weight.numel() == 0) return;
  if (args.input.numel() == 0 || args.grad_output.numel() == 0) return memory().fill(stream, {args.grad_weight, 0});
  const DnnProblem p = problem_of(s, args.geometry);
  if (p.native()) return run(stream, Direction::WeightGrad, p, args.input, args.grad_output, args.grad_weight, std::nullopt);
  std::vector<std::shared_ptr<Allocation>> scratch;
  const DnnProblem padded = p.padded();
  const TensorRef x = padded_copy(stream, args.input, padded, s, args.geometry, scratch);
  run(stream, Direction::WeightGrad, padded, x, args.grad_output, args.grad_weight, std::nullopt);
}

}  // namespace

EMBER_CUDA_KERNELS(ConvKernels, CudaConv);

}  // namespace ember::cuda
