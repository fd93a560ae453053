# Session 25, call c: `auto` against best-in-pool and cuDNN on layers of model families gconv
# was not tuned on, in every direction: model_keys.py records the converted convolutions of
# session 24's 23 new models (torchvision and timm, batch 16 at 224², bf16) and samples 12 keys
# per direction (seed 0); `gconv bench` runs every pool member and cuDNN on them.
#   scripts/h200.sh; (cd python && ../.venv/bin/maturin build --release --out ../target/wheels);
#   carry ["target/carry/bins.tar.xz", "target/wheels"];
#   tar xJf target/carry/bins.tar.xz && (timeout 560 bash results/h200/s25/call_c.sh; cd $OUT && tar czf c.tgz r; true)
export GCONV_CACHE_DIR=/tmp/gc PYTHONUNBUFFERED=1; unset LD_LIBRARY_PATH
R=$OUT/r; mkdir -p $R
SECONDS=0
B=$PWD/target/release/gconv
python3 -m pip install -q --no-index --no-deps --target /tmp/gpkg target/wheels/*.whl && export PYTHONPATH=/tmp/gpkg
(cd python/benchmarks && timeout 150 python3 model_keys.py --sample 12 --prefix $R/keys > $R/model_keys.log 2>&1; echo "rc=$? ${SECONDS}s" >> $R/model_keys.log)
for d in fwd dgrad wgrad; do
  case $d in fwd) left=$(( (545 - SECONDS) / 3 ));; dgrad) left=$(( (545 - SECONDS) / 2 ));; wgrad) left=$(( 545 - SECONDS ));; esac
  timeout $left $B bench --problems $R/keys_$d.txt --direction $d --vs cudnn --batch-size 200 --output $R/bench_$d.csv > $R/bench_$d.log 2>&1; echo "rc=$? ${SECONDS}s" >> $R/bench_$d.log
done
gzip -f $R/*.csv $R/*.messages.jsonl 2>/dev/null; true
