# Session 35 (no device was lent; for the next session), call c: the zoo's 81 layers in f16
# (`zoo_f16_{fwd,dgrad,wgrad}.txt`: the model-zoo keys with the dtype changed), whole pools
# and cuDNN, each direction: the first whole-pool f16 rows beyond the unseen set's two
# problems, to validate `auto` on f16, which the bf16 model decides since session 35
# (`models/h200/README.md`, "f16"): `gconv report` per direction (auto against best-in-pool),
# and `gconv validate --model models/h200 --oracle $R/zoo_f16_*.csv.gz` here afterwards.
# Build and carry as call a (add the f16 kernels to the cache:
#   for d in fwd dgrad wgrad; do GCONV_CACHE_DIR=target/gc target/release/gconv cache build --problems results/h100/s35/zoo_f16_$d.txt --direction $d; done)
# carry ["target/carry/bins.tar.xz", "target/carry/gc.tar.xz"]
#   tar xJf target/carry/bins.tar.xz && (timeout 590 bash results/h100/s35/call_c.sh; cd $OUT && tar czf c.tgz r; cat r/progress.log)
source results/h100/s35/prelude.sh
for d in fwd dgrad wgrad; do
  timeout 185 $B bench --problems results/h100/s35/zoo_f16_$d.txt --direction $d --vs cudnn --output $R/zoo_f16_$d.csv --batch-size 200 --workers 16 > $R/zoo_f16_$d.log 2>&1; st bench zoo f16 $d
done
gzip -f $R/*.messages.jsonl $R/*.csv 2>/dev/null; true
