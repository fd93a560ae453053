# Session 26, call b: the torch GPU tests again (the zero-copy test fixed), host time per call
# of gconv.torch as it is now (the no-node forward path is new since session 25's GPU runs),
# ncu of the vendor's kernels on the three layers of call a (call a's name lookup took the
# wrong field), ncu of the 7×7 depthwise backward-data kernel on its 7² layer (the zoo's lowest
# roofline fraction in that direction), and a sweep of the igemm wgmma backward-weight tiles
# with group merge 1–2 and low split degrees on the C/G 32 layers (cuDNN's kernel there: one
# 64×64×64 one-warpgroup tile, no split-K).
#   scripts/h200.sh; (cd python && ../.venv/bin/maturin build --release --out ../target/wheels)
#   carry ["target/carry/bins.tar.xz", "target/wheels"];
#   tar xJf target/carry/bins.tar.xz && (timeout 590 bash results/h200/s26/call_b.sh; cd $OUT && tar czf b.tgz r; true)
export GCONV_CACHE_DIR=/tmp/gc PYTHONUNBUFFERED=1; unset LD_LIBRARY_PATH
B=$PWD/target/release/gconv; R=$OUT/r; mkdir -p $R; S=results/h200/s26
SECONDS=0
python3 -m pip install -q --no-index --no-deps --target /tmp/gpkg target/wheels/*.whl && export PYTHONPATH=/tmp/gpkg
timeout 90 python3 -m pytest -q -p no:cacheprovider python/tests_gpu > $R/pytest_gpu.log 2>&1; echo "rc=$? ${SECONDS}s" >> $R/pytest_gpu.log
for i in 1 2 3; do timeout 40 python3 python/benchmarks/host_overhead.py >> $R/host_overhead.log 2>&1; done
echo "host ${SECONDS}s"
timeout 150 $B sweep --variant bwd_weight --arch sm_90a --problems $S/wgrad_cg32.txt --config $S/wgrad_cg32_wgmma.json \
  --vs cudnn --output $R/sweep_cg32.csv --batch-size 200 --workers 16 > $R/sweep_cg32.log 2>&1; echo "rc=$? ${SECONDS}s" >> $R/sweep_cg32.log
echo "sweep ${SECONDS}s"
prof() { # prof TAG REGEX CMD...: ncu --set full of the first kernel matching REGEX after SKIP
  local tag=$1 re=$2; shift 2
  timeout 100 ncu --set full --import-source yes -k "regex:$re" --launch-skip ${SKIP:-0} -c 1 -o $R/ncu_$tag "$@" > $R/ncu_$tag.log 2>&1
  echo "rc=$? ${SECONDS}s" >> $R/ncu_$tag.log
  timeout 40 ncu --import $R/ncu_$tag.ncu-rep --page details > $R/ncu_$tag.txt 2>&1
  timeout 40 ncu --import $R/ncu_$tag.ncu-rep --page source --csv --print-source sass > $R/src_$tag.csv 2>&1
  rm -f $R/ncu_$tag.ncu-rep
}
DW=dgrad_bf16_n32_g768_c768_k768_i7x7_f7x7_s1x1_p3x3_d1x1
KDW=direct_dgrad_bf16_t49x64x7_w7x1_s1_v2x7_gm1_sk1d_simt_gen
$B run --backend cuda --problem $DW --kernel $KDW --iters 30 --verify > $R/run_$KDW.log 2>&1
prof dw7_ours "direct_dgrad" $B run --backend cuda --problem $DW --kernel $KDW --iters 1 --no-graph
V=$S/vendor_kernels.py
timeout 40 python3 $V $DW > $R/vendor_dw7.log 2>&1
for t in d2:dgrad_bf16_n32_g2_c256_k256_i28x28_f3x3_s1x1_p1x1_d1x1 w2:wgrad_bf16_n32_g2_c256_k256_i28x28_f3x3_s1x1_p1x1_d1x1 \
         w32:wgrad_bf16_n32_g32_c1024_k1024_i7x7_f3x3_s1x1_p1x1_d1x1 dw7:$DW; do
  tag=${t%%:*}; key=${t#*:}
  name=$(cat $S/call_a/vendor.log $R/vendor_dw7.log | grep -A1 "== $key" | tail -1 | awk '{print $5}' | cut -c1-60)
  [ -n "$name" ] || continue
  echo "$tag $name" >> $R/vendor_names.txt
  SKIP=20 prof ${tag}_vendor "$name" python3 $V --steps 40 $key
  echo "$tag ${SECONDS}s"
  [ $SECONDS -gt 540 ] && break
done
echo "all done ${SECONDS}s"
