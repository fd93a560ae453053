# Session 23, call a: igemm split-K reduced inside a thread-block cluster (wip/cluster) against
# main. The branch's GPU matrix of every igemm backward-weight pool member, then the igemm
# backward-weight pool benched by main and by the branch, alternately, over the zoo's and the
# real client's grouped backward-weight layers (cuDNN timed in the first run of each set).
#   scripts/h200.sh wip/cluster; carry ["target/carry/bins.tar.xz"];
#   tar xJf target/carry/bins.tar.xz && (timeout 590 bash results/h200/s23/call_a.sh; cd $OUT && tar czf a.tgz r; true)
export GCONV_CACHE_DIR=/tmp/gc PYTHONUNBUFFERED=1; unset LD_LIBRARY_PATH
M=target/release/gconv; C=target/cluster/gconv; R=$OUT/r; mkdir -p $R
SECONDS=0
$C info > $R/info.txt 2>&1
timeout 150 $C selftest --gpu --direction wgrad --kernels igemm_ > $R/selftest_wgrad_igemm.log 2>&1; echo "rc=$? ${SECONDS}s" >> $R/selftest_wgrad_igemm.log
for set in model_zoo results/h200/s20/rc_grouped_wgrad.txt; do
  tag=$([ $set = model_zoo ] && echo zoo || echo rc)
  timeout 110 $M bench --problems $set --direction wgrad --family igemm --vs cudnn --output $R/${tag}_main.csv --batch-size 200 --workers 16 > $R/${tag}_main.log 2>&1; echo "rc=$? ${SECONDS}s" >> $R/${tag}_main.log
  timeout 90 $C bench --problems $set --direction wgrad --family igemm --output $R/${tag}_cluster.csv --batch-size 200 --workers 16 > $R/${tag}_cluster.log 2>&1; echo "rc=$? ${SECONDS}s" >> $R/${tag}_cluster.log
  timeout 60 $M bench --problems $set --direction wgrad --family igemm --output $R/${tag}_main2.csv --batch-size 200 --workers 16 > $R/${tag}_main2.log 2>&1; echo "rc=$? ${SECONDS}s" >> $R/${tag}_main2.log
done
gzip -f $R/*.messages.jsonl 2>/dev/null; true
