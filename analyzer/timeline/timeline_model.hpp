// What each GPU of a trace did over time: the span of its activity, busy time as the union of its
// kernel, copy and memset intervals over every stream (ops of a graph replay overlap: durations are
// never summed), and every idle gap, each with its cause and the evidence for it. Values only: the
// report (timeline_report.hpp) writes the sentences.
//
// A gap's cause, from the op that ends it (O), the CUDA call that launched O (L, by correlation id)
// and what L's CPU thread did before it:
//   sync      L was issued after a synchronising call on its thread returned, and that call began
//             before the GPU went idle: the CPU waited for the GPU to drain, so nothing was queued
//             behind the work (cudaStreamSynchronize from `.item()`, cudaDeviceSynchronize, ...).
//   pageable  the same, where the blocking call is a copy the CPU waits for: a copy from or to
//             pageable memory (the driver stages it through a pinned buffer on the CPU) or a
//             synchronous cudaMemcpy; or O is a pageable copy whose transfer waited longer for the
//             staging (after its call began) than for the CPU to issue the call.
//   memset    the same, where the blocking call is a synchronous cudaMemset.
//   host      L was issued after the GPU went idle, or was still being issued when it did (a graph
//             launch's CPU time), with no blocking call in between: the CPU is the bottleneck (Python,
//             data preparation, one launch at a time).
//   other     L had returned before the GPU went idle (the work was queued but started late: a wait on
//             another stream's event, launch latency), or no call launched O in the trace.
#pragma once

#include "analyzer/timeline/trace.hpp"

#include <array>
#include <cstddef>
#include <cstdint>
#include <optional>
#include <vector>

