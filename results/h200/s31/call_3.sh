# Session 31, call 3 (not run: the session's device time was spent; for the next session,
# first). What session 31's call 2 could not finish after the pools gained the TMA-fed members:
# the zoo backward-weight bench, the re-tune of every entry the pool change made stale (the zoo's
# 27 backward-weight layers, the real client's 14 backward-data and 14 backward-weight layers;
# `gconv tune` now saves each problem's decision as it goes), then whole-pool benches of the 51
# im2col layers per backward direction (training rows with the `wgmmatma` members for the
# selection model, which has none yet), and PyTorch's best layout on the zoo's backward-data
# keys (issue #12 asks "no key slower" against it too).
#   scripts/h200.sh; cp ../shared/bench/torch_baseline.py target/;
#   the zoo's and the real client's kernels compiled here first (no GPU needed; session 31
#   measured the zoo's backward-weight pool: 1,325 modules, 1,244 compiled in 779 s on the
#   2-core build machine, 97.6 MiB, 8.3 MB as tar.xz; the im2col layers' thousands more are
#   left to the device's 16 cores):
#     GCONV_CACHE_DIR=target/gc target/release/gconv cache build --problems model_zoo --direction wgrad
#     for d in wgrad dgrad; do
#       GCONV_CACHE_DIR=target/gc target/release/gconv cache build --problems results/h200/s20/rc_grouped_$d.txt --direction $d; done
#     tar cJf target/carry/gc.tar.xz -C target gc
#   carry ["target/carry/bins.tar.xz", "target/carry/gc.tar.xz", "target/torch_baseline.py"];
#   tar xJf target/carry/bins.tar.xz && (timeout 590 bash results/h200/s31/call_3.sh; cd $OUT && tar czf three.tgz r; cat r/progress.log)
# Then: python3 results/h200/s31/drop_stale.py to check nothing stale is left, copy
# $R/decisions.json to models/h200/decisions.json, re-bless auto_choices if the model changed.
export GCONV_CACHE_DIR=/tmp/gc PYTHONUNBUFFERED=1; unset LD_LIBRARY_PATH
B=target/release/gconv; R=$OUT/r; mkdir -p $R; S=results/h200/s31
[ -f target/carry/gc.tar.xz ] && tar xJf target/carry/gc.tar.xz -C /tmp  # the prebuilt compile cache
$B cache > $R/cache.txt 2>&1
SECONDS=0
st() { echo "$* rc=$? ${SECONDS}s" | tee -a $R/progress.log; }
timeout 150 $B bench --problems model_zoo --direction wgrad --vs cudnn --output $R/bench_wgrad.csv --batch-size 200 --workers 16 > $R/bench_wgrad.log 2>&1; st bench zoo wgrad
cp models/h200/decisions.json $R/decisions.json
timeout 100 $B tune --problems model_zoo_wgrad --top 5 --vs cudnn --decisions $R/decisions.json --output $R/tune_wgrad.csv --batch-size 200 > $R/tune_wgrad.log 2>&1; st tune zoo wgrad
for d in wgrad dgrad; do
  timeout 60 $B tune --problems results/h200/s20/rc_grouped_$d.txt --top 16 --vs cudnn --decisions $R/decisions.json --output $R/tune16_rc_$d.csv --batch-size 200 > $R/tune16_rc_$d.log 2>&1; st tune rc $d
done
$B problems model_zoo_dgrad > $R/zoo_dgrad.txt 2>/dev/null
timeout 60 python3 target/torch_baseline.py $R/zoo_dgrad.txt --graph --out $R/torch_dgrad.csv > $R/torch_dgrad.log 2>&1; st torch dgrad
for d in wgrad dgrad; do
  left=$(( (580 - SECONDS) / 2 )); [ $d = dgrad ] && left=$(( 580 - SECONDS ))
  timeout $left $B bench --problems $S/call_f/im2col_$d.txt --direction $d --vs cudnn --output $R/bench_im2col_$d.csv --batch-size 200 --workers 16 > $R/bench_im2col_$d.log 2>&1; st bench im2col $d
done
gzip -f $R/*.messages.jsonl $R/*.csv 2>/dev/null; true
