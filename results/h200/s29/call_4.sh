# Session 29, call 4 (not run: no machine was lent after call 3; for the next session):
# (1) `gconv run --verify` of every igemm forward and backward-data golden
#     (igemm_golden_pairs.txt: each golden's kernel on its problem; the M-tile index now comes
#     through `bx` in every igemm kernel, and call 3 ran only backward weight);
# (2) on the zoo's two wgrad keys slower than cuDNN, tiles whose N divides the GEMM's N exactly
#     (exact_tiles.txt: C/G 32 7x7 has N = 9 x 32 = 288 = 3 x 96, the pool's 64-wide tiles
#     waste 10 %; on C/G 128 g2 mma tiles 192 and 96 wide), with the keys' best members,
#     verified then timed, then the pool with cuDNN in the same run (`gconv bench`);
# (3) the cluster scheduling policy: this build asks the driver to spread a cluster's CTAs over
#     separate SMs (`Launch::cluster`, CU_CLUSTER_SCHEDULING_POLICY_SPREAD) and igemm's cluster
#     epilogue reads each peer's chunk with one vector load (was one scalar load per float);
#     target/base/gconv is call 3's build (the default policy, scalar loads): the two changes
#     are measured together (an ncu of (4) tells the placement apart). Every cluster kernel of call 3's same-degree pairs
#     and of session 28's streaming pairs (cluster_spread_ab.txt), base and this build
#     alternating, twice (rep 1 verified);
# (4) Nsight Compute's launch, occupancy, speed-of-light and warp-state sections of sk{n}d and
#     sk{n}c at the same tile, on the C/G 32 7x7 key (sk4, small CTAs) and the C/G 128 g2 key
#     (sk7, one 128 KB CTA per SM).
#   scripts/h200.sh; base.tar.xz = call 3's gconv (built from 5f80bd8: `git worktree add /tmp/b 5f80bd8`,
#   `cargo build --release` there) packed as target/base/gconv (tar cJf target/carry/base.tar.xz target/base/gconv);
#   carry ["target/carry/bins.tar.xz", "target/carry/base.tar.xz"];
#   tar xJf target/carry/bins.tar.xz && tar xJf target/carry/base.tar.xz && (timeout 590 bash results/h200/s29/call_4.sh; cd $OUT && tar czf c4.tgz r; true)
export GCONV_CACHE_DIR=/tmp/gc PYTHONUNBUFFERED=1; unset LD_LIBRARY_PATH
B=target/release/gconv; R=$OUT/r; mkdir -p $R
SECONDS=0
while read -r p k; do
  v=$(timeout 30 $B run --backend cuda --problem $p --kernel $k --iters 5 --verify 2>&1 | tr '\n' ' ')
  echo "$p $k | $v" >> $R/verify_fwd_dgrad.log
done < results/h200/s29/igemm_golden_pairs.txt
echo "verify ${SECONDS}s" >> $R/progress.log
for rep in 1 2; do
  while read -r p k; do
    v=$(timeout 30 $B run --backend cuda --problem $p --kernel $k --iters 20 $([ $rep = 1 ] && echo --verify) 2>&1 | tr '\n' ' ')
    echo "$p $k rep=$rep | $v" >> $R/exact_tiles.log
  done < results/h200/s29/exact_tiles.txt
done
echo "tiles ${SECONDS}s" >> $R/progress.log
timeout 90 $B bench --problems results/h200/s29/two_slow_keys.txt --direction wgrad --vs cudnn --output $R/bench_two.csv \
  --batch-size 200 --workers 16 > $R/bench_two.log 2>&1
echo "bench rc=$? ${SECONDS}s" >> $R/progress.log
for rep in 1 2; do
  while read -r p k; do
    for b in target/base/gconv $B; do
      v=$(timeout 30 $b run --backend cuda --problem $p --kernel $k --iters 20 $([ $rep = 1 ] && echo --verify) 2>&1 | tr '\n' ' ')
      echo "$p $k $b rep=$rep | $v" >> $R/cluster_spread_ab.log
    done
  done < results/h200/s29/cluster_spread_ab.txt
  echo "spread rep=$rep ${SECONDS}s" >> $R/progress.log
done
for pk in \
  "wgrad_bf16_n32_g32_c1024_k1024_i7x7_f3x3_s1x1_p1x1_d1x1 igemm_wgrad_bf16_t32x64x32_w2x2_s4_v8x8_gm1_sk4X_mma_gen" \
  "wgrad_bf16_n32_g2_c256_k256_i28x28_f3x3_s1x1_p1x1_d1x1 igemm_wgrad_bf16_t128x128x64_w8x1_s4_v8x8_gm1_sk7X_wgmmaws_gen"; do
  set -- $pk
  for m in d c; do
    k=${2/X/$m}
    timeout 30 ncu --section SpeedOfLight --section Occupancy --section LaunchStats --section WarpStateStats \
      -k "regex:^${k}\$" -c 1 $B run --backend cuda --problem $1 --kernel $k --iters 1 --no-graph \
      > $R/ncu_${m}_$(echo $1 | cut -d_ -f4).txt 2>&1
    echo "ncu $m $1 rc=$? ${SECONDS}s" >> $R/progress.log
  done
done
