# `cmake --install` puts the roofline binary, the library (roofline::roofline: the public headers
# include/roofline/*.hpp over the stage libraries, whose headers go under include/roofline/detail,
# spelled from the repository root as in the tree) and a package config, so a downstream project writes
#   find_package(roofline 0.1 REQUIRED)
#   target_link_libraries(app PRIVATE roofline::roofline)     // #include <roofline/roofline.hpp>
# The command line's own library (Boost.Program_Options) is not installed: no installed header
# includes Boost. tests/consumer is such a project; the test `install_and_consume` builds it against
# an install, with the source tree out of reach.
include(CMakePackageConfigHelpers)

set(roofline_stages base read render models diagnose pipeline report timeline compare validate)
list(TRANSFORM roofline_stages PREPEND roofline_ OUTPUT_VARIABLE roofline_stage_targets)
install(TARGETS ${roofline_stage_targets} roofline_library
  EXPORT roofline-targets
  ARCHIVE DESTINATION ${CMAKE_INSTALL_LIBDIR}
  LIBRARY DESTINATION ${CMAKE_INSTALL_LIBDIR})
install(TARGETS roofline RUNTIME DESTINATION ${CMAKE_INSTALL_BINDIR})
install(DIRECTORY include/roofline DESTINATION ${CMAKE_INSTALL_INCLUDEDIR})
install(DIRECTORY analyzer models DESTINATION ${CMAKE_INSTALL_INCLUDEDIR}/roofline/detail FILES_MATCHING PATTERN "*.hpp"
  PATTERN "analyzer/cli" EXCLUDE PATTERN "json_positions.hpp" EXCLUDE)
install(EXPORT roofline-targets NAMESPACE roofline:: DESTINATION ${CMAKE_INSTALL_LIBDIR}/cmake/roofline)
configure_package_config_file(cmake/roofline-config.cmake.in "${PROJECT_BINARY_DIR}/roofline-config.cmake"
  INSTALL_DESTINATION ${CMAKE_INSTALL_LIBDIR}/cmake/roofline)
write_basic_package_version_file("${PROJECT_BINARY_DIR}/roofline-config-version.cmake" COMPATIBILITY SameMinorVersion)
install(FILES "${PROJECT_BINARY_DIR}/roofline-config.cmake" "${PROJECT_BINARY_DIR}/roofline-config-version.cmake"
  DESTINATION ${CMAKE_INSTALL_LIBDIR}/cmake/roofline)

# Bash completion, made by the binary from its commands' own option tables, where bash-completion looks.
add_custom_command(OUTPUT "${PROJECT_BINARY_DIR}/roofline.bash"
  COMMAND roofline completion bash -o "${PROJECT_BINARY_DIR}/roofline.bash" -f
  DEPENDS roofline VERBATIM)
add_custom_target(roofline_completion ALL DEPENDS "${PROJECT_BINARY_DIR}/roofline.bash")
install(FILES "${PROJECT_BINARY_DIR}/roofline.bash" DESTINATION ${CMAKE_INSTALL_DATADIR}/bash-completion/completions RENAME roofline)
