// A GPU's published figures, loaded from hwspecs/*.json. Every number carries its source;
// figures a vendor does not publish are null and the engine says so instead of guessing.
#pragma once

#include "models/resources.hpp"

#include <map>
#include <optional>
#include <string>
#include <vector>

namespace roofline {

struct sourced_number {
    std::optional<double> value;  // nullopt: not published / not verified
    std::string source;
    std::optional<double> at_clock_mhz;  // the clock the figure holds at, if not the boost clock
};

// A figure the engine cannot work without (the loader refuses a spec without it).
struct required_number {
    double value = 0.0;  // > 0
    std::string source;
};

struct gpu_spec {
    std::string id;
    std::string name;
    std::string file;  // where it was loaded from, for messages
    std::string compute_capability;
    std::vector<std::string> device_names;
    std::optional<double> detect_dram_clock_mhz;
    required_number sm_count;
    required_number boost_clock_mhz;
    std::map<resource, sourced_number> peaks_tflops;  // every precision of precisions()
    required_number dram_bandwidth_tbs;
    sourced_number l2_mib;
    sourced_number l1_bytes_per_clock_per_sm;
    sourced_number l2_bytes_per_clock;
    // The share of each roof that real kernels were measured to reach on this GPU (dram, fp32,
    // fp64, fp16): the rule trees' gain estimates aim at it. Empty where not measured.
    std::map<resource, sourced_number> practical_fraction;
    // The shortest a kernel launch lasts on this GPU under ncu (an empty grid's duration): no fix
    // that keeps a kernel a kernel gets it under this. Optional.
    sourced_number min_kernel_ns;
    std::string notes;
};

// Parses and validates one spec; throws input_error naming the file and the field.
gpu_spec parse_gpu_spec(const std::string& json_text, const std::string& file);

// The specs shipped in hwspecs/ (compiled into the binary, parsed once per process), plus any *.json in `extra_dir`
// (same id: the extra file wins).
std::vector<gpu_spec> load_gpu_specs(const std::string& extra_dir = "");

}  // namespace roofline
