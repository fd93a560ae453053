# Session 51, call 2 (any H100/H200): the two experiments session 50 prepared, in one lease.
# Binaries: `bash scripts/h200.sh batched-banded w16-mma` on main (target/release/gconv = main,
# target/batched-banded/gconv, target/w16-mma/gconv).
# 1. Branch batched-banded (the banded tensor-core kernels' non-pipelined staging with up to 4
#    tasks' global reads in flight) against main, one binary after the other: the direct family
#    on the zoo's 12 depthwise stride-1 backward-weight layers and five large-filter ones
#    (ab_wgrad_banded.txt), `gconv compare` new / base, every row verified; then the banded
#    backward-data space (bwd_data_banded_bf16.json) on the 7×7 depthwise 56² layer with both.
# 2. Branch w16-mma (the direct channel tensor-core path with 16 warps): the direct family of the
#    pool on the 3D C/G 8 backward-data layer with cuDNN, then the 16-warp space (w16_space.json,
#    972 kernels) on the same layer with cuDNN.
# carry ["target/carry/bins.tar.xz"]; slim tree keeping results/h100/s35/prelude.sh results/h200/s51:
#   tar xJf target/carry/bins.tar.xz && (timeout 585 bash results/h200/s51/call_2.sh; cd $OUT && tar czf c2.tgz r; cat r/gpu.txt r/progress.log; grep -h geomean r/ab_*.txt; grep -h -A4 "^dgrad" r/*3d.report.txt | head -20)
source results/h100/s35/prelude.sh
O=target/release/gconv
N=target/batched-banded/gconv
W=target/w16-mma/gconv
S=results/h200/s51
timeout 85 $O bench --problems $S/ab_wgrad_banded.txt --direction wgrad --family direct --output $R/ab_wgrad_base.csv --batch-size 200 --workers 16 > $R/ab_wgrad_base.log 2>&1; st bench wgrad base
timeout $(( 170 - SECONDS )) $N bench --problems $S/ab_wgrad_banded.txt --direction wgrad --family direct --output $R/ab_wgrad_new.csv --batch-size 200 --workers 16 > $R/ab_wgrad_new.log 2>&1; st bench wgrad new
$N compare $R/ab_wgrad_base.csv $R/ab_wgrad_new.csv > $R/ab_wgrad.txt 2>&1
D7=dgrad_bf16_n32_g96_c96_k96_i56x56_f7x7_s1x1_p3x3_d1x1
timeout 40 $O sweep --variant dgrad --problems $D7 --config configs/traits/bwd_data_banded_bf16.json --output $R/banded7_base.csv --batch-size 200 --workers 16 > $R/banded7_base.log 2>&1; st sweep banded base
timeout $(( 255 - SECONDS )) $N sweep --variant dgrad --problems $D7 --config configs/traits/bwd_data_banded_bf16.json --output $R/banded7_new.csv --batch-size 200 --workers 16 > $R/banded7_new.log 2>&1; st sweep banded new
$N compare $R/banded7_base.csv $R/banded7_new.csv > $R/ab_banded7.txt 2>&1
P=dgrad_bf16_n8_g32_c256_k256_i8x28x28_f3x3x3_s1x1x1_p1x1x1_d1x1x1
timeout $(( 310 - SECONDS )) $W bench --problems $P --family direct --vs cudnn --output $R/pool_3d.csv --batch-size 200 --workers 16 > $R/pool_3d.log 2>&1; st bench pool 3d
$W report $R/pool_3d.csv > $R/pool_3d.report.txt 2>&1
timeout $(( 575 - SECONDS )) $W sweep --variant dgrad --problems $P --config $S/w16_space.json --vs cudnn --output $R/w16_3d.csv --batch-size 200 --workers 16 > $R/w16_3d.log 2>&1; st sweep w16 3d
$W report $R/w16_3d.csv > $R/w16_3d.report.txt 2>&1
gzip -f $R/*.messages.jsonl $R/*.csv 2>/dev/null; true
