# Session 48, for the next session's first call (any H100/H200), binaries of main after session
# 48 (`bash scripts/h200.sh`), PyTorch's baseline script carried as target/torch_baseline.py
# (a copy of the shared bench's torch_baseline.py):
# 1. On an H200: the tables of issues #12 and #13 after session 48's changes — the zoo's 27
#    backward-data and 27 backward-weight keys with cuDNN in the same runs and PyTorch's best
#    layout in the same lease; then ResNeXt-50's C/G 4 layer at batch 64 in all three
#    directions (with the zoo's batch-32 rows, the H200 decisions session 48 dropped:
#    `gconv decide --problems ... --from ...`).
# 2. On an H100: the real client's 14 grouped layers in all three directions, whole pools with
#    cuDNN in one lease (what results/h100/s45/rc_amdahl.py sums per model for issue #15).
# carry ["target/carry/bins.tar.xz", "target/torch_baseline.py"]; slim tree keeping
# results/h100/s35/prelude.sh results/h200/s48 results/h200/s20/rc_grouped_dgrad.txt:
#   tar xJf target/carry/bins.tar.xz && (timeout 570 bash results/h200/s48/call_next.sh; cd $OUT && tar czf cn.tgz r; cat r/gpu.txt r/progress.log; grep -h geomean r/*.report.txt)
source results/h100/s35/prelude.sh
if grep -q H200 $R/gpu.txt; then
  for d in dgrad wgrad; do
    if [ $d = dgrad ]; then lim=200; else lim=400; fi
    timeout $(( lim - SECONDS )) $B bench --problems model_zoo_$d --direction $d --vs cudnn --output $R/bench_$d.csv --batch-size 200 --workers 16 > $R/bench_$d.log 2>&1; st bench zoo $d
    $B report $R/bench_$d.csv > $R/bench_$d.report.txt 2>&1
    $B problems model_zoo_$d > $R/zoo_$d.txt 2>/dev/null
    timeout 60 python3 target/torch_baseline.py $R/zoo_$d.txt --graph --out $R/torch_$d.csv > $R/torch_$d.log 2>&1; st torch $d
  done
  for d in fwd dgrad wgrad; do
    [ $SECONDS -lt 520 ] || break
    timeout $(( 555 - SECONDS )) $B bench --problems ${d}_bf16_n64_g32_c128_k128_i56x56_f3x3_s1x1_p1x1_d1x1 --vs cudnn --output $R/l1_$d.csv --batch-size 200 --workers 16 > $R/l1_$d.log 2>&1; st bench l1 $d
  done
else
  for d in fwd dgrad wgrad; do
    sed "s/^dgrad_/${d}_/" results/h200/s20/rc_grouped_dgrad.txt > $R/rc_$d.txt
    case $d in fwd) lim=180;; dgrad) lim=360;; *) lim=555;; esac
    timeout $(( lim - SECONDS )) $B bench --problems $R/rc_$d.txt --vs cudnn --output $R/rc_$d.csv --batch-size 200 --workers 16 > $R/rc_$d.log 2>&1; st bench rc $d
    $B report $R/rc_$d.csv > $R/rc_$d.report.txt 2>&1
  done
fi
gzip -f $R/*.messages.jsonl $R/*.csv 2>/dev/null; true
