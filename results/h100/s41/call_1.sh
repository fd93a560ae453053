# Session 41, call 1 (named nvidia-h200): the zoo's backward weight over all 27 keys on an H200
# (session 39's H200 run was cut at 11) with cuDNN in the same run and PyTorch's best layout
# (`torch_baseline.py --graph`) in the same lease, `gconv run --kernel auto --verify` on every
# zoo backward-weight key (verified against the CPU reference, and the repeat's bytes compared:
# the determinism check), and the A/B of the 16-copy slice plan (branch slice-plan-16) on the
# zoo's 3D layers, backward data and forward, direct family.
# carry ["target/carry/bins.tar.xz", "target/carry/gc.tar.xz", "target/torch_baseline.py"]
#   tar xJf target/carry/bins.tar.xz && (timeout 560 bash results/h100/s41/call_1.sh; cd $OUT && tar czf c1.tgz r; cat r/gpu.txt r/progress.log r/compare.txt; grep geomean r/bench_wgrad.report.txt)
source results/h100/s35/prelude.sh
timeout 200 $B bench --problems model_zoo --direction wgrad --vs cudnn --output $R/bench_wgrad.csv --batch-size 200 --workers 16 > $R/bench_wgrad.log 2>&1; st bench zoo wgrad
$B report $R/bench_wgrad.csv > $R/bench_wgrad.report.txt 2>&1
$B problems model_zoo_wgrad > $R/zoo_wgrad.txt 2>/dev/null
timeout 100 python3 target/torch_baseline.py $R/zoo_wgrad.txt --graph --out $R/torch_wgrad.csv > $R/torch_wgrad.log 2>&1; st torch wgrad
for k in $(cat $R/zoo_wgrad.txt); do
  [ $SECONDS -lt 330 ] || break
  echo "== $k" >> $R/auto_wgrad_verify.log
  timeout 30 $B run --problem $k --backend cuda --kernel auto --verify --iters 5 >> $R/auto_wgrad_verify.log 2>&1
  echo "rc=$?" >> $R/auto_wgrad_verify.log
done; st auto verify wgrad
printf "%s\n" dgrad_bf16_n8_g54_c54_k54_i16x56x56_f3x3x3_s1x1x1_p1x1x1_d1x1x1 dgrad_bf16_n8_g216_c216_k216_i16x14x14_f3x3x3_s1x1x1_p1x1x1_d1x1x1 dgrad_bf16_n8_g32_c256_k256_i8x28x28_f3x3x3_s1x1x1_p1x1x1_d1x1x1 > $R/d3.txt
sed 's/^dgrad/fwd/' $R/d3.txt > $R/f3.txt
for s in dgrad:d3 fwd:f3; do
  d=${s%%:*}; f=${s##*:}
  for v in release slice-plan-16; do
    timeout 50 target/$v/gconv bench --problems $R/$f.txt --direction $d --family direct --output $R/ab_${d}_$v.csv --batch-size 200 --workers 16 > $R/ab_${d}_$v.log 2>&1; st ab $d $v
  done
  $B compare $R/ab_${d}_release.csv $R/ab_${d}_slice-plan-16.csv > $R/cmp_$d.txt 2>&1
  { echo "== $d"; tail -8 $R/cmp_$d.txt; } >> $R/compare.txt
done
gzip -f $R/*.messages.jsonl $R/*.csv 2>/dev/null; true
