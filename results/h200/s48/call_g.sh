# Session 48, call g (any H100/H200), main's binary with the merged C/G 4 backward-weight member
# of call f's sweep in the pool: its GPU selftest, then the whole backward-weight pool with
# cuDNN on ResNeXt-50's C/G 4 layer at batch 32 and 64 (the rows `gconv decide` keeps), then on
# an H200 only the zoo's backward-data bench with cuDNN as far as the time allows.
# carry ["target/carry/bins.tar.xz"]; slim tree keeping results/h100/s35/prelude.sh results/h200/s48:
#   tar xJf target/carry/bins.tar.xz && (timeout 300 bash results/h200/s48/call_g.sh; cd $OUT && tar czf cg.tgz r; cat r/gpu.txt r/progress.log; grep -h passed r/selftest_wgrad.log; grep -A4 "^problem " r/l1_wgrad.report.txt; tail -3 r/zoo_dgrad.report.txt)
source results/h100/s35/prelude.sh
timeout 60 $B selftest --gpu --direction wgrad --kernels t112x32x8_w8x1_s3_v3x1_gm2 > $R/selftest_wgrad.log 2>&1; st selftest wgrad
for n in 32 64; do echo wgrad_bf16_n${n}_g32_c128_k128_i56x56_f3x3_s1x1_p1x1_d1x1; done > $R/l1_wgrad.txt
timeout 90 $B bench --problems $R/l1_wgrad.txt --direction wgrad --vs cudnn --output $R/l1_wgrad.csv --batch-size 200 --workers 16 > $R/l1_wgrad.log 2>&1; st bench l1 wgrad
$B report $R/l1_wgrad.csv > $R/l1_wgrad.report.txt 2>&1
if grep -q H200 $R/gpu.txt; then
  timeout $(( 290 - SECONDS )) $B bench --problems model_zoo_dgrad --direction dgrad --vs cudnn --output $R/zoo_dgrad.csv --batch-size 200 --workers 16 > $R/zoo_dgrad.log 2>&1; st bench zoo dgrad
  $B report $R/zoo_dgrad.csv > $R/zoo_dgrad.report.txt 2>&1
fi
gzip -f $R/*.messages.jsonl $R/*.csv 2>/dev/null; true
