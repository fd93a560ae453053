# Session 40, call 4: the overhead change after call 3 (the backward-data weight gather with the
# weight index fastest across threads: call 3's vector-fastest order met in one bank, and the
# G 4 C 512 1x1 layer lost 14 %): the A/B of the zoo's backward-data direct pool again, the GPU
# correctness matrix of every direct pool member (backward data, forward), the depth-streaming
# configs over the 3D C/G 8 backward-data layer (tile shapes after the change), and the SASS
# view of its fastest member.
# carry ["target/carry/bins.tar.xz"]
#   tar xJf target/carry/bins.tar.xz && (timeout 590 bash results/h100/s40/call_4.sh; cd $OUT && tar czf c4.tgz r; cat r/progress.log r/compare.txt; tail -3 r/selftest_*.log)
source results/h100/s35/prelude.sh
D3=dgrad_bf16_n8_g32_c256_k256_i8x28x28_f3x3x3_s1x1x1_p1x1x1_d1x1x1
for v in HEAD release; do
  timeout 70 target/$v/gconv bench --problems model_zoo --direction dgrad --family direct --output $R/ab_zoo_dgrad_$v.csv --batch-size 200 --workers 16 > $R/ab_zoo_dgrad_$v.log 2>&1; st ab zoo dgrad $v
done
$B compare $R/ab_zoo_dgrad_HEAD.csv $R/ab_zoo_dgrad_release.csv > $R/compare.txt 2>&1
for d in dgrad fwd; do
  timeout 120 $B selftest --gpu --kernels direct_$d > $R/selftest_direct_$d.log 2>&1; st selftest direct $d
done
timeout 150 $B sweep --variant dgrad --problems $D3 --config configs/traits/bwd_data_direct_mma_stream_bf16.json --vs cudnn --output $R/stream_dgrad_3d.csv --batch-size 200 --workers 16 > $R/stream_dgrad_3d.log 2>&1; st sweep stream dgrad 3d
$B report $R/stream_dgrad_3d.csv > $R/stream_dgrad_3d.report.txt 2>&1
best=$(awk -F, -v p=$D3 'NR>1 && $2==p && $24=="ok" && $1 !~ /^cudnn/ {print $25, $1}' $R/stream_dgrad_3d.csv $R/ab_zoo_dgrad_release.csv | sort -g | head -n 1 | cut -d' ' -f2)
echo "dgrad3d: $best" > $R/ncu_kernels.txt
timeout $(( 580 - SECONDS )) ncu --section SpeedOfLight --section Occupancy --section WarpStateStats --section ComputeWorkloadAnalysis --section SourceCounters \
  -k "regex:${best:0:12}" -c 1 -o $R/ncu_dgrad3d $B run --backend cuda --problem $D3 --kernel "$best" --iters 1 --no-graph > $R/ncu_dgrad3d.log 2>&1; st ncu dgrad3d
ncu --import $R/ncu_dgrad3d.ncu-rep --page source --csv --print-source sass > $R/src_dgrad3d.csv 2>/dev/null
ncu --import $R/ncu_dgrad3d.ncu-rep --print-details all > $R/ncu_dgrad3d.txt 2>&1
gzip -f $R/*.messages.jsonl $R/*.csv 2>/dev/null; true
