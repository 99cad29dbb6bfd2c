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
add_test(NAME campaign_gate_gpu
         COMMAND ft_campaign --device cuda --trials 300 --routine all --seed 1 --quiet)
add_test(NAME campaign_stress_gpu COMMAND ft_campaign --device cuda --stress)
set_tests_properties(campaign_gate_gpu campaign_stress_gpu
                     PROPERTIES LABELS gpu TIMEOUT 300 SKIP_RETURN_CODE 77)
