# Session 26, call f: the GPU correctness matrix over every igemm pool member in the three
# directions (the halo path changed what every igemm kernel's source declares and the wgmma
# main loop's signature), and the halo path's own kernels by name on the zoo layer and two
# unseen layers (verified runs).
#   scripts/h200.sh (main); carry ["target/carry/bins.tar.xz"];
#   tar xJf target/carry/bins.tar.xz && (timeout 560 bash results/h200/s26/call_f.sh; cd $OUT && tar czf f.tgz r; true)
export GCONV_CACHE_DIR=/tmp/gc PYTHONUNBUFFERED=1; unset LD_LIBRARY_PATH
B=target/release/gconv; R=$OUT/r; mkdir -p $R
SECONDS=0
for d in dgrad fwd wgrad; do
  left=$(( 470 - SECONDS ))
  timeout $left $B selftest --gpu --direction $d --kernels igemm_ > $R/selftest_igemm_$d.log 2>&1; echo "rc=$? ${SECONDS}s" >> $R/selftest_igemm_$d.log
done
for pk in "dgrad_bf16_n32_g2_c256_k256_i28x28_f3x3_s1x1_p1x1_d1x1 igemm_dgrad_bf16_t128x128x64_w8x1_s4_v8x8_gm1_sk1d_wgmma_halo" \
          "dgrad_bf16_n16_g4_c256_k512_i20x20_f3x3_s1x1_p1x1_d1x1 igemm_dgrad_bf16_t128x64x64_w8x1_s4_v8x8_gm1_sk1d_wgmma_halo" \
          "dgrad_f16_n8_g1_c96_k192_i17x23_f5x5_s1x1_p4x4_d2x2 igemm_dgrad_f16_t192x64x64_w12x1_s3_v8x8_gm1_sk1d_wgmma_halo"; do
  set -- $pk
  timeout 30 $B run --backend cuda --problem $1 --kernel $2 --iters 10 --verify >> $R/runs_halo.log 2>&1; echo "rc=$? ${SECONDS}s" >> $R/runs_halo.log
done
true
