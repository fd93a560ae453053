# Session 48, call d (any H100/H200), binary of main after the two gm 4 members joined the
# forward and backward-data pools: (1) their GPU selftest in both directions; (2) the whole
# pools with cuDNN on ResNeXt-50's C/G 4 layer at batch 32 (zoo) and 64 (real client), both
# directions — the rows `gconv decide` keeps for the decisions this change dropped; (3) the
# zoo's forward and backward-data benches with cuDNN (the tables of issues #12 and the
# forward's), on an H200 only, as far as the call's time allows.
# carry ["target/carry/bins.tar.xz"]; slim tree keeping results/h100/s35/prelude.sh results/h200/s48:
#   tar xJf target/carry/bins.tar.xz && (timeout 575 bash results/h200/s48/call_d.sh; cd $OUT && tar czf cd.tgz r; cat r/gpu.txt r/progress.log; grep -h "passed" r/selftest_*.log; tail -4 r/l1.report.txt; tail -3 r/zoo_*.report.txt)
source results/h100/s35/prelude.sh
for d in fwd dgrad; do
  timeout 60 $B selftest --gpu --direction $d --kernels t112x64x8_w8x1_s2_v16x > $R/selftest_$d.log 2>&1; st selftest $d
done
for n in 32 64; do for d in fwd dgrad; do echo ${d}_bf16_n${n}_g32_c128_k128_i56x56_f3x3_s1x1_p1x1_d1x1; done; done > $R/l1.txt
timeout 150 $B bench --problems $R/l1.txt --vs cudnn --output $R/l1.csv --batch-size 200 --workers 16 > $R/l1.log 2>&1; st bench l1
$B report $R/l1.csv > $R/l1.report.txt 2>&1
grep -q H200 $R/gpu.txt && zoo="dgrad fwd" || zoo=""  # the tables are the H200's
for d in $zoo; do
  [ $SECONDS -lt 420 ] || break
  timeout $(( 560 - SECONDS )) $B bench --problems model_zoo_$d --direction $d --vs cudnn --output $R/zoo_$d.csv --batch-size 200 --workers 16 > $R/zoo_$d.log 2>&1; st bench zoo $d
  $B report $R/zoo_$d.csv > $R/zoo_$d.report.txt 2>&1
done
gzip -f $R/*.messages.jsonl $R/*.csv 2>/dev/null; true
