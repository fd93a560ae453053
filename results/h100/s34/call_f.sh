# Session 34, call f (not run: the device had no machine to lend after call e; for the next
# session). With this session's final binary (the backward-weight pool's merged TMA tiles, the
# persistent CUDA-core direct grid as one resident wave, the selection model retrained with call
# d's and call e's rows): the zoo's backward data and forward, whole pools and cuDNN (fresh rows
# of the one-wave persistent tiles in the whole pools, and `auto` on them: call c's rows hold the
# old grid's timings), the decision time on the GPU host, then the re-tune of the backward-weight
# decisions the pool change made stale (41 H100 entries dropped from models/h200/decisions.json;
# as results/h100/s32/call_a.sh: the zoo `--top 6`, the real client's grouped layers `--top 12`).
# Build: scripts/h200.sh; the backward-weight modules are call e's cache (target/gc_e packed as
# gc.tar.xz, call_e.sh's header; rebuild it if the kernel sources changed); the direct modules
# compile on the device's 15 threads while earlier kernels are timed.
# carry ["target/carry/bins.tar.xz", "target/carry/gc.tar.xz"]
#   tar xJf target/carry/bins.tar.xz && (timeout 590 bash results/h100/s34/call_f.sh; cd $OUT && tar czf f.tgz r; cat r/progress.log)
# Afterwards: merge $R/decisions.json's new entries into models/h200/decisions.json.
export GCONV_CACHE_DIR=/tmp/gc PYTHONUNBUFFERED=1; unset LD_LIBRARY_PATH
B=target/release/gconv; R=$OUT/r; mkdir -p $R
[ -d /tmp/gc ] || { [ -f target/carry/gc.tar.xz ] && tar xJf target/carry/gc.tar.xz -C /tmp; }
nvidia-smi --query-gpu=name,clocks.max.sm,memory.total,driver_version --format=csv > $R/gpu.txt 2>&1
SECONDS=0
st() { echo "$* rc=$? ${SECONDS}s" | tee -a $R/progress.log; }
timeout 110 $B bench --problems model_zoo --direction dgrad --vs cudnn --output $R/bench_dgrad.csv --batch-size 200 --workers 16 > $R/bench_dgrad.log 2>&1; st bench zoo dgrad
timeout 140 $B bench --problems model_zoo --direction fwd --vs cudnn --output $R/bench_fwd.csv --batch-size 200 --workers 16 > $R/bench_fwd.log 2>&1; st bench zoo fwd
timeout 15 target/release/examples/decision_time > $R/decision_time.log 2>&1; st decision_time
cp models/h200/decisions.json $R/decisions.json
timeout 120 $B tune --problems model_zoo_wgrad --top 6 --vs cudnn --decisions $R/decisions.json --output $R/tune_wgrad.csv --batch-size 200 > $R/tune_wgrad.log 2>&1; st tune zoo wgrad
timeout $(( 580 - SECONDS )) $B tune --problems results/h200/s20/rc_grouped_wgrad.txt --top 12 --vs cudnn --decisions $R/decisions.json --output $R/tune_rc_wgrad.csv --batch-size 200 > $R/tune_rc_wgrad.log 2>&1; st tune rc wgrad
gzip -f $R/*.messages.jsonl $R/*.csv 2>/dev/null; true
