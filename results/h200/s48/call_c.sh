# Session 48, call c (any H100/H200): the direct tensor-core group-merge space (gm_fwd.json,
# gm_dgrad.json: forward_direct_mma_gm_bf16.json widened in tile_m, tile_k and vec_b; gm 2 and 4)
# swept over ResNeXt-50's C/G 4 layer (the real client's N 64, 56², the layer of issue #15 that
# repeats three times), forward then backward data, every row verified; the pool's best member
# for comparison is in call b's rows (same binary).
# carry ["target/carry/bins.tar.xz"]; slim tree keeping results/h100/s35/prelude.sh results/h200/s48:
#   tar xJf target/carry/bins.tar.xz && (timeout 575 bash results/h200/s48/call_c.sh; cd $OUT && tar czf cc.tgz r; cat r/gpu.txt r/progress.log; for d in fwd dgrad; do head -12 r/gm_$d.report.txt; done)
source results/h100/s35/prelude.sh
S=results/h200/s48
for d in fwd dgrad; do
  if [ $d = fwd ]; then lim=280; v=forward; else lim=540; v=bwd_data; fi
  timeout $(( lim - SECONDS )) $B sweep --variant $v --config $S/gm_$d.json --filter "group_merge <= 4" --problems ${d}_bf16_n64_g32_c128_k128_i56x56_f3x3_s1x1_p1x1_d1x1 --output $R/gm_$d.csv --batch-size 200 --workers 16 > $R/gm_$d.log 2>&1; st sweep $d
  $B report $R/gm_$d.csv > $R/gm_$d.report.txt 2>&1
done
gzip -f $R/*.messages.jsonl $R/*.csv 2>/dev/null; true
