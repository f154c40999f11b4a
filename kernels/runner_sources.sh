# The sources of the roofline-kernels runner, for the device scripts that build it with nvcc directly
# (source this file). kernels/CMakeLists.txt lists the same files; the test `runner_sources_match_cmake`
# holds the two equal, so a new case file is added once here and once there, never forgotten in a script.
runner_sources=(runner.cu memory_cases.cu compute_cases.cu launch_cases.cu pairs_memory.cu pairs_sync.cu
                pairs_compute.cu pairs_tensor.cu pairs_wgmma.cu pairs_occupancy.cu sweep_cases.cu progressions.cu
                steps.cu steps_physics.cu failure_cases.cu)
