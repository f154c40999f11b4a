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
    // Neither published for this GPU nor measured on it: derived from another GPU's or the architecture's
    // ratios ("estimated": true in the spec file). Every report that uses it says so.
    bool estimated = false;
};

// A second rate of one FLOP roof, for the part of its work that runs at another speed (same clock
// as the main figure). Two exist:
//   fp16_accumulate, on a tensor precision: the rate with FP16 accumulate where the main figure is
//     the FP32-accumulate one and they differ (GeForce parts run FP32 accumulate at half rate);
//   bf16, on fp16 (half-precision CUDA-core work): the BF16 rate where BF16 runs slower than FP16
//     (A100: 39 against 78 TFLOP/s). ncu counts BF16 and FP16 half2 instructions alike.
struct alternate_rate {
    double value = 0.0;  // TFLOP/s, > 0
    std::string source;
};

// A figure the engine cannot work without (the loader refuses a spec without it).
struct required_number {
    double value = 0.0;  // > 0
    std::string source;
    bool estimated = false;  // as sourced_number's
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
    std::map<resource, sourced_number> peaks_tflops;     // every precision of precisions()
    std::map<resource, alternate_rate> fp16_accumulate;  // tensor precisions whose figure is FP32-accumulate
    std::optional<alternate_rate> fp16_bf16;             // the BF16 rate of the fp16 roof, where it differs
    required_number dram_bandwidth_tbs;
    sourced_number l2_mib;
    sourced_number l1_bytes_per_clock_per_sm;
    sourced_number l2_bytes_per_clock;
    // The share of each roof that real kernels were measured to reach on this GPU (dram, fp32,
    // fp64, fp16): the rule trees' gain estimates aim at it. Empty where not measured (the model
    // then uses a default: practical_share_of in models/roofline_model.hpp).
    std::map<resource, sourced_number> practical_fraction;
    // The shortest a kernel launch lasts on this GPU under ncu (an empty grid's duration): no fix
    // that keeps a kernel a kernel gets it under this. Optional.
    sourced_number min_kernel_ns;
    // L2 cycles one global atomic takes when the next one waits for it: atomics to one line run one after
    // another in the slice that owns it. Optional: without it the engine takes ncu's peak of one per cycle
    // (lts__t_sectors_srcunit_tex_op_red.avg.peak_sustained), a lower bound.
    sourced_number same_line_atomic_cycles;
    std::string notes;
};

// Parses and validates one spec; throws input_error naming the file and the field.
gpu_spec parse_gpu_spec(const std::string& json_text, const std::string& file);

// The specs shipped in hwspecs/ (compiled into the binary, parsed once per process), plus any *.json in `extra_dir`
// (same id: the extra file wins).
std::vector<gpu_spec> load_gpu_specs(const std::string& extra_dir = "");

// The id of the GPU a user's text names (--gpu, --to): an id in any case ("H200"), an id's unique prefix
// ("rtx-50"), or a unique part of a spec's name ("RTX 4090", "A10G"). Throws input_error (unknown_gpu) naming
// `option`: the ids it could mean, or the nearest ones.
std::string resolve_gpu(const std::vector<gpu_spec>& specs, const std::string& text, const std::string& option);

}  // namespace roofline
