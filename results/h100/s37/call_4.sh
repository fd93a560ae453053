# Session 37, call 4 (not run: after the four stride-phase members joined the backward-data pool,
# `direct::pool::phase_mma_pool`, no device time was left): the four members' rows on every backward-data problem of this session's and
# session 36's H100 benches (`new_members_dgrad.txt`, 166 problems, so that those benches cover
# the new pool), then the real client's backward data over the whole new pool with cuDNN, and
# its decisions and the zoo's re-tuned (`--top 12`, `--top 6`: the dgrad pool's hash changed).
# carry ["target/carry/bins.tar.xz"]
#   tar xJf target/carry/bins.tar.xz && (timeout 290 bash results/h100/s37/call_4.sh; cd $OUT && tar czf c4.tgz r; cat r/progress.log)
source results/h100/s35/prelude.sh
F="stages == 2 && vec_a == 16 && ((tile_m == 64 && tile_n == 32 && tile_k == 8 && warps_m == 8 && vec_b == 2) || (tile_m == 112 && tile_n == 32 && tile_k == 16 && warps_m == 8 && vec_b == 2) || (tile_m == 112 && tile_n == 16 && tile_k == 16 && warps_m == 8 && vec_b == 2) || (tile_m == 49 && tile_n == 16 && tile_k == 7 && warps_m == 4 && vec_b == 2))"
timeout 120 $B sweep --variant dgrad --problems results/h100/s37/new_members_dgrad.txt --config configs/traits/bwd_data_direct_mma_phases_bf16.json \
  --filter "$F" --output $R/new_members.csv --batch-size 200 --workers 16 > $R/new_members.log 2>&1; st new members
timeout 100 $B bench --problems results/h200/s20/rc_grouped_dgrad.txt --direction dgrad --vs cudnn --output $R/rc_dgrad.csv --batch-size 200 --workers 16 > $R/rc_dgrad.log 2>&1; st bench rc dgrad
cp results/h100/s37/call_3/r/decisions.json $R/decisions.json
timeout 60 $B tune --problems results/h200/s20/rc_grouped_dgrad.txt --top 12 --vs cudnn --decisions $R/decisions.json --output $R/tune_rc_dgrad.csv --batch-size 200 > $R/tune_rc_dgrad.log 2>&1; st tune rc dgrad
timeout $(( 280 - SECONDS )) $B tune --problems model_zoo_dgrad --top 6 --vs cudnn --decisions $R/decisions.json --output $R/tune_zoo_dgrad.csv --batch-size 200 > $R/tune_zoo_dgrad.log 2>&1; st tune zoo dgrad
gzip -f $R/*.messages.jsonl $R/*.csv 2>/dev/null; true
