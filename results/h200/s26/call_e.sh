# Session 26, call e: the halo fast path (branch wip/dgrad-halo) on the GPU: one run verified on
# the zoo's C/G 128 g2 backward-data layer, then the wgmma backward-data tiles with the halo path
# and their general twins over eight stride-1 layers with K/G a multiple of 64 (every row
# verified against the reference, cuDNN in the same run).
#   scripts/h200.sh (on the branch); carry ["target/carry/bins.tar.xz"];
#   tar xJf target/carry/bins.tar.xz && (timeout 400 bash results/h200/s26/call_e.sh; cd $OUT && tar czf e.tgz r; true)
export GCONV_CACHE_DIR=/tmp/gc PYTHONUNBUFFERED=1; unset LD_LIBRARY_PATH
B=target/release/gconv; R=$OUT/r; mkdir -p $R; S=results/h200/s26
SECONDS=0
for k in igemm_dgrad_bf16_t192x128x64_w12x1_s4_v8x8_gm1_sk1d_wgmma_halo igemm_dgrad_bf16_t192x128x64_w12x1_s4_v8x8_gm1_sk1d_wgmma_gen; do
  timeout 60 $B run --backend cuda --problem dgrad_bf16_n32_g2_c256_k256_i28x28_f3x3_s1x1_p1x1_d1x1 --kernel $k --iters 30 --verify > $R/run_$k.log 2>&1; echo "rc=$? ${SECONDS}s" >> $R/run_$k.log
done
timeout 300 $B sweep --variant bwd_data --arch sm_90a --problems $S/dgrad_halo.txt --config $S/dgrad_halo.json \
  --vs cudnn --output $R/sweep_halo.csv --batch-size 200 --workers 16 > $R/sweep_halo.log 2>&1; echo "rc=$? ${SECONDS}s" >> $R/sweep_halo.log
timeout 30 $B report $R/sweep_halo.csv --top 4 > $R/report_halo.txt 2>&1
gzip -f $R/*.messages.jsonl $R/sweep_*.csv 2>/dev/null; true
