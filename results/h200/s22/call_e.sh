# Session 22, call e: the backward-weight decisions re-tuned over the model's first 8 (call d
# measured 5: on the real client's C/G 16 112² stride-2 layer a pipelined member the sweep of
# call c timed at 53.9 µs was not among them, and the tuned igemm kernel ran 69.5 µs). The
# sweep of the register-pipelined space after them (stages 3, the rule's split, 8 warps, one M
# slice, tile_n <= 48, gm <= 2, over wgrad_s3_layers.txt) did not run: too little device time
# was left after two refused starts; it waits for the next session (next_call.sh).
#   scripts/h200.sh; carry ["target/carry/bins.tar.xz"];
#   tar xJf target/carry/bins.tar.xz && (timeout 260 bash results/h200/s22/call_e.sh; cd $OUT && tar czf e.tgz r; true)
export GCONV_CACHE_DIR=/tmp/gc PYTHONUNBUFFERED=1; unset LD_LIBRARY_PATH
B=target/release/gconv; R=$OUT/r; mkdir -p $R; S=results/h200/s22
SECONDS=0
cp models/h200/decisions.json $R/decisions.json
timeout 90 $B tune --problems results/h200/s20/rc_grouped_wgrad.txt --top 8 --vs cudnn --decisions $R/decisions.json --output $R/tune8_rc_wgrad.csv --batch-size 200 > $R/tune8_rc_wgrad.log 2>&1; echo "rc=$? ${SECONDS}s" >> $R/tune8_rc_wgrad.log
cp $R/decisions.json $R/decisions_rc.json  # the real client's re-tune alone (the zoo's may be cut)
timeout 150 $B tune --problems model_zoo_wgrad --top 8 --vs cudnn --decisions $R/decisions.json --output $R/tune8_wgrad.csv --batch-size 200 > $R/tune8_wgrad.log 2>&1; echo "rc=$? ${SECONDS}s" >> $R/tune8_wgrad.log
echo "tune done ${SECONDS}s"
gzip -f $R/*.messages.jsonl $R/*.csv 2>/dev/null; true
