"""Keeps glibc from handing freed memory back to the kernel in a PyTorch reference run.

By default glibc serves large blocks with mmap and trims its heap on free, so every training step of the
Fashion-MNIST CNN (tensors of a few MB) faults its activations' pages in afresh. On the 2-core VM that
turned into system time that varied from run to run: the same PyTorch CNN epoch took 29 to 66 seconds
(55-71 s of it in the kernel), and 24-25 s with the tunables below (docs/PERFORMANCE.md, "Training").
ember's caching allocator keeps its memory, so this makes the comparison steadier and fairer to PyTorch.

Call keep_freed_memory() before importing torch: it re-runs the script once with GLIBC_TUNABLES set,
unless the caller has set GLIBC_TUNABLES already.
"""
import os
import sys

TUNABLES = "glibc.malloc.mmap_threshold=33554432:glibc.malloc.trim_threshold=4294967296"


def keep_freed_memory():
    if "GLIBC_TUNABLES" in os.environ:
        return
    os.environ["GLIBC_TUNABLES"] = TUNABLES
    os.execv(sys.executable, [sys.executable] + sys.argv)
