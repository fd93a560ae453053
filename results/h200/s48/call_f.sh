# Session 48, call f (any H100/H200): the direct tensor-core backward-weight space with group
# merge 2/4 (gm_wgrad.json) swept over ResNeXt-50's C/G 4 layer at batch 64, every row
# verified, then the whole backward-weight pool with cuDNN on the layer at batch 32 and 64.
# carry ["target/carry/bins.tar.xz"]; slim tree keeping results/h100/s35/prelude.sh results/h200/s48:
#   tar xJf target/carry/bins.tar.xz && (timeout 330 bash results/h200/s48/call_f.sh; cd $OUT && tar czf cf.tgz r; cat r/gpu.txt r/progress.log; head -8 r/gm_wgrad.report.txt; tail -6 r/l1_wgrad.report.txt)
source results/h100/s35/prelude.sh
S=results/h200/s48
for n in 32 64; do echo wgrad_bf16_n${n}_g32_c128_k128_i56x56_f3x3_s1x1_p1x1_d1x1; done > $R/l1_wgrad.txt
timeout 90 $B bench --problems $R/l1_wgrad.txt --direction wgrad --vs cudnn --output $R/l1_wgrad.csv --batch-size 200 --workers 16 > $R/l1_wgrad.log 2>&1; st bench l1 wgrad
$B report $R/l1_wgrad.csv > $R/l1_wgrad.report.txt 2>&1
timeout $(( 310 - SECONDS )) $B sweep --variant bwd_weight --config $S/gm_wgrad.json --problems wgrad_bf16_n64_g32_c128_k128_i56x56_f3x3_s1x1_p1x1_d1x1 --output $R/gm_wgrad.csv --batch-size 200 --workers 16 > $R/gm_wgrad.log 2>&1; st sweep wgrad
$B report $R/gm_wgrad.csv > $R/gm_wgrad.report.txt 2>&1
gzip -f $R/*.messages.jsonl $R/*.csv 2>/dev/null; true
