# Session 50, call f (any H100/H200; not run this session — for the next one): 16-warp CTAs on
# the direct tensor-core path (branch `w16-mma`: the rule takes warps_m up to 16 there; new
# trait config `configs/traits/bwd_data_direct_mma_w16_bf16.json`, 972 kernels). Call a's
# Nsight Compute profile of the zoo's 3D C/G 8 backward-data member (t112x64x28_w8x1_s2_v8x4):
# one CTA of 8 warps per SM (shared memory), issue slots 38 % busy, latency-bound; a 16-warp
# CTA doubles the warps at the same shared memory (registers: 96 for v8x2, 128 with spills for
# v8x4, `kernel_resources`). The w16 space swept on that layer with cuDNN, the direct family of
# the pool on the same layer in the same lease for reference, then the GPU selftest of three
# w16 kernels over the correctness matrix (`bwd_data_direct_mma_w16_probe_bf16.json`).
# Build on the branch: `bash scripts/h200.sh` (no base binary needed).
# carry ["target/carry/bins.tar.xz"]; slim tree keeping results/h100/s35/prelude.sh results/h200/s50 configs:
#   tar xJf target/carry/bins.tar.xz && (timeout 400 bash results/h200/s50/call_f.sh; cd $OUT && tar czf cf.tgz r; cat r/gpu.txt r/progress.log; grep -h -A4 "^dgrad" r/*.report.txt | head -20)
source results/h100/s35/prelude.sh
P=dgrad_bf16_n8_g32_c256_k256_i8x28x28_f3x3x3_s1x1x1_p1x1x1_d1x1x1
timeout 60 $B bench --problems $P --family direct --vs cudnn --output $R/pool_3d.csv --batch-size 200 --workers 16 > $R/pool_3d.log 2>&1; st bench pool 3d
$B report $R/pool_3d.csv > $R/pool_3d.report.txt 2>&1
timeout $(( 300 - SECONDS )) $B sweep --variant dgrad --problems $P --config configs/traits/bwd_data_direct_mma_w16_bf16.json --vs cudnn --output $R/w16_3d.csv --batch-size 200 --workers 16 > $R/w16_3d.log 2>&1; st sweep w16 3d
$B report $R/w16_3d.csv > $R/w16_3d.report.txt 2>&1
timeout $(( 390 - SECONDS )) $B selftest --gpu --direction dgrad --config configs/traits/bwd_data_direct_mma_w16_probe_bf16.json > $R/selftest_w16.log 2>&1; st selftest w16
gzip -f $R/*.messages.jsonl $R/*.csv 2>/dev/null; true
