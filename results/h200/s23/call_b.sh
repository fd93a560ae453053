# Session 23, call b: the cluster reduction with a relaxed closing barrier (wip/cluster at its
# second commit; call a's SASS showed both cluster barriers as MEMBAR.ALL.GPU + barrier +
# CCTL.IVALL, the closing one waiting for the CTA's output stores) against main, alternately,
# on the real client's grouped backward-weight layers, igemm pool.
#   scripts/h200.sh wip/cluster; carry ["target/carry/bins.tar.xz"];
#   tar xJf target/carry/bins.tar.xz && (timeout 400 bash results/h200/s23/call_b.sh; cd $OUT && tar czf b.tgz r; true)
export GCONV_CACHE_DIR=/tmp/gc PYTHONUNBUFFERED=1; unset LD_LIBRARY_PATH
M=target/release/gconv; C=target/cluster/gconv; R=$OUT/r; mkdir -p $R
SECONDS=0
set=results/h200/s20/rc_grouped_wgrad.txt
timeout 100 $M bench --problems $set --direction wgrad --family igemm --output $R/rc_main.csv --batch-size 200 --workers 16 > $R/rc_main.log 2>&1; echo "rc=$? ${SECONDS}s" >> $R/rc_main.log
timeout 100 $C bench --problems $set --direction wgrad --family igemm --output $R/rc_cluster.csv --batch-size 200 --workers 16 > $R/rc_cluster.log 2>&1; echo "rc=$? ${SECONDS}s" >> $R/rc_cluster.log
timeout 60 $M bench --problems $set --direction wgrad --family igemm --output $R/rc_main2.csv --batch-size 200 --workers 16 > $R/rc_main2.log 2>&1; echo "rc=$? ${SECONDS}s" >> $R/rc_main2.log
timeout 60 $C bench --problems $set --direction wgrad --family igemm --output $R/rc_cluster2.csv --batch-size 200 --workers 16 > $R/rc_cluster2.log 2>&1; echo "rc=$? ${SECONDS}s" >> $R/rc_cluster2.log
timeout 60 $C selftest --gpu --direction wgrad --kernels igemm_wgrad_bf16_t32x64x32 > $R/selftest.log 2>&1; echo "rc=$? ${SECONDS}s" >> $R/selftest.log
gzip -f $R/*.messages.jsonl 2>/dev/null; true
