// Kernels::matmul against LibTorch's baddbmm on the same host data: edge sizes, transposed and broadcast
// operands, bias broadcast along rows, alpha and beta, the activation epilogue, every float dtype, launch
// windows, and every Vulkan kernel (forced through EMBER_MATMUL_VARIANT) on every device.
#include <ATen/ATen.h>

#include <cmath>
#include <cstdlib>
#include <limits>
#include <optional>

#include "runtime/error.h"
#include "runtime/vulkan/vulkan_device.h"
#include "shaders/matmul/matmul_variant.h"
#include "tests/oracle.h"

namespace ember::test {
namespace {

class MatmulKernelsTest : public BackendTest {
 protected:
  void SetUp() override {
    BackendTest::SetUp();
    if (IsSkipped() || device->backend() == Backend::Vulkan) return;
    // Another backend without the kernel skips, saying so, rather than failing every case here.
    try {
      auto memory = device->allocate(64);
      const TensorRef one = view(memory.get(), DType::Float32, {1, 1, 1}, {1, 1, 1});
      device->kernels().get<MatmulKernels>().matmul(*stream, MatmulArgs{one, one, one});
      stream->synchronize();
    } catch (const UnsupportedError& error) {
      GTEST_SKIP() << error.what();
    }
  }

  // The kernels to run every case with: every Vulkan kernel (register blocks that share A within a
  // subgroup where the device has them, register blocks that do not, shared-memory tiles), or the
  // backend's own.
  std::vector<std::string> variants() const {
    if (device->backend() == Backend::Vulkan) return {"register-shared", "register-private", "tiled"};
    return {""};
  }

  // Runs `body` under every kernel of variants(), each with texel reads on and off.
  template <class Body>
  void with_every_kernel_and_read(Body body) const {
    for (const std::string& variant : variants()) {
      for (const std::string texel_reads : {"", "0"}) {
        SCOPED_TRACE("variant " + variant + ", EMBER_TEXEL_READS=" + texel_reads);
        vulkan::ScopedMatmulVariant scoped(variant);
        ScopedEnvironment scoped_texels("EMBER_TEXEL_READS", texel_reads);
        body();
      }
    }
  }
};

// A host tensor's whole storage on the device, viewed with the same sizes, strides and offset.
struct OnDevice {
  std::shared_ptr<Allocation> memory;
  TensorRef ref;
};

OnDevice to_device(Device& device, Stream& stream, const at::Tensor& host) {
  const size_t bytes = host.storage().nbytes();
  OnDevice result;
  result.memory = device.allocate(std::max<size_t>(bytes, 1), stream.shared_from_this());
  stream.copy_from_host(*result.memory, 0, host.storage().data(), bytes);
  result.ref = view(result.memory.get(), ember_dtype(host.scalar_type()), host.sizes().vec(),
                    host.strides().vec(), host.storage_offset() * host.element_size());
  return result;
}

// Reads `like`'s view back from the device copy of its storage.
at::Tensor from_device(Stream& stream, const OnDevice& on_device, const at::Tensor& like) {
  const size_t bytes = like.storage().nbytes();
  std::vector<std::byte> data = stream.copy_to_host(on_device.memory, 0, bytes).wait();
  const int64_t elements = static_cast<int64_t>(bytes / like.element_size());
  at::Tensor storage = at::empty({elements}, like.options());
  std::memcpy(storage.data_ptr(), data.data(), bytes);
  return storage.as_strided(like.sizes(), like.strides(), like.storage_offset());
}

// Tolerance per dtype relative to the scale of a sum of K unit products: |error| <= rtol * (|expected| +
// sqrt(K)). Inputs are N(0, 1), so that scale is the size of a typical result.
double relative_tolerance(at::ScalarType type) {
  switch (type) {
    case at::kDouble: return 1e-12;
    case at::kFloat: return 1e-5;
    case at::kHalf: return 2e-3;
    default: return 1e-2;  // bfloat16
  }
}

void expect_close(const at::Tensor& got, const at::Tensor& expected, at::ScalarType type, int64_t K) {
  const at::Tensor got64 = got.to(at::kDouble);
  const double tol = relative_tolerance(type);
  const at::Tensor allowed = tol * (expected.abs() + std::sqrt(static_cast<double>(std::max<int64_t>(K, 1))));
  // NaN in got fails: the comparison is false.
  const at::Tensor good = (got64 - expected).abs() <= allowed;
  if (good.all().item<bool>()) return;
  const at::Tensor bad = (~good).nonzero();
  const int64_t count = bad.size(0);
  const at::Tensor first = bad[0];
  const int64_t b = first[0].item<int64_t>(), m = first[1].item<int64_t>(), n = first[2].item<int64_t>();
  ADD_FAILURE() << count << " of " << got.numel() << " elements differ; first at [" << b << ", " << m
                << ", " << n << "]: got " << got64[b][m][n].item<double>() << ", expected "
                << expected[b][m][n].item<double>() << " (tolerance " << allowed[b][m][n].item<double>()
                << ")";
}

// Runs a · b (a_dev and b_dev: the same on the device) asking for A's row sums beside the product, both
// into outputs that start as NaN (a value the kernels do not write fails), and expects both against
// LibTorch in float64.
void expect_product_and_row_sums(Device& device, Stream& stream, const at::Tensor& a, const OnDevice& a_dev,
                                 const at::Tensor& b, const OnDevice& b_dev) {
  const double nan = std::numeric_limits<double>::quiet_NaN();
  const int64_t K = a.size(2);
  const at::Tensor out = at::full({a.size(0), a.size(1), b.size(2)}, nan);
  const at::Tensor sums = at::full({a.size(0), a.size(1), 1}, nan);
  const OnDevice out_dev = to_device(device, stream, out), sums_dev = to_device(device, stream, sums);
  MatmulArgs args{out_dev.ref, a_dev.ref, b_dev.ref};
  args.a_row_sums = sums_dev.ref;
  device.kernels().get<MatmulKernels>().matmul(stream, args);
  expect_close(from_device(stream, out_dev, out), at::bmm(a.to(at::kDouble), b.to(at::kDouble)), at::kFloat, K);
  expect_close(from_device(stream, sums_dev, sums), a.to(at::kDouble).sum(2, /*keepdim=*/true), at::kFloat, K);
}

enum class BiasKind { None, Full, Row, RowAndBatch };

struct MatmulCase {
  int64_t batch = 1, M = 1, K = 1, N = 1;
  bool a_transposed = false, b_transposed = false, out_transposed = false;
  bool a_broadcast = false, b_broadcast = false;  // one matrix seen by every batch (stride 0)
  bool stepped = false;  // A, B and out are every other column of a wider matrix (stride 2)
  BiasKind bias = BiasKind::None;
  double alpha = 1.0, beta = 1.0;
  MatmulActivation activation = MatmulActivation::None;

