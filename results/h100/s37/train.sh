#!/usr/bin/env bash
# Session 37: the selection model trained with the shipped command (models/h200/README.md,
# "Training", sessions 34/36) plus EXTRA files (this session's rows of the tensor-core
# stride-phase backward-data kernel), into OUT, then validated with session 28's three sets
# (results/h200/s28/retrain.md (a)-(c)), session 36's H100 unseen re-measure and the H100 real
# client (session 36, call 1). Run from the repository root with the release binary built:
#   results/h100/s37/train.sh OUT [EXTRA.csv.gz ...]
set -euo pipefail
out=$1; shift
G=${G:-target/release/gconv}; D=data/oracle/h200; A=results/h200/s27/call_a; F=results/h200/s31/call_f
$G train --output "$out" --folds 5 --top-weight 2 --label-cap 1.4 --data \
  $D/fwd_2d.shard-{0,1,2}-of-8.csv.gz $D/fwd_3d.shard-0-of-4.csv.gz \
  $D/dgrad_2d.shard-{0,1,2}-of-8.csv.gz \
  $D/wgrad_2d.shard-5-of-8.csv.gz results/h200/s12/call4/zoo_wgrad.csv.gz \
  $D/wgrad_banded_s13.csv.gz \
  results/h200/s14/call1/zoo_wgrad.csv.gz results/h200/s14/call1/zoo_dgrad.csv.gz \
  results/h200/s14/call4/ws_wgrad.csv.gz results/h200/s14/call4/ws_dgrad.csv.gz \
  results/h200/s14/call4/ws_fwd.csv.gz results/h200/s14/call7/ws_cg32.csv.gz \
  results/h200/s15/call1/zoo_wgrad.csv.gz results/h200/s22/call_c/wgrad_s3.csv.gz \
  results/h200/s25/call_f/train_{fwd,dgrad,wgrad}.csv.gz \
  $A/halo_dgrad_2d_s{0,1,2}.shard-*.csv.gz $A/halo_fwd_2d_s{0,1,2}.shard-*.csv.gz \
  $A/halo_{dgrad,fwd}_zoo.csv.gz results/h200/s27/registry_{dgrad,fwd}.csv.gz \
  results/h200/s28/call_b/s2_grid_{fwd,wgrad}.csv.gz \
  $F/bench_{wgrad,dgrad}.csv.gz $F/im2col_{wgrad,dgrad}.csv.gz \
  results/h100/s34/call_d/r/sweep_merge.csv.gz results/h100/s34/call_e/r/bench_wgrad.csv.gz \
  "$@" > "$out.train.log" 2>&1
tail -3 "$out.train.log"
v() { echo "== $1"; shift; $G validate --model "$out" --oracle "$@" 2>&1 | grep -E "^  (all|direction)"; }
v "(a) unseen (H200)" results/h200/s15/call1/unseen_wgrad.csv.gz results/h200/s9/unseen_{fwd,dgrad}.csv.gz \
  $D/{fwd_2d.shard-3-of-8,dgrad_2d.shard-3-of-8,dgrad_3d.shard-0-of-4}.csv.gz \
  results/h200/s22/call_c/wgrad_s3.csv.gz $A/halo_{dgrad,fwd}_2d_s3.shard-3-of-8.csv.gz
v "(b) families (H200)" results/h200/s25/call_c/bench_{fwd,dgrad,wgrad}.csv.gz $A/halo_{fwd,dgrad}_family_val.csv.gz
v "(c) real client (H200)" results/h200/s20/call_c/rc_fwd.csv.gz results/h200/s20/call_a/rc_dgrad.csv.gz results/h200/s20/call_c/rc_wgrad.csv.gz
v "(a') unseen (H100, session 36)" results/h100/s36/call_2/r/unseen_{fwd,dgrad,wgrad}.csv.gz
v "(d) real client (H100, session 36)" results/h100/s36/call_1/r/rc_{fwd,dgrad,wgrad}.csv.gz
