"""PyTorch CPU timings of bench/activation_bench.cpp's cases (1024 x 1024 float32, forward and forward +
backward), for the ratios in docs/PERFORMANCE.md's activation section: /usr/bin/python3 bench/activation_torch_reference.py
"""
from steady_malloc import keep_freed_memory

keep_freed_memory()

import time, torch, torch.nn.functional as F
torch.manual_seed(0)
def timed(fn, repeats=10):
    fn()
    start = time.perf_counter()
    for _ in range(repeats): fn()
    return (time.perf_counter() - start) / repeats
w = torch.full((1024,), 0.25)
cases = [("relu", F.relu), ("gelu", F.gelu), ("silu", F.silu), ("elu", F.elu), ("selu", F.selu),
         ("leaky_relu", F.leaky_relu), ("hardtanh", F.hardtanh), ("hardsigmoid", F.hardsigmoid),
         ("hardswish", F.hardswish), ("softshrink", F.softshrink), ("softplus", F.softplus),
         ("logsigmoid", F.logsigmoid), ("mish", F.mish), ("softsign", F.softsign), ("tanhshrink", F.tanhshrink),
         ("prelu", lambda x: F.prelu(x, wg)), ("rrelu train", lambda x: F.rrelu(x, training=True)), ("glu", F.glu)]
print("threads", torch.get_num_threads())
for name, f in cases:
    x = torch.randn(1024, 1024)
    wg = w
    fwd = timed(lambda: f(x))
    xg = x.clone().requires_grad_(True); wg = w.clone().requires_grad_(True)
    def step():
        y = f(xg)
        y.backward(torch.ones_like(y))
    both = timed(step)
    print(f"{name}: forward {fwd*1e3:.2f} ms, forward+backward {both*1e3:.2f} ms")
