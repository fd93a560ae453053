# Session 36, call 5: Nsight Compute on the tensor-core stride-phase kernel at its best on the
# real client's G 4 112² stride-2 layer (call 1: 74.5 µs), verified and timed by `gconv run`
# first; then the zoo's backward weight in f16.
# carry ["target/carry/bins.tar.xz"]
#   (timeout 280 bash results/h100/s36/call_5.sh; cd $OUT && tar czf r5.tgz r; cat r/progress.log)
source results/h100/s35/prelude.sh
k=direct_dgrad_bf16_t196x64x14_w8x1_s2_v16x2_gm1_sk1d_mma_gen
p=dgrad_bf16_n64_g4_c64_k64_i112x112_f3x3_s2x2_p1x1_d1x1
timeout 40 $B run --backend cuda --problem $p --kernel $k --verify --iters 50 > $R/run_phase_mma.log 2>&1; st run
timeout 80 ncu --section SpeedOfLight --section MemoryWorkloadAnalysis --section Occupancy --section LaunchStats \
  --section WarpStateStats --section SchedulerStats -k "regex:direct_dgrad" -c 1 $B run --backend cuda --problem $p --kernel $k --iters 1 --no-graph > $R/ncu_phase_mma.txt 2>&1; st ncu
timeout $(( 270 - SECONDS )) $B bench --problems results/h100/s35/zoo_f16_wgrad.txt --direction wgrad --vs cudnn --output $R/zoo_f16_wgrad.csv --batch-size 200 --workers 16 > $R/zoo_f16_wgrad.log 2>&1; st bench zoo f16 wgrad
gzip -f $R/*.messages.jsonl $R/*.csv 2>/dev/null; true
