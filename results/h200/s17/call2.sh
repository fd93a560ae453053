# Session 17, call 2 (carry target/lean/gconv = branch wip/lean-loaders 33465e0, and
# target/release/gconv = main 3e2ed34): the backward-weight selftest of the lean binary (its
# kernels share the changed cp.async), the wgmma backward-data tile space on the C/G 128 g2
# layer with both binaries in the same lease (A/B), and the zoo benches of backward data and
# forward with the lean binary (against session 15 call 2's CSVs of main's kernels).
export GCONV_CACHE_DIR=/tmp/gc PYTHONUNBUFFERED=1; unset LD_LIBRARY_PATH
L=target/lean/gconv; B=target/release/gconv; R=$OUT/r; mkdir -p $R
SECONDS=0
timeout 180 $L selftest --gpu --direction wgrad > $R/selftest_wgrad.log 2>&1; echo "rc=$? ${SECONDS}s" >> $R/selftest_wgrad.log
for x in L B; do
  eval bin=\$$x
  timeout 60 $bin sweep --variant bwd_data --problems results/h200/s15/dgrad_cg128.txt --config configs/traits/bwd_data_wgmma_bf16.json --arch sm_90a --filter "group_merge == 1 && fast_path == general && tile_n >= 128" --vs cudnn --output $R/dgrad_cg128_wgmma_$x.csv --batch-size 200 --workers 16 > $R/dgrad_cg128_wgmma_$x.log 2>&1
  echo "sweep $x ${SECONDS}s"
done
timeout 100 $L bench --problems model_zoo --direction dgrad --vs cudnn --output $R/zoo_dgrad.csv --batch-size 200 --workers 16 > $R/zoo_dgrad.log 2>&1; echo "dgrad bench ${SECONDS}s"
timeout 160 $L bench --problems model_zoo --direction fwd --vs cudnn --output $R/zoo_fwd.csv --batch-size 200 --workers 16 > $R/zoo_fwd.log 2>&1; echo "fwd bench ${SECONDS}s"
tail -n 2 $R/selftest_wgrad.log; grep -h "geomean" $R/*.log
$B compare $R/dgrad_cg128_wgmma_B.csv $R/dgrad_cg128_wgmma_L.csv 2>&1 | head -8
gzip -f $R/*.messages.jsonl 2>/dev/null
