# Session 32, call c: the zoo in all three directions with the retrained selection model
# (`auto` = the model's first choice; cuDNN in the same run), the GPU correctness matrix of the
# pools' TMA-fed members in every dtype (session 31 ran only bf16 ones), and a sweep of direct
# CUDA-core tiles (persistent stages 2 next to stages 1) over the zoo's 5x5/7x7 depthwise
# backward-data layers. Build: scripts/h200.sh (binary of the commit that ships the model);
# the sweep's kernels compiled here first (session 32: 238 modules), packed as /tmp/gc there:
#   GCONV_CACHE_DIR=target/gc_c target/release/gconv cache build --problems results/h100/s32/dw_dgrad.txt \
#     --config results/h100/s32/dw_simt_dgrad.json
#   tar cJf target/carry/gc.tar.xz -C target --transform 's,^gc_c,gc,' gc_c
# (the zoo benches compile theirs on the device's 15 threads while earlier kernels are timed)
# carry ["target/carry/bins.tar.xz", "target/carry/gc.tar.xz"]
#   tar xJf target/carry/bins.tar.xz && (timeout 590 bash results/h100/s32/call_c.sh; cd $OUT && tar czf c.tgz r; cat r/progress.log)
export GCONV_CACHE_DIR=/tmp/gc PYTHONUNBUFFERED=1; unset LD_LIBRARY_PATH
B=target/release/gconv; R=$OUT/r; mkdir -p $R; S=results/h100/s32
[ -d /tmp/gc ] || { [ -f target/carry/gc.tar.xz ] && tar xJf target/carry/gc.tar.xz -C /tmp; }
nvidia-smi --query-gpu=name,clocks.max.sm,memory.total,driver_version --format=csv > $R/gpu.txt 2>&1
SECONDS=0
st() { echo "$* rc=$? ${SECONDS}s" | tee -a $R/progress.log; }
for d in dgrad wgrad fwd; do
  cap=115; [ $d = wgrad ] && cap=130
  timeout $cap $B bench --problems model_zoo --direction $d --vs cudnn --output $R/bench_$d.csv --batch-size 200 --workers 16 > $R/bench_$d.log 2>&1; st bench zoo $d
done
timeout 70 $B selftest --gpu --kernels _wgmmatma_ > $R/selftest_tma.log 2>&1; st selftest tma
timeout $(( 580 - SECONDS )) $B sweep --variant bwd_data --problems $S/dw_dgrad.txt --config $S/dw_simt_dgrad.json --vs cudnn --output $R/sweep_dw.csv --batch-size 200 > $R/sweep_dw.log 2>&1; st sweep dw
gzip -f $R/*.messages.jsonl $R/*.csv 2>/dev/null; true
