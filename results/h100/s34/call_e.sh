# Session 34, call e: the backward-weight pool with the three TMA-fed merged tiles (gm 2, 4, 8;
# igemm/pool.rs) on the GPU correctness matrix, then the whole pool and cuDNN on the zoo's 27
# backward-weight layers and on the real client's 14 grouped ones (training rows for the
# selection model and the figures of issue #13). Build: scripts/h200.sh; the pool's kernels
# partly compiled here first (the rest on the device's 15 threads while earlier kernels are timed):
#   GCONV_CACHE_DIR=target/gc_e target/release/gconv cache build --problems model_zoo --direction wgrad
#   tar cf - -C target --transform 's,^gc_e,gc,' gc_e | xz -T2 > target/carry/gc.tar.xz
# carry ["target/carry/bins.tar.xz", "target/carry/gc.tar.xz"]
#   tar xJf target/carry/bins.tar.xz && (timeout 590 bash results/h100/s34/call_e.sh; cd $OUT && tar czf e.tgz r; cat r/progress.log)
export GCONV_CACHE_DIR=/tmp/gc PYTHONUNBUFFERED=1; unset LD_LIBRARY_PATH
B=target/release/gconv; R=$OUT/r; mkdir -p $R
[ -d /tmp/gc ] || { [ -f target/carry/gc.tar.xz ] && tar xJf target/carry/gc.tar.xz -C /tmp; }
nvidia-smi --query-gpu=name,clocks.max.sm,memory.total,driver_version --format=csv > $R/gpu.txt 2>&1
SECONDS=0
st() { echo "$* rc=$? ${SECONDS}s" | tee -a $R/progress.log; }
timeout 60 $B selftest --gpu --direction wgrad --kernels wgmmatma > $R/selftest_tma_wgrad.log 2>&1; st selftest
timeout 300 $B bench --problems model_zoo --direction wgrad --vs cudnn --output $R/bench_wgrad.csv --batch-size 200 --workers 16 > $R/bench_wgrad.log 2>&1; st bench zoo wgrad
timeout $(( 585 - SECONDS )) $B bench --problems results/h200/s20/rc_grouped_wgrad.txt --direction wgrad --vs cudnn --output $R/rc_wgrad.csv --batch-size 200 --workers 16 > $R/rc_wgrad.log 2>&1; st bench rc wgrad
gzip -f $R/*.messages.jsonl $R/*.csv 2>/dev/null; true
