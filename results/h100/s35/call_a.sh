# Session 35 (no device was lent; for the next session): session 34's call f (not run) with this
# session's binary, led by the first GPU run of the backward-weight group-merge tails (the
# TMA-fed merged tiles over G not a multiple of gm, `igemm::rules::merge_tail`). In order: the
# GPU matrix of the TMA-fed backward-weight members (the `merged_tail_cpg{32,16,8}` cases are
# new), the real client's 14 grouped backward-weight layers (whole pool and cuDNN: the G 9 and
# G 49 layers now admit the merged tiles; session 34: g49 C784 s2 0.94x cuDNN), then call f:
# the zoo's backward data and forward (fresh rows of the one-wave persistent tiles), the
# decision time on the GPU host, the re-tune of the backward-weight decisions (the zoo --top 6,
# the real client --top 12; merge $R/decisions.json's new entries into
# models/h200/decisions.json afterwards).
# Build (every igemm kernel's source changed in session 35, so an older cache misses):
#   scripts/h200.sh
#   for d in wgrad dgrad fwd; do GCONV_CACHE_DIR=target/gc target/release/gconv cache build --problems model_zoo --direction $d; done
#   GCONV_CACHE_DIR=target/gc target/release/gconv cache build --problems results/h200/s20/rc_grouped_wgrad.txt --direction wgrad
#   tar cf - -C target gc | xz -T2 > target/carry/gc.tar.xz   # check: bins + gc + tree < 64 MiB
# carry ["target/carry/bins.tar.xz", "target/carry/gc.tar.xz"]
#   tar xJf target/carry/bins.tar.xz && (timeout 590 bash results/h100/s35/call_a.sh; cd $OUT && tar czf a.tgz r; cat r/progress.log)
export GCONV_CACHE_DIR=/tmp/gc PYTHONUNBUFFERED=1; unset LD_LIBRARY_PATH
B=target/release/gconv; R=$OUT/r; mkdir -p $R
[ -d /tmp/gc ] || { [ -f target/carry/gc.tar.xz ] && tar xJf target/carry/gc.tar.xz -C /tmp; }
nvidia-smi --query-gpu=name,clocks.max.sm,memory.total,driver_version --format=csv > $R/gpu.txt 2>&1
SECONDS=0
st() { echo "$* rc=$? ${SECONDS}s" | tee -a $R/progress.log; }
timeout 60 $B selftest --gpu --direction wgrad --kernels wgmmatma --verbose > $R/selftest_tma_wgrad.log 2>&1; st selftest tma wgrad
timeout 90 $B bench --problems results/h200/s20/rc_grouped_wgrad.txt --direction wgrad --vs cudnn --output $R/rc_wgrad.csv --batch-size 200 --workers 16 > $R/rc_wgrad.log 2>&1; st bench rc wgrad
timeout 110 $B bench --problems model_zoo --direction dgrad --vs cudnn --output $R/bench_dgrad.csv --batch-size 200 --workers 16 > $R/bench_dgrad.log 2>&1; st bench zoo dgrad
timeout 140 $B bench --problems model_zoo --direction fwd --vs cudnn --output $R/bench_fwd.csv --batch-size 200 --workers 16 > $R/bench_fwd.log 2>&1; st bench zoo fwd
timeout 15 target/release/examples/decision_time > $R/decision_time.log 2>&1; st decision_time
cp models/h200/decisions.json $R/decisions.json
timeout 100 $B tune --problems model_zoo_wgrad --top 6 --vs cudnn --decisions $R/decisions.json --output $R/tune_wgrad.csv --batch-size 200 > $R/tune_wgrad.log 2>&1; st tune zoo wgrad
timeout $(( 580 - SECONDS )) $B tune --problems results/h200/s20/rc_grouped_wgrad.txt --top 12 --vs cudnn --decisions $R/decisions.json --output $R/tune_rc_wgrad.csv --batch-size 200 > $R/tune_rc_wgrad.log 2>&1; st tune rc wgrad
gzip -f $R/*.messages.jsonl $R/*.csv 2>/dev/null; true
