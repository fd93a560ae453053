# Prepared for the next session (NOT run in session 40): A/B of branch `slice-plan-16` (the
# depth-streaming slice plan for up to 16 copies per thread instead of 4, so that the large
# 3D tiles such as t224x32x16 and t224x64x16, 5 and 9 copies, stop decoding every copy at
# every slice: 17 % of the instructions of call 4's profiled member). Build with
# `scripts/h200.sh slice-plan-16` (packs target/slice-plan-16/gconv beside main's), then:
# carry ["target/carry/bins.tar.xz"]
#   tar xJf target/carry/bins.tar.xz && (timeout 400 bash results/h100/s40/next_ab.sh; cd $OUT && tar czf ab.tgz r; cat r/progress.log r/compare.txt)
source results/h100/s35/prelude.sh
printf "%s\n" dgrad_bf16_n8_g54_c54_k54_i16x56x56_f3x3x3_s1x1x1_p1x1x1_d1x1x1 dgrad_bf16_n8_g216_c216_k216_i16x14x14_f3x3x3_s1x1x1_p1x1x1_d1x1x1 dgrad_bf16_n8_g32_c256_k256_i8x28x28_f3x3x3_s1x1x1_p1x1x1_d1x1x1 > $R/d3.txt
sed 's/^dgrad/fwd/' $R/d3.txt > $R/f3.txt
for s in dgrad:d3 fwd:f3; do
  d=${s%%:*}; f=${s##*:}
  for v in release slice-plan-16; do
    timeout 80 target/$v/gconv bench --problems $R/$f.txt --direction $d --family direct --output $R/ab_${d}_$v.csv --batch-size 200 --workers 16 > $R/ab_${d}_$v.log 2>&1; st ab $d $v
  done
  $B compare $R/ab_${d}_release.csv $R/ab_${d}_slice-plan-16.csv > $R/cmp_$d.txt 2>&1
  { echo "== $d"; tail -8 $R/cmp_$d.txt; } >> $R/compare.txt
done
gzip -f $R/*.messages.jsonl $R/*.csv 2>/dev/null; true
