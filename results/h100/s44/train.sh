#!/usr/bin/env bash
# Session 44: the shipped selection model — session 38's command (results/h100/s38/train.sh)
# with call 2's large-filter depthwise backward-weight rows (53 problems, every pool member,
# H100) added, into OUT, then session 38's validation sets. STRICT=1 passes every validation
# file as --holdout (the like-for-like comparison). From the repository root, release binary built:
#   [STRICT=1] results/h100/s44/train.sh OUT
set -euo pipefail
bash results/h100/s38/train.sh "$1" results/h100/s44/call_2/r/lf_wgrad.csv.gz
