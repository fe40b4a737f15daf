#!/usr/bin/env bash
# ember-train end to end on the default device (lavapipe in CI), validation layers on:
#  1. numbers it cannot use are refused before anything runs, naming the option, what it needs and what
#     it got;
#  2. one full MLP epoch reaches 83% test accuracy (PyTorch reaches 83.2% in this setting), and writes
#     its metrics CSV, its PNG plot and a checkpoint;
#  3. resuming continues from the saved epoch with the same model, optimizer and shuffling state: two
#     short epochs in one run and one epoch then --resume give the same second epoch, to the digit;
#  4. resuming a checkpoint of the other model is refused, naming both, and leaves the checkpoint as it was;
#  5. a run whose loss diverges finishes and reports the loss as "nan", as PyTorch prints it.
# Usage: ember_train_test.sh <ember-train binary> <scratch folder>
set -euo pipefail
train="$1"
work="$2"
rm -rf "$work"
mkdir -p "$work"
fail() { echo "FAILED: $*" >&2; exit 1; }

refused() {  # refused <expected message> <arguments...>
  local expected="$1"
  shift
  if "$train" "$@" --out "$work/refused" >"$work/refused.log" 2>&1; then fail "ember-train $* ran"; fi
  grep -qF -- "$expected" "$work/refused.log" || fail "ember-train $* said: $(cat "$work/refused.log")"
}
refused "--epochs: needs a finite number above 0, got '0'" --epochs 0
refused "--lr: needs a finite number above 0, got 'inf'" --lr inf
refused "--batch-size: needs a finite number above 0, got '-3'" --batch-size -3
refused "--max-batches: needs a finite number of at least 0, got '-1'" --max-batches -1

"$train" --model mlp --epochs 1 --out "$work/full" | tee "$work/full.log"
accuracy=$(awk -F, 'NR == 2 { print $4 }' "$work/full/metrics.csv")
awk -v a="$accuracy" 'BEGIN { exit !(a >= 0.83) }' || fail "one MLP epoch reached test accuracy $accuracy, below 0.83"
[ -s "$work/full/metrics.png" ] || fail "no metrics.png"
head -c 8 "$work/full/metrics.png" | od -An -c | grep -q 'P   N   G' || fail "metrics.png is not a PNG"
[ -s "$work/full/checkpoint.safetensors" ] || fail "no checkpoint"

short=(--model mlp --max-batches 40 --seed 3)
"$train" "${short[@]}" --epochs 2 --out "$work/straight" > "$work/straight.log"
"$train" "${short[@]}" --epochs 1 --out "$work/resumed" > "$work/resumed-1.log"
"$train" "${short[@]}" --epochs 2 --out "$work/resumed" --resume > "$work/resumed-2.log"
grep -q "resuming after epoch 1" "$work/resumed-2.log" || fail "--resume did not start after epoch 1"
# Epoch 2's losses and accuracy (columns 1-4; the times differ).
straight=$(awk -F, 'NR == 3 { print $1, $2, $3, $4 }' "$work/straight/metrics.csv")
resumed=$(awk -F, 'NR == 3 { print $1, $2, $3, $4 }' "$work/resumed/metrics.csv")
[ -n "$straight" ] || fail "the straight run has no second epoch"
[ "$straight" = "$resumed" ] || fail "epoch 2 straight ($straight) differs from epoch 2 resumed ($resumed)"

checkpoint="$work/resumed/checkpoint.safetensors"
before=$(sha256sum < "$checkpoint")
if "$train" --model cnn --epochs 3 --out "$work/resumed" --resume > "$work/wrong-model.log" 2>&1; then
  fail "--resume with --model cnn ran on an MLP checkpoint"
fi
grep -qF "$checkpoint holds the mlp model, not the cnn that --model asks for" "$work/wrong-model.log" ||
  fail "--resume with the wrong --model said: $(cat "$work/wrong-model.log")"
[ "$(sha256sum < "$checkpoint")" = "$before" ] || fail "a refused --resume changed the checkpoint"

"$train" --model mlp --epochs 1 --max-batches 3 --lr 1e40 --out "$work/diverged" > "$work/diverged.log" 2>&1 ||
  fail "a diverging run failed: $(cat "$work/diverged.log")"
grep -q "test loss nan," "$work/diverged.log" || fail "a diverged run printed: $(cat "$work/diverged.log")"
! grep -q -- "-nan" "$work/diverged.log" "$work/diverged/metrics.csv" || fail "a diverged loss printed as -nan"
echo "ember-train: accuracy $accuracy after one epoch; resume reproduces epoch 2 ($resumed)"
