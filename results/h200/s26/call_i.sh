# Session 26, call i: the halo path in forward: 15 wgmma halo tiles over the registry's 50
# stride-1 forward layers with C/G a multiple of 64 (every row verified, cuDNN in the same run),
# then the default forward pool on the same layers (best-in-pool, the same lease).
#   scripts/h200.sh (main + the forward halo); carry ["target/carry/bins.tar.xz"];
#   tar xJf target/carry/bins.tar.xz && (timeout 250 bash results/h200/s26/call_i.sh; cd $OUT && tar czf i.tgz r; true)
export GCONV_CACHE_DIR=/tmp/gc PYTHONUNBUFFERED=1; unset LD_LIBRARY_PATH
B=target/release/gconv; R=$OUT/r; mkdir -p $R; S=results/h200/s26
SECONDS=0
timeout 90 $B sweep --variant forward --arch sm_90a --problems $S/fwd_halo_registry.txt --config $S/fwd_halo_only.json \
  --vs cudnn --output $R/sweep_fwd_halo.csv --batch-size 200 --workers 16 > $R/sweep_fwd_halo.log 2>&1; echo "rc=$? ${SECONDS}s" >> $R/sweep_fwd_halo.log
left=$(( 235 - SECONDS ))
timeout $left $B bench --problems $S/fwd_halo_registry.txt --direction fwd --output $R/bench_fwd_pool.csv --batch-size 200 --workers 16 > $R/bench_fwd_pool.log 2>&1; echo "rc=$? ${SECONDS}s" >> $R/bench_fwd_pool.log
gzip -f $R/*.messages.jsonl $R/sweep_*.csv $R/bench_*.csv 2>/dev/null; true
