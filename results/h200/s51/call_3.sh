# Session 51, call 3 (any H100/H200; on an H200 call 1 runs instead): the session's kernel
# branches against main, one binary after the other in one lease. Binaries (built here, packed
# in target/carry/bins3.tar.xz): target/release/gconv = main (4dd41ec), target/combo/gconv =
# branch combo-s51 (main + batched-banded: the banded tensor-core kernels' non-pipelined
# staging with 4 tasks' reads in flight; + stream-interior: the streaming depthwise wgrad
# kernel's interior units without per-read bounds tests), target/w16-mma/gconv = branch w16-mma.
# 1. The direct family on the zoo's 12 depthwise stride-1 backward-weight layers and five large
#    filters (ab_wgrad_banded.txt), main then combo; `gconv compare` pairs each kernel (banded
#    members carry the first change, streaming ones the second), every row verified.
# 2. w16-mma: the direct family of the pool on the 3D C/G 8 backward-data layer with cuDNN, then
#    the 16-warp space (w16_space.json) on it with cuDNN, until the call's end.
# carry ["target/carry/bins3.tar.xz"]:
#   tar xJf target/carry/bins3.tar.xz && (timeout 480 bash results/h200/s51/call_3.sh; cd $OUT && tar czf c3.tgz r; cat r/gpu.txt r/progress.log; grep -h geomean r/ab_*.txt)
source results/h100/s35/prelude.sh
O=target/release/gconv
N=target/combo/gconv
W=target/w16-mma/gconv
S=results/h200/s51
timeout 85 $O bench --problems $S/ab_wgrad_banded.txt --direction wgrad --family direct --output $R/ab_wgrad_base.csv --batch-size 200 --workers 16 > $R/ab_wgrad_base.log 2>&1; st bench wgrad base
timeout $(( 175 - SECONDS )) $N bench --problems $S/ab_wgrad_banded.txt --direction wgrad --family direct --output $R/ab_wgrad_new.csv --batch-size 200 --workers 16 > $R/ab_wgrad_new.log 2>&1; st bench wgrad new
$N compare $R/ab_wgrad_base.csv $R/ab_wgrad_new.csv > $R/ab_wgrad.txt 2>&1
P=dgrad_bf16_n8_g32_c256_k256_i8x28x28_f3x3x3_s1x1x1_p1x1x1_d1x1x1
timeout $(( 235 - SECONDS )) $W bench --problems $P --family direct --vs cudnn --output $R/pool_3d.csv --batch-size 200 --workers 16 > $R/pool_3d.log 2>&1; st bench pool 3d
$W report $R/pool_3d.csv > $R/pool_3d.report.txt 2>&1
timeout $(( 465 - SECONDS )) $W sweep --variant dgrad --problems $P --config $S/w16_space.json --vs cudnn --output $R/w16_3d.csv --batch-size 200 --workers 16 > $R/w16_3d.log 2>&1; st sweep w16 3d
$W report $R/w16_3d.csv > $R/w16_3d.report.txt 2>&1
gzip -f $R/*.messages.jsonl $R/*.csv 2>/dev/null; true
