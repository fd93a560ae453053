# Session 21, call d: the banded forward kernel, third version: call c's rework (each staged
# row pair's A fragments read once for every row block it feeds, TH up to 32, conflict-free
# accumulator stores into per-channel output planes) with the first version's staging again
# (lanes on adjacent pixels, 32-bit stores; call c's 16-byte stores from in-register transposes
# ran 1.25x slower), the planes padded by two words: the trait configs swept over the zoo's
# depthwise stride-1 layers (with the pipelined variant, vec_b 2: CTAs that walk up to 4
# tiles, the next tile's staging reads issued before the current tile's MMAs), then ncu of
# the best kernel on the 7×7 56² forward layer.
#   scripts/h200.sh; carry ["target/carry/bins.tar.xz"];
#   tar xJf target/carry/bins.tar.xz && (timeout 590 bash results/h200/s21/call_d.sh; cd $OUT && tar czf d.tgz r; true)
export GCONV_CACHE_DIR=/tmp/gc PYTHONUNBUFFERED=1; unset LD_LIBRARY_PATH
B=target/release/gconv; R=$OUT/r; mkdir -p $R; S=results/h200/s21
SECONDS=0
for d in fwd dgrad; do
  v=$([ $d = fwd ] && echo forward || echo bwd_data)
  timeout 150 $B sweep --variant $v --problems $S/dw_$d.txt --config configs/traits/${v}_banded_bf16.json --vs cudnn --output $R/banded_$d.csv --batch-size 200 --workers 16 > $R/banded_$d.log 2>&1; echo "rc=$? ${SECONDS}s" >> $R/banded_$d.log
done
for p in fwd_bf16_n32_g96_c96_k96_i56x56_f7x7_s1x1_p3x3_d1x1; do
  timeout 90 bash scripts/ncu_best.sh $R/banded_fwd.csv $p direct_fwd > $R/ncu_$p.txt 2>&1; echo "rc=$? ${SECONDS}s" >> $R/ncu_$p.txt
done
gzip -f $R/*.messages.jsonl 2>/dev/null; true
