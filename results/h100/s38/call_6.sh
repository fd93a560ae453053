# Session 38, call 6: Nsight Compute detail for the next session's kernel work on the two
# backward-data keys that miss issue #12's targets: the 3D C/G 8 layer's best member (1.94x
# cuDNN, 4x asked) and the 7x7 depthwise 56² layer's (0.347 of the roofline, 0.40 asked):
# instruction mix, warp stalls, shared-memory wavefronts and the SASS lines they sit on.
# Each kernel is verified by `gconv run --verify` first.
# carry ["target/carry/bins.tar.xz"]
#   tar xJf target/carry/bins.tar.xz && (timeout 280 bash results/h100/s38/call_6.sh; cd $OUT && tar czf c6.tgz r; cat r/progress.log)
source results/h100/s35/prelude.sh
S="--section InstructionStats --section WarpStateStats --section MemoryWorkloadAnalysis_Tables --section ComputeWorkloadAnalysis --section SourceCounters --section SpeedOfLight"
i=0
for kp in "direct_dgrad_bf16_t224x32x16_w8x1_s3_v16x2_gm1_sk1d_mma_gen dgrad_bf16_n8_g32_c256_k256_i8x28x28_f3x3x3_s1x1x1_p1x1x1_d1x1x1" \
          "direct_dgrad_bf16_t196x32x14_w7x1_s2_v2x7_gm1_sk1d_simt_gen dgrad_bf16_n32_g96_c96_k96_i56x56_f7x7_s1x1_p3x3_d1x1"; do
  set -- $kp; i=$((i + 1))
  timeout 40 $B run --backend cuda --problem $2 --kernel $1 --verify --iters 20 > $R/run_$i.log 2>&1; st run $i
  timeout 100 ncu $S -k "regex:direct_dgrad" -c 1 $B run --backend cuda --problem $2 --kernel $1 --iters 1 --no-graph > $R/ncu_$i.txt 2>&1; st ncu $i
done
true
