# Session 22, call c: the register-pipelined backward-weight members (stages 3) on the H200:
# the GPU correctness matrix for them, then the four pipelined members and their stages-2 twins
# swept over every backward-weight problem of the model's training and validation files and
# the real client's grouped layers (wgrad_train_val.txt), for the model to learn them.
#   scripts/h200.sh; carry ["target/carry/bins.tar.xz"];
#   tar xJf target/carry/bins.tar.xz && (timeout 590 bash results/h200/s22/call_c.sh; cd $OUT && tar czf c.tgz r; true)
export GCONV_CACHE_DIR=/tmp/gc PYTHONUNBUFFERED=1; unset LD_LIBRARY_PATH
B=target/release/gconv; R=$OUT/r; mkdir -p $R; S=results/h200/s22
SECONDS=0
timeout 200 $B selftest --gpu --direction wgrad --kernels _s3_ > $R/selftest_s3.log 2>&1; echo "rc=$? ${SECONDS}s" >> $R/selftest_s3.log
tail -3 $R/selftest_s3.log
timeout 300 $B sweep --variant bwd_weight --problems $S/wgrad_train_val.txt --config $S/wgrad_s3.json \
  --filter "$(cat $S/wgrad_s3.filter)" --output $R/wgrad_s3.csv --batch-size 200 --workers 16 > $R/wgrad_s3.log 2>&1
echo "rc=$? ${SECONDS}s" >> $R/wgrad_s3.log; tail -4 $R/wgrad_s3.log
gzip -f $R/*.messages.jsonl 2>/dev/null; true