  std::string describe() const {
    std::string s = std::to_string(batch) + "x" + std::to_string(M) + "x" + std::to_string(K) + "x" +
                    std::to_string(N);
    if (a_transposed) s += " A^T";
    if (b_transposed) s += " B^T";
    if (out_transposed) s += " out^T";
    if (a_broadcast) s += " A-broadcast";
    if (b_broadcast) s += " B-broadcast";
    if (stepped) s += " stepped";
    if (bias != BiasKind::None) s += " bias" + std::to_string(static_cast<int>(bias));
    s += " alpha=" + std::to_string(alpha) + " beta=" + std::to_string(beta);
    if (activation != MatmulActivation::None) s += " activation" + std::to_string(static_cast<int>(activation));
    return s;
  }
};

// batch × rows × cols of N(0, 1) in `type`, stored transposed when asked, one matrix expanded over the
// Values of `type`: N(0, 1) for floating types; for integers, uniform over the dtype's whole range (the
// low bits of random int64s), so that products and sums wrap around.
at::Tensor random_values(at::IntArrayRef sizes, at::ScalarType type) {
  if (!at::isIntegralType(type, /*includeBool=*/false)) return at::randn(sizes).to(type);
  int64_t count = 1;
  for (int64_t size : sizes) count *= size;
  return at::randint(0, 256, {count * 8}, at::kByte).view(at::kLong).reshape(sizes).to(type);
}

// batch × rows × cols of random_values in `type`, stored transposed when asked, one matrix expanded over
// the batch when `broadcast`, every other column of a matrix twice as wide when `stepped`.
at::Tensor operand(at::ScalarType type, int64_t batch, int64_t rows, int64_t cols, bool transposed,
                   bool broadcast, bool stepped = false) {
  const int64_t stored = broadcast ? 1 : batch;
  const int64_t step = stepped ? 2 : 1;
  at::Tensor t = transposed ? random_values({stored, cols, rows * step}, type).transpose(1, 2)
                            : random_values({stored, rows, cols * step}, type);
  if (stepped) t = transposed ? t.slice(1, 0, rows * step, step) : t.slice(2, 0, cols * step, step);
  return broadcast ? t.expand({batch, rows, cols}) : t;
}

// The case's bias (undefined for BiasKind::None) of random_values in `type`.
at::Tensor case_bias(const MatmulCase& c, at::ScalarType type) {
  switch (c.bias) {
    case BiasKind::None: return {};
    case BiasKind::Full: return random_values({c.batch, c.M, c.N}, type);
    case BiasKind::Row: return random_values({c.batch, 1, c.N}, type).expand({c.batch, c.M, c.N});
    case BiasKind::RowAndBatch: return random_values({1, 1, c.N}, type).expand({c.batch, c.M, c.N});
  }
  return {};
}

// The case's out, filled with `fill`, in its layout (transposed, stepped).
at::Tensor case_out(const MatmulCase& c, at::ScalarType type, const at::Scalar& fill) {
  const int64_t step = c.stepped ? 2 : 1;
  at::Tensor out = c.out_transposed ? at::full({c.batch, c.N, c.M * step}, fill, at::dtype(type)).transpose(1, 2)
                                    : at::full({c.batch, c.M, c.N * step}, fill, at::dtype(type));
  if (c.stepped) {
    out = c.out_transposed ? out.slice(1, 0, c.M * step, step) : out.slice(2, 0, c.N * step, step);
  }
  return out;
}

// LibTorch's activation of the (float64) product.
at::Tensor activated(const at::Tensor& product, MatmulActivation activation) {
  switch (activation) {
    case MatmulActivation::None: return product;
    case MatmulActivation::Relu: return at::relu(product);
    case MatmulActivation::Gelu: return at::gelu(product);
    case MatmulActivation::GeluTanh: return at::gelu(product, "tanh");
  }
  return product;
}

// Runs the case's product of a and b (plus bias, when defined) into out_dev; returns the beta it used.
double run_matmul(Device& device, Stream& stream, const MatmulCase& c, const at::Tensor& a, const at::Tensor& b,
                  const at::Tensor& bias, const OnDevice& out_dev) {
  const OnDevice a_dev = to_device(device, stream, a);
  const OnDevice b_dev = to_device(device, stream, b);
  std::optional<OnDevice> bias_dev;
  MatmulArgs args{out_dev.ref, a_dev.ref, b_dev.ref};
  if (bias.defined()) {
    bias_dev = to_device(device, stream, bias);
    args.bias = bias_dev->ref;
  }
  args.alpha = c.alpha;
  args.beta = bias.defined() ? c.beta : 0.0;
  args.activation = c.activation;
  device.kernels().get<MatmulKernels>().matmul(stream, args);
  return args.beta;
}

void run_case(Device& device, Stream& stream, const MatmulCase& c, at::ScalarType type) {
  SCOPED_TRACE(c.describe() + " " + std::string(c10::toString(type)));
  const at::Tensor a = operand(type, c.batch, c.M, c.K, c.a_transposed, c.a_broadcast, c.stepped);
  const at::Tensor b = operand(type, c.batch, c.K, c.N, c.b_transposed, c.b_broadcast, c.stepped);
  const at::Tensor bias = case_bias(c, type);
  // NaN everywhere first: an element the kernel forgets fails the comparison, and the gaps of a
  // stepped out must stay NaN.
  const double nan = std::numeric_limits<double>::quiet_NaN();
  const at::Tensor out = case_out(c, type, nan);

  const OnDevice out_dev = to_device(device, stream, out);
  const double beta = run_matmul(device, stream, c, a, b, bias, out_dev);

  // The oracle computes in float64 from the same (already rounded) inputs.
  const at::Tensor a64 = a.to(at::kDouble), b64 = b.to(at::kDouble);
  const at::Tensor expected = activated(bias.defined() ? at::baddbmm(bias.to(at::kDouble), a64, b64, beta, c.alpha)
                                                       : at::bmm(a64, b64) * c.alpha,
                                       c.activation);
  const at::Tensor got = from_device(stream, out_dev, out);
  expect_close(got, expected, type, c.K);
  if (c.stepped) {
    const auto stored = static_cast<int64_t>(out.storage().nbytes() / out.element_size());
    const at::Tensor storage = got.as_strided({stored}, {1}, 0);
    EXPECT_EQ(storage.isnan().sum().item<int64_t>(), storage.numel() - out.numel())
        << "the kernel wrote outside out's view";
  }
}

const int64_t kSizes[] = {1, 3, 17, 64, 65, 127, 200};

TEST_P(MatmulKernelsTest, Float32EdgeSizes) {
  at::manual_seed(1);
  for (const std::string& variant : variants()) {
    SCOPED_TRACE("variant " + variant);
    vulkan::ScopedMatmulVariant scoped(variant);
    // Every (M, N) pair of the edge sizes, K cycling through them too.
    int i = 0;
    for (int64_t M : kSizes) {
      for (int64_t N : kSizes) {
        MatmulCase c;
        c.M = M;
        c.N = N;
        c.K = kSizes[i++ % 7];
        run_case(*device, *stream, c, at::kFloat);
      }
    }
  }
}

// Operand layouts, broadcasting, bias kinds and scalars, at sizes that are not multiples of any tile.
std::vector<MatmulCase> layout_cases() {
  std::vector<MatmulCase> cases;
  for (int t = 0; t < 4; ++t) {
    MatmulCase c;
    c.M = 65;
    c.K = 127;
    c.N = 17;
    c.a_transposed = t & 1;
    c.b_transposed = t & 2;
    cases.push_back(c);
  }
  MatmulCase c;
  c.batch = 3;
  c.M = 17;
  c.K = 65;
  c.N = 64;
  c.a_broadcast = true;
  c.bias = BiasKind::Row;
  c.alpha = 0.5;
  c.beta = -2.0;
  cases.push_back(c);
  c.a_broadcast = false;
  c.b_broadcast = true;
  c.b_transposed = true;
  c.bias = BiasKind::RowAndBatch;
  c.alpha = 1.0;
  c.beta = 1.0;
  cases.push_back(c);  // a batched Linear: x @ W^T + b
  c.b_broadcast = false;
  c.b_transposed = false;
  c.a_transposed = true;
  c.out_transposed = true;
  c.bias = BiasKind::Full;
  c.alpha = -1.5;
  c.beta = 0.25;
  cases.push_back(c);
  MatmulCase stepped;  // every other column of A, B and out; A and out also transposed
  stepped.batch = 2;
  stepped.M = 33;
  stepped.K = 40;
  stepped.N = 65;
  stepped.stepped = true;
  stepped.bias = BiasKind::Full;
  cases.push_back(stepped);
  stepped.a_transposed = true;
  stepped.out_transposed = true;
  cases.push_back(stepped);
  MatmulCase vector_case;  // matrix-vector and vector-matrix products
  vector_case.batch = 3;
  vector_case.M = 200;
  vector_case.K = 127;
  vector_case.N = 1;
  vector_case.bias = BiasKind::Row;
  cases.push_back(vector_case);
  vector_case.M = 1;
  vector_case.N = 200;
  vector_case.a_transposed = true;
  cases.push_back(vector_case);
  return cases;
}

TEST_P(MatmulKernelsTest, Float32LayoutsBroadcastAndBias) {
  at::manual_seed(2);
  for (const std::string& variant : variants()) {
    SCOPED_TRACE("variant " + variant);
    vulkan::ScopedMatmulVariant scoped(variant);
    for (const MatmulCase& c : layout_cases()) run_case(*device, *stream, c, at::kFloat);
  }
}

TEST_P(MatmulKernelsTest, HalfAndBFloat16AccumulateInFloat32) {
  at::manual_seed(3);
  for (const std::string& variant : variants()) {
    SCOPED_TRACE("variant " + variant);
    vulkan::ScopedMatmulVariant scoped(variant);
    for (at::ScalarType type : {at::kHalf, at::kBFloat16}) {
      if (!device->supports(ember_dtype(type))) {
        std::printf("[  NOTE    ] %s skipped: the device cannot store it\n", c10::toString(type));
        continue;
      }
      MatmulCase c;
      c.M = 127;
      c.K = 200;
      c.N = 65;
      c.bias = BiasKind::Row;
      run_case(*device, *stream, c, type);
      c.batch = 3;
      c.M = 17;
      c.N = 3;
      c.b_transposed = true;
      c.a_broadcast = true;
      c.alpha = 2.0;
      c.beta = 0.5;
      c.bias = BiasKind::Full;
      run_case(*device, *stream, c, type);
    }
  }
}

TEST_P(MatmulKernelsTest, Float64) {
  if (!device->supports(DType::Float64)) {
    GTEST_SKIP() << device->info().name << " has no float64";
  }
  at::manual_seed(4);
  for (const std::string& variant : variants()) {
    SCOPED_TRACE("variant " + variant);
    vulkan::ScopedMatmulVariant scoped(variant);
    for (const MatmulCase& c : layout_cases()) run_case(*device, *stream, c, at::kDouble);
    MatmulCase c;
    c.M = 200;
    c.K = 64;
    c.N = 127;
    c.bias = BiasKind::Full;
    c.beta = 0.5;
    run_case(*device, *stream, c, at::kDouble);
  }
}

// llvmpipe ends a shader loop after 65535 iterations, so a CPU driver's launches take K in pieces; a
// product of 200000 ones must count them all (float32 holds the integer exactly).
TEST_P(MatmulKernelsTest, InnerDimensionLongerThanALoopMayRun) {
  const int64_t K = 200000;
  const at::Tensor a = at::ones({1, 2, K}), b = at::ones({1, K, 3});
  const OnDevice a_dev = to_device(*device, *stream, a), b_dev = to_device(*device, *stream, b);
  const at::Tensor out = at::zeros({1, 2, 3});
  const OnDevice out_dev = to_device(*device, *stream, out);
  for (const std::string& variant : variants()) {
    SCOPED_TRACE("variant " + variant);
    vulkan::ScopedMatmulVariant scoped(variant);
    device->kernels().get<MatmulKernels>().matmul(*stream, MatmulArgs{out_dev.ref, a_dev.ref, b_dev.ref});
    EXPECT_TRUE(at::equal(from_device(*stream, out_dev, out), at::full({1, 2, 3}, double(K))));
  }
}

// relu, gelu and gelu with tanh in the store, after alpha and the bias, in every float dtype and over
// layouts whose pairs of loads differ.
TEST_P(MatmulKernelsTest, ActivationEpilogue) {
  at::manual_seed(12);
  for (const std::string& variant : variants()) {
    SCOPED_TRACE("variant " + variant);
    vulkan::ScopedMatmulVariant scoped(variant);
    for (at::ScalarType type : {at::kFloat, at::kHalf, at::kBFloat16, at::kDouble}) {
      if (!device->supports(ember_dtype(type))) {
        std::printf("[  NOTE    ] %s skipped: the device cannot store it\n", c10::toString(type));
        continue;
      }
      for (MatmulActivation activation :
           {MatmulActivation::Relu, MatmulActivation::Gelu, MatmulActivation::GeluTanh}) {
        MatmulCase c;  // a Linear: x @ W^T + b
        c.M = 65;
        c.K = 33;
        c.N = 17;
        c.b_transposed = true;
        c.bias = BiasKind::Row;
        c.activation = activation;
        run_case(*device, *stream, c, type);
        c.batch = 2;
        c.b_transposed = false;
        c.a_transposed = true;
        c.out_transposed = true;
        c.bias = BiasKind::Full;
        c.alpha = -0.5;
        c.beta = 2.0;
        run_case(*device, *stream, c, type);
        c.K = 0;  // act(beta * bias)
        run_case(*device, *stream, c, type);
      }
    }
  }
  // Integer products have no activation.
  auto memory = device->allocate(64);
  const TensorRef i = view(memory.get(), DType::Int32, {1, 2, 2}, {4, 2, 1});
  MatmulArgs args{i, i, i};
  args.activation = MatmulActivation::Relu;
  expect_error<Error>([&] { device->kernels().get<MatmulKernels>().matmul(*stream, args); },
                      "matmul kernel: an activation epilogue takes floating operands, not int32");
}

// Even sizes, unit strides and aligned starts let the register kernel read operands two elements at a
// time, along K, M or N depending on the layout; an odd start must turn that off. float32 pairs are read
// through texel views where the windows allow, and through storage buffers with EMBER_TEXEL_READS=0.
TEST_P(MatmulKernelsTest, PairedLoadsInEveryLayout) {
  at::manual_seed(9);
  with_every_kernel_and_read([&] {
    // float16 and bfloat16 pairs (one 32-bit word) are read in HalfAndBFloat16AccumulateInFloat32.
    // N = 20 and 36: quads of columns (whole texels) for B contiguous along N; 36 ends inside a tile.
    // K = 132: quads along K for operands contiguous along K.
    for (auto [k, n] : {std::pair<int64_t, int64_t>{130, 18}, {130, 20}, {130, 36}, {132, 18}, {132, 36}}) {
      for (int t = 0; t < 4; ++t) {
        MatmulCase c;
        c.batch = 2;
        c.M = 66;
        c.K = k;
        c.N = n;
        c.a_transposed = t & 1;  // pairs along M instead of K
        c.b_transposed = t & 2;  // pairs along K instead of N
        c.bias = BiasKind::Row;
        run_case(*device, *stream, c, at::kFloat);
      }
    }
    // A starting on an odd element, then B: no pairs for that operand.
    const at::Tensor a = at::randn({1 + 2 * 66 * 130}).slice(0, 1).view({2, 66, 130});
    const at::Tensor b = at::randn({1 + 2 * 130 * 18}).slice(0, 1).view({2, 130, 18});
    const at::Tensor out = at::zeros({2, 66, 18});
    const OnDevice a_dev = to_device(*device, *stream, a), b_dev = to_device(*device, *stream, b);
    const OnDevice out_dev = to_device(*device, *stream, out);
    device->kernels().get<MatmulKernels>().matmul(*stream, MatmulArgs{out_dev.ref, a_dev.ref, b_dev.ref});
    expect_close(from_device(*stream, out_dev, out), at::bmm(a.to(at::kDouble), b.to(at::kDouble)),
                 at::kFloat, 130);
  });
  // lavapipe takes the texel variant for the aligned float32 cases above.
  auto* vulkan_device = dynamic_cast<vulkan::VulkanDevice*>(device.get());
  if (vulkan_device != nullptr && device->info().driver.find("llvmpipe") != std::string::npos) {
    EXPECT_TRUE(vulkan_device->pipelines().made("matmul_register_f32_texel"));
  }
}

// a_row_sums: Σ over k of A's rows beside the product (a Linear's bias gradient beside its weight gradient),
// in every kernel and layout, through the texel variant and without it. The register blocks that share A
// sum them in the product's launch on lavapipe; the others run a reduction after it.
TEST_P(MatmulKernelsTest, RowSumsOfABesideTheProduct) {
  at::manual_seed(12);
  struct RowSumsCase {
    int64_t batch, M, K, N;
    bool a_transposed;  // A contiguous along M, as gradᵀ is in a Linear's weight gradient
    int64_t a_lead;     // elements before A in its buffer (odd: no pairs, no texels)
  };
  const RowSumsCase cases[] = {
      {1, 40, 70, 33, true, 0},   // a Linear's weight gradient: rows past a block, K past a chunk
      {1, 10, 64, 256, true, 0},  // the Fashion-MNIST MLP's second layer
      {1, 17, 66, 9, false, 0},   // pairs along K
      {2, 33, 131, 20, false, 0}, // odd K, a batch
      {1, 5, 3, 7, true, 0},      // K shorter than one lane's share of a chunk
      {1, 18, 1, 4, false, 0},
      {1, 24, 50, 12, true, 1},   // A one element into its buffer
  };
  with_every_kernel_and_read([&] {
    for (const RowSumsCase& c : cases) {
      SCOPED_TRACE(std::to_string(c.batch) + "x" + std::to_string(c.M) + "x" + std::to_string(c.K) + "x" +
                   std::to_string(c.N) + (c.a_transposed ? " A along M" : "") + " lead " + std::to_string(c.a_lead));
      const int64_t a_numel = c.batch * c.M * c.K;
      at::Tensor a = at::randn({c.a_lead + a_numel}).slice(0, c.a_lead);
      a = c.a_transposed ? a.view({c.batch, c.K, c.M}).transpose(1, 2) : a.view({c.batch, c.M, c.K});
      const at::Tensor b = at::randn({c.batch, c.K, c.N});
      expect_product_and_row_sums(*device, *stream, a, to_device(*device, *stream, a), b,
                                  to_device(*device, *stream, b));
    }
  });
}

// On lavapipe the shared blocks sum A's rows in the product's launch: one dispatch, not two.
TEST_P(MatmulKernelsTest, SharedBlocksSumRowsInTheProductsLaunch) {
  auto* vulkan_device = dynamic_cast<vulkan::VulkanDevice*>(device.get());
  if (vulkan_device == nullptr || !vulkan::register_blocks_can_share_a(*vulkan_device)) {
    GTEST_SKIP() << "needs the register blocks that share A (subgroups of 8 with shuffles, as on lavapipe)";
  }
  at::manual_seed(13);
  vulkan::ScopedMatmulVariant scoped("register-shared");
  const at::Tensor a = at::randn({1, 64, 256}).transpose(1, 2);  // gradᵀ of a 64 × 256 grad_output
  const at::Tensor b = at::randn({1, 64, 784});
  const at::Tensor out = at::zeros({1, 256, 784});
  const at::Tensor sums = at::zeros({1, 256, 1});
  const OnDevice a_dev = to_device(*device, *stream, a), b_dev = to_device(*device, *stream, b);
  const OnDevice out_dev = to_device(*device, *stream, out), sums_dev = to_device(*device, *stream, sums);
  MatmulArgs args{out_dev.ref, a_dev.ref, b_dev.ref};
  args.a_row_sums = sums_dev.ref;
  const StreamStats before = stream->stats();
  device->kernels().get<MatmulKernels>().matmul(*stream, args);
  EXPECT_EQ(stream->stats().dispatches - before.dispatches, 1u);
  expect_close(from_device(*stream, sums_dev, sums), a.to(at::kDouble).sum(2, /*keepdim=*/true), at::kFloat, 64);
}

// "register-shared" must reach the shared blocks where they exist, or the cases above would test the
// private ones twice: lavapipe has the subgroups they need.
TEST_P(MatmulKernelsTest, LavapipeRunsTheBlocksThatShareA) {
  auto* vulkan_device = dynamic_cast<vulkan::VulkanDevice*>(device.get());
  if (vulkan_device == nullptr || device->info().driver.find("llvmpipe") == std::string::npos) {
    GTEST_SKIP() << "the check is for lavapipe; other devices share A when their subgroups allow it";
  }
  EXPECT_TRUE(vulkan::register_blocks_can_share_a(*vulkan_device));
}

// Mixed operand dtypes: each operand loads from its own dtype (tensor/ does not send these today).
TEST_P(MatmulKernelsTest, OperandsLoadFromTheirOwnDtypes) {
  if (!device->supports(DType::Float16) || !device->supports(DType::BFloat16)) {
    GTEST_SKIP() << device->info().name << " lacks float16 or bfloat16";
  }
  at::manual_seed(5);
  for (const std::string& variant : variants()) {
    SCOPED_TRACE("variant " + variant);
    vulkan::ScopedMatmulVariant scoped(variant);
    const at::Tensor a = at::randn({1, 17, 65}).to(at::kHalf);
    const at::Tensor b = at::randn({1, 65, 3}).to(at::kBFloat16);
    const at::Tensor bias = at::randn({1, 17, 3});
    const at::Tensor out = at::zeros({1, 17, 3});
    const OnDevice a_dev = to_device(*device, *stream, a), b_dev = to_device(*device, *stream, b);
    const OnDevice bias_dev = to_device(*device, *stream, bias), out_dev = to_device(*device, *stream, out);
    device->kernels().get<MatmulKernels>().matmul(*stream, MatmulArgs{out_dev.ref, a_dev.ref, b_dev.ref, bias_dev.ref, 1.0, 1.0});
    const at::Tensor expected =
        at::baddbmm(bias.to(at::kDouble), a.to(at::kDouble), b.to(at::kDouble));
    expect_close(from_device(*stream, out_dev, out), expected, at::kFloat, 65);
  }
}

// PyTorch's addmm with beta == 0 ignores the bias, NaN included.
TEST_P(MatmulKernelsTest, BetaZeroIgnoresNaNInBias) {
  at::manual_seed(6);
  for (const std::string& variant : variants()) {
    SCOPED_TRACE("variant " + variant);
    vulkan::ScopedMatmulVariant scoped(variant);
    const at::Tensor a = at::randn({2, 17, 33}), b = at::randn({2, 33, 65});
    const at::Tensor bias = at::full({2, 17, 65}, std::numeric_limits<float>::quiet_NaN());
    const at::Tensor out = at::zeros({2, 17, 65});
    const OnDevice a_dev = to_device(*device, *stream, a), b_dev = to_device(*device, *stream, b);
    const OnDevice bias_dev = to_device(*device, *stream, bias), out_dev = to_device(*device, *stream, out);
    device->kernels().get<MatmulKernels>().matmul(*stream, MatmulArgs{out_dev.ref, a_dev.ref, b_dev.ref, bias_dev.ref, 3.0, 0.0});
    const at::Tensor expected =
        at::baddbmm(bias.to(at::kDouble), a.to(at::kDouble), b.to(at::kDouble), 0.0, 3.0);
    ASSERT_FALSE(expected.isnan().any().item<bool>()) << "the oracle ignores the bias too";
    expect_close(from_device(*stream, out_dev, out), expected, at::kFloat, 33);
  }
}

// K == 0: out = beta * bias, or zeros without a bias.
TEST_P(MatmulKernelsTest, EmptyInnerDimension) {
  at::manual_seed(7);
  for (const std::string& variant : variants()) {
    SCOPED_TRACE("variant " + variant);
    vulkan::ScopedMatmulVariant scoped(variant);
    MatmulCase c;
    c.batch = 2;
    c.M = 65;
    c.K = 0;
    c.N = 17;
    run_case(*device, *stream, c, at::kFloat);
    c.bias = BiasKind::Row;
    c.beta = 0.5;
    run_case(*device, *stream, c, at::kFloat);
  }
}

// Empty M, N or batch: nothing to do, and out (with no elements to hold) is not touched.
TEST_P(MatmulKernelsTest, EmptyOutputDoesNothing) {
  auto memory = device->allocate(64);
  MatmulKernels& kernels = device->kernels().get<MatmulKernels>();
  for (const std::vector<int64_t>& bmkn :
       std::vector<std::vector<int64_t>>{{1, 0, 3, 4}, {1, 3, 4, 0}, {0, 3, 4, 5}, {2, 0, 0, 0}}) {
    const int64_t B = bmkn[0], M = bmkn[1], K = bmkn[2], N = bmkn[3];
    const TensorRef a = view(memory.get(), DType::Float32, {B, M, K}, {0, 0, 0});
    const TensorRef b = view(memory.get(), DType::Float32, {B, K, N}, {0, 0, 0});
    const TensorRef out = view(memory.get(), DType::Float32, {B, M, N}, {0, 0, 0});
    EXPECT_NO_THROW(kernels.matmul(*stream, MatmulArgs{out, a, b}));
  }
  stream->synchronize();
}

// Integer products wrap around as LibTorch's CPU ones do, so they must equal its integer baddbmm
// exactly; alpha and beta are truncated toward zero, as PyTorch converts them for integers.
void run_integer_case(Device& device, Stream& stream, const MatmulCase& c, at::ScalarType type) {
  SCOPED_TRACE(c.describe() + " " + std::string(c10::toString(type)));
  const at::Tensor a = operand(type, c.batch, c.M, c.K, c.a_transposed, c.a_broadcast, c.stepped);
  const at::Tensor b = operand(type, c.batch, c.K, c.N, c.b_transposed, c.b_broadcast, c.stepped);
  const at::Tensor bias = case_bias(c, type);
  // A value the kernel never writes: what stays there marks forgotten elements, and the gaps of a
  // stepped out must keep it.
  const int64_t sentinel = 0x5a;
  const at::Tensor out = case_out(c, type, sentinel);
  const OnDevice out_dev = to_device(device, stream, out);
  const double beta = run_matmul(device, stream, c, a, b, bias, out_dev);

  // The oracle takes the truncated scalars as integers: LibTorch refuses floating ones on some paths.
  const at::Tensor expected =
      at::baddbmm(bias.defined() ? bias : at::zeros({c.batch, c.M, c.N}, type), a, b,
                  static_cast<int64_t>(beta), static_cast<int64_t>(c.alpha));
  const at::Tensor got = from_device(stream, out_dev, out);
  EXPECT_TRUE(at::equal(got, expected)) << "got\n" << got << "\nexpected\n" << expected;
  if (c.stepped) {
    const auto stored = static_cast<int64_t>(out.storage().nbytes() / out.element_size());
    const at::Tensor storage = got.as_strided({stored}, {1}, 0);
    at::Tensor written = at::zeros({stored}, at::kBool);
    written.as_strided(out.sizes(), out.strides(), out.storage_offset()).fill_(true);
    EXPECT_TRUE(storage.masked_select(~written).eq(sentinel).all().item<bool>())
        << "the kernel wrote outside out's view";
  }
}

TEST_P(MatmulKernelsTest, IntegerProductsWrapAround) {
  at::manual_seed(10);
  for (const std::string& variant : variants()) {
    SCOPED_TRACE("variant " + variant);
    vulkan::ScopedMatmulVariant scoped(variant);
    for (at::ScalarType type : {at::kInt, at::kLong}) {
      if (!device->supports(ember_dtype(type))) {
        std::printf("[  NOTE    ] %s skipped: the device lacks it\n", c10::toString(type));
        continue;
      }
      for (const MatmulCase& c : layout_cases()) run_integer_case(*device, *stream, c, type);
      MatmulCase empty_inner;  // out = beta * bias
      empty_inner.batch = 2;
      empty_inner.M = 5;
      empty_inner.K = 0;
      empty_inner.N = 3;
      empty_inner.bias = BiasKind::Full;
      empty_inner.beta = 3.0;
      run_integer_case(*device, *stream, empty_inner, type);
    }
    // The narrow types compute in int32 and keep the low bits.
    for (at::ScalarType type : {at::kChar, at::kByte, at::kShort}) {
      if (!device->supports(ember_dtype(type))) {
        std::printf("[  NOTE    ] %s skipped: the device lacks it\n", c10::toString(type));
        continue;
      }
      MatmulCase c;
      c.batch = 2;
      c.M = 17;
      c.K = 33;
      c.N = 9;
      c.b_transposed = true;
      c.bias = BiasKind::Row;
      c.alpha = 3.0;
      c.beta = -2.0;
      run_integer_case(*device, *stream, c, type);
    }
  }
}

TEST_P(MatmulKernelsTest, BoolAndMixedOperandsAreRefused) {
  auto memory = device->allocate(64);
  MatmulKernels& kernels = device->kernels().get<MatmulKernels>();
  const TensorRef f = view(memory.get(), DType::Float32, {1, 2, 2}, {4, 2, 1});
  const TensorRef i = view(memory.get(), DType::Int32, {1, 2, 2}, {4, 2, 1});
  const TensorRef b = view(memory.get(), DType::Bool, {1, 2, 2}, {4, 2, 1});
  try {
    kernels.matmul(*stream, MatmulArgs{b, b, b});
    FAIL() << "bool matmul did not throw";
  } catch (const UnsupportedError& error) {
    EXPECT_NE(std::string(error.what()).find("bool"), std::string::npos) << error.what();
  }
  EXPECT_THROW(kernels.matmul(*stream, MatmulArgs{f, i, f}), Error);
  EXPECT_THROW(kernels.matmul(*stream, MatmulArgs{i, i, f}), Error);
}

// Operands whose extent passes one storage-buffer binding: the launch is split along the batch, then
// along rows; a B matrix that alone passes it is refused with UnsupportedError. The operands are laid
// out with huge strides over memory that is mostly never written, so the test stays small.
class MatmulWindowsTest : public MatmulKernelsTest {
 protected:
  void SetUp() override {
    MatmulKernelsTest::SetUp();
    if (IsSkipped()) return;
    range_ = device->info().max_storage_buffer_range;
    if (range_ == 0 || range_ > (uint64_t{512} << 20)) {
      GTEST_SKIP() << "bindings reach " << range_ << " bytes here; the test needs a device that "
                   << "binds at most 512 MiB (lavapipe: 128 MiB)";
    }
  }

