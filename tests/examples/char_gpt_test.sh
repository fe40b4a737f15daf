#!/usr/bin/env bash
# ember-char-gpt against its PyTorch reference (python3-torch): a small model from the same initial
# weights, on the same batches, with the same optimizer and schedule, must reach a validation loss within
# 2% of PyTorch's, and the same training losses along the way; a negative --top-k is refused. Exits 77
# (skipped) without python3-torch.
# Usage: char_gpt_test.sh <ember-char-gpt binary> <char_gpt_torch.py> <scratch folder>
set -euo pipefail
gpt="$1"
reference="$2"
work="$3"
rm -rf "$work"
mkdir -p "$work"
fail() { echo "FAILED: $*" >&2; exit 1; }
# A count it cannot use is refused before anything runs.
if "$gpt" --top-k -3 >"$work/refused.log" 2>&1; then fail "--top-k -3 ran"; fi
grep -qF -- "--top-k: needs a finite number of at least 0, got '-3'" "$work/refused.log" ||
  fail "--top-k -3 said: $(cat "$work/refused.log")"
if ! /usr/bin/python3 -c 'import torch' 2>/dev/null; then
  echo "skipped: /usr/bin/python3 cannot import torch (install python3-torch)"
  exit 77
fi

small=(--layers 2 --heads 2 --d-model 32 --context 32 --batch-size 8 --steps 40 --warmup 5 --eval-every 20
       --eval-batches 4 --log-every 10 --seed 5)
"$gpt" "${small[@]}" --save-init "$work/init.pt" --curve "$work/ember.csv" --sample 50 | tee "$work/ember.log"
/usr/bin/python3 -W ignore "$reference" "${small[@]}" --load-init "$work/init.pt" --curve "$work/torch.csv" \
  --threads 1 | tee "$work/torch.log"
grep -q -- "---- sample ----" "$work/ember.log" || fail "no sample text"

# Row by row: the training losses within 1%, the validation losses within 2%.
paste -d, "$work/ember.csv" "$work/torch.csv" | awk -F, 'NR > 1 {
  if ($2 - $6 > 0.01 * $6 || $6 - $2 > 0.01 * $6) { printf "step %s: train loss %s against %s\n", $1, $2, $6; bad = 1 }
  if ($3 != "" && ($3 - $7 > 0.02 * $7 || $7 - $3 > 0.02 * $7)) { printf "step %s: validation loss %s against %s\n", $1, $3, $7; bad = 1 }
  rows++ } END { if (rows < 4) { print "too few rows: " rows; bad = 1 } exit bad }' || fail "the curves differ"
echo "ember-char-gpt follows PyTorch: $(tail -1 "$work/ember.csv") against $(tail -1 "$work/torch.csv")"
