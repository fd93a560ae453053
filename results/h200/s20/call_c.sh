# Session 20, call c: the stride-phase halo columns of the tensor-core direct paths
# (direct/shape.rs `halo_split`; call b's ncu: 1.8x the conflict-free shared-memory
# wavefronts at stride 2). GPU selftest of the forward and backward-weight mma members, the
# real client's grouped layers again (forward, backward weight; call a's figures are the
# before), and call b's ncu pairs again.
#   scripts/h200.sh; carry ["target/carry/bins.tar.xz"];
#   tar xJf target/carry/bins.tar.xz && (timeout 560 bash results/h200/s20/call_c.sh; cd $OUT && tar czf c.tgz r; true)
export GCONV_CACHE_DIR=/tmp/gc PYTHONUNBUFFERED=1; unset LD_LIBRARY_PATH
B=target/release/gconv; R=$OUT/r; mkdir -p $R; S=results/h200/s20
SECONDS=0
for d in fwd wgrad; do
  timeout 80 $B bench --direction $d --problems $S/rc_grouped_$d.txt --vs cudnn --output $R/rc_$d.csv --batch-size 200 --workers 16 > $R/rc_$d.log 2>&1; echo "rc=$? ${SECONDS}s" >> $R/rc_$d.log
done
M=l1tex__data_bank_conflicts_pipe_lsu_mem_shared_op_ld.sum,l1tex__data_pipe_lsu_wavefronts_mem_shared_op_ld.sum,smsp__inst_executed_op_ldsm.sum
while read p k; do
  echo "== $p $k" >> $R/ncu.txt
  timeout 40 ncu --section SpeedOfLight --metrics $M -k "regex:${k:0:12}" -c 1 $B run --backend cuda --problem $p --kernel $k --iters 1 --no-graph >> $R/ncu.txt 2>&1
  echo "rc=$? ${SECONDS}s" >> $R/ncu.txt
done <<'PAIRS'
fwd_bf16_n64_g32_c512_k512_i28x28_f3x3_s2x2_p1x1_d1x1 direct_fwd_bf16_t128x64x16_w8x1_s1_v16x4_gm1_sk1d_mma_gen
wgrad_bf16_n64_g32_c256_k256_i56x56_f3x3_s2x2_p1x1_d1x1 direct_wgrad_bf16_t112x32x16_w8x1_s2_v3x1_gm1_sk32d_mma_gen
PAIRS
for d in fwd wgrad; do
  left=$(( 540 - SECONDS )); [ $d = fwd ] && left=$(( left / 2 ))
  timeout $left $B selftest --gpu --direction $d --kernels _mma_gen > $R/selftest_$d.log 2>&1; echo "rc=$? ${SECONDS}s" >> $R/selftest_$d.log
done
gzip -f $R/*.messages.jsonl 2>/dev/null; true
