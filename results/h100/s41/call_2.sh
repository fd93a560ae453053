# Session 41, call 2: does group merge 2 pay at C/G = K/G = 8? Branch gm2-cg8 admits gm2 there
# (an A fragment shared by the two n8 blocks of a merged pair, whole-tap k16 steps with no
# register moves of the tap-straddling fragments, at twice the MMA work); its binary sweeps the
# depth-streaming backward-data configs (gm 1 and 2, tile_k 16, tile_m 64/112/224) on the zoo's
# 3D C/G 8 layer, both degrees in one run, cuDNN too. Compile cache built on the build machine.
# carry ["target/carry/bins.tar.xz", "target/carry/gc2.tar.xz"]
#   tar xJf target/carry/bins.tar.xz && (timeout 300 bash results/h100/s41/call_2.sh; cd $OUT && tar czf c2.tgz r; cat r/progress.log; head -40 r/sweep_gm.report.txt)
export GCONV_CACHE_DIR=/tmp/gc2 PYTHONUNBUFFERED=1; unset LD_LIBRARY_PATH
B=target/gm2-cg8/gconv; R=$OUT/r; mkdir -p $R
tar xJf target/carry/gc2.tar.xz -C /tmp
nvidia-smi --query-gpu=name,clocks.max.sm,memory.total,driver_version --format=csv > $R/gpu.txt 2>&1
SECONDS=0
st() { echo "$* rc=$? ${SECONDS}s" | tee -a $R/progress.log; }
K=dgrad_bf16_n8_g32_c256_k256_i8x28x28_f3x3x3_s1x1x1_p1x1x1_d1x1x1
timeout 250 $B sweep --variant dgrad --problems $K --config configs/traits/bwd_data_direct_mma_stream_bf16.json --filter 'tile_k == 16 && (tile_m == 224 || tile_m == 112 || tile_m == 64)' --vs cudnn --output $R/sweep_gm.csv --batch-size 200 --workers 16 > $R/sweep_gm.log 2>&1; st sweep gm 3d
$B report $R/sweep_gm.csv > $R/sweep_gm.report.txt 2>&1
python3 - $R/sweep_gm.csv > $R/gm_best.txt 2>&1 <<'PY'
import csv, sys, re
best = {}
for r in csv.DictReader(open(sys.argv[1])):
    if r.get("status") != "ok" or r["kernel"].startswith("cudnn"): continue
    m = re.search(r"_gm(\d+)_", r["kernel"]); gm = m.group(1) if m else "?"
    t = float(r["latency_ms"]) * 1e3
    best.setdefault(gm, []).append((t, r["kernel"]))
for gm, v in sorted(best.items()):
    v.sort(); print("gm", gm, len(v), "ok; fastest:", *[f"{t:.1f} {k}" for t, k in v[:5]], sep="\n  ")
PY
cat $R/gm_best.txt
gzip -f $R/*.messages.jsonl $R/*.csv 2>/dev/null; true
