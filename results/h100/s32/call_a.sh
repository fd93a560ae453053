# Session 32, call a: session 31's unrun call 3, first half. The zoo backward-weight bench with
# the pools that gained the TMA-fed tiles, the re-tune of the decision entries the pool change
# made stale (zoo backward weight, the real client's backward data and weight), PyTorch's best
# layout on the zoo's backward keys (issues #12 and #13 ask "no key slower" against it too),
# and the decision time on the GPU host. Built here first:
#   scripts/h200.sh; cp ../shared/bench/torch_baseline.py target/
#   for s in "model_zoo wgrad" "results/h200/s20/rc_grouped_wgrad.txt wgrad" \
#            "results/h200/s20/rc_grouped_dgrad.txt dgrad" "results/h200/s31/call_f/im2col_wgrad.txt wgrad" \
#            "results/h200/s31/call_f/im2col_dgrad.txt dgrad"; do set -- $s
#     GCONV_CACHE_DIR=target/gc target/release/gconv cache build --problems $1 --direction $2; done
#   tar cJf target/carry/gc.tar.xz -C target gc
# carry ["target/carry/bins.tar.xz", "target/carry/gc.tar.xz", "target/torch_baseline.py"]
#   tar xJf target/carry/bins.tar.xz && (timeout 590 bash results/h100/s32/call_a.sh; cd $OUT && tar czf a.tgz r; cat r/progress.log)
export GCONV_CACHE_DIR=/tmp/gc PYTHONUNBUFFERED=1; unset LD_LIBRARY_PATH
B=target/release/gconv; R=$OUT/r; mkdir -p $R
[ -f target/carry/gc.tar.xz ] && tar xJf target/carry/gc.tar.xz -C /tmp  # the prebuilt compile cache
nvidia-smi --query-gpu=name,clocks.max.sm,memory.total,driver_version --format=csv > $R/gpu.txt 2>&1
$B cache > $R/cache.txt 2>&1
SECONDS=0
st() { echo "$* rc=$? ${SECONDS}s" | tee -a $R/progress.log; }
timeout 150 $B bench --problems model_zoo --direction wgrad --vs cudnn --output $R/bench_wgrad.csv --batch-size 200 --workers 16 > $R/bench_wgrad.log 2>&1; st bench zoo wgrad
cp models/h200/decisions.json $R/decisions.json
timeout 110 $B tune --problems model_zoo_wgrad --top 6 --vs cudnn --decisions $R/decisions.json --output $R/tune_wgrad.csv --batch-size 200 > $R/tune_wgrad.log 2>&1; st tune zoo wgrad
for d in wgrad dgrad; do
  timeout 70 $B tune --problems results/h200/s20/rc_grouped_$d.txt --top 12 --vs cudnn --decisions $R/decisions.json --output $R/tune_rc_$d.csv --batch-size 200 > $R/tune_rc_$d.log 2>&1; st tune rc $d
done
for d in dgrad wgrad; do
  $B problems model_zoo_$d > $R/zoo_$d.txt 2>/dev/null
  timeout 55 python3 target/torch_baseline.py $R/zoo_$d.txt --graph --out $R/torch_$d.csv > $R/torch_$d.log 2>&1; st torch $d
done
timeout 40 target/release/examples/decision_time > $R/decision_time.log 2>&1; st decision_time
gzip -f $R/*.messages.jsonl $R/*.csv 2>/dev/null; true
