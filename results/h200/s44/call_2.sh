# Session 44, call 2 (any H100/H200; the rows name their device): the pool of every default
# backward-weight member timed and verified on large_filter_wgrad.txt (issue #14's training data
# for large-filter backward weight), resumable (`--resume` over the same CSV in a later call).
# The kernels were compiled here: carry target/carry/gc_lf.tar.xz (`gconv cache build --problems
# results/h200/s44/large_filter_wgrad.txt --direction wgrad` into target/gc_lf, packed as gc/).
# carry ["target/carry/bins.tar.xz", "target/carry/gc_lf.tar.xz"]
#   tar xJf target/carry/bins.tar.xz && tar xJf target/carry/gc_lf.tar.xz -C /tmp && (timeout 420 bash results/h200/s44/call_2.sh; cd $OUT && tar czf c2.tgz r; cat r/gpu.txt r/progress.log; tail -3 r/lf_wgrad.log)
source results/h100/s35/prelude.sh
timeout $(( 400 - SECONDS )) $B bench --problems results/h200/s44/large_filter_wgrad.txt --direction wgrad \
  --output $R/lf_wgrad.csv --batch-size 200 --workers 16 > $R/lf_wgrad.log 2>&1; st bench large-filter wgrad
gzip -f $R/*.messages.jsonl $R/*.csv 2>/dev/null; true
