# Prepared for the next session (NOT run in session 39): the direct tensor-core pools were
# chosen before sliding A fragments (`mma::a_slide`, one-n8-block units), which made those
# members 5-15 % faster on C/G 8-32 layers and left the rest unchanged, so other tile shapes may
# now win. Sweeps of the configs whose units are one n8 block on the layers they serve, cuDNN in
# the same run: the 3D C/G 8 layer both ways over the depth-streaming configs (2,052 kernels
# each), the real client's grouped layers over the forward configs with vec_a 8 (1,152). Then
# compare the best rows with the pool's (`gconv report`) before adding members.
# carry ["target/carry/bins.tar.xz"]
#   tar xJf target/carry/bins.tar.xz && (timeout 590 bash results/h100/s39/next_sweeps.sh; cd $OUT && tar czf sw.tgz r; cat r/progress.log)
source results/h100/s35/prelude.sh
K3=n8_g32_c256_k256_i8x28x28_f3x3x3_s1x1x1_p1x1x1_d1x1x1
timeout 170 $B sweep --variant dgrad --problems dgrad_bf16_$K3 --config configs/traits/bwd_data_direct_mma_stream_bf16.json --vs cudnn --output $R/stream_dgrad_3d.csv --batch-size 200 --workers 16 > $R/stream_dgrad_3d.log 2>&1; st sweep stream dgrad 3d
timeout 170 $B sweep --variant fwd --problems fwd_bf16_$K3 --config configs/traits/forward_direct_mma_stream_bf16.json --vs cudnn --output $R/stream_fwd_3d.csv --batch-size 200 --workers 16 > $R/stream_fwd_3d.log 2>&1; st sweep stream fwd 3d
timeout $(( 580 - SECONDS )) $B sweep --variant fwd --problems results/h200/s20/rc_grouped_fwd.txt --config configs/traits/forward_direct_mma_bf16.json --filter "vec_a == 8" --vs cudnn --output $R/mma_fwd_rc.csv --batch-size 200 --workers 16 > $R/mma_fwd_rc.log 2>&1; st sweep mma fwd rc
for f in $R/*.csv; do $B report $f > ${f%.csv}.report.txt 2>&1; done
gzip -f $R/*.csv $R/*.messages.jsonl 2>/dev/null; true
