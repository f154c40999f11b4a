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
#include <utility>
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
    // Host gaps by what the launching thread was doing in them (timeline_model.hpp, cpu_category), where
    // the trace records the CPU's activity; `host` is the finding where it does not (or for `unknown`).
    data_loading,  // a DataLoader's batches
    optimizer,     // the optimizer's step
    dispatch,      // operator dispatch and launches from Python, one at a time
    python,        // the program's own Python outside any operator
    user_range,    // a range the user named
};
// What each finding is, in one place: its JSON id, the gap cause it removes (sync, pageable, memset, host; none
// for the findings that are not about one cause), for the host gaps' findings the CPU category they name, and
// its fix in words. Its floor is its estimate's (timeline_findings.cpp); its headline, which quotes the
// trace's figures, is timeline_report.cpp's.
struct finding_info {
    finding_kind kind;
    const char* id;  // "sync-gaps", "launch-bound", ... (the JSON ids)
    std::optional<gap_cause> cause;
    std::optional<cpu_category> category;
    const char* fix;                   // what removes it, in the user's terms (every report prints it)
    const char* fix_queued = nullptr;  // the fix where the work was queued ahead (a graph replay); none: `fix`
};
const finding_info& info(finding_kind kind);
inline const char* finding_id(finding_kind kind) { return info(kind).id; }
// The finding of a gap cause's idle time (host: cpu-bound-gaps, where the trace does not say what the CPU did)
// and of a CPU category's (the categories of host gaps; unknown: cpu-bound-gaps).
finding_kind finding_of(gap_cause cause);
finding_kind finding_of(cpu_category category);

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
    // data_loading: an in-process loader's CPU time per batch (its ranges on the launching thread), the
    // workers that would make batches as fast as the rest of the step runs, and the time after per step
    // with that many (max(the step without the loader's gaps, loader time / workers)). Unknown with worker
    // processes: their CPU time is not in the trace.
    std::optional<std::int64_t> loader_per_batch_ns, rest_per_step_ns;
    std::optional<int> workers_to_hide;
    // With --step-time: the loader's time per batch as a share of the measured step, and the step with N
    // workers (N = 1, 2, 4, ... 32).
    std::optional<std::int64_t> loader_measured_ns;
    std::vector<std::pair<int, std::int64_t>> with_workers;
    // dispatch: the floor a CUDA graph leaves, the GPU's busy time plus its per-kernel gaps.
    std::optional<std::int64_t> graph_floor_ns;
    // A host category's fix that removes every host gap: the CPU's largest cost, with the rest of what it did
    // in the gaps under the GPU's busy time (it runs ahead once this is gone).
    bool all_host = false;
};

// A CUDA graph's replay is not gap-free: between two of its kernels the GPU idles about 0.1 us (measured
// on an H100: 1,805 gaps between the 1,810 kernels of examples/timeline/traces/tiny_kernels_fixed, 188.7 us
// in all, 104 ns each; the CUDA-only capture of the same run 104 ns).
inline constexpr std::int64_t graph_kernel_gap_ns = 104;

std::vector<timeline_finding> timeline_findings(const timeline_model& model,
                                                std::optional<std::int64_t> measured_step_ns = std::nullopt);

}  // namespace roofline::timeline
