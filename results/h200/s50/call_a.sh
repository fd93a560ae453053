# Session 50, call a (any H100/H200), binaries of main at the start of session 50
# (`bash scripts/h200.sh`), PyTorch's baseline script carried as target/torch_baseline.py:
# 1. H200: the zoo's 27 backward-data and 27 backward-weight keys, whole pools with cuDNN in
#    the same runs and PyTorch's best layout in the same lease (issues #12, #13).
#    H100: the real client's 14 grouped layers in all three directions, whole pools with cuDNN
#    in one lease (results/h100/s45/rc_amdahl.py sums them per model, issue #15).
# 2. H200: the 3D C/G 8 forward key, whole pool (its H200 decision is re-decided from this and
#    the backward-data table after session 49's per-tap walk).
# 3. Either card: Nsight Compute source counters of the zoo's 7×7 depthwise 56² backward-data
#    layer's fastest member (static SASS 78 % FFMA, yet 43 % of the FP32 peak: what stalls), and
#    of the 3D C/G 8 layer's fastest direct tensor-core members under the per-tap walk (session
#    49's H100 A/B winner in both directions): where a warp's instructions go per MMA.
# carry ["target/carry/bins.tar.xz", "target/torch_baseline.py"]; slim tree keeping
# results/h100/s35/prelude.sh results/h200/s50 results/h200/s20/rc_grouped_dgrad.txt:
#   tar xJf target/carry/bins.tar.xz && (timeout 580 bash results/h200/s50/call_a.sh; cd $OUT && tar czf ca.tgz r; cat r/gpu.txt r/progress.log; grep -h geomean r/*.report.txt)
source results/h100/s35/prelude.sh
if grep -q H200 $R/gpu.txt; then
  for d in dgrad wgrad; do
    if [ $d = dgrad ]; then lim=190; else lim=400; fi
    timeout $(( lim - SECONDS )) $B bench --problems model_zoo_$d --direction $d --vs cudnn --output $R/bench_$d.csv --batch-size 200 --workers 16 > $R/bench_$d.log 2>&1; st bench zoo $d
    $B report $R/bench_$d.csv > $R/bench_$d.report.txt 2>&1
    $B problems model_zoo_$d > $R/zoo_$d.txt 2>/dev/null
    timeout 60 python3 target/torch_baseline.py $R/zoo_$d.txt --graph --out $R/torch_$d.csv > $R/torch_$d.log 2>&1; st torch $d
  done
else
  for d in fwd dgrad wgrad; do
    sed "s/^dgrad_/${d}_/" results/h200/s20/rc_grouped_dgrad.txt > $R/rc_$d.txt
    case $d in fwd) lim=150;; dgrad) lim=310;; *) lim=470;; esac
    timeout $(( lim - SECONDS )) $B bench --problems $R/rc_$d.txt --vs cudnn --output $R/rc_$d.csv --batch-size 200 --workers 16 > $R/rc_$d.log 2>&1; st bench rc $d
    $B report $R/rc_$d.csv > $R/rc_$d.report.txt 2>&1
  done
fi
D3=bf16_n8_g32_c256_k256_i8x28x28_f3x3x3_s1x1x1_p1x1x1_d1x1x1
if grep -q H200 $R/gpu.txt && [ $SECONDS -lt 450 ]; then
  echo fwd_$D3 > $R/fwd3d.txt
  timeout $(( 470 - SECONDS )) $B bench --problems $R/fwd3d.txt --vs cudnn --output $R/bench_fwd3d.csv --batch-size 200 --workers 16 > $R/bench_fwd3d.log 2>&1; st bench fwd3d
fi
for k in dw7:direct_dgrad_bf16_t448x32x56_w8x1_s1_v2x7_gm1_sk1d_simt_gen dgrad:direct_dgrad_bf16_t112x64x28_w8x1_s2_v8x4_gm1_sk1d_mma_gen fwd:direct_fwd_bf16_t112x64x28_w8x1_s2_v8x4_gm1_sk1d_mma_gen; do
  d=${k%%:*}; kern=${k#*:}; prob=${d}_$D3
  [ $d = dw7 ] && prob=dgrad_bf16_n32_g96_c96_k96_i56x56_f7x7_s1x1_p3x3_d1x1
  [ $SECONDS -lt 540 ] || break
  timeout $(( 570 - SECONDS )) ncu --section SpeedOfLight --section Occupancy --section WarpStateStats --section ComputeWorkloadAnalysis --section SourceCounters \
    -k "regex:direct" -c 1 -o $R/ncu_$d $B run --backend cuda --problem $prob --kernel "$kern" --iters 1 --no-graph > $R/ncu_$d.log 2>&1; st ncu $d
  ncu --import $R/ncu_$d.ncu-rep --page source --csv --print-source sass > $R/src_$d.csv 2>/dev/null
  ncu --import $R/ncu_$d.ncu-rep --print-details all > $R/ncu_$d.txt 2>&1
done
gzip -f $R/*.messages.jsonl $R/*.csv 2>/dev/null; true
