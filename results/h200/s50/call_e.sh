# Session 50, call e (any H100/H200; not run this session — for the next one): the banded
# tensor-core kernels' non-pipelined staging with its global reads batched (branch
# `batched-banded`: `stage_batched` moved to direct/elem.cu with a batch size, up to 4 staging
# tasks of a thread in flight in `wgrad_banded.cu` and `fwd_banded.cu` where each task's three
# (two) 16-byte reads waited before its stores), against main (`bash scripts/h200.sh main` on
# the branch: target/main/gconv beside the new one), one binary after the other in one lease:
# the direct family on the zoo's 12 depthwise stride-1 backward-weight layers and five
# large-filter ones (ab_wgrad_banded.txt; five of the six banded pool members are not
# pipelined). `gconv compare` gives the ratios new / base; every row verified. Then the banded
# backward-data space (180 configs, `bwd_data_banded_bf16.json`, not pool members) on the 7×7
# depthwise 56² layer with both binaries (the best was 42.9 µs against the CUDA-core member's
# 33.6 µs in session 40, H100), and the GPU selftest of the direct backward-weight members with
# the new binary.
# carry ["target/carry/bins.tar.xz"]; slim tree keeping results/h100/s35/prelude.sh results/h200/s50:
#   tar xJf target/carry/bins.tar.xz && (timeout 400 bash results/h200/s50/call_e.sh; cd $OUT && tar czf ce.tgz r; cat r/gpu.txt r/progress.log; grep -h geomean r/ab_*.txt; grep -h "passed" r/selftest_*.log | tail -2)
# Best member per layer, afterwards on this machine in the call's r/ folder:
#   python3 <repo>/results/h200/s50/best_member.py wgrad
source results/h100/s35/prelude.sh
O=target/main/gconv
S=results/h200/s50
timeout 80 $O bench --problems $S/ab_wgrad_banded.txt --direction wgrad --family direct --output $R/ab_wgrad_base.csv --batch-size 200 --workers 16 > $R/ab_wgrad_base.log 2>&1; st bench wgrad base
timeout $(( 170 - SECONDS )) $B bench --problems $S/ab_wgrad_banded.txt --direction wgrad --family direct --output $R/ab_wgrad_new.csv --batch-size 200 --workers 16 > $R/ab_wgrad_new.log 2>&1; st bench wgrad new
$B compare $R/ab_wgrad_base.csv $R/ab_wgrad_new.csv > $R/ab_wgrad.txt 2>&1
$B report $R/ab_wgrad_new.csv > $R/ab_wgrad_new.report.txt 2>&1
$B report $R/ab_wgrad_base.csv > $R/ab_wgrad_base.report.txt 2>&1
D7=dgrad_bf16_n32_g96_c96_k96_i56x56_f7x7_s1x1_p3x3_d1x1
timeout 40 $O sweep --variant dgrad --problems $D7 --config configs/traits/bwd_data_banded_bf16.json --output $R/banded7_base.csv --batch-size 200 --workers 16 > $R/banded7_base.log 2>&1; st sweep banded base
timeout $(( 280 - SECONDS )) $B sweep --variant dgrad --problems $D7 --config configs/traits/bwd_data_banded_bf16.json --output $R/banded7_new.csv --batch-size 200 --workers 16 > $R/banded7_new.log 2>&1; st sweep banded new
$B compare $R/banded7_base.csv $R/banded7_new.csv > $R/ab_banded7.txt 2>&1
timeout $(( 380 - SECONDS )) $B selftest --gpu --direction wgrad --kernels direct_wgrad > $R/selftest_wgrad.log 2>&1; st selftest wgrad
gzip -f $R/*.messages.jsonl $R/*.csv 2>/dev/null; true
