# Session 12, call 2: the tensor-core direct wgrad space on the grouped keys still on igemm
# (C/G 24 and 56), C/G 32 at 7x7 with few slabs, 3D C/G 8; the backward-data selftest.
# Carry target/release/gconv and results/h200/s12 (the probe configs). One tarball out.
export GCONV_CACHE_DIR=/tmp/gc PYTHONUNBUFFERED=1; unset LD_LIBRARY_PATH
B=target/release/gconv; R=$OUT/r; mkdir -p $R; S=results/h200/s12
Z=wgrad_bf16_n32
printf "%s\n" ${Z}_g14_c336_k336_i14x14_f3x3_s1x1_p1x1_d1x1 ${Z}_g2_c48_k48_i56x56_f3x3_s1x1_p1x1_d1x1 ${Z}_g8_c448_k448_i14x14_f3x3_s1x1_p1x1_d1x1 > /tmp/cg24.txt
timeout 120 $B sweep --variant bwd_weight --problems /tmp/cg24.txt --config $S/probe_cg24_56.json --vs cudnn --output $R/mma_cg24_56.csv --batch-size 200 --workers 16 > $R/mma_cg24_56.log 2>&1
timeout 50 $B sweep --variant bwd_weight --problems ${Z}_g32_c1024_k1024_i7x7_f3x3_s1x1_p1x1_d1x1 --config $S/probe_cg32_7.json --vs cudnn --output $R/mma_cg32_few.csv --batch-size 200 --workers 16 > $R/mma_cg32_few.log 2>&1
timeout 80 $B sweep --variant bwd_weight --problems wgrad_bf16_n8_g32_c256_k256_i8x28x28_f3x3x3_s1x1x1_p1x1x1_d1x1x1 --config $S/probe_3d_cg8.json --vs cudnn --output $R/mma_3d_cg8.csv --batch-size 200 --workers 16 > $R/mma_3d_cg8.log 2>&1
timeout 230 $B selftest --gpu --direction dgrad > $R/selftest_dgrad.log 2>&1; echo "selftest rc=$?" >> $R/selftest_dgrad.log
for f in $R/*.csv; do $B report $f --top 5 > ${f%.csv}.report 2>&1; done
tail -n 3 $R/*.log
tar czf $OUT/call2.tgz -C $OUT r