  // `host` (contiguous batch × rows × cols float32) copied row by row into fresh memory with the given
  // batch and row strides (elements) and unit column stride.
  OnDevice place(const at::Tensor& host, int64_t batch_stride, int64_t row_stride) {
    const int64_t batch = host.size(0), rows = host.size(1), cols = host.size(2);
    const uint64_t elements = (batch - 1) * batch_stride + (rows - 1) * row_stride + cols;
    OnDevice result;
    result.memory = device->allocate(elements * sizeof(float));
    for (int64_t b = 0; b < batch; ++b) {
      for (int64_t r = 0; r < rows; ++r) {
        stream->copy_from_host(*result.memory, (b * batch_stride + r * row_stride) * sizeof(float),
                               host[b][r].data_ptr<float>(), cols * sizeof(float));
      }
    }
    result.ref = view(result.memory.get(), DType::Float32, {batch, rows, cols},
                      {batch_stride, row_stride, 1});
    return result;
  }

  // Elements of float32 that span a little more than `fraction` of one binding.
  int64_t stride_for(double fraction) const {
    return static_cast<int64_t>(static_cast<double>(range_) * fraction / sizeof(float));
  }

  uint64_t range_ = 0;
};

TEST_P(MatmulWindowsTest, SplitsTheBatchAndTheRows) {
  at::manual_seed(8);
  for (const std::string& variant : variants()) {
    SCOPED_TRACE("variant " + variant);
    vulkan::ScopedMatmulVariant scoped(variant);
    // B's matrices lie 0.6 bindings apart: at most two share a window.
    const at::Tensor a = at::randn({3, 5, 17}), b = at::randn({3, 17, 9});
    const OnDevice a_dev = to_device(*device, *stream, a);
    const OnDevice b_dev = place(b, stride_for(0.6), 9);
    // A's rows lie 0.4 bindings apart: a window holds three, taken two at a time (pairs of rows stay
    // aligned), so five take three launches.
    const at::Tensor a_rows = at::randn({1, 5, 17});
    const OnDevice a_rows_dev = place(a_rows, 0, stride_for(0.4));
    const at::Tensor b_one = at::randn({1, 17, 9});
    const OnDevice b_one_dev = to_device(*device, *stream, b_one);

    const at::Tensor out = at::zeros({3, 5, 9}), out_rows = at::zeros({1, 5, 9});
    const OnDevice out_dev = to_device(*device, *stream, out);
    const OnDevice out_rows_dev = to_device(*device, *stream, out_rows);
    // B's matrices {0, 1} and {2}; A's rows {0, 1}, {2, 3} and {4}.
    uint64_t before = stream->stats().dispatches;
    device->kernels().get<MatmulKernels>().matmul(*stream, MatmulArgs{out_dev.ref, a_dev.ref, b_dev.ref});
    EXPECT_EQ(stream->stats().dispatches - before, 2u);
    before = stream->stats().dispatches;
    device->kernels().get<MatmulKernels>().matmul(*stream, MatmulArgs{out_rows_dev.ref, a_rows_dev.ref, b_one_dev.ref});
    EXPECT_EQ(stream->stats().dispatches - before, 3u);
    expect_close(from_device(*stream, out_dev, out), at::bmm(a.to(at::kDouble), b.to(at::kDouble)),
                 at::kFloat, 17);
    expect_close(from_device(*stream, out_rows_dev, out_rows),
                 at::bmm(a_rows.to(at::kDouble), b_one.to(at::kDouble)), at::kFloat, 17);
  }
}

// A's row sums over launches that each take part of the rows (in the register kernel, each launch sums
// its own rows), and over a product split along K (summed apart, after the halves).
TEST_P(MatmulWindowsTest, RowSumsAcrossLaunches) {
  at::manual_seed(14);
  with_every_kernel_and_read([&] {
    // A's rows 0.4 bindings apart (a multiple of four elements, so that quads and texels stay possible).
    const at::Tensor a = at::randn({1, 5, 16}), b = at::randn({1, 16, 8});
    expect_product_and_row_sums(*device, *stream, a, place(a, 0, stride_for(0.4) / 4 * 4), b,
                                to_device(*device, *stream, b));

    // Two rows of B 1.2 bindings apart: halves of K.
    const at::Tensor a_k = at::randn({1, 3, 2}), b_k = at::randn({1, 2, 3});
    expect_product_and_row_sums(*device, *stream, a_k, to_device(*device, *stream, a_k), b_k,
                                place(b_k, 0, stride_for(1.2)));
  });
}

TEST_P(MatmulWindowsTest, MatrixLargerThanABindingIsSplitAlongK) {
  // Two rows of B, 1.2 bindings apart: no window holds the matrix, so the product is taken in halves
  // of K, the second accumulating into the first.
  const at::Tensor b = at::randn({1, 2, 3});
  const OnDevice b_dev = place(b, 0, stride_for(1.2));
  const at::Tensor a = at::randn({1, 1, 2});
  const OnDevice a_dev = to_device(*device, *stream, a);
  const at::Tensor out = at::zeros({1, 1, 3});
  const OnDevice out_dev = to_device(*device, *stream, out);
  const uint64_t before = stream->stats().dispatches;
  device->kernels().get<MatmulKernels>().matmul(*stream, MatmulArgs{out_dev.ref, a_dev.ref, b_dev.ref});
  EXPECT_EQ(stream->stats().dispatches - before, 2u);
  expect_close(from_device(*stream, out_dev, out), at::bmm(a.to(at::kDouble), b.to(at::kDouble)), at::kFloat,
               2);
}

TEST_P(MatmulWindowsTest, SplitAlongKActivatesTheFinishedSumOnly) {
  // The first half of K sums to -1, -2 and 3, the whole to 1, -1 and -2: relu after the first half would
  // give 2, 1 and 0.
  const at::Tensor b = at::tensor({-1.0f, -2.0f, 3.0f, 2.0f, 1.0f, -5.0f}).reshape({1, 2, 3});
  const OnDevice b_dev = place(b, 0, stride_for(1.2));
  const at::Tensor a = at::ones({1, 1, 2});
  const OnDevice a_dev = to_device(*device, *stream, a);
  const at::Tensor out = at::zeros({1, 1, 3});
  const OnDevice out_dev = to_device(*device, *stream, out);
  MatmulArgs args{out_dev.ref, a_dev.ref, b_dev.ref};
  args.activation = MatmulActivation::Relu;
  device->kernels().get<MatmulKernels>().matmul(*stream, args);
  expect_close(from_device(*stream, out_dev, out), at::relu(at::bmm(a.to(at::kDouble), b.to(at::kDouble))),
               at::kFloat, 2);
}

TEST(MatmulVariant, ChosenPerDeviceClassAndOverridden) {
  DeviceInfo cpu;
  cpu.kind = "CPU";
  DeviceInfo gpu;
  gpu.kind = "discrete GPU";
  {
    vulkan::ScopedMatmulVariant none("");
    EXPECT_EQ(vulkan::matmul_variant(cpu), vulkan::MatmulVariant::Register);
    EXPECT_EQ(vulkan::matmul_variant(gpu), vulkan::MatmulVariant::Tiled);
  }
  {
    vulkan::ScopedMatmulVariant forced("tiled");
    EXPECT_EQ(vulkan::matmul_variant(cpu), vulkan::MatmulVariant::Tiled);
  }
  {
    vulkan::ScopedMatmulVariant forced("register");
    EXPECT_EQ(vulkan::matmul_variant(gpu), vulkan::MatmulVariant::Register);
  }
  {
    vulkan::ScopedMatmulVariant forced("register-shared");
    EXPECT_EQ(vulkan::matmul_variant(gpu), vulkan::MatmulVariant::RegisterShared);
  }
  {
    vulkan::ScopedMatmulVariant forced("register-private");
    EXPECT_EQ(vulkan::matmul_variant(cpu), vulkan::MatmulVariant::RegisterPrivate);
  }
  {
    vulkan::ScopedMatmulVariant wrong("fastest");
    EXPECT_THROW(vulkan::matmul_variant(gpu), Error);
  }
}

INSTANTIATE_TEST_SUITE_P(Backends, MatmulKernelsTest, testing::Values("vulkan", "cuda"), backend_test_name);
INSTANTIATE_TEST_SUITE_P(Backends, MatmulWindowsTest, testing::Values("vulkan", "cuda"), backend_test_name);

}  // namespace
}  // namespace ember::test
