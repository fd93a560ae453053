# Session 36, call 4: the zoo in f16, backward data and forward (session 35's call c: whole
# pools and cuDNN; `auto` on f16 is the bf16 model's), then the zoo's backward weight in bf16.
# carry ["target/carry/bins.tar.xz"] (the kernels compile there)
#   (timeout 560 bash results/h100/s36/call_4.sh; cd $OUT && tar czf r4.tgz r; cat r/progress.log)
source results/h100/s35/prelude.sh
for d in dgrad fwd; do
  timeout 150 $B bench --problems results/h100/s35/zoo_f16_$d.txt --direction $d --vs cudnn --output $R/zoo_f16_$d.csv --batch-size 200 --workers 16 > $R/zoo_f16_$d.log 2>&1; st bench zoo f16 $d
done
timeout $(( 550 - SECONDS )) $B bench --problems model_zoo --direction wgrad --vs cudnn --output $R/bench_wgrad.csv --batch-size 200 --workers 16 > $R/bench_wgrad.log 2>&1; st bench zoo wgrad
gzip -f $R/*.messages.jsonl $R/*.csv 2>/dev/null; true
