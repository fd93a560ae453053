# Session 45, call b (any H100/H200; what it measures after the first step depends on the card):
# 1. `gconv selftest --gpu` of the three banded one-channel-per-warp backward-weight members
#    session 44 added (each with the reference kernel on every case it admits).
# 2. On an H200: the tables issues #12 and #13 ask for — the zoo's 27 backward-weight and 27
#    backward-data keys with cuDNN timed in the same runs, PyTorch's best layout
#    (`torch_baseline.py --graph`) in the same lease, `gconv run --kernel auto --verify` on every
#    zoo backward-weight key (the repeat compares output bytes), the decision time on this host.
#    On an H100 (tables measured in session 44): the forward of two ResNeXt-50 grouped layers
#    (C/G 4 at 56², C/G 16 at 14²; issue #15) against cuDNN, Nsight Compute on the fastest member
#    of each.
# carry ["target/carry/bins.tar.xz", "target/carry/gc.tar.xz", "target/torch_baseline.py"]
#   tar xJf target/carry/bins.tar.xz && (timeout 570 bash results/h200/s45/call_b.sh; cd $OUT && tar czf cb.tgz r; cat r/gpu.txt r/progress.log; grep -h "passed\|FAIL" r/selftest_*.log | tail -8; grep -h geomean r/*.report.txt)
source results/h100/s35/prelude.sh
for k in t112x8x28_w8x1_s1_v8x1 t112x8x14_w8x1_s1_v8x1 t224x8x56_w8x1_s1_v8x1; do
  timeout $(( 110 - SECONDS )) $B selftest --gpu --direction wgrad --kernels $k > $R/selftest_$k.log 2>&1; st selftest $k
done
if grep -q H200 $R/gpu.txt; then
  T0=$SECONDS
  timeout 170 $B bench --problems model_zoo --direction wgrad --vs cudnn --output $R/bench_wgrad.csv --batch-size 200 --workers 16 > $R/bench_wgrad.log 2>&1; st bench zoo wgrad
  $B report $R/bench_wgrad.csv > $R/bench_wgrad.report.txt 2>&1
  $B problems model_zoo_wgrad > $R/zoo_wgrad.txt 2>/dev/null
  timeout 60 python3 target/torch_baseline.py $R/zoo_wgrad.txt --graph --out $R/torch_wgrad.csv > $R/torch_wgrad.log 2>&1; st torch wgrad
  timeout $(( 480 - SECONDS )) $B bench --problems model_zoo --direction dgrad --vs cudnn --output $R/bench_dgrad.csv --batch-size 200 --workers 16 > $R/bench_dgrad.log 2>&1; st bench zoo dgrad
  $B report $R/bench_dgrad.csv > $R/bench_dgrad.report.txt 2>&1
  $B problems model_zoo_dgrad > $R/zoo_dgrad.txt 2>/dev/null
  [ $SECONDS -lt 490 ] && timeout $(( 530 - SECONDS )) python3 target/torch_baseline.py $R/zoo_dgrad.txt --graph --out $R/torch_dgrad.csv > $R/torch_dgrad.log 2>&1; st torch dgrad
  for k in $(cat $R/zoo_wgrad.txt); do
    [ $SECONDS -lt 540 ] || break
    echo "== $k" >> $R/auto_wgrad_verify.log
    timeout 20 $B run --problem $k --backend cuda --kernel auto --verify --iters 5 >> $R/auto_wgrad_verify.log 2>&1
    echo "rc=$?" >> $R/auto_wgrad_verify.log
  done; st auto verify wgrad
  [ $SECONDS -lt 545 ] && timeout 20 target/release/examples/decision_time > $R/decision_time.log 2>&1; st decision_time
else
  L1=fwd_bf16_n64_g32_c128_k128_i56x56_f3x3_s1x1_p1x1_d1x1
  L3=fwd_bf16_n64_g32_c512_k512_i14x14_f3x3_s1x1_p1x1_d1x1
  printf "%s\n%s\n" $L1 $L3 > $R/rx.txt
  timeout $(( 200 - SECONDS )) $B bench --problems $R/rx.txt --direction fwd --vs cudnn --output $R/rx_fwd.csv --batch-size 200 --workers 16 > $R/rx_fwd.log 2>&1; st bench rx fwd
  $B report $R/rx_fwd.csv > $R/rx_fwd.report.txt 2>&1
  # The fastest ok member of each layer (scripts/ncu_best.sh), its Nsight Compute sections as text.
  timeout $(( (330 - SECONDS) / 2 )) scripts/ncu_best.sh $R/rx_fwd.csv $L1 > $R/ncu_l1.txt 2>&1; st ncu l1
  timeout $(( 330 - SECONDS )) scripts/ncu_best.sh $R/rx_fwd.csv $L3 > $R/ncu_l3.txt 2>&1; st ncu l3
fi
gzip -f $R/*.messages.jsonl $R/*.csv 2>/dev/null; true
