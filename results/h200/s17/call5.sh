# Session 17, call 5 (carry target/carry/bins.tar.xz: target/release/gconv = main with the
# mma.sync pipeline's double-buffered fragments and the barrier before the last k-step): the
# GPU selftest of the mma members of backward data and forward, session 15's mma.sync tile
# sweep on the zoo's C/G 128 g2 backward-data layer (call 1 ran it with e29d772's kernels),
# and the zoo backward-data bench.
export GCONV_CACHE_DIR=/tmp/gc PYTHONUNBUFFERED=1; unset LD_LIBRARY_PATH
B=target/release/gconv; R=$OUT/r; mkdir -p $R
SECONDS=0
timeout 80 $B selftest --gpu --direction dgrad --kernels _mma_ > $R/selftest_dgrad_mma.log 2>&1; echo "rc=$? ${SECONDS}s" >> $R/selftest_dgrad_mma.log
timeout 60 $B selftest --gpu --direction fwd --kernels _mma_ > $R/selftest_fwd_mma.log 2>&1; echo "rc=$? ${SECONDS}s" >> $R/selftest_fwd_mma.log
timeout 60 $B sweep --variant bwd_data --problems results/h200/s15/dgrad_cg128.txt --config configs/traits/bwd_data_bf16.json --arch sm_90a --filter "group_merge == 1 && fast_path == general && tile_m <= 128 && tile_n >= 64" --vs cudnn --output $R/dgrad_cg128_mma.csv --batch-size 200 --workers 16 > $R/dgrad_cg128_mma.log 2>&1; echo "sweep ${SECONDS}s"
timeout $((270 - SECONDS)) $B bench --problems model_zoo --direction dgrad --vs cudnn --output $R/zoo_dgrad.csv --batch-size 200 --workers 16 > $R/zoo_dgrad.log 2>&1; echo "bench ${SECONDS}s"
tail -n 2 $R/selftest_*.log; grep -h "geomean" $R/*.log
gzip -f $R/*.messages.jsonl 2>/dev/null
tar czf $OUT/call5.tgz -C $OUT r && rm -rf $R
