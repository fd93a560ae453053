#!/usr/bin/env bash
# Session 38: the shipped selection model — session 37's command (results/h100/s37/train.sh: the
# data shipped since session 34 plus session 37's 3D strided grid) plus call 3's benches of the
# 99 training problems that the coverage rule had left out (call_3/r/uncov_*.csv.gz), into OUT;
# then validate.sh. With STRICT=1 every validation file of sets.sh is also passed as --holdout
# (each training problem sharing a geometry with one is left out), the protocol of the README's
# comparison. From the repository root with the release binary built (G= another binary):
#   [STRICT=1] results/h100/s38/train.sh OUT [EXTRA.csv.gz ...]
set -euo pipefail
out=$1; shift
source results/h100/s38/sets.sh
U=results/h100/s38/call_3/r
hold=()
if [ "${STRICT:-0}" = 1 ]; then hold=(--holdout "${ALL_SETS[@]}"); fi
bash results/h100/s37/train.sh "$out" results/h100/s37/call_1/r/s3d_grid_dgrad.csv.gz \
  $U/uncov_{dgrad,fwd,wgrad}.csv.gz "$@" "${hold[@]}" > /dev/null 2>&1 || { tail -5 "$out.train.log"; exit 1; }
grep -E "^dataset|^holdout:|^trained" "$out.train.log"
bash results/h100/s38/validate.sh "$out"
