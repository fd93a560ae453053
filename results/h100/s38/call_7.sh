# Session 38, call 7: A/B of resident B fragments on the direct tensor-core path
# (`mma::b_resident`): `target/abA/gconv` (HEAD before the change) against
# `target/release/gconv` (with it) on `ab_pairs.txt` — the best direct mma member of each zoo
# and real-client layer where the change applies (stride-1), the 3D C/G 8 layer's t224 member
# both ways, and two members it does not change (controls). Each pair: B verified, then A and B
# timed back to back (`gconv run`, median of 20 rounds).
# carry ["target/carry/bins.tar.xz"]
#   tar xJf target/carry/bins.tar.xz && (timeout 250 bash results/h100/s38/call_7.sh; cd $OUT && tar czf c7.tgz r; cat r/ab.txt)
source results/h100/s35/prelude.sh
A=target/release/gconv; B=target/b-resident/gconv
while read k p; do
  timeout 20 $B run --backend cuda --problem $p --kernel $k --verify --iters 20 > $R/v.log 2>&1
  v=$(grep -E "^(PASS|FAIL)" $R/v.log | head -1); tb=$(awk '/^time/ {print $2}' $R/v.log)
  ta=$(timeout 20 $A run --backend cuda --problem $p --kernel $k --iters 20 2>&1 | awk '/^time/ {print $2}')
  tb2=$(timeout 20 $B run --backend cuda --problem $p --kernel $k --iters 20 2>&1 | awk '/^time/ {print $2}')
  echo "$k $p A=$ta B=$tb,$tb2 $v" | tee -a $R/ab.txt
done < results/h100/s38/ab_pairs.txt
true
