"""PyTorch's timings of the ops ember-bench measures, on the same GPU, for the ratios in PERFORMANCE.md.

Run by scripts/run-gpu.sh. Prints one line per op: name, milliseconds per op, and GB/s or GFLOP/s.

With --conv-cpu it times the convolutions of bench/conv_bench.cpp on PyTorch's CPU instead, which
ember-bench runs itself for its ratios: one line per shape and direction, "conv <shape> <direction>
<ms with PyTorch's default CPU kernels> <ms with oneDNN off>" (oneDNN off: im2col and the BLAS, which is
OpenBLAS in Debian's build).

With --norm-cpu it times bench/norm_bench.cpp's forward+backward steps on PyTorch's CPU instead, which
ember-bench runs itself for its ratios: one line per benchmark, "norm <name> <ms per step> <CPU ms per step>".

With --sorting-cpu it times bench/sorting_bench.cpp's ops on PyTorch's CPU instead: one line per benchmark,
"sorting <name> <ms per op>".

With --indexing-cpu it times bench/indexing_bench.cpp's ops on PyTorch's CPU instead: one line per
benchmark, "indexing <name> <ms per op>".

With --optim-cpu it times bench/optim_bench.cpp's optimizer steps on PyTorch's CPU instead: one line per
benchmark, "optim <name> <ms per step> <CPU ms per step> <ms per step with foreach=True>".
"""
from steady_malloc import keep_freed_memory

keep_freed_memory()

import sys
import time

import torch


def nbytes(t):
    return t.numel() * t.element_size()  # Tensor.nbytes is a method in 1.13 and a property in 2.x


def timed(fn, repeats=20):
    fn()
    torch.cuda.synchronize()
    start = time.perf_counter()
    for _ in range(repeats):
        fn()
    torch.cuda.synchronize()
    return (time.perf_counter() - start) / repeats


# The shapes of bench/conv_bench.cpp: name, batch, in and out channels, side, kernel, padding, groups.
CONV_SHAPES = [
    ("mnist1", 64, 1, 32, 28, 3, 1, 1),
    ("mnist2", 64, 32, 64, 14, 3, 1, 1),
    ("resnet", 32, 64, 64, 56, 3, 1, 1),
    ("depthwise", 64, 32, 32, 28, 3, 1, 32),
]


def cpu_timed(fn, min_seconds=0.3):
    fn()
    count, start = 0, time.perf_counter()
    while True:
        fn()
        count += 1
        elapsed = time.perf_counter() - start
        if elapsed >= min_seconds and count >= 3:
            return elapsed / count


