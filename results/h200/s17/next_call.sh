# For the next session's first device call (about 7 minutes): branch wip/wgmma-desc against
# main. Pack both binaries here with `scripts/h200.sh wip/wgmma-desc` (stripped, in
# target/carry/bins.tar.xz: the tree plus two unstripped binaries exceeds the device tool's
# 64 MiB), carry ["target/carry/bins.tar.xz"] and run:
#   tar xJf target/carry/bins.tar.xz && timeout 590 bash results/h200/s17/next_call.sh
export GCONV_CACHE_DIR=/tmp/gc PYTHONUNBUFFERED=1; unset LD_LIBRARY_PATH
N=target/wgmma-desc/gconv; B=target/release/gconv; R=$OUT/r; mkdir -p $R
SECONDS=0
timeout 120 $N selftest --gpu --kernels _wgmma > $R/selftest_wgmma.log 2>&1; echo "rc=$? ${SECONDS}s" >> $R/selftest_wgmma.log
# the branch's backward-weight loaders serve every igemm math path
timeout 90 $N selftest --gpu --direction wgrad --kernels igemm_ > $R/selftest_wgrad_igemm.log 2>&1; echo "rc=$? ${SECONDS}s" >> $R/selftest_wgrad_igemm.log
for x in N B; do
  eval bin=\$$x
  timeout 60 $bin sweep --variant bwd_data --problems results/h200/s15/dgrad_cg128.txt --config configs/traits/bwd_data_wgmma_bf16.json --arch sm_90a --filter "group_merge == 1 && fast_path == general && tile_n >= 128" --vs cudnn --output $R/dgrad_cg128_wgmma_$x.csv --batch-size 200 --workers 16 > $R/dgrad_cg128_wgmma_$x.log 2>&1
done
for d in dgrad fwd wgrad; do
  timeout 170 $N bench --problems model_zoo --direction $d --vs cudnn --output $R/zoo_$d.csv --batch-size 200 --workers 16 > $R/zoo_$d.log 2>&1; echo "$d bench ${SECONDS}s"
done
tail -n 2 $R/selftest_*.log; grep -h "geomean" $R/*.log
$N compare $R/dgrad_cg128_wgmma_B.csv $R/dgrad_cg128_wgmma_N.csv 2>&1 | head -6
gzip -f $R/*.messages.jsonl 2>/dev/null
tar czf $OUT/next_call.tgz -C $OUT r && rm -rf $R
