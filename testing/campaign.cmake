# testing/campaign.cmake — the fault campaign (issue 7, docs/reliability.md): randomised fault
# trials of ft_dgemm and ft_dgeqrf classified against the documented detection limits, and a
# stress set of valid nasty inputs without faults. Included from testing/CMakeLists.txt.
ftla_test_target(ft_campaign)
# the documented-limit oracle uses the library's own threshold formulas (src/abft/abft.h)
target_include_directories(ft_campaign PRIVATE ${PROJECT_SOURCE_DIR}/src)

# The CI gate: a fixed seed, so a failure is replayable with the command ft_campaign prints.
add_test(NAME campaign_gate_cpu
         COMMAND ft_campaign --device cpu --trials 300 --routine all --seed 1 --quiet)
add_test(NAME campaign_stress_cpu COMMAND ft_campaign --device cpu --stress)
set_tests_properties(campaign_gate_cpu campaign_stress_cpu PROPERTIES LABELS cpu TIMEOUT 300)
# ft_dgemm with C in chunks (the rank-k schedule, forced on every shape with 2 or more blocks)
add_test(NAME campaign_gate_chunks_cpu
         COMMAND ft_campaign --device cpu --trials 500 --routine dgemm --seed 21 --quiet)
set_tests_properties(campaign_gate_chunks_cpu PROPERTIES LABELS cpu TIMEOUT 300
                     ENVIRONMENT FTLA_DGEMM_CHUNKS=3)
add_test(NAME campaign_gate_chunks_gpu
         COMMAND ft_campaign --device cuda --trials 500 --routine dgemm --seed 21 --quiet)
set_tests_properties(campaign_gate_chunks_gpu PROPERTIES LABELS gpu TIMEOUT 300
                     SKIP_RETURN_CODE 77 ENVIRONMENT FTLA_DGEMM_CHUNKS=3)
add_test(NAME campaign_gate_gpu
         COMMAND ft_campaign --device cuda --trials 300 --routine all --seed 1 --quiet)
add_test(NAME campaign_stress_gpu COMMAND ft_campaign --device cuda --stress)
set_tests_properties(campaign_gate_gpu campaign_stress_gpu
                     PROPERTIES LABELS gpu TIMEOUT 300 SKIP_RETURN_CODE 77)
# the caller's arrays in GPU memory (the _gpu entry points; faults land in the caller's device
# memory, the library works on them in place)
add_test(NAME campaign_gate_gpu_devptr
         COMMAND ft_campaign --device cuda --pointers device --trials 300 --routine all --seed 2
                 --quiet)
add_test(NAME campaign_stress_gpu_devptr COMMAND ft_campaign --device cuda --pointers device --stress)
set_tests_properties(campaign_gate_gpu_devptr campaign_stress_gpu_devptr
                     PROPERTIES LABELS gpu TIMEOUT 300 SKIP_RETURN_CODE 77)

# Regressions found by large campaigns, replayed on every run (each was a gate failure once):
#   seed 11 dgeqrf 1583: a trailing fault spread by an update, "corrected" in its largest row only
#   (a false alarm: the rest of the spread left the result outside the contract)
add_test(NAME campaign_replay_s11_qr1583_cpu
         COMMAND ft_campaign --device cpu --seed 11 --routine dgeqrf --trial 1583)
set_tests_properties(campaign_replay_s11_qr1583_cpu PROPERTIES LABELS cpu TIMEOUT 60)
#   seed 22 (2 faults) dgeqrf 1292: a second grey-zone error in another row moved into the first
#   error's column by the whole-column correction (a false alarm)
add_test(NAME campaign_replay_s22f2_qr1292_cpu
         COMMAND ft_campaign --device cpu --seed 22 --routine dgeqrf --trial 1292
                 --faults-per-trial 2)
set_tests_properties(campaign_replay_s22f2_qr1292_cpu PROPERTIES LABELS cpu TIMEOUT 60)
#   seed 22 (2 faults) dgemm 736: a second 1.7-tau error in the tile of a large one failed only its
#   row's plain check after the first was corrected and was taken for a checksum error (a false
#   alarm: it stayed in C); now every half-failing row after a correction is decided by
#   recomputing its prediction
add_test(NAME campaign_replay_s22f2_gemm736_cpu
         COMMAND ft_campaign --device cpu --seed 22 --routine dgemm --trial 736
                 --faults-per-trial 2)
