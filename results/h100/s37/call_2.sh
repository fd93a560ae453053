# Session 37, call 2: training rows of the tensor-core stride-phase backward-data kernel for the
# selection model (issue #14): the whole backward-data pool and cuDNN over this session's 3D
# strided grid (`s3d_grid.py`, 32 geometries that no validation file holds) and session 27's
# 2D stride-2 grid (48 geometries, C/G 8-32).
# carry ["target/carry/bins.tar.xz"]
#   tar xJf target/carry/bins.tar.xz && (timeout 580 bash results/h100/s37/call_2.sh; cd $OUT && tar czf c2.tgz r; cat r/progress.log)
source results/h100/s35/prelude.sh
timeout 270 $B bench --problems results/h100/s37/s3d_grid_dgrad.txt --direction dgrad --vs cudnn --output $R/s3d_grid_dgrad.csv --batch-size 200 --workers 16 > $R/s3d_grid_dgrad.log 2>&1; st bench s3d grid dgrad
timeout $(( 570 - SECONDS )) $B bench --problems results/h200/s27/s2_grid_dgrad.txt --direction dgrad --vs cudnn --output $R/s2_grid_dgrad.csv --batch-size 200 --workers 16 > $R/s2_grid_dgrad.log 2>&1; st bench s2 grid dgrad
gzip -f $R/*.messages.jsonl $R/*.csv 2>/dev/null; true
