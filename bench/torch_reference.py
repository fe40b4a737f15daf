"""PyTorch's timings of the ops ember-bench measures, on the same GPU, for the ratios in PERFORMANCE.md.

Run by scripts/run-gpu.sh. Prints one line per op: name, milliseconds per op, and GB/s or GFLOP/s.
"""
import time

import torch


def timed(fn, repeats=20):
    fn()
    torch.cuda.synchronize()
    start = time.perf_counter()
    for _ in range(repeats):
        fn()
    torch.cuda.synchronize()
    return (time.perf_counter() - start) / repeats


def main():
    if not torch.cuda.is_available():
        print("no CUDA device for PyTorch")
        return
    side = 2048
    a = torch.rand(side, side, device="cuda")
    b = torch.rand(side, side, device="cuda")
    copy_s = timed(lambda: a.clone())
    print(f"copy 2048x2048 f32: {copy_s * 1e3:.3f} ms, {2 * a.nbytes() / copy_s / 1e9:.1f} GB/s")
    for name, fn, bytes_moved in [
        ("add", lambda: a + b, 3 * a.nbytes()),
        ("add transposed", lambda: a.t() + b, 3 * a.nbytes()),
        ("exp", lambda: a.exp(), 2 * a.nbytes()),
        ("sum all", lambda: a.sum(), a.nbytes()),
        ("sum dim 0", lambda: a.sum(0), a.nbytes()),
        ("sum dim 1", lambda: a.sum(1), a.nbytes()),
    ]:
        s = timed(fn)
        print(f"{name}: {s * 1e3:.3f} ms, {bytes_moved / s / 1e9:.1f} GB/s")
    for m, k, n in [(256, 256, 256), (512, 512, 512), (1024, 1024, 1024), (2048, 2048, 2048),
                    (64, 784, 256), (64, 256, 10), (256, 784, 128)]:
        x = torch.randn(m, k, device="cuda")
        w = torch.randn(k, n, device="cuda")
        s = timed(lambda: x @ w)
        print(f"matmul {m}x{k}x{n} f32: {s * 1e3:.3f} ms, {2 * m * k * n / s / 1e9:.1f} GFLOP/s")


if __name__ == "__main__":
    main()
