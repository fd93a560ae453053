# Session 19, the first call of a lease that may be the only one (device starts were refused
# twice): call1.sh's re-tune for wip/top5's model, then call2.sh's cluster A/B pairs, each cut
# to fit one call; call_b.sh has the rest (the branch's wgrad selftest, the C/G 32 split sweep).
#   tar xJf target/carry/bins.tar.xz && (timeout 590 bash results/h200/s19/call_a.sh; ...)
export GCONV_CACHE_DIR=/tmp/gc PYTHONUNBUFFERED=1; unset LD_LIBRARY_PATH
T=target/top5/gconv; B=target/release/gconv; C=target/cluster-reduce/gconv; R=$OUT/r; mkdir -p $R
SECONDS=0
$T info > $R/info.txt 2>&1
cp models/h200/decisions.json $R/decisions.json
for d in wgrad dgrad fwd; do
  timeout 130 $T tune --problems model_zoo_$d --top 5 --vs cudnn --decisions $R/decisions.json --output $R/tune_$d.csv --batch-size 200 > $R/tune_$d.log 2>&1; echo "rc=$? ${SECONDS}s" >> $R/tune_$d.log
  tar czf $OUT/call_a.tgz -C $OUT r
done
grep -h "kernels alone\|dispatcher\|stale\|rc=" $R/tune_*.log
awk '($2 ~ /^direct_wgrad_.*_simt_gen$/ || $2 ~ /^direct_wgrad_.*_s2_v[0-9]+x1_gm1_sk[0-9]+d_mma_gen$/) && $2 !~ /_sk1d_/ { if (match($2, /_sk[0-9]+d_/) && substr($2, RSTART + 3, RLENGTH - 5) + 0 <= 32) print }' results/h200/s18/call2/pairs.txt > $R/pairs.txt
i=0
while read p k; do
  [ $SECONDS -lt 555 ] || break
  kc=$(echo $k | sed -E 's/_sk[0-9]+d_/_sk0c_/')
  i=$((i+1))
  if [ $((i % 2)) = 0 ]; then order="B C"; else order="C B"; fi
  for b in $order; do
    if [ $b = B ]; then bin=$B; kk=$k; v=""; else bin=$C; kk=$kc; v=--verify; fi
    t=$(timeout 15 $bin run --backend cuda --problem $p --kernel $kk --iters 30 $v 2>&1 | tee -a $R/runs_$b.log | awk '/^kernel/ {print $2} /^time/ {print $2} /^PASS|^FAIL|^error/ {print $1}' | tr '\n' ' ')
    echo "$b $p $t" >> $R/ab.txt
  done
done < $R/pairs.txt
gzip -f $R/*.messages.jsonl 2>/dev/null
tar czf $OUT/call_a.tgz -C $OUT r && rm -rf $R
