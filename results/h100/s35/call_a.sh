# Session 35 (no device was lent; for the next session): session 34's call f (not run) with this
# session's binary, led by the first GPU run of the backward-weight group-merge tails (the
# igemm members over G not a multiple of gm, `igemm::rules::merge_tail`, every direction). In
# order: the GPU matrix on the merged cases (`--cases merged`: the `merged_tail_cpg{32,16,8}`
# cases are new; every pool member that admits them, the merged tiles of every direction), the
# real client's 14 grouped layers per direction (whole pool and cuDNN: the G 9 and G 49 layers
# now admit merged members; session 34: wgrad g49 C784 s2 0.94x cuDNN), then call f:
# the zoo's backward data and forward (fresh rows of the one-wave persistent tiles), the
# decision time on the GPU host; call b (`call_b.sh`) the rest of call f.
# Build (every igemm kernel's source changed in session 35, so an older cache misses):
#   scripts/h200.sh
#   for d in wgrad dgrad fwd; do GCONV_CACHE_DIR=target/gc target/release/gconv cache build --problems model_zoo --direction $d; done
#   for d in wgrad dgrad fwd; do GCONV_CACHE_DIR=target/gc target/release/gconv cache build --problems results/h200/s20/rc_grouped_$d.txt --direction $d; done
#   tar cf - -C target gc | xz -T2 > target/carry/gc.tar.xz   # check: bins + gc + tree < 64 MiB
# carry ["target/carry/bins.tar.xz", "target/carry/gc.tar.xz"]
#   tar xJf target/carry/bins.tar.xz && (timeout 590 bash results/h100/s35/call_a.sh; cd $OUT && tar czf a.tgz r; cat r/progress.log)
source results/h100/s35/prelude.sh
timeout 90 $B selftest --gpu --cases merged --verbose > $R/selftest_merged.log 2>&1; st selftest merged
for d in wgrad dgrad fwd; do
  timeout 70 $B bench --problems results/h200/s20/rc_grouped_$d.txt --direction $d --vs cudnn --output $R/rc_$d.csv --batch-size 200 --workers 16 > $R/rc_$d.log 2>&1; st bench rc $d
done
timeout 110 $B bench --problems model_zoo --direction dgrad --vs cudnn --output $R/bench_dgrad.csv --batch-size 200 --workers 16 > $R/bench_dgrad.log 2>&1; st bench zoo dgrad
timeout 15 target/release/examples/decision_time > $R/decision_time.log 2>&1; st decision_time
gzip -f $R/*.messages.jsonl $R/*.csv 2>/dev/null; true
