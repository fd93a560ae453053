# Session 27, call b: the halo tiles in the forward and backward-data pools, the model retrained
# on their rows (call a). The GPU matrix over the halo members (the new halo_cpg128 case), the
# shipped decisions re-tuned (the pool change makes every forward and backward-data entry
# stale): the zoo over the model's first 10, the real client's grouped layers over its first
# 16; the zoo benches with cuDNN in the same run; then the registry's stride-1 layers of
# session 26 (best-in-pool and auto with the halo members against cuDNN).
#   scripts/h200.sh; carry ["target/carry/bins.tar.xz"];
#   tar xJf target/carry/bins.tar.xz && (timeout 590 bash results/h200/s27/call_b.sh; cd $OUT && tar czf b.tgz r; true)
export GCONV_CACHE_DIR=/tmp/gc PYTHONUNBUFFERED=1; unset LD_LIBRARY_PATH
B=target/release/gconv; R=$OUT/r; mkdir -p $R; S=results/h200/s26
SECONDS=0
st() { echo "$* rc=$? ${SECONDS}s" | tee -a $R/progress.log; }
for d in dgrad fwd; do
  timeout 60 $B selftest --gpu --direction $d --kernels _halo > $R/selftest_$d.log 2>&1; st selftest $d
done
cp models/h200/decisions.json $R/decisions.json
for d in dgrad fwd; do
  timeout 110 $B tune --problems model_zoo_$d --top 10 --vs cudnn --decisions $R/decisions.json --output $R/tune10_$d.csv --batch-size 200 > $R/tune10_$d.log 2>&1; st tune zoo $d
done
for d in dgrad fwd; do
  timeout 100 $B bench --problems model_zoo --direction $d --vs cudnn --output $R/bench_$d.csv --batch-size 200 --workers 16 > $R/bench_$d.log 2>&1; st bench zoo $d
done
for d in dgrad fwd; do
  timeout 60 $B tune --problems results/h200/s20/rc_grouped_$d.txt --top 16 --vs cudnn --decisions $R/decisions.json --output $R/tune16_rc_$d.csv --batch-size 200 > $R/tune16_rc_$d.log 2>&1; st tune rc $d
done
left=$(( (575 - SECONDS) / 2 ))
timeout $left $B bench --problems $S/dgrad_halo_registry.txt --direction dgrad --vs cudnn --output $R/bench_registry_dgrad.csv --batch-size 200 --workers 16 > $R/bench_registry_dgrad.log 2>&1; st bench registry dgrad
left=$(( 580 - SECONDS ))
timeout $left $B bench --problems $S/fwd_halo_registry.txt --direction fwd --vs cudnn --output $R/bench_registry_fwd.csv --batch-size 200 --workers 16 > $R/bench_registry_fwd.log 2>&1; st bench registry fwd
gzip -f $R/*.messages.jsonl $R/*.csv 2>/dev/null; true