def conv_cpu():
    torch.manual_seed(0)
    for name, batch, cin, cout, side, kernel, padding, groups in CONV_SHAPES:
        x = torch.randn(batch, cin, side, side)
        w = torch.randn(cout, cin // groups, kernel, kernel)
        y = torch.nn.functional.conv2d(x, w, padding=padding, groups=groups)
        gy = torch.randn_like(y)
        pad, one = [padding, padding], [1, 1]
        ops = {
            "forward": lambda: torch.nn.functional.conv2d(x, w, padding=padding, groups=groups),
            "input_grad": lambda: torch.ops.aten.convolution_backward(
                gy, x, w, None, one, pad, one, False, [0, 0], groups, [True, False, False]),
            "weight_grad": lambda: torch.ops.aten.convolution_backward(
                gy, x, w, None, one, pad, one, False, [0, 0], groups, [False, True, False]),
            "weight_bias_grad": lambda: torch.ops.aten.convolution_backward(
                gy, x, w, [cout], one, pad, one, False, [0, 0], groups, [False, True, True]),
        }
        for direction, fn in ops.items():
            default_s = cpu_timed(fn)
            with torch.backends.mkldnn.flags(enabled=False):
                blas_s = cpu_timed(fn)
            print(f"conv {name} {direction} {default_s * 1e3:.4f} {blas_s * 1e3:.4f}", flush=True)


def norm_cpu():
    """The steps of bench/norm_bench.cpp: forward, then the gradients of every input, float32."""
    import torch.nn.functional as F
    torch.manual_seed(0)

    def step_time(make_loss, inputs, grad=None, min_seconds=0.3):
        """Wall and process CPU seconds per step."""
        def step():
            out = make_loss()
            torch.autograd.grad(out, inputs, grad)
        step()
        count, start, cpu_start = 0, time.perf_counter(), time.process_time()
        while True:
            step()
            count += 1
            elapsed = time.perf_counter() - start
            if elapsed >= min_seconds and count >= 3:
                return elapsed / count, (time.process_time() - cpu_start) / count

    def report(name, seconds):
        print(f"norm {name} {seconds[0] * 1e3:.4f} {seconds[1] * 1e3:.4f}", flush=True)

    for n, c, side in [(64, 32, 28), (64, 64, 14)]:
        x = torch.randn(n, c, side, side, requires_grad=True)
        w, b = torch.ones(c, requires_grad=True), torch.zeros(c, requires_grad=True)
        mean, var, g = torch.zeros(c), torch.ones(c), torch.randn(n, c, side, side)
        report(f"batch_norm_{n}x{c}x{side}",
               step_time(lambda: F.batch_norm(x, mean, var, w, b, training=True), [x, w, b], g))
    for rows, width in [(2048, 512), (64, 256)]:
        x = torch.randn(rows, width, requires_grad=True)
        w, b = torch.ones(width, requires_grad=True), torch.zeros(width, requires_grad=True)
        g = torch.randn(rows, width)
        report(f"layer_norm_{rows}x{width}", step_time(lambda: F.layer_norm(x, [width], w, b), [x, w, b], g))
    for rows, width in [(64, 256), (2048, 512)]:
        x = torch.randn(rows, width, requires_grad=True)
        g = torch.randn(rows, width)
        report(f"dropout_{rows}x{width}", step_time(lambda: F.dropout(x, 0.5), [x], g))
    for batch, classes in [(64, 10), (4096, 1000)]:
        x = torch.randn(batch, classes, requires_grad=True)
        t = torch.randint(0, classes, (batch,))
        report(f"cross_entropy_{batch}x{classes}", step_time(lambda: F.cross_entropy(x, t), [x]))
    for frames, batch, classes, labels in [(50, 16, 20, 10)]:
        x = torch.randn(frames, batch, classes, requires_grad=True)
        targets = torch.randint(1, classes, (batch, labels))
        input_lengths, target_lengths = torch.full((batch,), frames), torch.full((batch,), labels)
        report(f"ctc_loss_{frames}x{batch}x{classes}_{labels}",
               step_time(lambda: F.ctc_loss(x.log_softmax(2), targets, input_lengths, target_lengths), [x]))
    for batch, channels, side, out in [(64, 32, 28, 20)]:
        x = torch.randn(batch, channels, side, side, requires_grad=True)
        g = torch.ones(batch, channels, out, out)
        report(f"fractional_max_pool_{batch}x{channels}x{side}_{out}",
               step_time(lambda: F.fractional_max_pool2d(x, 2, output_size=out), [x], g))
    for batch, channels, frames, side in [(8, 16, 16, 28)]:
        x = torch.randn(batch, channels, frames, side, side, requires_grad=True)
        g = torch.ones(batch, channels, frames // 2, side // 2, side // 2)
        for kind, pool in [("max", F.max_pool3d), ("avg", F.avg_pool3d)]:
            report(f"{kind}_pool3d_{batch}x{channels}x{frames}x{side}", step_time(lambda: pool(x, 2), [x], g))
        pooled, indices = F.max_pool3d(x.detach(), 2, return_indices=True)
        pooled.requires_grad_(True)
        report(f"max_unpool3d_{batch}x{channels}x{frames}x{side}",
               step_time(lambda: F.max_unpool3d(pooled, indices, 2), [pooled], torch.ones_like(x)))


def optim_cpu():
    """The steps of bench/optim_bench.cpp: the Fashion-MNIST MLP's parameters, float32, fixed gradients."""
    torch.manual_seed(0)

    def step_time(opt, min_seconds=0.5):
        opt.step()
        count, start, cpu_start = 0, time.perf_counter(), time.process_time()
        while True:
            opt.step()
            count += 1
            elapsed = time.perf_counter() - start
            if elapsed >= min_seconds and count >= 10:
                return elapsed / count, (time.process_time() - cpu_start) / count

    def params():
        ps = [torch.randn(256, 784), torch.randn(256), torch.randn(10, 256), torch.randn(10)]
        for p in ps:
            p.requires_grad_(True)
            p.grad = torch.randn_like(p)
        return ps

    for name, make in [("adam_mlp", lambda ps, **kw: torch.optim.Adam(ps, lr=1e-3, **kw)),
                       ("sgd_momentum_mlp", lambda ps, **kw: torch.optim.SGD(ps, lr=0.1, momentum=0.9, **kw))]:
        wall, cpu = step_time(make(params()))
        foreach, _ = step_time(make(params(), foreach=True))
        print(f"optim {name} {wall * 1e3:.4f} {cpu * 1e3:.4f} {foreach * 1e3:.4f}", flush=True)


def sorting_cpu():
    """The ops of bench/sorting_bench.cpp on inputs of the same shapes and value ranges."""
    torch.manual_seed(0)
    long_floats = torch.rand(1 << 20)
    long_integers = torch.randint(0, 1000, (1 << 20,))
    bit_rows = torch.randint(0, 2, (4096, 16))
    few_values = torch.randint(0, 8, (256, 64)).float()
    sequence = torch.rand(1000).sort().values
    values = torch.rand(1 << 16)
    for name, fn in [
        ("sort_2p20_f32", lambda: long_floats.sort()),
        ("unique_2p20_i64", lambda: torch.unique(long_integers, return_inverse=True, return_counts=True)),
        ("unique_consecutive_2p20_i64",
         lambda: torch.unique_consecutive(long_integers, return_inverse=True, return_counts=True)),
        ("unique_rows_4096x16", lambda: torch.unique(bit_rows, dim=0, return_inverse=True, return_counts=True)),
        ("mode_256x64", lambda: few_values.mode()),
        ("quantile_2p20_f32", lambda: long_floats.quantile(0.3)),
        ("searchsorted_1000_2p16", lambda: torch.searchsorted(sequence, values)),
    ]:
        print(f"sorting {name} {cpu_timed(fn) * 1e3:.4f}", flush=True)


def indexing_cpu():
    """The ops of bench/indexing_bench.cpp on inputs of the same shapes and value ranges."""
    torch.manual_seed(0)
    square = torch.rand(1024, 1024)
    square_indices = torch.randint(0, 1024, (1024, 1024))
    zeros = torch.zeros(1024, 1024)
    weight = torch.rand(30000, 128)
    ids = torch.randint(0, 30000, (8192,))
    gradient = torch.rand(8192, 128)
    embedding_zeros = torch.zeros(30000, 128)
    for name, fn in [
        ("gather_1024x1024_dim1", lambda: square.gather(1, square_indices)),
        ("gather_1024x1024_dim0", lambda: square.gather(0, square_indices)),
        ("index_select_30000x128_8192", lambda: weight.index_select(0, ids)),
        ("scatter_1024x1024_dim1", lambda: zeros.scatter(1, square_indices, square)),
        ("scatter_add_1024x1024_dim1", lambda: zeros.scatter_add(1, square_indices, square)),
        ("index_add_30000x128_8192", lambda: embedding_zeros.index_add(0, ids, gradient)),
    ]:
        print(f"indexing {name} {cpu_timed(fn) * 1e3:.4f}", flush=True)


def main():
    if "--indexing-cpu" in sys.argv:
        indexing_cpu()
        return
    if "--sorting-cpu" in sys.argv:
        sorting_cpu()
        return
    if "--conv-cpu" in sys.argv:
        conv_cpu()
        return
    if "--norm-cpu" in sys.argv:
        norm_cpu()
        return
    if "--optim-cpu" in sys.argv:
        optim_cpu()
        return
    if not torch.cuda.is_available():
        print("no CUDA device for PyTorch")
        return
    side = 2048
    a = torch.rand(side, side, device="cuda")
    b = torch.rand(side, side, device="cuda")
    copy_s = timed(lambda: a.clone())
    print(f"copy 2048x2048 f32: {copy_s * 1e3:.3f} ms, {2 * nbytes(a) / copy_s / 1e9:.1f} GB/s")
    for name, fn, bytes_moved in [
        ("add", lambda: a + b, 3 * nbytes(a)),
        ("add transposed", lambda: a.t() + b, 3 * nbytes(a)),
        ("exp", lambda: a.exp(), 2 * nbytes(a)),
        ("sum all", lambda: a.sum(), nbytes(a)),
        ("sum dim 0", lambda: a.sum(0), nbytes(a)),
        ("sum dim 1", lambda: a.sum(1), nbytes(a)),
    ]:
        s = timed(fn)
        print(f"{name}: {s * 1e3:.3f} ms, {bytes_moved / s / 1e9:.1f} GB/s")
    for m, k, n in [(256, 256, 256), (512, 512, 512), (1024, 1024, 1024), (2048, 2048, 2048),
                    (64, 784, 256), (64, 256, 10), (256, 784, 128)]:
        x = torch.randn(m, k, device="cuda")
        w = torch.randn(k, n, device="cuda")
        s = timed(lambda: x @ w)
        print(f"matmul {m}x{k}x{n} f32: {s * 1e3:.3f} ms, {2 * m * k * n / s / 1e9:.1f} GFLOP/s")
    conv_cuda()
    attention()


def conv_cuda():
    """bench/conv_bench.cpp's shapes and directions through cuDNN, with PyTorch's default settings."""
    for name, batch, cin, cout, side, kernel, padding, groups in CONV_SHAPES:
        x = torch.randn(batch, cin, side, side, device="cuda", requires_grad=True)
        w = torch.randn(cout, cin // groups, kernel, kernel, device="cuda", requires_grad=True)
        y = torch.nn.functional.conv2d(x, w, padding=padding, groups=groups)
        grad = torch.randn_like(y)
        flop = 2.0 * y.numel() * (cin // groups) * kernel * kernel
        for direction, fn in [
            ("forward", lambda: torch.nn.functional.conv2d(x, w, padding=padding, groups=groups)),
            ("input_grad", lambda: torch.nn.grad.conv2d_input(x.shape, w, grad, padding=padding, groups=groups)),
            ("weight_grad", lambda: torch.nn.grad.conv2d_weight(x, w.shape, grad, padding=padding, groups=groups)),
        ]:
            s = timed(fn)
            print(f"conv {name} {direction}: {s * 1e3:.3f} ms, {flop / s / 1e9:.1f} GFLOP/s")


def attention():
    """bench/attention_bench.cpp's shapes: one batch of 4 heads, float32, through PyTorch's fused kernels."""
    sdpa = getattr(torch.nn.functional, "scaled_dot_product_attention", None)
    if sdpa is None:
        print("attention: this PyTorch has no scaled_dot_product_attention")
        return
    for backward in (False, True):
        for causal in (False, True):
            for e in (64, 128):
                for length in (512, 1024, 2048, 4096):
                    q, k, v = (torch.randn(1, 4, length, e, device="cuda", requires_grad=backward) for _ in range(3))
                    grad = torch.randn(1, 4, length, e, device="cuda")

                    def run():
                        out = sdpa(q, k, v, is_causal=causal)
                        if backward:
                            torch.autograd.grad(out, (q, k, v), grad)

                    s = timed(run)
                    flop = 4.0 * 4 * length * length * e * (3 if backward else 1) * (0.5 if causal else 1)
                    name = ("fwd_bwd" if backward else "fwd") + ("/causal" if causal else "")
                    print(f"attention {name}/E{e}/L{length}: {s * 1e3:.3f} ms, {flop / s / 1e9:.1f} GFLOP/s")


if __name__ == "__main__":
    main()
