// Picks the spec of the GPU a capture ran on: --gpu wins; else the device name; else compute
// capability and SM count, with the DRAM clock to tell apart GPUs that share both (H100 SXM
// and H200: CC 9.0, 132 SMs; 2.6 against 3.2 GHz HBM).
#pragma once

#include "models/gpu_spec.hpp"

#include <cstdint>
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

// How the spec was chosen, as a value (analyzer/report/text.hpp, gpu_match_text, words it).
struct gpu_match_reason {
    enum class kind : std::uint8_t {
        forced,              // --gpu
        device_name,         // the capture's device name is the spec's
        cc_sms_dram_clock,   // compute capability, SM count and the DRAM clock (within 15% of the spec's)
        compute_capability,  // compute capability (and the SM count, where the capture has it)
        from_capture,        // no spec file matches: peaks from the capture's own counters (`detail`: what is unknown)
        not_identified,      // neither: `detail` is why no spec matched
    };
    kind how = kind::forced;
    gpu_identity identity;  // what the capture says of its GPU
    std::string detail;
};

struct gpu_choice {
    const gpu_spec* spec = nullptr;
    gpu_match_reason how;
};

// Throws input_error (unknown_gpu) naming `file` when nothing matches or the match is ambiguous.
gpu_choice match_gpu(const std::vector<gpu_spec>& specs, const gpu_identity& id, const std::string& forced,
                     const std::string& file);

// Throws input_error (unknown_gpu) when `chosen` (from --gpu) contradicts the capture: its device
// name is another spec's, or its compute capability differs. --gpu-override skips the check.
void check_forced_gpu(const std::vector<gpu_spec>& specs, const gpu_spec& chosen, const gpu_identity& id,
                      const std::string& file);

}  // namespace roofline
