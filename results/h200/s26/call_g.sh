# Session 26, call g: the halo path over the registry's 50 stride-1 backward-data layers with
# K/G a multiple of 64 and C/G of 8 (every halo tile, every row verified, cuDNN in the same run);
# the pool members of 34 of them are in data/oracle/h200/dgrad_2d.shard-*.
#   scripts/h200.sh (main); carry ["target/carry/bins.tar.xz"];
#   tar xJf target/carry/bins.tar.xz && (timeout 300 bash results/h200/s26/call_g.sh; cd $OUT && tar czf g.tgz r; true)
export GCONV_CACHE_DIR=/tmp/gc PYTHONUNBUFFERED=1; unset LD_LIBRARY_PATH
B=target/release/gconv; R=$OUT/r; mkdir -p $R; S=results/h200/s26
SECONDS=0
timeout 270 $B sweep --variant bwd_data --arch sm_90a --problems $S/dgrad_halo_registry.txt --config $S/dgrad_halo_only.json \
  --vs cudnn --output $R/sweep_halo_registry.csv --batch-size 200 --workers 16 > $R/sweep_halo_registry.log 2>&1; echo "rc=$? ${SECONDS}s" >> $R/sweep_halo_registry.log
gzip -f $R/*.messages.jsonl $R/sweep_*.csv 2>/dev/null; true
