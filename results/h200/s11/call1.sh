export GCONV_CACHE_DIR=/tmp/gc PYTHONUNBUFFERED=1; unset LD_LIBRARY_PATH
B=target/release/gconv
nvidia-smi --query-gpu=name,clocks.max.sm --format=csv > $OUT/gpu.txt 2>&1; lscpu | head -20 > $OUT/lscpu.txt
timeout 60 target/release/examples/decision_time > $OUT/decision_time.log 2>&1
prof() { # key kernel file
  timeout 90 ncu --section SpeedOfLight --section MemoryWorkloadAnalysis --section Occupancy --section LaunchStats \
    --section WarpStateStats --section SchedulerStats --section ComputeWorkloadAnalysis --section InstructionStats \
    -k "regex:${2:0:12}" -c 1 $B run --backend cuda --problem $1 --kernel $2 --iters 1 --no-graph > $OUT/$3.txt 2>&1
}
prof wgrad_bf16_n32_g144_c144_k144_i56x56_f3x3_s1x1_p1x1_d1x1 direct_wgrad_bf16_t8x16x8_w8x1_s1_v2x3_gm1_sk88d_simt_gen ncu_dw3
prof wgrad_bf16_n32_g192_c192_k192_i28x28_f7x7_s1x1_p3x3_d1x1 direct_wgrad_bf16_t7x32x7_w8x1_s1_v2x4_gm1_sk25d_simt_gen ncu_dw7
prof wgrad_bf16_n32_g32_c256_k256_i28x28_f3x3_s1x1_p1x1_d1x1 igemm_wgrad_bf16_t32x64x64_w2x2_s3_v8x8_gm4_sk13d_mma_gen ncu_g32c256
prof wgrad_bf16_n32_g32_c512_k512_i14x14_f3x3_s1x1_p1x1_d1x1 igemm_wgrad_bf16_t64x64x64_w4x1_s3_v8x8_gm4_sk7d_wgmma_gen ncu_g32c512
printf "%s\n" wgrad_bf16_n32_g144_c144_k144_i56x56_f3x3_s1x1_p1x1_d1x1 wgrad_bf16_n32_g192_c192_k192_i28x28_f7x7_s1x1_p3x3_d1x1 wgrad_bf16_n32_g32_c256_k256_i28x28_f3x3_s1x1_p1x1_d1x1 > /tmp/p.txt; timeout 90 $B baseline --problems /tmp/p.txt > $OUT/cudnn.txt 2>&1
python3 -m pip install -q --no-index --no-deps --target /tmp/gpkg target/wheels/*.whl && export PYTHONPATH=/tmp/gpkg
R=$PWD; (cd /tmp && timeout 180 python3 -m pytest -q -p no:cacheprovider $R/python/tests_gpu > $OUT/pytest_gpu.log 2>&1)
(timeout 60 python3 python/examples/05_torch_conv.py; timeout 90 python3 python/examples/06_convert_and_train.py) > $OUT/examples.log 2>&1
echo done
