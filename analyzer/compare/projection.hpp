// A kernel's time on another GPU, from what it did on the one it was measured on: its work and
// traffic per resource (the roofline's useful shares) at the target's peaks and practical shares.
// The assumption, printed with every projection: same code, same traffic, same share of the
// practical peak. So a kernel keeps its distance to its roof and the time scales with the floor:
//     projected = measured x floor_target / floor_source
// where each floor is the largest, over the resources, of useful work / (peak x practical share).
// A kernel below 60% of its floor (classify's near-roof line) spends its time on waste (replays,
// excess sectors, bank conflicts) that the same code carries to the target: its time scales with
// its busy times instead (busy share x duration / practical share, waste included). Kernels far
// from every roof (latency, small grid, launch) do not scale with peaks: they are projected
// unchanged and flagged. docs/project.md says why, and how well it holds on real data.
#pragma once

#include "models/gpu_spec.hpp"
#include "models/kernel_result.hpp"
#include "models/resources.hpp"

#include <optional>
#include <string>
#include <vector>

namespace roofline {

struct projection_options {
    // The target's SM clock in Hz; 0: the target's boost clock scaled by the share of its own
    // boost clock the source capture ran at (the same clock conditions on both GPUs).
    double target_sm_clock_hz = 0.0;
};

// One resource of one kernel on both GPUs.
struct resource_projection {
    resource id = resource::sm;
    double peak_ratio = 1.0;    // target peak / source peak, at the two clocks
    std::string peak_basis;     // what the ratio is made of, for reports
    bool peak_assumed = false;  // a figure missing from a spec was taken equal on both GPUs
    double source_practical = 1.0, target_practical = 1.0;
    double source_floor_ns = 0.0;  // the roofline's floor: useful work at the source's practical peak
    double target_floor_ns = 0.0;  // the same work at the target's practical peak
    double source_busy_ns = 0.0, target_busy_ns = 0.0;  // the busy share (waste included) at the practical peaks
};

// How a kernel's projected time was made.
enum class projection_kind {
    scaled,      // measured x floor_target / floor_source
    unchanged,   // far from every roof (latency, small grid, launch): peaks do not set its time
    unprojected  // the capture places it nowhere, or the target lacks a roof it uses: kept as measured
};
const char* name(projection_kind kind);  // "scaled", "unchanged", "unprojected"

// What a scaled kernel's time follows: its floor (useful work; at 60% of it or more) or its busy
// times (waste included; further from its floor).
enum class projection_basis { floor, busy };
const char* name(projection_basis basis);  // "floor", "busy"

struct kernel_projection {
    std::string kernel;
    std::size_t launches = 0;
    bound source_bound = bound::unknown;  // the verdict on the source GPU
    double measured_ns = 0.0;             // all launches
    double source_sm_clock_hz = 0.0, target_sm_clock_hz = 0.0;
    double source_floor_ns = 0.0, target_floor_ns = 0.0;  // the largest floors
    double source_busy_ns = 0.0, target_busy_ns = 0.0;    // the largest busy times
    projection_basis basis = projection_basis::floor;
    // The resources that set the largest floor (or busy time, by basis) on each GPU.
    std::optional<resource> source_binding, target_binding;
    bool binding_changes = false;
    double projected_ns = 0.0;
    projection_kind kind = projection_kind::unprojected;
    std::string why;                             // one sentence: what the projection rests on, or why it was not scaled
    std::vector<resource_projection> resources;  // those that carry a floor, in resource order
};

struct workload_projection {
    std::string source_gpu, target_gpu;  // spec names
    std::vector<kernel_projection> kernels;
    double measured_ns = 0.0, projected_ns = 0.0;
    std::vector<std::string> assumptions;  // printed with every projection, in this order
};

// One kernel measured on `source`, projected onto `target`. Pure: reads the model's values only.
kernel_projection project_kernel(const kernel_result& kernel, const gpu_spec& source, const gpu_spec& target,
                                 const projection_options& options = {});

// The kernels (as given) with their totals and the assumptions every output prints.
workload_projection project_workload(std::vector<kernel_projection> kernels, const gpu_spec& source,
                                     const gpu_spec& target, const projection_options& options = {});

}  // namespace roofline
