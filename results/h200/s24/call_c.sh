# Session 24, call c: the torch tests on the GPU (the convert test now covers padding="same"
# and "valid" and subclasses left alone), then models gconv was never tuned on, converted and
# trained as a new user would (python/benchmarks/new_models.py: torchvision and timm, random
# weights, batch 16 at 224², bf16 autocast, channels_last).
#   scripts/h200.sh; (cd python && maturin build --release --out ../target/wheels);
#   carry ["target/carry/bins.tar.xz", "target/wheels"];
#   tar xJf target/carry/bins.tar.xz && (timeout 590 bash results/h200/s24/call_c.sh; cd $OUT && tar czf c.tgz r; true)
export GCONV_CACHE_DIR=/tmp/gc PYTHONUNBUFFERED=1; unset LD_LIBRARY_PATH
R=$OUT/r; mkdir -p $R
SECONDS=0
python3 -m pip install -q --no-index --no-deps --target /tmp/gpkg target/wheels/*.whl && export PYTHONPATH=/tmp/gpkg
python3 -c "import timm, torch, torchvision; print('timm', timm.__version__, 'torch', torch.__version__, 'torchvision', torchvision.__version__)" > $R/versions.log 2>&1
(cd python && timeout 150 python3 -m pytest -q -x tests_gpu > $R/pytest_gpu.log 2>&1); echo "rc=$? ${SECONDS}s" >> $R/pytest_gpu.log
left=$(( 575 - SECONDS ))
timeout $left python3 python/benchmarks/new_models.py --iters 5 --out $R/new_models.jsonl --models \
  timm:mixnet_s shufflenet_v2_x1_0 timm:inception_next_tiny mnasnet1_0 timm:resnest14d timm:skresnet18 \
  efficientnet_v2_s timm:ghostnet_100 timm:rexnet_100 regnet_x_400mf timm:tf_efficientnet_b0 \
  timm:convnextv2_atto timm:edgenext_xx_small resnext101_32x8d timm:xception41 timm:dpn68 \
  timm:repvit_m1 timm:fastvit_t8 timm:mobilenetv4_conv_small timm:lcnet_050 mobilenet_v2 \
  regnet_y_1_6gf convnext_small > $R/new_models.log 2>&1; echo "rc=$? ${SECONDS}s" >> $R/new_models.log
true
