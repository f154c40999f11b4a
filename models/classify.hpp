// Names what limits a kernel: memory (dram, l2, l1), compute (a precision, a pipe, or the SM
// as a whole), or, when nothing is near a roof, latency, small_grid or launch. Each verdict
// keeps the numbers that decided it.
#pragma once

#include "analyzer/base/noise.hpp"
#include "models/roofline_model.hpp"

#include <optional>
#include <string>
#include <vector>

namespace roofline {

// The thresholds, in one place; docs/model.md explains each. Every resource is compared by its
// pressure: its busy share over the practical share of its peak (what well-written kernels reach
// on this GPU), so a DRAM at 80% of peak (92% of practical) outranks a pipe at 85% of a peak no
// kernel reaches.
struct classify_thresholds {
    double near_roof = 0.60;  // ncu's SOLBottleneck uses 60% as "high throughput"; here 60% of the practical share
    double specific_share =
        0.80;  // a precision or pipe names the compute limiter if it reaches this share of the SM's pressure
    double launch_ns = 5000.0;  // a launch shorter than this is dominated by launch overhead (twice the shortest
                                // launch, ~2.3 us on H100)
    // Among memory levels the one nearest DRAM is named when it is at least this share of the
    // busiest level: a streaming kernel keeps L2 busy with DRAM's own fills, so an L2 a few
    // points busier than DRAM (seen on the H200: 93% against 86%) is fed by DRAM, not the limit.
    double prefer_lower_level = 0.90;
};

struct launch_shape {
    double grid_blocks = 0;  // launch__grid_size (mean over launches)
    double waves = 0;        // launch__waves_per_multiprocessor
    double sm_count = 0;
    std::size_t launches = 1;
};

// A resource's load as the verdict read it: its busy share, the practical share of its peak, and the
// counters behind the busy share. Its pressure (busy over practical) is what the thresholds compare.
struct unit_load {
    resource id = resource::sm;
    double busy = 0.0;
    double practical = 1.0;
    pooled_string formula;
    double pressure() const { return practical > 0 ? busy / practical : busy; }
};

// Why the verdict is what it is: one typed record per step the classification took. The model writes
// values only; analyzer/report/text.hpp (reason_text) words them, and the JSON report carries them.
enum class reason_kind {
    short_launches,       // value: ns per launch; threshold: launch_ns
    idle_sms,             // value: blocks; count: SMs
    under_one_wave,       // value: waves (< 1)
    grid_fills_gpu,       // value: blocks; count: waves
    memory_near_roof,     // unit: the busiest memory level; other: the best compute unit (absent: none measured);
                          // threshold: near_roof
    lower_level_named,    // unit: the lower level named; other: the busiest level; threshold: prefer_lower_level
    compute_near_roof,    // unit: the busiest compute unit; other: the best memory level (absent: none measured)
    tensor_precision,     // unit: the tensor pipe (its busy share); named: the precision; value: its useful share
    specific_unit,        // unit: the precision or pipe named; threshold: specific_share
    sm_as_whole,          // threshold: specific_share
    not_placed,           // lacks: what the capture lacks
    bound_open,           // unit: the busiest measured unit (absent: none)
    limiter_open,         //
    below_every_roof,     // unit: the busiest unit (absent: none); threshold: near_roof
    verdict_within_noise  // alternatives: the other verdicts; value: the noise share
};

// "short_launches", "memory_near_roof", ...: the kind as the JSON report names it.
const char* name(reason_kind kind);

struct verdict_reason {
    reason_kind kind = reason_kind::limiter_open;
    std::optional<unit_load> unit, other;
    std::optional<resource> named;
    double value = 0.0, count = 0.0, threshold = 0.0;
    lacking_input lacks = lacking_input::nothing;
    std::vector<std::string> alternatives;
};

struct classification {
    roofline::bound bound = bound::unknown;
    std::optional<resource> limiter;      // dram, l2, l1, fp32, tensor_bf16, pipe_alu, sm, ... (none below the roofs)
    std::vector<verdict_reason> reasons;  // the numbers that decided it, step by step
    // Where the capture lacks counters (kernel_roofline::unmeasured), the verdict the counters allow:
    // every bound and every limiter not excluded. A decided verdict has one bound and at most one
    // limiter; an undecided bound is `unknown` and an undecided limiter empty, and `missing` names the
    // metrics that would decide them.
    std::vector<roofline::bound> possible_bounds;
    std::vector<resource> possible_limiters;
    std::vector<std::string> missing;
    // Resources whose pressure is within run-to-run noise of the limiter's: another capture of the same
    // program may name one of them instead. Named beside the limiter, never instead of it.
    std::vector<resource> tied_limiters;
    std::vector<roofline::bound> tied_bounds;  // likewise: bounds another capture may name
    bool decided() const { return possible_bounds.size() <= 1 && possible_limiters.size() <= 1; }
};

// "memory / dram", "latency"; with separator "/": "memory/dram", as kernels/pairs.json writes it. An
// undecided verdict lists what it may be: "memory or compute / l2 or issue?".
std::string verdict_text(const classification& verdict, const char* separator = " / ");

classification classify(const kernel_roofline& roof, const launch_shape& shape,
                        const classify_thresholds& thresholds = {});

}  // namespace roofline
