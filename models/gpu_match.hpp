// Picks the spec of the GPU a capture ran on: --gpu wins; else the device name; else compute
// capability and SM count, with the DRAM clock to tell apart GPUs that share both (H100 SXM
// and H200: CC 9.0, 132 SMs; 2.6 against 3.2 GHz HBM).
#pragma once

#include "models/gpu_spec.hpp"

#include <optional>
#include <string>
#include <vector>

namespace roofline {

struct gpu_identity {
    std::string display_name;  // device__attribute_display_name; the details page lacks it
    std::string cc;
    std::optional<double> sm_count;
    std::optional<double> dram_clock_mhz;
};

struct gpu_choice {
    const gpu_spec* spec = nullptr;
    std::string how;  // "device name", "--gpu", ...
};

// Throws input_error (unknown_gpu) naming `file` when nothing matches or the match is ambiguous.
gpu_choice match_gpu(const std::vector<gpu_spec>& specs, const gpu_identity& id, const std::string& forced,
                     const std::string& file);

// Throws input_error (unknown_gpu) when `chosen` (from --gpu) contradicts the capture: its device
// name is another spec's, or its compute capability differs. --gpu-override skips the check.
void check_forced_gpu(const std::vector<gpu_spec>& specs, const gpu_spec& chosen, const gpu_identity& id,
                      const std::string& file);

}  // namespace roofline
