# Sourced by this folder's call scripts on the device machine: the compile cache carried in
# target/carry/gc.tar.xz unpacked to /tmp/gc, the binary B, the output folder R under $OUT, the
# GPU's name and clocks, and `st` (appends a step's exit status and the seconds so far to
# $R/progress.log).
export GCONV_CACHE_DIR=/tmp/gc PYTHONUNBUFFERED=1; unset LD_LIBRARY_PATH
B=target/release/gconv; R=$OUT/r; mkdir -p $R
[ -d /tmp/gc ] || { [ -f target/carry/gc.tar.xz ] && tar xJf target/carry/gc.tar.xz -C /tmp; }
nvidia-smi --query-gpu=name,clocks.max.sm,memory.total,driver_version --format=csv > $R/gpu.txt 2>&1
SECONDS=0
st() { echo "$* rc=$? ${SECONDS}s" | tee -a $R/progress.log; }
