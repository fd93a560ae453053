# Session 31, call 2: the pools with the TMA-fed members (backward weight: four wgmmatma tiles;
# backward data: t192x128x64) on the zoo against cuDNN; the decision cache re-tuned for the two
# changed pools; the mma fragment double-buffering (branch wip/mma-prefetch-s31, packed as
# target/prefetch/gconv) against its parent (target/base/gconv, 10c2a7c) on mma pool members
# (`gconv run`, one round, parent first). Session 17 measured the same change on forward and
# backward data and did not keep it; the backward-weight members were not measured then.
#   target/release/gconv (main), target/base/gconv (10c2a7c), target/prefetch/gconv packed together;
#   carry ["target/carry/bins.tar.xz"];
#   tar xJf target/carry/bins.tar.xz && (timeout 270 bash results/h200/s31/call_2.sh; cd $OUT && tar czf two.tgz r; cat r/progress.log)
# (Cut to fit the session's last 7 device minutes: the real client's re-tune and the training
# rows of the backward-weight im2col layers are left for the next session.)
export GCONV_CACHE_DIR=/tmp/gc PYTHONUNBUFFERED=1; unset LD_LIBRARY_PATH
B=target/release/gconv; A=target/base/gconv; C=target/prefetch/gconv; R=$OUT/r; mkdir -p $R; S=results/h200/s31
SECONDS=0
st() { echo "$* rc=$? ${SECONDS}s" | tee -a $R/progress.log; }
for d in wgrad dgrad; do
  timeout 75 $B bench --problems model_zoo --direction $d --vs cudnn --output $R/bench_$d.csv --batch-size 200 --workers 16 > $R/bench_$d.log 2>&1; st bench zoo $d
done
for rep in 1; do
  while read -r p k; do
    for b in $A $C; do
      v=""; [ $rep = 1 ] && [ $b = $C ] && v=--verify
      echo "$rep $b $p $k | $(timeout 30 $b run --backend cuda --problem $p --kernel $k --iters 50 $v 2>&1 | grep -E '^(time|verify|compile)' | tr '\n' ' ')" >> $R/mma_ab.log
    done
  done < $S/mma_ab.txt
done; st mma ab
cp models/h200/decisions.json $R/decisions.json
for d in wgrad dgrad; do
  left=$(( (262 - SECONDS) / 2 )); [ $d = dgrad ] && left=$(( 264 - SECONDS ))
  timeout $left $B tune --problems model_zoo_$d --top 5 --vs cudnn --decisions $R/decisions.json --output $R/tune_$d.csv --batch-size 200 > $R/tune_$d.log 2>&1; st tune zoo $d
done
gzip -f $R/*.messages.jsonl $R/*.csv 2>/dev/null; true
