# Session 40, call 1: the zoo's backward-weight bench over all 27 keys (session 39's H200 call
# was cut at 11 while compiling; the compile cache is built on the build machine and carried),
# PyTorch's best layout on the same keys, the banded tensor-core backward-data configs on the
# 7x7 depthwise 56² layer, and Nsight Compute (warp stall reasons, SASS hot spots) on the
# fastest members of the two 7x7 depthwise keys that fall short (#12 dgrad, #13 wgrad) and of
# the 3D C/G 8 backward-data key (#12, 4x asked; not profiled since sliding A fragments).
# carry ["target/carry/bins.tar.xz", "target/carry/gc.tar.xz", "target/torch_baseline.py"]
#   tar xJf target/carry/bins.tar.xz && (timeout 590 bash results/h200/s40/call_1.sh; cd $OUT && tar czf c1.tgz r; cat r/progress.log; tail -4 r/bench_wgrad.report.txt)
source results/h100/s35/prelude.sh
D7=dgrad_bf16_n32_g96_c96_k96_i56x56_f7x7_s1x1_p3x3_d1x1
D3=dgrad_bf16_n8_g32_c256_k256_i8x28x28_f3x3x3_s1x1x1_p1x1x1_d1x1x1
W7=wgrad_bf16_n32_g96_c96_k96_i56x56_f7x7_s1x1_p3x3_d1x1
timeout 230 $B bench --problems model_zoo --direction wgrad --vs cudnn --output $R/bench_wgrad.csv --batch-size 200 --workers 16 > $R/bench_wgrad.log 2>&1; st bench zoo wgrad
$B report $R/bench_wgrad.csv > $R/bench_wgrad.report.txt 2>&1
$B problems model_zoo_wgrad > $R/zoo_wgrad.txt 2>/dev/null
timeout 120 python3 target/torch_baseline.py $R/zoo_wgrad.txt --graph --out $R/torch_wgrad.csv > $R/torch_wgrad.log 2>&1; st torch wgrad
timeout 80 $B sweep --variant dgrad --problems $D7 --config configs/traits/bwd_data_banded_bf16.json --vs cudnn --output $R/banded_dgrad7.csv --batch-size 200 --workers 16 > $R/banded_dgrad7.log 2>&1; st sweep banded dgrad 7x7
$B report $R/banded_dgrad7.csv > $R/banded_dgrad7.report.txt 2>&1
printf "%s\n%s\n" $D7 $D3 > $R/d73.txt
timeout 60 $B bench --problems $R/d73.txt --direction dgrad --vs cudnn --output $R/bench_dgrad7.csv --batch-size 200 --workers 16 > $R/bench_dgrad7.log 2>&1; st bench dgrad 7x7
prof() { # prof NAME CSV PROBLEM [PREFIX]: ncu of the fastest ok kernel
  local best=$(awk -F, -v p="$3" -v pre="${4:-}" 'NR>1 && $2==p && $24=="ok" && $1 !~ /^cudnn/ && index($1,pre)==1 {print $25, $1}' "$2" | sort -g | head -n 1 | cut -d' ' -f2)
  echo "$1: $best" >> $R/ncu_kernels.txt
  [ -n "$best" ] || return 1
  timeout $(( (580 - SECONDS) / ${5:-1} )) ncu --section SpeedOfLight --section MemoryWorkloadAnalysis --section Occupancy --section LaunchStats \
    --section WarpStateStats --section SchedulerStats --section ComputeWorkloadAnalysis --section SourceCounters \
    -k "regex:${best:0:12}" -c 1 -o $R/ncu_$1 $B run --backend cuda --problem "$3" --kernel "$best" --iters 1 --no-graph > $R/ncu_$1.log 2>&1
  ncu --import $R/ncu_$1.ncu-rep --print-details all > $R/ncu_$1.txt 2>&1
}
prof wgrad7 $R/bench_wgrad.csv $W7 "" 3; st ncu wgrad7
prof dgrad7 $R/bench_dgrad7.csv $D7 "" 2; st ncu dgrad7
prof dgrad7_banded $R/banded_dgrad7.csv $D7 "" 2; st ncu dgrad7 banded
prof dgrad3d $R/bench_dgrad7.csv $D3; st ncu dgrad 3d
gzip -f $R/*.messages.jsonl $R/*.csv 2>/dev/null; true
