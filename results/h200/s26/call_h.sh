# Session 26, call h: the default backward-data pool (no halo member) on the same 49 registry
# layers as call g, the same day (best-in-pool per layer, every member verified, cuDNN in the
# same run), so that call g's halo figures have a pool to stand against.
#   scripts/h200.sh (main); carry ["target/carry/bins.tar.xz"];
#   tar xJf target/carry/bins.tar.xz && (timeout 330 bash results/h200/s26/call_h.sh; cd $OUT && tar czf h.tgz r; true)
export GCONV_CACHE_DIR=/tmp/gc PYTHONUNBUFFERED=1; unset LD_LIBRARY_PATH
B=target/release/gconv; R=$OUT/r; mkdir -p $R; S=results/h200/s26
SECONDS=0
timeout 310 $B bench --problems $S/dgrad_halo_registry.txt --direction dgrad --vs cudnn --output $R/bench_registry_pool.csv --batch-size 200 --workers 16 > $R/bench_registry_pool.log 2>&1; echo "rc=$? ${SECONDS}s" >> $R/bench_registry_pool.log
gzip -f $R/*.messages.jsonl $R/bench_*.csv 2>/dev/null; true