namespace roofline::timeline {

enum class gap_cause : std::uint8_t { sync, host, pageable, memset, other };
inline constexpr std::array<gap_cause, 5> all_causes = {gap_cause::sync, gap_cause::host, gap_cause::pageable,
                                                        gap_cause::memset, gap_cause::other};
const char* cause_name(gap_cause cause);  // "sync", "host", ... (the JSON keys)

// Kernels shorter than this cannot keep a GPU busy when a CPU thread launches them one at a time:
// a launch costs the CPU 2-5 us in the runtime alone (cudaLaunchKernel's host time in real traces,
// FORMATS.md section 1), more with the framework's dispatch around it.
inline constexpr std::int64_t small_kernel_ns = 10'000;

// What the launching CPU thread was doing while the GPU sat idle (cpu_attribution.cpp). A gap whose
// cause is a wait is the wait's (sync; copies for pageable copies and synchronous memsets); a host gap's
// time goes, moment by moment, to the first of these that covers the thread:
//   data_loading  a DataLoader's batch (PyTorch's enumerate(DataLoader)#... range, torch/utils/data frames)
//   optimizer     an optimizer's step or zero_grad (Optimizer.step#..., torch/optim frames)
//   dispatch      a framework operator or a CUDA call: operator dispatch and launches
//   user_range    a range the user named (record_function, NVTX), outside any operator
//   python        the program's own Python frames outside any operator; inside a gap shorter than
//                 python_between_launches_ns it is the Python between two launches: dispatch
//   unknown       nothing the trace recorded (no CPU activity in it, or another thread's work)
enum class cpu_category : std::uint8_t { data_loading, optimizer, sync, copies, user_range, dispatch, python, unknown };
inline constexpr std::array<cpu_category, 8> all_categories = {
    cpu_category::data_loading, cpu_category::optimizer, cpu_category::sync,   cpu_category::copies,
    cpu_category::user_range,   cpu_category::dispatch,  cpu_category::python, cpu_category::unknown};
const char* category_name(cpu_category category);  // "data_loading", ... (the JSON keys)

// The Python an eager framework runs between two operators' launches costs tens of microseconds
// (PyTorch's per-op overhead is 10-20 us of dispatch over the runtime's 2-5 us launch, FORMATS.md
// section 1); a gap longer than this spent in the program's own frames is work of its own, not launch
// overhead.
inline constexpr std::int64_t python_between_launches_ns = 100'000;

struct named_time {
    name_id name = 0;
    std::int64_t ns = 0;
};

struct category_time {
    std::int64_t ns = 0;             // GPU idle time the launching thread spent so
    std::size_t gaps = 0;            // gaps it took the largest share of
    std::vector<named_time> top;     // the ranges that carried it (operator, mark, call), most time first (<= 5)
    std::vector<named_time> frames;  // the innermost frames of the user's code under it, most time first (<= 5)
};

struct idle_gap {
    std::int64_t start_ns = 0, end_ns = 0;
    gap_cause cause = gap_cause::other;
    std::size_t next_op = 0;                        // trace::ops index of the op that ends it
    std::optional<std::size_t> launch;              // trace::calls index of that op's launching call
    std::optional<std::size_t> blocking;            // trace::calls index of the call the CPU waited in
    std::optional<std::size_t> caller;              // trace::cpu_ops index of the operator that made that call
    cpu_category category = cpu_category::unknown;  // what the CPU did in most of it (cause other: unknown)
    std::int64_t length() const { return end_ns - start_ns; }
};

struct cause_total {
    std::size_t count = 0;
    std::int64_t total_ns = 0;
};

struct kernel_total {
    name_id name = 0;
    std::size_t launches = 0;
    std::int64_t total_ns = 0;  // summed durations (a kernel's own time; overlaps are the union's business)
    bool communication = false;
    // What launched it, where the trace says (the most launches; the first name on a tie): the
    // innermost framework operator around the launch call (aten::mm), and the innermost frame of the
    // user's own code or nn.Module around it (trace.hpp, py_frames).
    std::optional<name_id> launched_by, frame;
};

// The critical path of the marked steps, as the GPU's timeline decomposes it: a step runs from the start
// of the first op it launched to the start of the next step's first op (the last: to its last op's end).
// At every moment of it the GPU either ran the step's work (gpu), or sat idle waiting for the CPU to
// launch the next op (cpu: gaps of cause sync, pageable, memset or host, under --min-gap too), or idle
// with that op already queued (wait: cause other, a wait on another stream's event or launch latency).
// HolisticTraceAnalysis builds a graph of CPU ops, launches and kernels for its critical path; on one
// stream per device its path is the same chain, and the shares are what this sums.
struct critical_path {
    std::size_t steps = 0;
    std::int64_t total_ns = 0, gpu_ns = 0, cpu_ns = 0, wait_ns = 0;
    std::int64_t longest_ns = 0, shortest_ns = 0;  // the longest and shortest step
};

struct device_timeline {
    std::int32_t device = 0;
    std::string name;  // from the trace's device properties, where it has them
    std::int64_t first_ns = 0, last_ns = 0;
    std::int64_t busy_ns = 0;
    std::size_t ops = 0, kernels = 0, copies = 0, memsets = 0;
    std::vector<idle_gap> gaps;  // longer than the minimum gap, in time order
    std::array<cause_total, all_causes.size()> by_cause{};
    cause_total short_gaps;  // idle intervals no longer than the minimum gap (between back-to-back launches)
    cause_total short_host;  // those of short_gaps whose cause is host (the next op's launch came late)
    std::size_t small_kernels = 0;
    std::int64_t small_kernel_ns = 0;
    // Kernels whose grid has fewer blocks than the GPU has SMs (under one block per SM, where the trace
    // gives the grid): whatever else limits them, the SMs without a block sit idle while they run.
    std::size_t grids_known = 0;             // kernels whose grid the trace gives
    cause_total small_grids;                 // those under one block per SM: how many, their summed durations
    std::int64_t small_grid_idle_sm_ns = 0;  // the SM time they leave idle: sum of duration x (1 - blocks per SM)
    std::size_t pageable_copies = 0;
    std::uint64_t pageable_bytes = 0;
    std::int64_t pageable_ns = 0;
    std::int64_t pageable_exclusive_ns = 0;  // busy time no other op covers: what pinned, async copies can hide
    // The fastest pinned host<->device copy of at least 1 MiB in the trace, in bytes per ns (the rate a
    // pinned copy reaches on this machine's link); none where the trace holds no such copy.
    std::optional<double> pinned_rate;
    std::int64_t communication_ns = 0, compute_ns = 0, overlap_ns = 0;  // unions of NCCL / other kernels, and both
    // Time the CPU threads that launch this device's work spent inside blocking calls, within the
    // span, by the cause such a call gives a gap (synchronising calls: sync; synchronous or pageable
    // copies: pageable; synchronous memsets: memset).
    std::array<std::int64_t, all_causes.size()> cpu_blocked_ns{};
    // Where the trace marks steps: the first start and last end of the ops launched within them (the
    // span elsewhere), and the kernels are those ops'.
    std::int64_t steps_first_ns = 0, steps_last_ns = 0;
    std::vector<kernel_total> kernel_totals;  // by total time, largest first (ties: by name)
    // What the launching threads did during the gaps whose cause is the CPU's (sync, pageable, memset,
    // host), by category; `cpu_recorded`: the trace holds CPU activity (operators, frames or marks), so
    // `unknown` is time no range covers, not a trace without them.
    std::array<category_time, all_categories.size()> cpu{};
    critical_path path;  // over the steps (none where the trace marks none)
    bool cpu_recorded = false;
    // DataLoader batches made on the launching threads within the steps (an in-process loader: its whole
    // CPU cost is in them) and whether a loader with worker processes was waited for.
    std::int64_t loader_in_process_ns = 0;
    std::size_t loader_batches = 0;
    bool loader_workers = false;
    // Ops launched before the trace began (no launch of theirs in it) that ran before the first op
    // launched within it: left out of everything above (their summed durations here).
    cause_total before_trace;

