# Session 40, call 2: the SASS-level view (instructions executed and stall samples per
# instruction) of call 1's four Nsight Compute reports, carried back in (no kernel runs).
# carry ["target/carry/bins.tar.xz"]
#   tar xJf target/carry/bins.tar.xz && (timeout 300 bash results/h100/s40/call_2.sh; cd $OUT && tar czf c2.tgz r; cat r/progress.log)
source results/h100/s35/prelude.sh
for f in wgrad7 dgrad7 dgrad7_banded dgrad3d; do
  timeout 60 ncu --import results/h100/s40/call_1/r/ncu_$f.ncu-rep --page source --csv --print-source sass > $R/src_$f.csv 2> $R/src_$f.err; st src $f
done
gzip -f $R/*.csv; true
