#!/usr/bin/env bash
# Session 44: the shipped selection model — session 38's command (results/h100/s38/train.sh)
# with this session's rows added: call 2's large-filter depthwise backward weight (53 problems,
# every pool member) and calls 3 and 4's banded members of one channel per warp (the three the
# pool took, and the rest of their trait space) over the large-filter set and the zoo's
# depthwise keys; all H100. Into OUT, then session 38's validation sets. STRICT=1 passes every
# validation file as --holdout (the like-for-like comparison). From the repository root, with
# the release binary built:
#   [STRICT=1] results/h100/s44/train.sh OUT
set -euo pipefail
S=results/h100/s44
bash results/h100/s38/train.sh "$1" $S/call_2/r/lf_wgrad.csv.gz $S/call_3/r/banded.csv.gz \
  $S/call_4/r/banded_n8.csv.gz
