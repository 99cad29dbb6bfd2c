# testing/qr.cmake — ft_dgeqrf tester and unit tests. Included from testing/CMakeLists.txt
# (after ftla_test_target is defined):  include(${CMAKE_CURRENT_SOURCE_DIR}/qr.cmake)
# Labels: `cpu` (argument cpu / --device cpu) and `gpu` (cuda; skips itself with exit 77 when
# ftla has no CUDA backend or no device is present).

# ---- the tester ---------------------------------------------------------------------------
ftla_test_target(testing_ft_dgeqrf)
if(FTLA_HAVE_CUDA)
  target_link_libraries(testing_ft_dgeqrf PRIVATE CUDA::cusolver)
endif()

add_test(NAME testing_ft_dgeqrf_cpu
         COMMAND testing_ft_dgeqrf -M 64:448:128 -N 64:448:128 --nb 32 --crossover -1 --check
                 --device cpu)
# with online checks before every panel each of the three faults is corrected (R, trailing) or
# recognised (checksum): --expect corrected pins that outcome (a located, unrecovered trailing
# fault would fail the run)
add_test(NAME testing_ft_dgeqrf_inject_cpu
         COMMAND testing_ft_dgeqrf -M 500 -N 300 --nb 32 --crossover -1 --check --verify-every 1
                 --inject trailing:step=2:bit=55 --inject R:step=1:row=3:col=40:bit=62
                 --inject checksum:step=4 --expect corrected --device cpu)
add_test(NAME testing_ft_dgeqrf_gpu
         COMMAND testing_ft_dgeqrf -M 64:448:128 -N 64:448:128 --nb 32 --crossover -1 --check
                 --device cuda)
add_test(NAME testing_ft_dgeqrf_inject_gpu
         COMMAND testing_ft_dgeqrf -M 500 -N 300 --nb 32 --crossover -1 --check --verify-every 1
                 --inject trailing:step=2:bit=55 --inject R:step=1:row=3:col=40:bit=62
                 --inject checksum:step=4 --expect corrected --device cuda)
add_test(NAME testing_ft_dgeqrf_gpu_pointers_gpu
         COMMAND testing_ft_dgeqrf -N 300:700:200 --nb 64 --crossover -1 --check --device cuda
                 --gpu-pointers)
set_tests_properties(testing_ft_dgeqrf_cpu testing_ft_dgeqrf_inject_cpu
                     PROPERTIES LABELS cpu TIMEOUT 300)
set_tests_properties(testing_ft_dgeqrf_gpu testing_ft_dgeqrf_inject_gpu
                     testing_ft_dgeqrf_gpu_pointers_gpu
                     PROPERTIES LABELS gpu TIMEOUT 300 SKIP_RETURN_CODE 77)

# ---- unit tests: each runs twice, argument cpu (label cpu) and cuda (label gpu) -------------
foreach(t test_dgeqrf_semantics test_dgeqrf_inject test_dgeqrf_nofalse)
  ftla_test_target(${t})
  target_include_directories(${t} PRIVATE ${PROJECT_SOURCE_DIR}/src) # abft/abft.h (inject)
  add_test(NAME ${t}_cpu COMMAND ${t} cpu)
  set_tests_properties(${t}_cpu PROPERTIES LABELS cpu TIMEOUT 300)
  add_test(NAME ${t}_gpu COMMAND ${t} cuda)
  set_tests_properties(${t}_gpu PROPERTIES LABELS gpu TIMEOUT 300 SKIP_RETURN_CODE 77)
endforeach()

# FT_REGION_Q and FT_REGION_TAU (the finished Householder vectors and tau, protected by the
# checkpoint of issue 9) in their own invocation, argument q.
add_test(NAME test_dgeqrf_inject_q_cpu COMMAND test_dgeqrf_inject cpu q)
set_tests_properties(test_dgeqrf_inject_q_cpu PROPERTIES LABELS cpu TIMEOUT 300)
add_test(NAME test_dgeqrf_inject_q_gpu COMMAND test_dgeqrf_inject cuda q)
set_tests_properties(test_dgeqrf_inject_q_gpu PROPERTIES LABELS gpu TIMEOUT 300
                     SKIP_RETURN_CODE 77)