set_tests_properties(campaign_replay_s22f2_gemm736_cpu PROPERTIES LABELS cpu TIMEOUT 60)
#   seed 22 (2 faults) dgeqrf 1668: a 1.4-tau error in the row of a large one (1 x 283), absorbed
#   by the correction of the large one, left every residual below tau / 2 (a false alarm; below
#   the two-error limit the campaign now documents, so the replay asks for the class): now a
#   correction must reach the rounding measured on the blocks that pass (clean_thr): reported
#   Since issue 8 the located error is recovered by re-factorization from the first column the
#   error reached (column 1 of this 1 x 283 matrix, nb 1): both faults are in the restored
#   columns, so the output is exact (ratios 0): corrected
add_test(NAME campaign_replay_s22f2_qr1668_cpu
         COMMAND ft_campaign --device cpu --seed 22 --routine dgeqrf --trial 1668
                 --faults-per-trial 2 --expect corrected)
#   seed 21 (2 faults) dgeqrf 1397: a 2-tau error located imprecisely, beside a 0.5-tau checksum
#   error in another row, corrected in a neighbouring column (a false alarm); now a location that
#   another column fits as well is not corrected in place (location_unique). Since issue 8 the
#   error (in R row 48, column 138) is taken as consumed in column 134 and recovered by
#   re-factorization from panel 2 (column 128): column 138 is restored from the original A,
#   and the re-check passes (ratios 0.05, 0.69): corrected
add_test(NAME campaign_replay_s21f2_qr1397_cpu
         COMMAND ft_campaign --device cpu --seed 21 --routine dgeqrf --trial 1397
                 --faults-per-trial 2 --expect corrected)
set_tests_properties(campaign_replay_s22f2_qr1668_cpu campaign_replay_s21f2_qr1397_cpu
                     PROPERTIES LABELS cpu TIMEOUT 60)

# Panel placement (issue 10): the dgeqrf campaign with the other placement than AUTO's — the
# device-panel driver on the CPU backend (host LAPACK behind the backend), the hybrid on CUDA.
add_test(NAME campaign_gate_gpanel_cpu
         COMMAND ft_campaign --device cpu --panel gpu --trials 300 --routine dgeqrf --seed 3
                 --quiet)
set_tests_properties(campaign_gate_gpanel_cpu PROPERTIES LABELS cpu TIMEOUT 300)
add_test(NAME campaign_gate_cpanel_gpu
         COMMAND ft_campaign --device cuda --panel cpu --trials 300 --routine dgeqrf --seed 3
                 --quiet)
add_test(NAME campaign_gate_gpanel_gpu_devptr
         COMMAND ft_campaign --device cuda --panel gpu --pointers device --trials 300
                 --routine dgeqrf --seed 4 --quiet)
set_tests_properties(campaign_gate_cpanel_gpu campaign_gate_gpanel_gpu_devptr
                     PROPERTIES LABELS gpu TIMEOUT 300 SKIP_RETURN_CODE 77)

# TMR (issue 12 item 3): ft_dgemm by three products and a vote; the replicas take the CHECKSUM
# faults, every fault's limit is 0 (nothing may stay in the result unreported); two faults a
# trial, so some hit one element in two replicas (the fourth product)
add_test(NAME campaign_gate_tmr_cpu
         COMMAND ft_campaign --device cpu --protect tmr --routine dgemm --trials 300
                 --faults-per-trial 2 --seed 3 --quiet)
set_tests_properties(campaign_gate_tmr_cpu PROPERTIES LABELS cpu TIMEOUT 300)
add_test(NAME campaign_gate_tmr_gpu
         COMMAND ft_campaign --device cuda --protect tmr --routine dgemm --trials 300
                 --faults-per-trial 2 --seed 3 --quiet)
set_tests_properties(campaign_gate_tmr_gpu PROPERTIES LABELS gpu TIMEOUT 300 SKIP_RETURN_CODE 77)

# out of core (issue 12 item 2): a work-memory limit of half what each product needs, faults in
# random blocks and chunks
add_test(NAME campaign_gate_ooc_cpu
         COMMAND ft_campaign --device cpu --ooc --routine dgemm --trials 300 --seed 4 --quiet)
set_tests_properties(campaign_gate_ooc_cpu PROPERTIES LABELS cpu TIMEOUT 300)
add_test(NAME campaign_gate_ooc_gpu
         COMMAND ft_campaign --device cuda --ooc --routine dgemm --trials 300 --seed 4 --quiet)
set_tests_properties(campaign_gate_ooc_gpu PROPERTIES LABELS gpu TIMEOUT 300 SKIP_RETURN_CODE 77)
add_test(NAME campaign_gate_ooc_tmr_cpu
         COMMAND ft_campaign --device cpu --ooc --protect tmr --routine dgemm --trials 200
                 --faults-per-trial 2 --seed 6 --quiet)
set_tests_properties(campaign_gate_ooc_tmr_cpu PROPERTIES LABELS cpu TIMEOUT 300)
