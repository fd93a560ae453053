#!/usr/bin/env bash
# The real client's grouped layers (ResNeXt-50 32x4d: G 32; RegNetY-800MF: the others) per
# model and direction from whole-pool bench CSVs: cuDNN's best time summed, the roofline time
# those layers allow summed (cuDNN's time x its roofline fraction, the bench's own column), the
# best gconv member summed: the bound on "converted layers N x faster than cuDNN" (issue #15)
# and where the pool stands. No GPU needed.
#   results/h100/s35/rc_bounds.sh results/h200/s20/call_c/rc_fwd.csv.gz \
#     results/h200/s20/call_a/rc_dgrad.csv.gz results/h100/s34/call_e/r/rc_wgrad.csv.gz
set -euo pipefail
for f in "$@"; do
  echo "== $f"
  zcat -f "$f" | awk -F, 'NR > 1 && $24 == "ok" {
      lat = $25; key = $2
      if ($1 ~ /^cudnn/) { if (!(key in cb) || lat < cb[key]) { cb[key] = lat; crf[key] = $28 } }
      else if (!(key in gb) || lat < gb[key]) gb[key] = lat
    }
    END {
      for (k in cb) { m = (k ~ /_g32_/) ? "resnext50_32x4d" : "regnet_y_800mf"; C[m] += cb[k]; R[m] += cb[k] * crf[k]; G[m] += gb[k] }
      for (m in C) printf "%-16s cuDNN %.3f ms, roofline %.3f ms, best gconv %.3f ms: bound %.2fx cuDNN, best-in-pool %.2fx\n", m, C[m], R[m], G[m], C[m] / R[m], C[m] / G[m]
    }'
done
