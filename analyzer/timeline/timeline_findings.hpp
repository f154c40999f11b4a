// What to do about a timeline, with what it would gain: one finding per cause of idle time that
// costs more than run-to-run noise, ranked by the time it would save, as `analyze` ranks its
// findings. Values only; timeline_report.hpp writes the sentences.
//
// The estimate is a floor, as in `analyze`: removing a cause's idle time leaves the GPU's busy time
// and every other idle interval, so the time after is at least
//     span - (the cause's idle time),
// and where the fix removes a wait but not the CPU's own work (sync, pageable, memset), at least the
// CPU's own time too: span - (the time the launching threads spent blocked in calls of that cause).
// Nothing is promised below the GPU's busy time: the kernels' own time stays until `analyze` says
// how to shorten it. small-grids gets no estimate: its fix (a larger batch, fusion) changes the work of
// each launch, and how a kernel's time grows with its work is not in a trace; it is ranked last.
#pragma once

#include "analyzer/timeline/timeline_model.hpp"

#include <optional>
#include <vector>

namespace roofline::timeline {

enum class finding_kind : std::uint8_t {
    sync,           // gaps after synchronising calls
    host,           // gaps where the CPU issued work late
    pageable,       // gaps after pageable or synchronous copies
    memset,         // gaps after synchronous memsets
    small_kernels,  // most kernels shorter than a launch can feed: the short gaps between them
    communication,  // NCCL kernels running with no compute beside them
    busy,           // no idle cause worth fixing: the time is in the kernels
    small_grids,    // kernels with fewer blocks than SMs leave SMs idle while they run (no estimate: see below)
};
const char* finding_id(finding_kind k);  // "sync-gaps", "launch-bound", ... (the JSON ids)

// Which floor binds the time after: the GPU's (span less what the fix removes), the CPU's own time, or
// the host link (pageable copies' bytes at the pinned rate the trace shows).
enum class floor_kind : std::uint8_t { gpu, cpu, link };

struct timeline_finding {
    finding_kind kind = finding_kind::busy;
    std::int32_t device = 0;
    std::int64_t removed_ns = 0;  // idle time the fix removes
    std::int64_t before_ns = 0;   // the span it is measured on
    std::int64_t after_ns = 0;    // the floor of the time after the fix
    floor_kind binds = floor_kind::gpu;
    std::optional<double> est_speedup;  // before / after; none for `busy`
    // Given the step time measured without the profiler (--step-time) and steps in the trace: the time
    // after per step (after / span x the steps' span / steps: the GPU's share of the trace does not
    // change with the profiler's cost on the CPU) and that step time over it.
    std::optional<std::int64_t> measured_step_ns, after_per_step_ns;
    std::optional<double> est_speedup_measured;
    std::vector<std::size_t> gaps;  // device_timeline::gaps indexes: the longest of this cause (at most 3)
    // small_kernels: most of the short gaps' time is between kernels queued ahead (a graph replay, a CPU
    // running ahead), not waiting for a launch: the GPU's own time between kernels, which only fewer
    // kernels remove (fusion), not CUDA graphs.
    bool queued = false;
};

std::vector<timeline_finding> timeline_findings(const timeline_model& m,
                                                std::optional<std::int64_t> measured_step_ns = std::nullopt);

}  // namespace roofline::timeline
