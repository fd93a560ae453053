# Session 32, call b: session 31's unrun call 3, second half. Whole-pool benches of the im2col
# layers per backward direction that session 31's call f did not reach (`im2col_rest_D.txt`:
# 30 and 29 of session 30's 51 per direction; call f's bench rows of the other 21 and 22, with
# its TMA sweep of the same layers, cover the pool as it is now): every pool member verified
# and timed with cuDNN in the same run — training rows with the TMA-fed (`wgmmatma`) members,
# which the selection model has none of. Same build and carry as call_a.sh (its compile cache
# holds these layers' kernels).
#   tar xJf target/carry/bins.tar.xz && (timeout 590 bash results/h100/s32/call_b.sh; cd $OUT && tar czf b.tgz r; cat r/progress.log)
export GCONV_CACHE_DIR=/tmp/gc PYTHONUNBUFFERED=1; unset LD_LIBRARY_PATH
B=target/release/gconv; R=$OUT/r; mkdir -p $R; S=results/h100/s32
[ -d /tmp/gc ] || { [ -f target/carry/gc.tar.xz ] && tar xJf target/carry/gc.tar.xz -C /tmp; }
nvidia-smi --query-gpu=name,clocks.max.sm,memory.total,driver_version --format=csv > $R/gpu.txt 2>&1
SECONDS=0
st() { echo "$* rc=$? ${SECONDS}s" | tee -a $R/progress.log; }
# Where the 7x7 depthwise backward-data member's time goes at 56^2 (issue #12: 0.247 of the
# roofline, 0.40 asked), at the clocks the benches run at (no ncu clock locking).
P=dgrad_bf16_n32_g96_c96_k96_i56x56_f7x7_s1x1_p3x3_d1x1; K=direct_dgrad_bf16_t448x32x56_w8x1_s1_v2x7_gm1_sk1d_simt_gen
timeout 90 ncu --clock-control none --section SpeedOfLight --section Occupancy --section LaunchStats --section WarpStateStats \
  --section SchedulerStats --section ComputeWorkloadAnalysis --section MemoryWorkloadAnalysis --section InstructionStats \
  -k regex:direct_dgrad -c 1 $B run --backend cuda --problem $P --kernel $K --iters 1 --no-graph > $R/ncu_dw7_56.txt 2>&1; st ncu dw7
for d in wgrad dgrad; do
  left=$(( (575 - SECONDS) / 2 )); [ $d = dgrad ] && left=$(( 575 - SECONDS ))
  timeout $left $B bench --problems $S/im2col_rest_$d.txt --direction $d --vs cudnn --output $R/bench_im2col_$d.csv --batch-size 200 --workers 16 > $R/bench_im2col_$d.log 2>&1; st bench im2col $d
done
gzip -f $R/*.messages.jsonl $R/*.csv 2>/dev/null; true
