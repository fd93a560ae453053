# Session 26, call c: the zoo benches of the three directions with the binary of main (session
# 25's retrained model: `auto` is its first choice here, without the decision cache), every pool
# member verified and timed and cuDNN in the same run; then what a PyTorch user gets on the
# backward keys (torch_baseline.py --graph, best layout), as time allows.
#   scripts/h200.sh; cp ../shared/bench/torch_baseline.py target/;
#   carry ["target/carry/bins.tar.xz", "target/torch_baseline.py"];
#   tar xJf target/carry/bins.tar.xz && (timeout 590 bash results/h200/s26/call_c.sh; cd $OUT && tar czf c.tgz r; true)
export GCONV_CACHE_DIR=/tmp/gc PYTHONUNBUFFERED=1; unset LD_LIBRARY_PATH
B=target/release/gconv; R=$OUT/r; mkdir -p $R
SECONDS=0
for d in wgrad dgrad fwd; do
  left=$(( 480 - SECONDS ))
  timeout $left $B bench --problems model_zoo --direction $d --vs cudnn --output $R/bench_$d.csv --batch-size 200 --workers 16 > $R/bench_$d.log 2>&1; echo "rc=$? ${SECONDS}s" >> $R/bench_$d.log
done
for d in wgrad dgrad; do
  $B problems model_zoo_$d > $R/zoo_$d.txt
  left=$(( 580 - SECONDS )); [ $left -gt 20 ] || break
  timeout $left python3 target/torch_baseline.py $R/zoo_$d.txt --graph --out $R/torch_$d.csv > $R/torch_$d.log 2>&1; echo "rc=$? ${SECONDS}s" >> $R/torch_$d.log
done
gzip -f $R/*.messages.jsonl $R/bench_*.csv 2>/dev/null; true
