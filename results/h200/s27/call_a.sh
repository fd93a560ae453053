# Session 27, call a: the rows that pooling the halo path needs (session 26's next_halo_pool.sh,
# widened to the validation sets). The four proposed halo tiles per direction
# (s26/halo_pool_{dgrad,fwd}.json with s26/halo_pool.filter) over every problem of the training
# and validation files they can run: the oracle shards 0-3 of 8 of forward_2d and bwd_data_2d,
# the 1D sets, the zoo, session 25's family layers (call_f training keys, call_c validation
# keys) and the unseen sets of session 9 (validation). Every row verified, cuDNN in the same run.
#   carry ["target/carry/bins.tar.xz"]
#   tar xJf target/carry/bins.tar.xz && (timeout 590 bash results/h200/s27/call_a.sh; cd $OUT && tar czf a.tgz r; true)
export GCONV_CACHE_DIR=/tmp/gc PYTHONUNBUFFERED=1; unset LD_LIBRARY_PATH
B=target/release/gconv; R=$OUT/r; mkdir -p $R; S=results/h200/s26
F=$(cat $S/halo_pool.filter)
SECONDS=0
nvidia-smi --query-gpu=name,clocks.sm,temperature.gpu --format=csv > $R/gpu.txt 2>&1
sw() { # sw VARIANT DIR OUTNAME PROBLEMS [--shard I/8]
  local v=$1 d=$2 o=$3 p=$4; shift 4
  timeout 100 $B sweep --variant $v --arch sm_90a --problems $p "$@" --config $S/halo_pool_$d.json \
    --filter "$F" --vs cudnn --output $R/$o.csv --batch-size 200 --workers 16 >> $R/$o.log 2>&1
  echo "$v $p $* rc=$? ${SECONDS}s" | tee -a $R/progress.log
}
for v in "bwd_data dgrad" "forward fwd"; do
  set -- $v
  for I in 0 1 2 3; do sw $1 $2 halo_${2}_2d_s$I ${1}_2d --shard $I/8; done
  sw $1 $2 halo_${2}_zoo model_zoo_$2
  sw $1 $2 halo_${2}_family_train results/h200/s25/call_f/train_keys_$2.txt
  sw $1 $2 halo_${2}_family_val results/h200/s25/call_c/keys_$2.txt
  sw $1 $2 halo_${2}_1d ${1}_1d
done
sw bwd_data dgrad halo_dgrad_unseen results/h200/s6/dgrad_unseen.txt
sw forward fwd halo_fwd_unseen configs/problems/fwd_unseen.txt
gzip -f $R/*.messages.jsonl $R/*.csv 2>/dev/null; true
