# Session 50, call d (any H100/H200), binaries of commit 5b65256 (`bash scripts/h200.sh
# base-s50`; the base binary is not used): the zoo's 27 backward-data keys, whole pools with
# cuDNN in the same run and PyTorch's best layout in the same lease (issue #12's table; on an
# H100 the first with session 49's per-tap walk and this session's batched weight staging, and
# the 3D C/G 8 key against cuDNN in one run).
# carry ["target/carry/bins.tar.xz", "target/torch_baseline.py"]; slim tree keeping
# results/h100/s35/prelude.sh results/h200/s50:
#   tar xJf target/carry/bins.tar.xz && (timeout 250 bash results/h200/s50/call_d.sh; cd $OUT && tar czf cd.tgz r; cat r/gpu.txt r/progress.log; grep -h geomean r/*.report.txt)
source results/h100/s35/prelude.sh
timeout 195 $B bench --problems model_zoo_dgrad --direction dgrad --vs cudnn --output $R/bench_dgrad.csv --batch-size 200 --workers 16 > $R/bench_dgrad.log 2>&1; st bench zoo dgrad
$B report $R/bench_dgrad.csv > $R/bench_dgrad.report.txt 2>&1
$B problems model_zoo_dgrad > $R/zoo_dgrad.txt 2>/dev/null
timeout $(( 245 - SECONDS )) python3 target/torch_baseline.py $R/zoo_dgrad.txt --graph --out $R/torch_dgrad.csv > $R/torch_dgrad.log 2>&1; st torch dgrad
gzip -f $R/*.messages.jsonl $R/*.csv 2>/dev/null; true
