# Session 42, H200 call 1 (named nvidia-h200; stops at once on any other GPU): the zoo's 27
# backward-weight keys with cuDNN in the same run, and PyTorch's best layout
# (`torch_baseline.py --graph`) in the same lease: the H200 table issue #13 asks for (session
# 39 measured 11 of 27 before its cut). The first half of results/h200/s41/call_3.sh.
# carry ["target/carry/bins.tar.xz", "target/carry/gc.tar.xz", "target/torch_baseline.py"]
#   tar xJf target/carry/bins.tar.xz && (timeout 230 bash results/h200/s42/call_1.sh; cd $OUT && tar czf h1.tgz r; cat r/gpu.txt r/progress.log; grep geomean r/bench_wgrad.report.txt)
source results/h100/s35/prelude.sh
grep -q H200 $R/gpu.txt || { echo "not an H200: $(tail -1 $R/gpu.txt)"; exit 3; }
timeout 160 $B bench --problems model_zoo --direction wgrad --vs cudnn --output $R/bench_wgrad.csv --batch-size 200 --workers 16 > $R/bench_wgrad.log 2>&1; st bench zoo wgrad
$B report $R/bench_wgrad.csv > $R/bench_wgrad.report.txt 2>&1
$B problems model_zoo_wgrad > $R/zoo_wgrad.txt 2>/dev/null
timeout $(( 220 - SECONDS )) python3 target/torch_baseline.py $R/zoo_wgrad.txt --graph --out $R/torch_wgrad.csv > $R/torch_wgrad.log 2>&1; st torch wgrad
gzip -f $R/*.csv $R/*.messages.jsonl 2>/dev/null; true
