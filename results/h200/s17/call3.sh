# Session 17, call 3 (carry target/carry/bins.tar.xz: target/release/gconv = main with the
# wgmma mainloop's next-stage loads issued behind the k-tile's batch, and target/lean/gconv =
# main before that change, e29d772): the GPU selftest of every wgmma member (all three
# directions), the wgmma backward-data tiles on C/G 128 g2 with both binaries (A/B in one
# lease), and the zoo benches of all three directions with the new binary.
export GCONV_CACHE_DIR=/tmp/gc PYTHONUNBUFFERED=1; unset LD_LIBRARY_PATH
N=target/release/gconv; L=target/lean/gconv; R=$OUT/r; mkdir -p $R
SECONDS=0
timeout 120 $N selftest --gpu --kernels _wgmma_gen > $R/selftest_wgmma.log 2>&1; echo "rc=$? ${SECONDS}s" >> $R/selftest_wgmma.log
for x in N L; do
  eval bin=\$$x
  timeout 60 $bin sweep --variant bwd_data --problems results/h200/s15/dgrad_cg128.txt --config configs/traits/bwd_data_wgmma_bf16.json --arch sm_90a --filter "group_merge == 1 && fast_path == general && tile_n >= 128" --vs cudnn --output $R/dgrad_cg128_wgmma_$x.csv --batch-size 200 --workers 16 > $R/dgrad_cg128_wgmma_$x.log 2>&1
  echo "sweep $x ${SECONDS}s"
done
for d in dgrad fwd wgrad; do
  timeout 170 $N bench --problems model_zoo --direction $d --vs cudnn --output $R/zoo_$d.csv --batch-size 200 --workers 16 > $R/zoo_$d.log 2>&1; echo "$d bench ${SECONDS}s"
done
tail -n 2 $R/selftest_wgmma.log; grep -h "geomean" $R/*.log
$N compare $R/dgrad_cg128_wgmma_L.csv $R/dgrad_cg128_wgmma_N.csv 2>&1 | head -6
gzip -f $R/*.messages.jsonl 2>/dev/null
tar czf $OUT/call3.tgz -C $OUT r && rm -rf $R
