#!/usr/bin/env bash
# Session 38: a selection model scored with session 37's five validation sets
# (results/h100/s37/train.sh), the H100 ones completed with the four stride-phase backward-data
# members' rows (call_1/new_members_val_*.csv.gz, from call 1's sweep), plus (e) the real
# client's backward data over the whole new pool in one run (call 1); the sets are in sets.sh.
# From the repository root with the release binary built:  results/h100/s38/validate.sh MODEL_DIR
set -euo pipefail
m=$1
source results/h100/s38/sets.sh
v() { echo "== $1"; shift; target/release/gconv validate --model "$m" --oracle "$@" 2>&1 | grep -E "^  (all|direction)"; }
v "(a) unseen (H200)" "${SET_A[@]}"
v "(b) families (H200)" "${SET_B[@]}"
v "(c) real client (H200)" "${SET_C[@]}"
v "(a') unseen (H100, session 36 + the four members)" "${SET_A2[@]}"
v "(d) real client (H100, session 36 + the four members)" "${SET_D[@]}"
v "(e) real client backward data (H100, session 38, one run)" "${SET_E[@]}"
