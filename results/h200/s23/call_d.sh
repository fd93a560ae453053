# Session 23, call d: main's zoo backward-data and backward-weight benches (every pool member,
# `auto`, cuDNN in the same run) and, in the same lease, what a PyTorch user gets on the same
# keys (torch_baseline.py --graph: cuDNN autotuned or PyTorch's kernels, NHWC and NCHW, the
# better of the two; the shared bench script, carried as target/torch_baseline.py).
#   scripts/h200.sh; cp ../shared/bench/torch_baseline.py target/;
#   carry ["target/carry/bins.tar.xz", "target/torch_baseline.py"];
#   tar xJf target/carry/bins.tar.xz && (timeout 590 bash results/h200/s23/call_d.sh; cd $OUT && tar czf d.tgz r; true)
export GCONV_CACHE_DIR=/tmp/gc PYTHONUNBUFFERED=1; unset LD_LIBRARY_PATH
B=target/release/gconv; R=$OUT/r; mkdir -p $R
SECONDS=0
for d in dgrad wgrad; do
  $B problems model_zoo_$d > $R/zoo_$d.txt
  timeout 100 python3 target/torch_baseline.py $R/zoo_$d.txt --graph --out $R/torch_$d.csv > $R/torch_$d.log 2>&1; echo "rc=$? ${SECONDS}s" >> $R/torch_$d.log
done
timeout 120 $B bench --problems model_zoo --direction dgrad --vs cudnn --output $R/bench_dgrad.csv --batch-size 200 --workers 16 > $R/bench_dgrad.log 2>&1; echo "rc=$? ${SECONDS}s" >> $R/bench_dgrad.log
left=$(( 580 - SECONDS ))
timeout $left $B bench --problems model_zoo --direction wgrad --vs cudnn --output $R/bench_wgrad.csv --batch-size 200 --workers 16 > $R/bench_wgrad.log 2>&1; echo "rc=$? ${SECONDS}s" >> $R/bench_wgrad.log
gzip -f $R/*.messages.jsonl $R/bench_*.csv 2>/dev/null; true
