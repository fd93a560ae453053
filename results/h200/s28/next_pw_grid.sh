# For the next session (not run in session 28): the oracle rows of pw_grid_*.txt (48 grouped
# pointwise geometries per direction, 1x1 at stride 2 or 1, C/G 8-64; pw_grid.py), every pool
# member and cuDNN, so that the model can learn the regime of its worst cross-validation
# problems (retrain.md). Then retrain with session 28's command plus these CSVs (the
# backward-data rows only if the unseen P10 holds, as in retrain.md) and validate on the same
# three sets.
#   scripts/h200.sh; carry ["target/carry/bins.tar.xz"];
#   tar xJf target/carry/bins.tar.xz && (timeout 590 bash results/h200/s28/next_pw_grid.sh; cd $OUT && tar czf n.tgz r; true)
export GCONV_CACHE_DIR=/tmp/gc PYTHONUNBUFFERED=1; unset LD_LIBRARY_PATH
B=target/release/gconv; R=$OUT/r; mkdir -p $R; S=results/h200/s28
SECONDS=0
for d in fwd dgrad wgrad; do
  left=$(( (580 - SECONDS) / $([ $d = fwd ] && echo 3 || ([ $d = dgrad ] && echo 2 || echo 1)) ))
  timeout $left $B bench --problems $S/pw_grid_$d.txt --direction $d --vs cudnn --output $R/pw_grid_$d.csv \
    --batch-size 200 --workers 16 > $R/pw_grid_$d.log 2>&1
  echo "$d rc=$? ${SECONDS}s" | tee -a $R/progress.log
done
gzip -f $R/*.messages.jsonl $R/*.csv 2>/dev/null; true
