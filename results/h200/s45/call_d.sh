# Session 45, call d (any H100/H200; for the session after 45): branch `dgrad-gather-batched`
# (the backward-data weight gathers in batches, `dgrad_gather.cu`; see results/h200/s45/README.md)
# on the GPU before it may reach main — every direct backward-data member of the branch's
# binary on every dgrad case of the correctness matrix, then the direct family's backward data
# timed by main's binary and by the branch's on the real client's 14 grouped layers and the
# zoo's 27 keys, one binary after the other in one lease (`gconv compare`: ratios branch / main).
# Build: `bash scripts/h200.sh dgrad-gather-batched` (packs target/dgrad-gather-batched/gconv
# beside main's); the compile cache of both (`gconv cache build --problems model_zoo --direction
# dgrad` with each binary, and with `--problems results/h200/s20/rc_grouped_dgrad.txt`).
# carry ["target/carry/bins.tar.xz", "target/carry/gc.tar.xz"]
#   tar xJf target/carry/bins.tar.xz && (timeout 560 bash results/h200/s45/call_d.sh; cd $OUT && tar czf cd.tgz r; cat r/gpu.txt r/progress.log; grep -h "passed\|FAIL" r/selftest_*.log | tail -4; cat r/ab_*.txt)
source results/h100/s35/prelude.sh
N=target/dgrad-gather-batched/gconv
timeout 200 $N selftest --gpu --direction dgrad --kernels direct_dgrad > $R/selftest_direct_dgrad.log 2>&1; st selftest direct_dgrad branch
for set in rc zoo; do
  if [ $set = rc ]; then P=results/h200/s20/rc_grouped_dgrad.txt; else P=model_zoo; fi
  timeout $(( (540 - SECONDS) / 2 )) $B bench --problems $P --direction dgrad --family direct --output $R/ab_${set}_main.csv --batch-size 200 --workers 16 > $R/ab_${set}_main.log 2>&1; st bench $set main
  timeout $(( (550 - SECONDS) / 2 )) $N bench --problems $P --direction dgrad --family direct --output $R/ab_${set}_branch.csv --batch-size 200 --workers 16 > $R/ab_${set}_branch.log 2>&1; st bench $set branch
  $B compare $R/ab_${set}_main.csv $R/ab_${set}_branch.csv > $R/ab_${set}.txt 2>&1
done
gzip -f $R/*.messages.jsonl $R/*.csv 2>/dev/null; true