# FT_REGION_REFLECTORS and FT_REGION_PANEL (issue 9 items 3 and 4: the reflectors an update
# applies, the panel factorization): re-factored, or reported without the original A.
add_test(NAME test_dgeqrf_inject_pv_cpu COMMAND test_dgeqrf_inject cpu pv)
set_tests_properties(test_dgeqrf_inject_pv_cpu PROPERTIES LABELS cpu TIMEOUT 300)
add_test(NAME test_dgeqrf_inject_pv_gpu COMMAND test_dgeqrf_inject cuda pv)
set_tests_properties(test_dgeqrf_inject_pv_gpu PROPERTIES LABELS gpu TIMEOUT 300
                     SKIP_RETURN_CODE 77)

# ft_dgels and ft_dgels_gpu against LAPACK dgels, with recovered errors and scaling, and
# ft_dormqr_gpu against ft_dormqr (issue 8 (c)); the cpu run checks the device algorithm on the
# host backend
ftla_test_target(test_dgels)
target_include_directories(test_dgels PRIVATE ${PROJECT_SOURCE_DIR}/src) # qr_dgels_dev (host)
add_test(NAME test_dgels_cpu COMMAND test_dgels cpu)
set_tests_properties(test_dgels_cpu PROPERTIES LABELS cpu TIMEOUT 300)
add_test(NAME test_dgels_gpu COMMAND test_dgels cuda)
set_tests_properties(test_dgels_gpu PROPERTIES LABELS gpu TIMEOUT 300 SKIP_RETURN_CODE 77)

# ---- panel placement (issue 10, docs/qr.md "Panel placement") --------------------------------
# AUTO places the panels on the device on CUDA and on the host on the CPU backend; each test
# above therefore runs the other placement too, through the environment's FTLA_PANEL (what
# AUTO follows): on the CPU backend the device-panel driver with host LAPACK behind the backend
# (also deferred: a missing fork or wait shows), on CUDA the hybrid of paper 004.
foreach(t test_dgeqrf_semantics test_dgeqrf_inject test_dgeqrf_nofalse test_dgels)
  add_test(NAME ${t}_gpanel_cpu COMMAND ${t} cpu)
  set_tests_properties(${t}_gpanel_cpu PROPERTIES LABELS cpu TIMEOUT 300
                       ENVIRONMENT "FTLA_PANEL=gpu")
  add_test(NAME ${t}_cpanel_gpu COMMAND ${t} cuda)
  set_tests_properties(${t}_cpanel_gpu PROPERTIES LABELS gpu TIMEOUT 300 SKIP_RETURN_CODE 77
                       ENVIRONMENT "FTLA_PANEL=cpu")
endforeach()
foreach(mode q pv)
  add_test(NAME test_dgeqrf_inject_${mode}_gpanel_cpu COMMAND test_dgeqrf_inject cpu ${mode})
  set_tests_properties(test_dgeqrf_inject_${mode}_gpanel_cpu PROPERTIES LABELS cpu TIMEOUT 300
                       ENVIRONMENT "FTLA_PANEL=gpu")
  add_test(NAME test_dgeqrf_inject_${mode}_gpanel_deferred_cpu
           COMMAND test_dgeqrf_inject cpu ${mode})
  set_tests_properties(test_dgeqrf_inject_${mode}_gpanel_deferred_cpu PROPERTIES LABELS cpu
                       TIMEOUT 300 ENVIRONMENT "FTLA_PANEL=gpu;FTLA_HOST_DEFERRED=1")
  add_test(NAME test_dgeqrf_inject_${mode}_cpanel_gpu COMMAND test_dgeqrf_inject cuda ${mode})
  set_tests_properties(test_dgeqrf_inject_${mode}_cpanel_gpu PROPERTIES LABELS gpu TIMEOUT 300
                       SKIP_RETURN_CODE 77 ENVIRONMENT "FTLA_PANEL=cpu")
