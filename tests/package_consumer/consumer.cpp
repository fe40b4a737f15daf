// Built against an installed ember: adds two vectors on the default device and checks the result.
#include <ember.h>
#include <runtime/kernels/elementwise.h>
#include <runtime/kernels/memory.h>

#include <cstdio>
#include <cstring>

int main() {
  auto device = ember::default_device();
  auto stream = device->default_stream();
  constexpr int64_t n = 1000;
  auto a = device->allocate(n * sizeof(float));
  auto out = device->allocate(n * sizeof(float));
  auto a_ref = ember::TensorRef::contiguous(*a, ember::DType::Float32, {n});
  auto out_ref = ember::TensorRef::contiguous(*out, ember::DType::Float32, {n});
  device->kernels().get<ember::MemoryKernels>().fill(*stream, {a_ref, 1.5});
  device->kernels().get<ember::ElementwiseKernels>().binary(*stream, {.op = ember::BinaryOp::Add, .out = out_ref, .a = a_ref, .b = a_ref, .compute = ember::DType::Float32});
  auto bytes = stream->copy_to_host(out, 0, n * sizeof(float)).wait();
  float values[n];
  std::memcpy(values, bytes.data(), sizeof values);
  for (float v : values) {
    if (v != 3.0f) {
      std::fprintf(stderr, "consumer: expected 3, got %g\n", v);
      return 1;
    }
  }
  std::printf("consumer: ok on %s\n", device->info().name.c_str());
  return 0;
}
