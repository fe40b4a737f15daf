"""PyTorch's side of ember-train: the same models, optimizer and batches on Fashion-MNIST, for the epoch
times and accuracies that docs/PERFORMANCE.md puts beside ember's.

    /usr/bin/python3 bench/train_torch_reference.py --model mlp --epochs 1 [--device cpu|cuda] [--threads N]

Prints one line per epoch: "epoch <n> seconds <s> steps_per_second <r> train_loss <l> test_accuracy <a>".

    /usr/bin/python3 bench/train_torch_reference.py --step-bench

prints "step <model> <milliseconds>" per model: one training step on a fixed random batch, as ember-bench's
BM_TrainStep times ember's (bench/train_bench.cpp).
The IDX files are read with gzip and numpy (Debian's python3-torch has no torchvision).
"""
from steady_malloc import keep_freed_memory

keep_freed_memory()

import argparse
import gzip
import os
import time

import numpy as np
import torch
import torch.nn as nn

# FASHION_MNIST names another folder of the IDX files (the GPU machine has no Debian package).
ROOT = os.environ.get("FASHION_MNIST", "/usr/share/datasets/fashion-mnist")


def read_idx(name):
    with gzip.open(f"{ROOT}/{name}", "rb") as f:
        data = f.read()
    dims = data[3]
    shape = [int.from_bytes(data[4 + 4 * i:8 + 4 * i], "big") for i in range(dims)]
    return np.frombuffer(data, dtype=np.uint8, offset=4 + 4 * dims).reshape(shape)


def load(split):
    images = read_idx(f"{split}-images-idx3-ubyte.gz").astype(np.float32) / 255.0
    labels = read_idx(f"{split}-labels-idx1-ubyte.gz").astype(np.int64)
    return torch.from_numpy(images).unsqueeze(1), torch.from_numpy(labels)


def make_model(name):
    if name == "mlp":
        return nn.Sequential(nn.Flatten(), nn.Linear(784, 256), nn.ReLU(), nn.Linear(256, 10))
    return nn.Sequential(nn.Conv2d(1, 32, 3, padding=1), nn.ReLU(), nn.MaxPool2d(2),
                         nn.Conv2d(32, 64, 3, padding=1), nn.ReLU(), nn.MaxPool2d(2),
                         nn.Flatten(), nn.Linear(64 * 7 * 7, 128), nn.ReLU(), nn.Linear(128, 10))


def step_bench(device, batch_size, lr):
    for name in ("mlp", "cnn"):
        torch.manual_seed(0)
        model = make_model(name).to(device)
        optimizer = torch.optim.Adam(model.parameters(), lr=lr)
        loss_fn = nn.CrossEntropyLoss()
        x = torch.rand(batch_size, 1, 28, 28, device=device)
        y = torch.randint(10, (batch_size,), device=device)

        def step():
            optimizer.zero_grad(set_to_none=True)
            loss_fn(model(x), y).backward()
            optimizer.step()

        for _ in range(5):
            step()
        steps, start = 0, time.perf_counter()
        while time.perf_counter() - start < 2.0:
            step()
            steps += 1
        if device.type == "cuda":
            torch.cuda.synchronize()
        print(f"step {name} {(time.perf_counter() - start) * 1e3 / steps:.4f}", flush=True)


def main():
    parser = argparse.ArgumentParser()
    parser.add_argument("--model", choices=["mlp", "cnn"], default="mlp")
    parser.add_argument("--epochs", type=int, default=1)
    parser.add_argument("--batch-size", type=int, default=64)
    parser.add_argument("--lr", type=float, default=1e-3)
    parser.add_argument("--device", default="cpu")
    parser.add_argument("--threads", type=int, default=0)
    parser.add_argument("--seed", type=int, default=0)
    parser.add_argument("--step-bench", action="store_true")
    args = parser.parse_args()
    if args.threads:
        torch.set_num_threads(args.threads)
    torch.manual_seed(args.seed)
    device = torch.device(args.device)
    if args.step_bench:
        step_bench(device, args.batch_size, args.lr)
        return
    train_x, train_y = load("train")
    test_x, test_y = load("t10k")
    model = make_model(args.model).to(device)
    optimizer = torch.optim.Adam(model.parameters(), lr=args.lr)
    loss_fn = nn.CrossEntropyLoss()
    generator = torch.Generator().manual_seed(args.seed)
    for epoch in range(1, args.epochs + 1):
        model.train()
        order = torch.randperm(len(train_x), generator=generator)
        start = time.perf_counter()
        total, steps = torch.zeros((), device=device), 0
        for first in range(0, len(order), args.batch_size):
            batch = order[first:first + args.batch_size]
            x, y = train_x[batch].to(device), train_y[batch].to(device)
            optimizer.zero_grad(set_to_none=True)
            loss = loss_fn(model(x), y)
            loss.backward()
            optimizer.step()
            total += loss.detach()
            steps += 1
        if device.type == "cuda":
            torch.cuda.synchronize()
        seconds = time.perf_counter() - start
        model.eval()
        with torch.no_grad():
            correct = 0
            for first in range(0, len(test_x), 1000):
                logits = model(test_x[first:first + 1000].to(device))
                correct += (logits.argmax(1).cpu() == test_y[first:first + 1000]).sum().item()
        print(f"epoch {epoch} seconds {seconds:.3f} steps_per_second {steps / seconds:.1f} "
              f"train_loss {total.item() / steps:.4f} test_accuracy {correct / len(test_x):.4f}", flush=True)


if __name__ == "__main__":
    main()
