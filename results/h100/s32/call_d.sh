# Session 32, call d (not run: no device was lent after call b; for the next session, after
# call_c.sh): the TMA-fed backward-weight kernels with group merge (new this session, host-
# emulated and NVRTC-compiled only) beside their wgmma twins on the C/G 8-32 layers: the real
# client's 14 grouped backward-weight layers (ResNeXt-50 32x4d, RegNetY-800MF) and the zoo's
# C/G 8-56 ones, cuDNN in the same run. The zoo's C/G 32 7x7 layer is the one key where
# best-in-pool is slower than cuDNN (12.8 vs 9.9 us on the H100); cuDNN runs a 64x64x64 tile
# over two groups without a split there. Then `gconv report --pair math=wgmma,wgmmatma`, and
# pool the tiles that win (igemm/pool.rs), retrain with these rows.
# Build: scripts/h200.sh; the sweep's kernels compiled here first (session 32: 1,513 modules,
# 520 s on 2 threads), packed as /tmp/gc there:
#   GCONV_CACHE_DIR=target/gc_d target/release/gconv cache build --problems results/h100/s32/merge_wgrad.txt \
#     --config configs/traits/bwd_weight_tma_merge_bf16.json
#   tar cJf target/carry/gc.tar.xz -C target --transform 's,^gc_d,gc,' gc_d
# carry ["target/carry/bins.tar.xz", "target/carry/gc.tar.xz"]
#   tar xJf target/carry/bins.tar.xz && (timeout 590 bash results/h100/s32/call_d.sh; cd $OUT && tar czf d.tgz r; cat r/progress.log)
export GCONV_CACHE_DIR=/tmp/gc PYTHONUNBUFFERED=1; unset LD_LIBRARY_PATH
B=target/release/gconv; R=$OUT/r; mkdir -p $R; S=results/h100/s32
[ -d /tmp/gc ] || { [ -f target/carry/gc.tar.xz ] && tar xJf target/carry/gc.tar.xz -C /tmp; }
nvidia-smi --query-gpu=name,clocks.max.sm,memory.total,driver_version --format=csv > $R/gpu.txt 2>&1
SECONDS=0
st() { echo "$* rc=$? ${SECONDS}s" | tee -a $R/progress.log; }
timeout 60 $B selftest --gpu --direction wgrad --config configs/traits/bwd_weight_tma_merge_bf16.json --kernels _wgmmatma_ > $R/selftest_merge.log 2>&1; st selftest merge
timeout 420 $B sweep --variant bwd_weight --arch sm_90a --problems $S/merge_wgrad.txt --config configs/traits/bwd_weight_tma_merge_bf16.json --vs cudnn --output $R/sweep_merge.csv --batch-size 200 > $R/sweep_merge.log 2>&1; st sweep merge
$B report $R/sweep_merge.csv --pair math=wgmma,wgmmatma > $R/pair_merge.txt 2>&1; st report
gzip -f $R/*.messages.jsonl $R/*.csv 2>/dev/null; true
