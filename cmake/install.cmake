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

# Under roofline/detail, only the headers the public ones reach (include by include, from
# include/roofline/*.hpp): the typed results and what declares them. The rest of the engine's headers
# (the rule trees' loader, the estimator, the readers' internals, the renderers) are not installed, so
# nothing downstream can come to depend on them.
function(roofline_reached_headers out)
  set(pending ${ARGN})
  set(reached "")
  while(pending)
    list(POP_FRONT pending header)
    if(header IN_LIST reached)
      continue()
    endif()
    list(APPEND reached ${header})
    file(STRINGS "${PROJECT_SOURCE_DIR}/${header}" includes REGEX "^#include \"")
    foreach(line IN LISTS includes)
      string(REGEX REPLACE "^#include \"([^\"]+)\".*" "\\1" included "${line}")
      if(EXISTS "${PROJECT_SOURCE_DIR}/${included}")
        list(APPEND pending ${included})
      elseif(EXISTS "${PROJECT_SOURCE_DIR}/include/${included}")
        list(APPEND pending include/${included})
      endif()
    endforeach()
  endwhile()
  set(${out} ${reached} PARENT_SCOPE)
endfunction()
file(GLOB roofline_public_headers RELATIVE "${PROJECT_SOURCE_DIR}" "${PROJECT_SOURCE_DIR}/include/roofline/*.hpp")
roofline_reached_headers(roofline_reached ${roofline_public_headers})
foreach(header IN LISTS roofline_reached)
  if(NOT header MATCHES "^include/")
    get_filename_component(header_dir "${header}" DIRECTORY)
    install(FILES "${header}" DESTINATION ${CMAKE_INSTALL_INCLUDEDIR}/roofline/detail/${header_dir})
  endif()
endforeach()
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
