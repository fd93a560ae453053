P=dgrad_bf16_n16_g32_c64_k64_i48x48_f3x3_s1x1_p1x1_d1x1
for k in direct_dgrad_bf16_t256x32x16_w8x1_s1_v2x4_gm1_sk1d_simt_gen direct_dgrad_bf16_t128x64x16_w8x1_s1_v2x4_gm1_sk1d_simt_gen direct_dgrad_bf16_t224x32x28_w4x1_s1_v2x7_gm1_sk1d_simt_gen direct_dgrad_bf16_t256x32x16_w8x1_s1_v2x4_gm1_sk1d_simt_gen; do
  echo "== $k"; timeout 40 target/release/gconv run --problem $P --backend cuda --kernel $k --verify --iters 50 2>&1 | tail -n 6
done
echo "== bench of the problem"; printf "%s\n" $P > /tmp/p.txt
timeout 60 target/release/gconv bench --problems /tmp/p.txt --direction dgrad --output $OUT/one.csv --batch-size 200 --workers 16 > $OUT/one.log 2>&1; target/release/gconv report $OUT/one.csv 2>&1 | sed -n '/^problem  /,/^geomean/p'
zcat -f $OUT/one.csv | grep t256x32x16_w8x1_s1_v2x4_gm1_sk1d_simt | cut -d, -f1,24,25,36
