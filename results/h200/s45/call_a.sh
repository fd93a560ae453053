# Session 45, call a (any H100/H200): `gconv selftest --gpu` of the three banded one-channel-
# per-warp backward-weight members session 44 added (each with the reference kernel on every
# case it admits; they were verified only under host emulation), then the forward of two
# ResNeXt-50 grouped layers (C/G 4 at 56², C/G 16 at 14²; issue #15's weakest model) against
# cuDNN, and Nsight Compute on the fastest member of each (what bounds them at ~0.5 of the
# roofline).
# carry ["target/carry/bins.tar.xz"]
#   tar xJf target/carry/bins.tar.xz && (timeout 330 bash results/h200/s45/call_a.sh; cd $OUT && tar czf ca.tgz r; cat r/gpu.txt r/progress.log; grep -h "passed\|FAIL" r/selftest_*.log | tail -8; grep -A5 "^fwd" r/rx_fwd.report.txt | head -14)
source results/h100/s35/prelude.sh
for k in t112x8x28_w8x1_s1_v8x1 t112x8x14_w8x1_s1_v8x1 t224x8x56_w8x1_s1_v8x1; do
  timeout $(( 130 - SECONDS )) $B selftest --gpu --direction wgrad --kernels $k > $R/selftest_$k.log 2>&1; st selftest $k
done
L1=fwd_bf16_n64_g32_c128_k128_i56x56_f3x3_s1x1_p1x1_d1x1
L3=fwd_bf16_n64_g32_c512_k512_i14x14_f3x3_s1x1_p1x1_d1x1
printf "%s\n%s\n" $L1 $L3 > $R/rx.txt
timeout $(( 200 - SECONDS )) $B bench --problems $R/rx.txt --direction fwd --vs cudnn --output $R/rx_fwd.csv --batch-size 200 --workers 16 > $R/rx_fwd.log 2>&1; st bench rx fwd
$B report $R/rx_fwd.csv > $R/rx_fwd.report.txt 2>&1
prof() { # prof NAME CSV PROBLEM [PREFIX] [SHARE]: ncu of the fastest ok kernel
  local best=$(awk -F, -v p="$3" -v pre="${4:-}" 'NR>1 && $2==p && $24=="ok" && $1 !~ /^cudnn/ && index($1,pre)==1 {print $25, $1}' "$2" | sort -g | head -n 1 | cut -d' ' -f2)
  echo "$1: $best" >> $R/ncu_kernels.txt
  [ -n "$best" ] || return 1
  timeout $(( (320 - SECONDS) / ${5:-1} )) ncu --section SpeedOfLight --section MemoryWorkloadAnalysis --section Occupancy --section LaunchStats \
    --section WarpStateStats --section SchedulerStats --section ComputeWorkloadAnalysis --section SourceCounters \
    -k "regex:${best:0:12}" -c 1 -o $R/ncu_$1 $B run --backend cuda --problem "$3" --kernel "$best" --iters 1 --no-graph > $R/ncu_$1.log 2>&1
  ncu --import $R/ncu_$1.ncu-rep --print-details all > $R/ncu_$1.txt 2>&1
}
prof l1 $R/rx_fwd.csv $L1 "" 2; st ncu l1
prof l3 $R/rx_fwd.csv $L3; st ncu l3
gzip -f $R/*.messages.jsonl $R/*.csv 2>/dev/null; true
