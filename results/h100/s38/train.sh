#!/usr/bin/env bash
# Session 38: the selection model trained with session 37's command (results/h100/s37/train.sh:
# the shipped data plus session 37's 3D strided grid) plus the H100 backward-data benches that
# the four stride-phase members' rows complete (session 37's stride-2 grid, session 36's zoo)
# and those rows, into OUT; then validate.sh. From the repository root:
#   results/h100/s38/train.sh OUT
set -euo pipefail
out=$1
S=results/h100/s38/call_1
bash results/h100/s37/train.sh "$out" results/h100/s37/call_1/r/s3d_grid_dgrad.csv.gz \
  results/h100/s37/call_2/r/s2_grid_dgrad.csv.gz results/h100/s36/call_1/r/bench_dgrad.csv.gz \
  $S/new_members_train.csv.gz | head -3
bash results/h100/s38/validate.sh "$out"
