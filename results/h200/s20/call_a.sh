# Session 20, call a: (1) the three directions' pools against cuDNN on the grouped 3x3
# layers of resnext50_32x4d and regnet_y_800mf at batch 64 (rc_grouped_*.txt: the real
# client's converted layers, issue #15's 2x target), best-in-pool and auto per direction;
# (2) session 19's 112-pixel direct tensor-core space (fwd, dgrad) over 2D C/G 8-16 layers
# (cg8_16_fwd.txt: session 19's cg8_2d.txt and the real client's stride-1 C/G 8-16 layers).
#   scripts/h200.sh; carry ["target/carry/bins.tar.xz"];
#   tar xJf target/carry/bins.tar.xz && (timeout 570 bash results/h200/s20/call_a.sh; cd $OUT && tar czf a.tgz r; true)
export GCONV_CACHE_DIR=/tmp/gc PYTHONUNBUFFERED=1; unset LD_LIBRARY_PATH
B=target/release/gconv; R=$OUT/r; mkdir -p $R; S=results/h200/s20
SECONDS=0
for d in fwd dgrad wgrad; do
  timeout 95 $B bench --direction $d --problems $S/rc_grouped_$d.txt --vs cudnn --output $R/rc_$d.csv --batch-size 200 --workers 16 > $R/rc_$d.log 2>&1; echo "rc=$? ${SECONDS}s" >> $R/rc_$d.log
done
for d in fwd dgrad; do
  v=$([ $d = fwd ] && echo forward || echo bwd_data)
  sed "s/^fwd_/${d}_/" $S/cg8_16_fwd.txt > $R/cg8_16_$d.txt
  n=$([ $d = fwd ] && echo 2 || echo 1)
  timeout $(( (560 - SECONDS) / n )) $B sweep --variant $v --problems $R/cg8_16_$d.txt --config results/h200/s19/${d}_3d_cg8.json --filter 'tile_m == 112 || tile_m == 224' --vs cudnn --output $R/${d}_cg8_16.csv --batch-size 200 --workers 16 > $R/${d}_cg8_16.log 2>&1; echo "rc=$? ${SECONDS}s" >> $R/${d}_cg8_16.log
done
gzip -f $R/*.messages.jsonl 2>/dev/null; true
