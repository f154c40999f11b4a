// analyzer/catalogue/*.json, compiled into the binary by CMake (cmake/embed_files.cmake).
#pragma once

#include "models/hwspecs_embedded.hpp"

namespace roofline {

const std::vector<embedded_file>& embedded_catalogue();

}  // namespace roofline