endforeach()
add_test(NAME testing_ft_dgeqrf_gpanel_cpu
         COMMAND testing_ft_dgeqrf -M 64:448:128 -N 64:448:128 --nb 32 --crossover -1 --check
                 --panel gpu --device cpu)
set_tests_properties(testing_ft_dgeqrf_gpanel_cpu PROPERTIES LABELS cpu TIMEOUT 300)
# d = cpu|gpu: dev, the backend's argument (cpu|cuda), and props, the test properties of label d
macro(ftla_label_props d)
  if("${d}" STREQUAL "cpu")
    set(dev cpu)
    set(props LABELS cpu TIMEOUT 300)
  else()
    set(dev cuda)
    set(props LABELS gpu TIMEOUT 300 SKIP_RETURN_CODE 77)
  endif()
endmacro()
# faults of every loop region with the panel on the device, each backend: all corrected
foreach(d cpu gpu)
  ftla_label_props(${d})
  add_test(NAME testing_ft_dgeqrf_inject_gpanel_${d}
           COMMAND testing_ft_dgeqrf -M 500 -N 300 --nb 32 --crossover -1 --check --verify-every 1
                   --inject trailing:step=2:bit=55 --inject R:step=1:row=3:col=40:bit=62
                   --inject checksum:step=4 --inject panel:step=3:bit=60 --expect corrected
                   --panel gpu --device ${dev})
  set_tests_properties(testing_ft_dgeqrf_inject_gpanel_${d} PROPERTIES ${props})
endforeach()
# the timeline (issue 10): the API (test_trace) and the tester's --trace, each placement
ftla_test_target(test_trace)
add_test(NAME test_trace_cpu COMMAND test_trace cpu)
add_test(NAME test_trace_deferred_cpu COMMAND test_trace cpu)
set_tests_properties(test_trace_deferred_cpu PROPERTIES ENVIRONMENT "FTLA_HOST_DEFERRED=1")
add_test(NAME testing_ft_dgeqrf_trace_cpu
         COMMAND testing_ft_dgeqrf -M 700 -N 500 --nb 32 --crossover -1 --verify-every 4
                 --trace --panel cpu --device cpu)
add_test(NAME testing_ft_dgeqrf_trace_gpanel_cpu
         COMMAND testing_ft_dgeqrf -M 700 -N 500 --nb 32 --crossover -1 --trace --panel gpu
                 --device cpu)
set_tests_properties(test_trace_cpu test_trace_deferred_cpu testing_ft_dgeqrf_trace_cpu
                     testing_ft_dgeqrf_trace_gpanel_cpu PROPERTIES LABELS cpu TIMEOUT 300)
# the performance model: calibrated into a cache directory, then read back from it
ftla_test_target(test_model)
target_include_directories(test_model PRIVATE ${PROJECT_SOURCE_DIR}/src)
foreach(d cpu gpu)
  ftla_label_props(${d})
  add_test(NAME test_model_${d}
           COMMAND test_model ${dev} fresh ${CMAKE_CURRENT_BINARY_DIR}/mcache_${d})
  add_test(NAME test_model_cached_${d}
           COMMAND test_model ${dev} cached ${CMAKE_CURRENT_BINARY_DIR}/mcache_${d})
  set_tests_properties(test_model_${d} PROPERTIES ${props} FIXTURES_SETUP mcache_${d})
  set_tests_properties(test_model_cached_${d} PROPERTIES ${props} FIXTURES_REQUIRED mcache_${d})
endforeach()
add_test(NAME test_trace_gpu COMMAND test_trace cuda)
add_test(NAME testing_ft_dgeqrf_trace_gpu
         COMMAND testing_ft_dgeqrf -N 3000 --crossover -1 --trace --panel gpu --device cuda
                 --gpu-pointers)
add_test(NAME testing_ft_dgeqrf_trace_cpanel_gpu
         COMMAND testing_ft_dgeqrf -N 1500 --crossover -1 --trace --panel cpu --device cuda)
