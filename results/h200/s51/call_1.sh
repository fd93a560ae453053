# Session 51, call 1 (H200 asked; any card runs it), binaries of main at the start of session 51
# (`bash scripts/h200.sh batched-banded w16-mma`; only target/release/gconv used here),
# PyTorch's baseline script carried as target/torch_baseline.py:
# 1. The zoo's 27 backward-data and 27 backward-weight keys, whole pools with cuDNN in the same
#    runs and PyTorch's best layout in the same lease (issues #12, #13), the decision time on
#    this host (#14), `auto --verify` on every zoo backward-weight key (run twice, bytes compared).
# 2. The 3D C/G 8 forward key, whole pool with cuDNN.
# 3. Nsight Compute source counters of the fastest member of the two backward-weight keys
#    furthest from the roofline that a direct member wins (3D C/G 8, 7×7 depthwise 56²).
# carry ["target/carry/bins.tar.xz", "target/torch_baseline.py"]; slim tree keeping
# results/h100/s35/prelude.sh results/h200/s51:
#   tar xJf target/carry/bins.tar.xz && (timeout 585 bash results/h200/s51/call_1.sh; cd $OUT && tar czf c1.tgz r; cat r/gpu.txt r/progress.log; grep -h geomean r/*.report.txt)
source results/h100/s35/prelude.sh
for d in dgrad wgrad; do
  if [ $d = dgrad ]; then lim=120; else lim=310; fi
  timeout $(( lim - SECONDS )) $B bench --problems model_zoo_$d --direction $d --vs cudnn --output $R/bench_$d.csv --batch-size 200 --workers 16 > $R/bench_$d.log 2>&1; st bench zoo $d
  $B report $R/bench_$d.csv > $R/bench_$d.report.txt 2>&1
  $B problems model_zoo_$d > $R/zoo_$d.txt 2>/dev/null
  timeout 60 python3 target/torch_baseline.py $R/zoo_$d.txt --graph --out $R/torch_$d.csv > $R/torch_$d.log 2>&1; st torch $d
done
timeout 30 target/release/examples/decision_time > $R/decision_time.log 2>&1; st decision_time
D3=bf16_n8_g32_c256_k256_i8x28x28_f3x3x3_s1x1x1_p1x1x1_d1x1x1
echo fwd_$D3 > $R/fwd3d.txt
timeout $(( 430 - SECONDS )) $B bench --problems $R/fwd3d.txt --vs cudnn --output $R/bench_fwd3d.csv --batch-size 200 --workers 16 > $R/bench_fwd3d.log 2>&1; st bench fwd3d
$B report $R/bench_fwd3d.csv > $R/bench_fwd3d.report.txt 2>&1
for np in 3d:wgrad_$D3 dw7:wgrad_bf16_n32_g96_c96_k96_i56x56_f7x7_s1x1_p3x3_d1x1; do
  n=${np%%:*}; p=${np#*:}
  [ $SECONDS -lt 520 ] || break
  best=$(awk -F, -v p="$p" 'NR>1 && $2==p && $24=="ok" && $1 !~ /^cudnn/ {print $25, $1}' $R/bench_wgrad.csv | sort -g | head -n 1 | cut -d' ' -f2)
  [ -n "$best" ] || continue
  echo "$n $p $best" >> $R/ncu_members.txt
  timeout $(( 550 - SECONDS )) ncu --section SpeedOfLight --section Occupancy --section WarpStateStats --section ComputeWorkloadAnalysis --section MemoryWorkloadAnalysis --section SourceCounters \
    -k "regex:_gen$" -c 1 -o $R/ncu_$n $B run --backend cuda --problem $p --kernel "$best" --iters 1 --no-graph > $R/ncu_$n.log 2>&1; st ncu $n
  ncu --import $R/ncu_$n.ncu-rep --page source --csv --print-source sass > $R/src_$n.csv 2>/dev/null
  ncu --import $R/ncu_$n.ncu-rep --print-details all > $R/ncu_$n.txt 2>&1
done
# The split-K reduction's share on the small keys: every kernel a run of the fastest member
# launches, timed alone by ncu (main kernel, then `_reduce`).
for p in wgrad_bf16_n32_g960_c960_k960_i7x7_f3x3_s1x1_p1x1_d1x1 wgrad_bf16_n32_g384_c384_k384_i14x14_f3x3_s1x1_p1x1_d1x1 wgrad_bf16_n32_g1152_c1152_k1152_i7x7_f5x5_s1x1_p2x2_d1x1 wgrad_bf16_n32_g768_c768_k768_i7x7_f7x7_s1x1_p3x3_d1x1; do
  [ $SECONDS -lt 545 ] || break
  best=$(awk -F, -v p="$p" 'NR>1 && $2==p && $24=="ok" && $1 !~ /^cudnn/ {print $25, $1}' $R/bench_wgrad.csv | sort -g | head -n 1)
  [ -n "$best" ] || continue
  echo "== $p $best" >> $R/ncu_durations.txt
  timeout 15 ncu --metrics gpu__time_duration.sum,launch__grid_size,launch__registers_per_thread -c 6 $B run --backend cuda --problem $p --kernel "${best#* }" --iters 1 --no-graph >> $R/ncu_durations.txt 2>&1
done; st ncu durations
for k in $(cat $R/zoo_wgrad.txt); do
  [ $SECONDS -lt 565 ] || break
  echo "== $k" >> $R/auto_wgrad_verify.log
  timeout 10 $B run --problem $k --backend cuda --kernel auto --verify --iters 5 >> $R/auto_wgrad_verify.log 2>&1
  echo "rc=$?" >> $R/auto_wgrad_verify.log
done; st auto verify wgrad
gzip -f $R/*.messages.jsonl $R/*.csv 2>/dev/null; true
