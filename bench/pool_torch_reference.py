"""PyTorch CPU timings of bench/pool_bench.cpp's cases, which ember-bench runs itself for its ratios:
one line per case, "pool <shape> <op> <direction> <ms per op> <cpu ms per op>" (wall time, and the CPU
time of all PyTorch's threads), and a line "threads <n>".

The cases are the Fashion-MNIST CNN's pooling: 2x2 max pooling (with indices, as training keeps them)
and 2x2 average pooling, forward and backward (ATen's backward functions, given the forward's
indices), over batch 64 at 32 channels 28x28 and 64 channels 14x14, float32.
"""
from steady_malloc import keep_freed_memory

keep_freed_memory()

import time

import torch

SHAPES = [("mnist1", 64, 32, 28), ("mnist2", 64, 64, 14)]


def timed(fn, seconds=0.5):
    """Wall and CPU seconds per call."""
    fn()
    repeats = 0
    start = time.perf_counter()
    cpu_start = time.process_time()
    while True:
        fn()
        repeats += 1
        elapsed = time.perf_counter() - start
        if elapsed > seconds and repeats >= 5:
            return elapsed / repeats, (time.process_time() - cpu_start) / repeats


def main():
    torch.manual_seed(0)
    print("threads", torch.get_num_threads())
    for name, batch, channels, side in SHAPES:
        x = torch.randn(batch, channels, side, side)
        out, indices = torch.ops.aten.max_pool2d_with_indices(x, [2, 2], [2, 2])
        grad = torch.randn_like(out)
        cases = [
            ("max", "forward", lambda: torch.ops.aten.max_pool2d_with_indices(x, [2, 2], [2, 2])),
            ("max", "backward", lambda: torch.ops.aten.max_pool2d_with_indices_backward(
                grad, x, [2, 2], [2, 2], [0, 0], [1, 1], False, indices)),
            ("avg", "forward", lambda: torch.ops.aten.avg_pool2d(x, [2, 2], [2, 2])),
            ("avg", "backward", lambda: torch.ops.aten.avg_pool2d_backward(
                grad, x, [2, 2], [2, 2], [0, 0], False, True, None)),
        ]
        for op, direction, fn in cases:
            wall, cpu = timed(fn)
            print(f"pool {name} {op} {direction} {wall * 1e3:.4f} {cpu * 1e3:.4f}")


if __name__ == "__main__":
    main()
