#!/usr/bin/env bash
# The main job: installs what ember needs, builds it, and trains the Fashion-MNIST MLP for two epochs on
# the best device found (lavapipe when there is no GPU), with a progress bar, then the test accuracy.
# Metrics (CSV and PNG) and a checkpoint per epoch go to runs/fmnist. Arguments go to ember-train, e.g.
#   bash scripts/run-main.sh --model cnn --epochs 1      bash scripts/run-main.sh --resume --epochs 4
# EMBER_DEVICE picks another device (vulkan:1, cuda:0, part of a name).
set -euo pipefail
cd "$(dirname "$0")/.."
bash scripts/setup-debian.sh
bash scripts/build.sh
./build/tools/ember-train/ember-train --model mlp --epochs 2 --out runs/fmnist "$@"
