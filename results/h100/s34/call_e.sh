# Session 34, call e: the backward-weight pool with the three TMA-fed merged tiles (gm 2, 4, 8;
# igemm/pool.rs) on the GPU correctness matrix, then the whole pool and cuDNN on the zoo's 27
# backward-weight layers and on the real client's 14 grouped ones (training rows for the
# selection model and the figures of issue #13). Then branch wip/wave-grid (the persistent
# CUDA-core direct grid as one resident wave, its launch bound holding the registers) against
# main on session 32's 5x5/7x7 depthwise backward-data tile sweep, and the branch's stage-2
# pool members on the GPU correctness matrix. Build: scripts/h200.sh wip/wave-grid; the kernels
# partly compiled here first (the rest on the device's 15 threads while earlier kernels are timed):
#   GCONV_CACHE_DIR=target/gc_e target/release/gconv cache build --problems model_zoo --direction wgrad
#   (the same for results/h200/s20/rc_grouped_wgrad.txt; the dw sweep's with both binaries:
#   --problems results/h100/s32/dw_dgrad.txt --config results/h100/s32/dw_simt_dgrad.json, and
#   --problems results/h100/s34/dw_fwd.txt --config results/h100/s34/dw_simt_fwd.json)
#   tar cf - -C target --transform 's,^gc_e,gc,' gc_e | xz -T2 > target/carry/gc.tar.xz
# carry ["target/carry/bins.tar.xz", "target/carry/gc.tar.xz"]
#   tar xJf target/carry/bins.tar.xz && (timeout 590 bash results/h100/s34/call_e.sh; cd $OUT && tar czf e.tgz r; cat r/progress.log)
export GCONV_CACHE_DIR=/tmp/gc PYTHONUNBUFFERED=1; unset LD_LIBRARY_PATH
B=target/release/gconv; R=$OUT/r; mkdir -p $R
[ -d /tmp/gc ] || { [ -f target/carry/gc.tar.xz ] && tar xJf target/carry/gc.tar.xz -C /tmp; }
nvidia-smi --query-gpu=name,clocks.max.sm,memory.total,driver_version --format=csv > $R/gpu.txt 2>&1
SECONDS=0
st() { echo "$* rc=$? ${SECONDS}s" | tee -a $R/progress.log; }
S=results/h100/s32; W=target/wave-grid/gconv
timeout 60 $B sweep --variant bwd_data --problems $S/dw_dgrad.txt --config $S/dw_simt_dgrad.json --vs cudnn --output $R/sweep_dw_main.csv --batch-size 200 > $R/sweep_dw_main.log 2>&1; st sweep dw main
timeout 60 $W sweep --variant bwd_data --problems $S/dw_dgrad.txt --config $S/dw_simt_dgrad.json --vs cudnn --output $R/sweep_dw_wave.csv --batch-size 200 > $R/sweep_dw_wave.log 2>&1; st sweep dw wave
$B compare $R/sweep_dw_main.csv $R/sweep_dw_wave.csv > $R/compare_dw.txt 2>&1; st compare
F=results/h100/s34
timeout 60 $B sweep --variant forward --problems $F/dw_fwd.txt --config $F/dw_simt_fwd.json --vs cudnn --output $R/sweep_fwd_main.csv --batch-size 200 > $R/sweep_fwd_main.log 2>&1; st sweep fwd main
timeout 60 $W sweep --variant forward --problems $F/dw_fwd.txt --config $F/dw_simt_fwd.json --vs cudnn --output $R/sweep_fwd_wave.csv --batch-size 200 > $R/sweep_fwd_wave.log 2>&1; st sweep fwd wave
$B compare $R/sweep_fwd_main.csv $R/sweep_fwd_wave.csv > $R/compare_fwd.txt 2>&1; st compare fwd
timeout 60 $B selftest --gpu --direction wgrad --kernels wgmmatma > $R/selftest_tma_wgrad.log 2>&1; st selftest
timeout 220 $B bench --problems model_zoo --direction wgrad --vs cudnn --output $R/bench_wgrad.csv --batch-size 200 --workers 16 > $R/bench_wgrad.log 2>&1; st bench zoo wgrad
timeout 150 $B bench --problems results/h200/s20/rc_grouped_wgrad.txt --direction wgrad --vs cudnn --output $R/rc_wgrad.csv --batch-size 200 --workers 16 > $R/rc_wgrad.log 2>&1; st bench rc wgrad
timeout $(( 585 - SECONDS )) $W selftest --gpu --kernels _s2_v > $R/selftest_wave_s2.log 2>&1; st selftest wave s2
gzip -f $R/*.messages.jsonl $R/*.csv 2>/dev/null; true
