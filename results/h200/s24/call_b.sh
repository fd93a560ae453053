# Session 24, call b: the GPU matrix over the three depth-streaming pool members (the matrix
# gained a 3D C/G 8 case they can run: call a found none), then main's zoo forward and
# backward-data benches (every pool member, `auto` on the re-tuned decisions of call a, cuDNN
# in the same run) and what a PyTorch user gets on the same backward-data keys.
#   scripts/h200.sh; cp ../shared/bench/torch_baseline.py target/;
#   carry ["target/carry/bins.tar.xz", "target/torch_baseline.py"];
#   tar xJf target/carry/bins.tar.xz && (timeout 590 bash results/h200/s24/call_b.sh; cd $OUT && tar czf b.tgz r; true)
export GCONV_CACHE_DIR=/tmp/gc PYTHONUNBUFFERED=1; unset LD_LIBRARY_PATH
B=target/release/gconv; R=$OUT/r; mkdir -p $R
SECONDS=0
for d in fwd dgrad; do
  timeout 90 $B selftest --gpu --direction $d --kernels _s3_v16 > $R/selftest_$d.log 2>&1; echo "rc=$? ${SECONDS}s" >> $R/selftest_$d.log
done
$B problems model_zoo_dgrad > $R/zoo_dgrad.txt
timeout 100 python3 target/torch_baseline.py $R/zoo_dgrad.txt --graph --out $R/torch_dgrad.csv > $R/torch_dgrad.log 2>&1; echo "rc=$? ${SECONDS}s" >> $R/torch_dgrad.log
timeout 150 $B bench --problems model_zoo --direction dgrad --vs cudnn --output $R/bench_dgrad.csv --batch-size 200 --workers 16 > $R/bench_dgrad.log 2>&1; echo "rc=$? ${SECONDS}s" >> $R/bench_dgrad.log
left=$(( 580 - SECONDS ))
timeout $left $B bench --problems model_zoo --direction fwd --vs cudnn --output $R/bench_fwd.csv --batch-size 200 --workers 16 > $R/bench_fwd.log 2>&1; echo "rc=$? ${SECONDS}s" >> $R/bench_fwd.log
gzip -f $R/*.messages.jsonl $R/bench_*.csv 2>/dev/null; true
