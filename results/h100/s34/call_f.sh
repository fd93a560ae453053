# Session 34, call f: with the shipped binary of this session (the wgrad pool's merged TMA tiles,
# the persistent CUDA-core grid as one resident wave, the selection model retrained with call d's
# and call e's rows): the zoo's backward data and forward, whole pools and cuDNN (the wave grid's
# effect on the pools and `auto` on fresh rows), and the decision time on the GPU host. Cut to
# what 230 s hold after three failed starts; the re-tune of the backward-weight decisions that
# the pool change made stale (`gconv tune --problems model_zoo_wgrad --top 6`, the real client's
# `rc_grouped_wgrad.txt --top 12`, as in results/h100/s32/call_a.sh) is left for a later lease.
# Build: scripts/h200.sh; the backward-weight modules are call e's cache (target/gc_e packed as
# gc.tar.xz, call_e.sh's header); the direct modules compile on the device's 15 threads.
# carry ["target/carry/bins.tar.xz", "target/carry/gc.tar.xz"]
#   tar xJf target/carry/bins.tar.xz && (timeout 230 bash results/h100/s34/call_f.sh; cd $OUT && tar czf f.tgz r; cat r/progress.log)
export GCONV_CACHE_DIR=/tmp/gc PYTHONUNBUFFERED=1; unset LD_LIBRARY_PATH
B=target/release/gconv; R=$OUT/r; mkdir -p $R
[ -d /tmp/gc ] || { [ -f target/carry/gc.tar.xz ] && tar xJf target/carry/gc.tar.xz -C /tmp; }
nvidia-smi --query-gpu=name,clocks.max.sm,memory.total,driver_version --format=csv > $R/gpu.txt 2>&1
SECONDS=0
st() { echo "$* rc=$? ${SECONDS}s" | tee -a $R/progress.log; }
timeout 100 $B bench --problems model_zoo --direction dgrad --vs cudnn --output $R/bench_dgrad.csv --batch-size 200 --workers 16 > $R/bench_dgrad.log 2>&1; st bench zoo dgrad
timeout $(( 212 - SECONDS )) $B bench --problems model_zoo --direction fwd --vs cudnn --output $R/bench_fwd.csv --batch-size 200 --workers 16 > $R/bench_fwd.log 2>&1; st bench zoo fwd
timeout 10 target/release/examples/decision_time > $R/decision_time.log 2>&1; st decision_time
gzip -f $R/*.messages.jsonl $R/*.csv 2>/dev/null; true
