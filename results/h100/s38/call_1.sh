# Session 38, call 1: (1) A/B of the persistent CUDA-core register budget (PERSISTENT_REGS 128,
# target/release/gconv, against 80, target/exp80/gconv: a third resident 224-thread CTA) over
# the direct family of the zoo's forward and backward-data pools; (2) session 37's unrun call 4
# (the four stride-phase members' rows on 166 backward-data problems, the real client's backward
# data over the new pool with cuDNN, its decisions and the zoo's re-tuned).
# carry ["target/carry/bins.tar.xz", "target/carry/gc.tar.xz"]
#   tar xJf target/carry/bins.tar.xz && (timeout 570 bash results/h100/s38/call_1.sh; cd $OUT && tar czf c1.tgz r; cat r/progress.log)
source results/h100/s35/prelude.sh
for d in fwd dgrad; do
  for v in release exp80; do
    timeout 75 target/$v/gconv bench --problems model_zoo --direction $d --family direct --output $R/ab_${d}_$v.csv --batch-size 200 --workers 16 > $R/ab_${d}_$v.log 2>&1; st ab $d $v
  done
done
F="stages == 2 && vec_a == 16 && ((tile_m == 64 && tile_n == 32 && tile_k == 8 && warps_m == 8 && vec_b == 2) || (tile_m == 112 && tile_n == 32 && tile_k == 16 && warps_m == 8 && vec_b == 2) || (tile_m == 112 && tile_n == 16 && tile_k == 16 && warps_m == 8 && vec_b == 2) || (tile_m == 49 && tile_n == 16 && tile_k == 7 && warps_m == 4 && vec_b == 2))"
timeout 110 $B sweep --variant dgrad --problems results/h100/s37/new_members_dgrad.txt --config configs/traits/bwd_data_direct_mma_phases_bf16.json \
  --filter "$F" --output $R/new_members.csv --batch-size 200 --workers 16 > $R/new_members.log 2>&1; st new members
timeout 90 $B bench --problems results/h200/s20/rc_grouped_dgrad.txt --direction dgrad --vs cudnn --output $R/rc_dgrad.csv --batch-size 200 --workers 16 > $R/rc_dgrad.log 2>&1; st bench rc dgrad
cp results/h100/s37/call_3/r/decisions.json $R/decisions.json
timeout 60 $B tune --problems results/h200/s20/rc_grouped_dgrad.txt --top 12 --vs cudnn --decisions $R/decisions.json --output $R/tune_rc_dgrad.csv --batch-size 200 > $R/tune_rc_dgrad.log 2>&1; st tune rc dgrad
timeout $(( 555 - SECONDS )) $B tune --problems model_zoo_dgrad --top 6 --vs cudnn --decisions $R/decisions.json --output $R/tune_zoo_dgrad.csv --batch-size 200 > $R/tune_zoo_dgrad.log 2>&1; st tune zoo dgrad
gzip -f $R/*.messages.jsonl $R/*.csv 2>/dev/null; true
