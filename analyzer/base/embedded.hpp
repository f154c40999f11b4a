// The data files compiled into the binary by CMake (cmake/embed_files.cmake), so the tool runs
// from any directory with its GPU specs, rule trees and metric catalogue.
#pragma once

#include <string>
#include <vector>

namespace roofline {

struct embedded_file {
    std::string name;  // "hwspecs/h100-sxm.json"
    std::string contents;
};

const std::vector<embedded_file>& embedded_hwspecs();    // hwspecs/*.json
const std::vector<embedded_file>& embedded_rules();      // rules/*.json
const std::vector<embedded_file>& embedded_catalogue();  // analyzer/base/metrics.json
const std::vector<embedded_file>& embedded_pairs();      // kernels/pairs.json: the naive -> fixed pairs of kernels/
const std::vector<embedded_file>& embedded_origins();    // rules/origins/*.json: whose kernel it is, by its name

}  // namespace roofline
