#!/usr/bin/env bash
# Profiles, with Nsight Compute, the fastest ok kernel of a bench/sweep CSV on one problem.
# usage: scripts/ncu_best.sh CSV PROBLEM [KERNEL_PREFIX]   (GPU machine; gconv in target/release)
set -euo pipefail
csv=$1 problem=$2 prefix=${3:-}
best=$(awk -F, -v p="$problem" -v pre="$prefix" 'NR>1 && $2==p && $24=="ok" && $1 !~ /^cudnn/ && index($1,pre)==1 {print $25, $1}' "$csv" | sort -g | head -n 1 | cut -d' ' -f2)
[ -n "$best" ] || { echo "no ok kernel for $problem in $csv" >&2; exit 1; }
echo "== ncu: $best on $problem"
ncu --section SpeedOfLight --section MemoryWorkloadAnalysis --section Occupancy --section LaunchStats \
    --section WarpStateStats --section SchedulerStats --section ComputeWorkloadAnalysis --section SourceCounters \
    -k "regex:${best:0:12}" -c 1 ./target/release/gconv run --backend cuda --problem "$problem" \
    --kernel "$best" --iters 1 --no-graph