    const category_time& time_of(cpu_category category) const { return cpu[static_cast<std::size_t>(category)]; }
    std::int64_t span_ns() const { return last_ns - first_ns; }
    std::int64_t steps_span_ns() const { return steps_last_ns - steps_first_ns; }
    double utilisation() const { return span_ns() > 0 ? double(busy_ns) / double(span_ns()) : 0.0; }
    const cause_total& total(gap_cause cause) const { return by_cause[static_cast<std::size_t>(cause)]; }
};

struct step_figures {
    std::size_t count = 0;
    std::int64_t mean_ns = 0, min_ns = 0, max_ns = 0;
    std::int64_t first_ns = 0, last_ns = 0;
    std::vector<cpu_range> ranges;  // the steps' CPU ranges, by start
};

struct timeline_model {
    const trace* source = nullptr;
    std::int64_t min_gap_ns = 10'000;
    std::vector<device_timeline> devices;  // by device id
    step_figures steps;
};

// The `count` longest gaps of cause `cause` (device_timeline::gaps indexes), longest first (ties: earlier first).
std::vector<std::size_t> longest_of(const device_timeline& gpu, gap_cause cause, std::size_t count);

// Fills each device's `cpu` and each gap's category (cpu_attribution.cpp), the trace's CPU ranges indexed
// once for every device. `ranges` sorted by (thread, start, outer first), as model_timeline leaves them.
void attribute_cpu(const trace& tr, std::vector<device_timeline>& devices, const step_figures& steps);

// The innermost range of `ranges` (sorted by thread, start, outer first) on the call's thread that encloses
// it: the operator or user frame that made the call.
std::optional<name_id> innermost_around(const std::vector<cpu_range>& ranges, const api_call& call);

// The trace's ops are sorted in place (by device, start, end); the model refers to them by index.
timeline_model model_timeline(trace& tr, std::int64_t min_gap_ns);

}  // namespace roofline::timeline
