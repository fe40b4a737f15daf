#!/usr/bin/env bash
# ember-neural-renderer under the validation layer, small: the run must exit 0 with no validation message,
# ember must never wait on the host in the training and frame loop, the PSNR of the prediction must rise
# by at least 10 dB from the first step to the last, and the PNGs and the curve must be written.
# Usage: neural_renderer_test.sh <ember-neural-renderer binary> <scratch folder>
set -euo pipefail
renderer="$1"
work="$2"
rm -rf "$work"
mkdir -p "$work"
fail() { echo "FAILED: $*" >&2; exit 1; }

status=0
EMBER_VALIDATION=1 "$renderer" --size 32 --steps 300 --frame-every 10 --png-every 100 --seed 1 --out "$work/out" \
  >"$work/stdout.log" 2>"$work/stderr.log" || status=$?
cat "$work/stdout.log"
cat "$work/stderr.log" >&2
[ "$status" -eq 0 ] || fail "exit status $status"
! grep -q "Vulkan validation" "$work/stderr.log" || fail "validation messages"

host_waits=$(sed -n 's/^host waits in frame loop: \([0-9]*\)$/\1/p' "$work/stdout.log")
[ -n "$host_waits" ] || fail "no host-wait count in the output"
[ "$host_waits" -eq 0 ] || fail "$host_waits host waits in the frame loop"

read -r first last < <(sed -n 's/^psnr first=\([-0-9.]*\)dB last=\([-0-9.]*\)dB$/\1 \2/p' "$work/stdout.log")
[ -n "${first:-}" ] && [ -n "${last:-}" ] || fail "no PSNR line in the output"
awk -v first="$first" -v last="$last" 'BEGIN { exit !(last - first >= 10) }' ||
  fail "PSNR rose from $first dB to $last dB, less than 10 dB"

for file in target.png prediction_100.png prediction_200.png prediction_300.png curve.png curve.csv; do
  [ -s "$work/out/$file" ] || fail "$file is missing"
done
for png in "$work"/out/*.png; do
  [ "$(head -c 8 "$png" | od -An -tx1 | tr -d ' \n')" = 89504e470d0a1a0a ] || fail "$png is not a PNG"
done
rows=$(wc -l <"$work/out/curve.csv")
[ "$rows" -eq 301 ] || fail "curve.csv has $rows lines, not a header and 300 steps"
echo "ember-neural-renderer: PSNR $first dB -> $last dB, no host waits, no validation messages"
