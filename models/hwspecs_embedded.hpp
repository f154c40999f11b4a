// The hwspecs/*.json files, compiled into the binary by CMake (cmake/embed_files.cmake), so
// the tool runs from any directory with its GPU database.
#pragma once

#include <string>
#include <vector>

namespace roofline {

struct embedded_file {
    std::string name;  // "hwspecs/h100-sxm.json"
    std::string contents;
};

const std::vector<embedded_file>& embedded_hwspecs();

}  // namespace roofline
