# Session 31, call 2: the pools with the TMA-fed members (backward weight: four wgmmatma tiles;
# backward data: t192x128x64) and the mma fragment double-buffering, on the zoo against cuDNN;
# the decision cache re-tuned for the two changed pools; the fragment double-buffering A/B
# against the parent binary (mma pool members alone, `gconv run`, two alternating rounds);
# then training rows (every pool member) on the 35 backward-weight im2col layers.
#   scripts/h200.sh with target/base/gconv = the binary of 10c2a7c packed beside it;
#   carry ["target/carry/bins.tar.xz"];
#   tar xJf target/carry/bins.tar.xz && (timeout 560 bash results/h200/s31/call_2.sh; cd $OUT && tar czf two.tgz r; cat r/progress.log)
export GCONV_CACHE_DIR=/tmp/gc PYTHONUNBUFFERED=1; unset LD_LIBRARY_PATH
B=target/release/gconv; A=target/base/gconv; R=$OUT/r; mkdir -p $R; S=results/h200/s31
SECONDS=0
st() { echo "$* rc=$? ${SECONDS}s" | tee -a $R/progress.log; }
for d in wgrad dgrad; do
  timeout 100 $B bench --problems model_zoo --direction $d --vs cudnn --output $R/bench_$d.csv --batch-size 200 --workers 16 > $R/bench_$d.log 2>&1; st bench zoo $d
done
for rep in 1 2; do
  while read -r p k; do
    for b in $A $B; do
      v=""; [ $rep = 1 ] && [ $b = $B ] && v=--verify
      echo "$rep $b $p $k | $(timeout 30 $b run --backend cuda --problem $p --kernel $k --iters 50 $v 2>&1 | grep -E '^(time|verify|compile)' | tr '\n' ' ')" >> $R/mma_ab.log
    done
  done < $S/mma_ab.txt
done; st mma ab
cp models/h200/decisions.json $R/decisions.json
for d in wgrad dgrad; do
  timeout 70 $B tune --problems model_zoo_$d --top 8 --vs cudnn --decisions $R/decisions.json --output $R/tune_$d.csv --batch-size 200 > $R/tune_$d.log 2>&1; st tune zoo $d
  timeout 40 $B tune --problems results/h200/s20/rc_grouped_$d.txt --top 16 --vs cudnn --decisions $R/decisions.json --output $R/tune16_rc_$d.csv --batch-size 200 > $R/tune16_rc_$d.log 2>&1; st tune rc $d
done
left=$(( 555 - SECONDS ))
timeout $left $B bench --problems $S/im2col_wgrad.txt --direction wgrad --vs cudnn --output $R/bench_im2col_wgrad.csv --batch-size 200 --workers 16 > $R/bench_im2col_wgrad.log 2>&1; st bench im2col wgrad
gzip -f $R/*.messages.jsonl $R/*.csv 2>/dev/null; true
