"""ember-train's checkpoints against Python's safetensors package (installed on the GPU machine, not in
Debian 12), both ways. Run by scripts/run-gpu.sh.

    python3 scripts/check_safetensors.py read RUN_FOLDER
        opens RUN_FOLDER/checkpoint.safetensors with safetensors, checks its metadata, loads its "model."
        tensors into the same model built with torch.nn (strict: every key and shape must match), and
        evaluates it on the Fashion-MNIST test set: the accuracy must equal the one ember-train wrote to
        RUN_FOLDER/metrics.csv, within 0.3 points (the GPU's sums and the CPU's differ in their last bits).

    python3 scripts/check_safetensors.py rewrite RUN_FOLDER COPY_FOLDER
        writes every tensor and the metadata of the checkpoint again with safetensors.torch.save_file, into
        COPY_FOLDER with a copy of metrics.csv, so that ember-train --resume reads a file Python wrote.

    python3 scripts/check_safetensors.py same-epoch FOLDER_A FOLDER_B EPOCH
        the two runs' metrics.csv rows for EPOCH have the same losses (1e-5 relative) and accuracy.

FASHION_MNIST names the folder of the IDX files, as for bench/train_torch_reference.py.
"""
import csv
import os
import shutil
import sys

import torch
from safetensors import safe_open
from safetensors.torch import save_file

sys.path.insert(0, os.path.join(os.path.dirname(os.path.abspath(__file__)), "..", "bench"))
from train_torch_reference import load, make_model  # noqa: E402

MODEL_PREFIX = "model."


def metrics_row(folder, epoch):
    with open(os.path.join(folder, "metrics.csv")) as f:
        for row in csv.DictReader(f):
            if int(row["epoch"]) == epoch:
                return row
    sys.exit(f"FAILED: {folder}/metrics.csv has no epoch {epoch}")


def read(folder):
    path = os.path.join(folder, "checkpoint.safetensors")
    with safe_open(path, framework="pt") as f:
        metadata = f.metadata() or {}
        tensors = {key: f.get_tensor(key) for key in f.keys()}
    for key in ("epoch", "model", "optimizer.param_groups", "generator.seed", "generator.offset"):
        if key not in metadata:
            sys.exit(f"FAILED: {path}: no '{key}' in the metadata {sorted(metadata)}")
    name, epoch = metadata["model"], int(metadata["epoch"])
    model = make_model(name)
    state = {key[len(MODEL_PREFIX):]: t for key, t in tensors.items() if key.startswith(MODEL_PREFIX)}
    model.load_state_dict(state, strict=True)
    optimizer_keys = [key for key in tensors if not key.startswith(MODEL_PREFIX)]
    model.eval()
    test_x, test_y = load("t10k")
    with torch.no_grad():
        correct = (model(test_x).argmax(1) == test_y).sum().item()
    accuracy = correct / len(test_y)
    ember_accuracy = float(metrics_row(folder, epoch)["test_accuracy"])
    print(f"safetensors read {path}: {name} after epoch {epoch}, {len(state)} model tensors "
          f"({', '.join(f'{k} {tuple(t.shape)} {t.dtype}' for k, t in state.items())}), "
          f"{len(optimizer_keys)} optimizer tensors; PyTorch's test accuracy with these weights {accuracy:.4f}, "
          f"ember-train's {ember_accuracy:.4f}")
    if abs(accuracy - ember_accuracy) > 0.003:
        sys.exit("FAILED: the accuracies differ by more than 0.003")


def rewrite(folder, copy):
    path = os.path.join(folder, "checkpoint.safetensors")
    with safe_open(path, framework="pt") as f:
        metadata = f.metadata()
        tensors = {key: f.get_tensor(key) for key in f.keys()}
    os.makedirs(copy, exist_ok=True)
    save_file(tensors, os.path.join(copy, "checkpoint.safetensors"), metadata=metadata)
    shutil.copy(os.path.join(folder, "metrics.csv"), os.path.join(copy, "metrics.csv"))
    print(f"safetensors wrote {copy}/checkpoint.safetensors: {len(tensors)} tensors, metadata {sorted(metadata)}")


def same_epoch(a, b, epoch):
    row_a, row_b = metrics_row(a, epoch), metrics_row(b, epoch)
    for column in ("train_loss", "test_loss"):
        x, y = float(row_a[column]), float(row_b[column])
        if abs(x - y) > 1e-5 * max(abs(x), abs(y)):
            sys.exit(f"FAILED: epoch {epoch} {column}: {x} in {a}, {y} in {b}")
    if row_a["test_accuracy"] != row_b["test_accuracy"]:
        sys.exit(f"FAILED: epoch {epoch} test accuracy: {row_a['test_accuracy']} in {a}, {row_b['test_accuracy']} in {b}")
    print(f"safetensors resume: epoch {epoch} after ember's checkpoint and after Python's copy agree "
          f"(train loss {row_a['train_loss']}, test accuracy {row_a['test_accuracy']})")


def main():
    command = sys.argv[1] if len(sys.argv) > 1 else ""
    if command == "read" and len(sys.argv) == 3:
        read(sys.argv[2])
    elif command == "rewrite" and len(sys.argv) == 4:
        rewrite(sys.argv[2], sys.argv[3])
    elif command == "same-epoch" and len(sys.argv) == 5:
        same_epoch(sys.argv[2], sys.argv[3], int(sys.argv[4]))
    else:
        sys.exit(__doc__)


if __name__ == "__main__":
    main()
