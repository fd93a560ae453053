#!/usr/bin/env bash
# Session 44: a training set for issue #14's worst strict case (backward weight with large
# filters, where the training data after the holdout had almost no rows): depthwise bf16
# backward weight, stride 1, "same" padding, filters 7..31 over six batch/width/size
# combinations; every problem whose geometry (key without direction and dtype) appears in a
# validation file of results/h100/s38/sets.sh is left out, so the strict protocol stays strict.
#   results/h200/s44/large_filter_set.sh > results/h200/s44/large_filter_wgrad.txt
set -euo pipefail
cd "$(dirname "$0")/../../.."
source results/h100/s38/sets.sh
val=$(for f in "${ALL_SETS[@]}"; do zcat "$f"; done | grep -o '[a-z]*_[a-z0-9]*_n[0-9x_a-z]*' \
  | sed -E 's/^[a-z]+_[a-z0-9]+_//' | sort -u)
for nch in 16:256:28 32:128:56 8:512:14 32:384:14 16:768:7 64:96:28; do
  IFS=: read -r n c hw <<< "$nch"
  for f in 7 9 11 13 15 17 21 25 31; do
    p=$((f / 2))
    geo="n${n}_g${c}_c${c}_k${c}_i${hw}x${hw}_f${f}x${f}_s1x1_p${p}x${p}_d1x1"
    grep -qx "$geo" <<< "$val" && continue
    echo "wgrad_bf16_$geo"
  done
done
