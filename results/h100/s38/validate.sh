#!/usr/bin/env bash
# Session 38: a selection model scored with session 37's five validation sets
# (results/h100/s37/train.sh), the H100 ones completed with the four stride-phase backward-data
# members' rows (call_1/new_members_val_*.csv.gz, from call 1's sweep), plus (e) the real
# client's backward data over the whole new pool in one run (call 1). Run from the repository
# root with the release binary built:  results/h100/s38/validate.sh MODEL_DIR
set -euo pipefail
m=$1
G=target/release/gconv; D=data/oracle/h200; A=results/h200/s27/call_a; S=results/h100/s38/call_1
v() { echo "== $1"; shift; $G validate --model "$m" --oracle "$@" 2>&1 | grep -E "^  (all|direction)"; }
v "(a) unseen (H200)" results/h200/s15/call1/unseen_wgrad.csv.gz results/h200/s9/unseen_{fwd,dgrad}.csv.gz \
  $D/{fwd_2d.shard-3-of-8,dgrad_2d.shard-3-of-8,dgrad_3d.shard-0-of-4}.csv.gz \
  results/h200/s22/call_c/wgrad_s3.csv.gz $A/halo_{dgrad,fwd}_2d_s3.shard-3-of-8.csv.gz
v "(b) families (H200)" results/h200/s25/call_c/bench_{fwd,dgrad,wgrad}.csv.gz $A/halo_{fwd,dgrad}_family_val.csv.gz
v "(c) real client (H200)" results/h200/s20/call_c/rc_fwd.csv.gz results/h200/s20/call_a/rc_dgrad.csv.gz results/h200/s20/call_c/rc_wgrad.csv.gz
v "(a') unseen (H100, session 36 + the four members)" results/h100/s36/call_2/r/unseen_{fwd,dgrad,wgrad}.csv.gz $S/new_members_val_unseen.csv.gz
v "(d) real client (H100, session 36 + the four members)" results/h100/s36/call_1/r/rc_{fwd,dgrad,wgrad}.csv.gz $S/new_members_val_rc.csv.gz
v "(e) real client backward data (H100, session 38, one run)" $S/r/rc_dgrad.csv.gz