set_tests_properties(test_trace_gpu testing_ft_dgeqrf_trace_gpu
                     testing_ft_dgeqrf_trace_cpanel_gpu
                     PROPERTIES LABELS gpu TIMEOUT 300 SKIP_RETURN_CODE 77)
add_test(NAME testing_ft_dgeqrf_cpanel_gpu
         COMMAND testing_ft_dgeqrf -M 64:448:128 -N 64:448:128 --nb 32 --crossover -1 --check
                 --panel cpu --device cuda)
add_test(NAME testing_ft_dgeqrf_gpanel_gpu
         COMMAND testing_ft_dgeqrf -M 300:2100:600 -N 300:2100:600 --crossover -1 --check
                 --panel gpu --device cuda)
set_tests_properties(testing_ft_dgeqrf_cpanel_gpu testing_ft_dgeqrf_gpanel_gpu
                     PROPERTIES LABELS gpu TIMEOUT 300 SKIP_RETURN_CODE 77)

# ---- host pointers on cuda through the staging ring (issue 10, docs/qr.md "Host pointers") -----
# With 64 KB slots (FTLA_STAGE_SLOT, core/call.h) the tests' matrices go through the pinned ring,
# and the finished columns of ft_dgeqrf go back while the call runs (the originals then from a
# copy in work memory): the fault tests show every fault handled as with the copy at the end,
# which any event that may change data brings back.
foreach(t test_dgeqrf_semantics test_dgeqrf_inject test_dgels test_stage)
  add_test(NAME ${t}_slot64k_gpu COMMAND ${t} cuda)
  set_tests_properties(${t}_slot64k_gpu PROPERTIES LABELS gpu TIMEOUT 300 SKIP_RETURN_CODE 77
                       ENVIRONMENT "FTLA_STAGE_SLOT=65536")
endforeach()
foreach(mode q pv)
  add_test(NAME test_dgeqrf_inject_${mode}_slot64k_gpu COMMAND test_dgeqrf_inject cuda ${mode})
  set_tests_properties(test_dgeqrf_inject_${mode}_slot64k_gpu PROPERTIES LABELS gpu TIMEOUT 300
                       SKIP_RETURN_CODE 77 ENVIRONMENT "FTLA_STAGE_SLOT=65536")
endforeach()
add_test(NAME testing_ft_dgeqrf_inject_slot64k_gpu
         COMMAND bash ${CMAKE_CURRENT_SOURCE_DIR}/run_expect.sh
                 "went back to the host during the call; all sent again at the end" ""
                 $<TARGET_FILE:testing_ft_dgeqrf> -M 500 -N 300 --nb 32 --crossover -1 --check
                 --verify-every 1 --inject trailing:step=2:bit=55
                 --inject R:step=1:row=3:col=40:bit=62 --inject checksum:step=4
                 --inject panel:step=3:bit=60 --expect corrected --panel gpu --verbose 2
                 --device cuda)
set_tests_properties(testing_ft_dgeqrf_inject_slot64k_gpu PROPERTIES LABELS gpu TIMEOUT 300
                     SKIP_RETURN_CODE 77 ENVIRONMENT "FTLA_STAGE_SLOT=65536")
# ... and that the copies during the call ran: the library's verbose-2 line says how many columns
# went back before the end (a fault-free size of 20 panels, 64 KB slots)
add_test(NAME testing_ft_dgeqrf_early_out_gpu
         COMMAND bash ${CMAKE_CURRENT_SOURCE_DIR}/run_expect.sh
                 "[1-9][0-9]* of [0-9]+ columns went back to the host during the call$"
                 " 0 of [0-9]+ columns went back|sent again"
                 $<TARGET_FILE:testing_ft_dgeqrf> -N 640 --nb 32 --crossover -1 --check
                 --panel gpu --verbose 2 --device cuda)
set_tests_properties(testing_ft_dgeqrf_early_out_gpu PROPERTIES LABELS gpu TIMEOUT 300
                     SKIP_RETURN_CODE 77 ENVIRONMENT "FTLA_STAGE_SLOT=65536")
