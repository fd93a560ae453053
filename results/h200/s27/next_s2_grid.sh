# For the next session (not run in session 27): the oracle rows of s2_grid_*.txt (48 strided
# grouped geometries with C/G 8-32 per direction, s2_grid.py), every pool member and cuDNN,
# so that the model can learn the stride-2 regime where its forward first choice is weakest
# (README.md, "The real client's layers as validation"). Then retrain with these three CSVs
# added (models/h200/README.md, session 27's command), validate on the same files as session 27
# and on the real client's benches (validate_real_client.log), re-bless auto_choices.
#   scripts/h200.sh; carry ["target/carry/bins.tar.xz"];
#   tar xJf target/carry/bins.tar.xz && (timeout 590 bash results/h200/s27/next_s2_grid.sh; cd $OUT && tar czf n.tgz r; true)
export GCONV_CACHE_DIR=/tmp/gc PYTHONUNBUFFERED=1; unset LD_LIBRARY_PATH
B=target/release/gconv; R=$OUT/r; mkdir -p $R; S=results/h200/s27
SECONDS=0
for d in fwd dgrad wgrad; do
  left=$(( (580 - SECONDS) / $([ $d = fwd ] && echo 3 || ([ $d = dgrad ] && echo 2 || echo 1)) ))
  timeout $left $B bench --problems $S/s2_grid_$d.txt --direction $d --vs cudnn --output $R/s2_grid_$d.csv \
    --batch-size 200 --workers 16 > $R/s2_grid_$d.log 2>&1
  echo "$d rc=$? ${SECONDS}s" | tee -a $R/progress.log
done
gzip -f $R/*.messages.jsonl $R/*.csv 2>/dev/null; true
