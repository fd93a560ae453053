# Session 21, call e: the banded forward kernel, fourth version: call d's with the first
# version's epilogue again ([pixel][channel] output rows read as 16-byte vectors and written
# channel-vector fastest; call c/d's per-channel output planes ran the kernel twice as long),
# swept (4 and 8 warps, 8 and 16 channels, plain and pipelined) over the zoo's seven 5×5 and
# 7×7 depthwise forward layers, every row verified, cuDNN in the same run (two refused starts
# left this session 275 s of device time).
#   scripts/h200.sh; carry ["target/carry/bins.tar.xz"];
#   tar xJf target/carry/bins.tar.xz && (timeout 110 bash results/h200/s21/call_e.sh; cd $OUT && tar czf e.tgz r; true)
export GCONV_CACHE_DIR=/tmp/gc PYTHONUNBUFFERED=1; unset LD_LIBRARY_PATH
B=target/release/gconv; R=$OUT/r; mkdir -p $R; S=results/h200/s21
SECONDS=0
timeout 100 $B sweep --variant forward --problems $S/dw_fwd_large.txt --config configs/traits/forward_banded_bf16.json --filter "warps_m >= 4 && tile_n <= 16" --vs cudnn --output $R/banded_fwd.csv --batch-size 200 --workers 16 > $R/banded_fwd.log 2>&1; echo "rc=$? ${SECONDS}s" >> $R/banded_fwd.log
gzip -f $R/*.messages.jsonl 2>/dev/null; true
