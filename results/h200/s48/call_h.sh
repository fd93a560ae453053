# Session 48, call h (any H100/H200): the direct tensor-core space of cg16_fwd.json /
# cg16_dgrad.json swept over the C/G 16 14² layers that repeat most in the real client
# (RegNetY-800MF's G 20 C 320, seven times; ResNeXt-50's G 32 C 512, five times; batch 64),
# forward then backward data, every row verified; the pools' best members are in call b's rows.
# carry ["target/carry/bins.tar.xz"]; slim tree keeping results/h100/s35/prelude.sh results/h200/s48:
#   tar xJf target/carry/bins.tar.xz && (timeout 240 bash results/h200/s48/call_h.sh; cd $OUT && tar czf ch.tgz r; cat r/gpu.txt r/progress.log; for d in fwd dgrad; do grep -A4 "kernels ok)" r/cg16_$d.report.txt; done)
source results/h100/s35/prelude.sh
S=results/h200/s48
for d in fwd dgrad; do
  if [ $d = fwd ]; then lim=115; v=forward; else lim=232; v=bwd_data; fi
  printf '%s\n' ${d}_bf16_n64_g20_c320_k320_i14x14_f3x3_s1x1_p1x1_d1x1 ${d}_bf16_n64_g32_c512_k512_i14x14_f3x3_s1x1_p1x1_d1x1 > $R/cg16_$d.txt
  timeout $(( lim - SECONDS )) $B sweep --variant $v --config $S/cg16_$d.json --problems $R/cg16_$d.txt --output $R/cg16_$d.csv --batch-size 200 --workers 16 > $R/cg16_$d.log 2>&1; st sweep $d
  $B report $R/cg16_$d.csv > $R/cg16_$d.report.txt 2>&1
done
gzip -f $R/*.messages.jsonl $R/*.csv 2>/dev/null; true
