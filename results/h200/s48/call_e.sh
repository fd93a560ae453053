# Session 48, call e (any H100/H200): call d's bench of ResNeXt-50's C/G 4 layer again for
# backward data (call d's `bench` left the dgrad keys out: without --direction it benches fwd).
# carry ["target/carry/bins.tar.xz"]; slim tree keeping results/h100/s35/prelude.sh results/h200/s48:
#   tar xJf target/carry/bins.tar.xz && (timeout 200 bash results/h200/s48/call_e.sh; cd $OUT && tar czf ce.tgz r; cat r/gpu.txt r/progress.log; tail -8 r/l1_dgrad.report.txt)
source results/h100/s35/prelude.sh
for n in 32 64; do echo dgrad_bf16_n${n}_g32_c128_k128_i56x56_f3x3_s1x1_p1x1_d1x1; done > $R/l1_dgrad.txt
timeout 150 $B bench --problems $R/l1_dgrad.txt --direction dgrad --vs cudnn --output $R/l1_dgrad.csv --batch-size 200 --workers 16 > $R/l1_dgrad.log 2>&1; st bench l1 dgrad
$B report $R/l1_dgrad.csv > $R/l1_dgrad.report.txt 2>&1
gzip -f $R/*.messages.jsonl $R/*.csv 2>/dev/null; true
