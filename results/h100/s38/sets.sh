# Session 38: the validation sets of validate.sh, as shell arrays (sourced from the repository
# root by validate.sh and train.sh; `train.sh` holds every one of them out of training).
D=data/oracle/h200; A=results/h200/s27/call_a; S=results/h100/s38/call_1
SET_A=(results/h200/s15/call1/unseen_wgrad.csv.gz results/h200/s9/unseen_{fwd,dgrad}.csv.gz
  $D/{fwd_2d.shard-3-of-8,dgrad_2d.shard-3-of-8,dgrad_3d.shard-0-of-4}.csv.gz
  results/h200/s22/call_c/wgrad_s3.csv.gz $A/halo_{dgrad,fwd}_2d_s3.shard-3-of-8.csv.gz)
SET_B=(results/h200/s25/call_c/bench_{fwd,dgrad,wgrad}.csv.gz $A/halo_{fwd,dgrad}_family_val.csv.gz)
SET_C=(results/h200/s20/call_c/rc_fwd.csv.gz results/h200/s20/call_a/rc_dgrad.csv.gz results/h200/s20/call_c/rc_wgrad.csv.gz)
SET_A2=(results/h100/s36/call_2/r/unseen_{fwd,dgrad,wgrad}.csv.gz $S/new_members_val_unseen.csv.gz)
SET_D=(results/h100/s36/call_1/r/rc_{fwd,dgrad,wgrad}.csv.gz $S/new_members_val_rc.csv.gz)
SET_E=($S/r/rc_dgrad.csv.gz)
ALL_SETS=("${SET_A[@]}" "${SET_B[@]}" "${SET_C[@]}" "${SET_A2[@]}" "${SET_D[@]}" "${SET_E[@]}")
