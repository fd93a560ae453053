# Session 38, call 3: the 99 training problems that `gconv train` leaves out for coverage
# (`uncovered.txt`, written by `gconv train ... --uncovered`: their rows, mostly H200 sweeps of
# older pools, cover less than 90 % of today's admitted pool) benched over the whole current
# pool, so that they count again (on this device: the dataset keeps, per problem, the device
# whose rows cover the pool best). No baseline: these rows train the selection model.
# carry ["target/carry/bins.tar.xz", "target/carry/gc.tar.xz"]
#   tar xJf target/carry/bins.tar.xz && (timeout 575 bash results/h100/s38/call_3.sh; cd $OUT && tar czf c3.tgz r; cat r/progress.log)
source results/h100/s35/prelude.sh
U=results/h100/s38/uncovered.txt
timeout 200 $B bench --problems $U --direction dgrad --output $R/uncov_dgrad.csv --batch-size 200 --workers 16 > $R/uncov_dgrad.log 2>&1; st uncovered dgrad
timeout 40 $B bench --problems $U --direction fwd --output $R/uncov_fwd.csv --batch-size 200 --workers 16 > $R/uncov_fwd.log 2>&1; st uncovered fwd
timeout $(( 565 - SECONDS )) $B bench --problems $U --direction wgrad --output $R/uncov_wgrad.csv --batch-size 200 --workers 16 > $R/uncov_wgrad.log 2>&1; st uncovered wgrad
gzip -f $R/*.messages.jsonl $R/*.csv 2>/dev/null; true
