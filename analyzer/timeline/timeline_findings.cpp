#include "analyzer/timeline/timeline_findings.hpp"

#include "analyzer/base/noise.hpp"

#include <algorithm>
#include <cmath>

namespace roofline::timeline {
namespace {

// A finding that gains less than run-to-run noise is not an opportunity anyone could measure.
bool worth_it(const timeline_finding& finding) {
    return finding.est_speedup && *finding.est_speedup >= 1.0 + run_to_run_noise;
}

timeline_finding estimate(const device_timeline& gpu, finding_kind kind, std::int64_t removed, std::int64_t cpu_floor,
                          std::int64_t link_floor = 0) {
    timeline_finding finding;
    finding.kind = kind;
    finding.device = gpu.device;
    finding.removed_ns = removed;
    finding.before_ns = gpu.span_ns();
    const std::int64_t gpu_floor = finding.before_ns - removed;
    finding.after_ns = std::max({gpu_floor, cpu_floor, link_floor});
    finding.binds = finding.after_ns == gpu_floor   ? floor_kind::gpu
                    : finding.after_ns == cpu_floor ? floor_kind::cpu
                                                    : floor_kind::link;
    if (finding.after_ns > 0) finding.est_speedup = double(finding.before_ns) / double(finding.after_ns);
    return finding;
}

bool is_category(finding_kind kind) { return info(kind).category.has_value(); }

// One finding per category of the host gaps' time. Each fix removes its category's idle time and leaves
// everything else (the GPU's floor: span - that time), and no less than its own floor:
//   data_loading  with an in-process loader, N worker processes make a batch in the loader's CPU time / N:
//                 the step takes at least max(the rest of the step, loader time / N), and the N that hides
//                 it is loader time / the rest, rounded up;
//   dispatch      a CUDA graph launches the step at once (the short host gaps between launches go too),
//                 but its replay leaves graph_kernel_gap_ns between kernels: at least busy + kernels x that.
//   the largest  once the CPU's largest cost in the host gaps is gone, what it did in the others is work
//                (dispatch above all) the profiler inflates, which a CPU no longer behind runs ahead of the
//                GPU: its fix removes every host gap (the GPU's floor, as cpu-bound-gaps' is); the smaller
//                categories' fixes remove their own time.
void category_findings(const timeline_model& model, const device_timeline& gpu, std::vector<timeline_finding>& out) {
    constexpr std::array<cpu_category, 6> host = {cpu_category::data_loading, cpu_category::optimizer,
                                                  cpu_category::dispatch,     cpu_category::python,
                                                  cpu_category::user_range,   cpu_category::unknown};
    cpu_category largest = host[0];
    for (cpu_category category : host)
        if (gpu.time_of(category).ns > gpu.time_of(largest).ns) largest = category;
    for (cpu_category category : host) {
        const category_time& ct = gpu.time_of(category);
        if (ct.ns <= 0) continue;
        std::int64_t removed = ct.ns;
        if (category == cpu_category::dispatch) removed += gpu.short_host.total_ns;
        if (removed <= 0) continue;
        // What the CPU did in the other host gaps stays. Less than the GPU's busy time, it runs while the
        // GPU works once the largest cost is gone (the CPU gets ahead): that fix removes every host gap.
        // Otherwise the CPU stays the bottleneck: the time after is its own remaining time, the span less
        // this category's (the CPU's time, which the profiler inflates: scaled by the measured step below).
        const std::int64_t all_host = gpu.total(gap_cause::host).total_ns + gpu.short_host.total_ns;
        const bool hides = category == largest && all_host - removed <= gpu.busy_ns;
        if (hides) removed = all_host;
        std::int64_t floor = 0;
        if (category == cpu_category::dispatch) floor = gpu.busy_ns + std::int64_t(gpu.kernels) * graph_kernel_gap_ns;
        auto finding = estimate(gpu, finding_of(category), removed, floor);
        // The graph's floor is the GPU's own time; the span less this category's, where the rest does not
        // hide, is the CPU's.
        finding.binds = hides || finding.after_ns == floor ? floor_kind::gpu : floor_kind::cpu;
        finding.all_host = hides;
        if (category == cpu_category::dispatch) finding.graph_floor_ns = floor;
        if (category == cpu_category::data_loading && !gpu.loader_workers && gpu.loader_batches > 0 &&
            model.steps.count > 0) {
            const std::int64_t per_batch = gpu.loader_in_process_ns / std::int64_t(gpu.loader_batches);
            const std::int64_t rest = (gpu.span_ns() - removed) / std::int64_t(model.steps.count);
            finding.loader_per_batch_ns = per_batch;
            finding.rest_per_step_ns = rest;
            if (rest > 0) finding.workers_to_hide = int(std::min<std::int64_t>(1024, (per_batch + rest - 1) / rest));
        }
        for (std::size_t i = 0; i < gpu.gaps.size(); ++i)
            if (gpu.gaps[i].cause == gap_cause::host && gpu.gaps[i].category == category) finding.gaps.push_back(i);
        std::stable_sort(finding.gaps.begin(), finding.gaps.end(), [&](std::size_t left, std::size_t right) {
            return gpu.gaps[left].length() > gpu.gaps[right].length();
        });
        if (finding.gaps.size() > 3) finding.gaps.resize(3);
        if (worth_it(finding)) out.push_back(finding);
    }
}

}  // namespace

constexpr finding_info findings_table[] = {
    {finding_kind::sync, "sync-gaps", gap_cause::sync, std::nullopt,
     "Take the synchronisation out of the step: keep values on the GPU (accumulate the loss as a tensor "
     "and "
     "read it every N steps); avoid `.item()`, `.cpu()`, `.tolist()`, `print(tensor)` and "
     "`torch.cuda.synchronize()` inside the loop; where a value must come back, copy it with "
     "`non_blocking=True` into pinned memory and read it a step later."},
    {finding_kind::host, "cpu-bound-gaps", gap_cause::host, std::nullopt,
     "Give the GPU its work ahead of time: fewer, larger launches (CUDA graphs: `torch.cuda.CUDAGraph`, "
     "`torch.compile(mode=\"reduce-overhead\")`), fused operators (`torch.compile`), less Python per "
     "step, "
     "and data preparation off the critical path (`DataLoader(num_workers=N, pin_memory=True)`, "
     "prefetching)."},
    {finding_kind::pageable, "pageable-copies", gap_cause::pageable, std::nullopt,
     "Copy from pinned memory: `pin_memory=True` in the DataLoader or `tensor.pin_memory()`, then "
     "`.to(device, non_blocking=True)`; prefetch the next batch on a side stream, or keep the data on "
     "the "
     "GPU."},
    {finding_kind::memset, "sync-memset-gaps", gap_cause::memset, std::nullopt,
     "Use cudaMemsetAsync on the work's stream: a synchronous cudaMemset waits for the GPU."},
    {finding_kind::small_kernels, "launch-bound", std::nullopt, std::nullopt,
     "Launch fewer, larger kernels: capture the step in a CUDA graph (`torch.cuda.CUDAGraph`, "
     "`torch.compile(mode=\"reduce-overhead\")`) or fuse the small operators (`torch.compile`); a larger "
     "batch gives each launch more work.",
     "Launch fewer, larger kernels: these were queued ahead (a CUDA graph replay, or a CPU running "
     "ahead), so the gaps are the GPU's own time between kernels, which a CUDA graph does not "
     "remove: fuse the small operators (`torch.compile`, a fused epilogue); a larger batch gives "
     "each launch more work."},
    {finding_kind::communication, "exposed-communication", std::nullopt, std::nullopt,
     "Overlap communication with compute: issue the collectives asynchronously (`async_op=True`) "
     "as soon as their inputs are ready and wait only where the result is used; DDP's gradient "
     "buckets (`bucket_cap_mb`) and FSDP's prefetching do this for training."},
    {finding_kind::busy, "gpu-busy", std::nullopt, std::nullopt,
     "The time is in the kernels: profile the top ones (below) with ncu and `roofline analyze`."},
    {finding_kind::small_grids, "small-grids", std::nullopt, std::nullopt,
     "Give each launch enough work to fill the GPU: a larger batch (more samples or sequences per "
     "step), fused operators (`torch.compile`), or independent work on other streams beside them. The "
     "gain is per sample, and how much depends on how each kernel's time grows with its work: time a "
     "larger batch, or profile the top kernels (below) with ncu."},
    {finding_kind::data_loading, "data-loading-gaps", gap_cause::host, cpu_category::data_loading,
     "Make the batches in worker processes while the GPU runs: `DataLoader(..., num_workers=N, "
     "pin_memory=True, persistent_workers=True, prefetch_factor=2)`; where the workers already run, "
     "more of them (up to the CPU cores), a cheaper `__getitem__` (decode once, cache, smaller "
     "images), or decoding on the GPU (DALI, torchvision.io.decode_jpeg on the device)."},
    {finding_kind::optimizer, "optimizer-gaps", gap_cause::host, cpu_category::optimizer,
     "Step every parameter at once: `foreach=True` (the default where supported) or `fused=True` "
     "(`torch.optim.AdamW(params, fused=True)`), fewer, larger parameter tensors, or the step compiled "
     "(`torch.compile` of the optimizer step) or captured in a CUDA graph."},
    {finding_kind::dispatch, "dispatch-gaps", gap_cause::host, cpu_category::dispatch,
     "Launch the step at once: capture it in a CUDA graph (`torch.cuda.CUDAGraph`, "
     "`torch.compile(mode=\"reduce-overhead\")`, static shapes and buffers), or compile it "
     "(`torch.compile` fuses the small operators, so fewer launches); a larger batch gives each "
     "launch more work."},
    {finding_kind::python, "python-gaps", gap_cause::host, cpu_category::python,
     "Take the program's own work off the GPU's critical path: prepare data in DataLoader workers "
     "or a background thread, vectorise the Python loop (NumPy or torch ops), move the work to the "
     "GPU, or do it every N steps; the frames named with this finding say where it is."},
    {finding_kind::user_range, "user-range-gaps", gap_cause::host, cpu_category::user_range,
     "The ranges named below are the program's own: their CPU work runs while the GPU waits. Move it "
     "off the step's critical path (a background thread, a DataLoader worker) or do it less often."},
};

const finding_info& info(finding_kind kind) {
    for (const auto& entry : findings_table)
        if (entry.kind == kind) return entry;
    return findings_table[6];  // gpu-busy: every kind is in the table (tests/test_timeline.cpp)
}

finding_kind finding_of(gap_cause cause) {
    for (const auto& entry : findings_table)
        if (entry.cause == cause && !entry.category) return entry.kind;
    return finding_kind::host;
}

finding_kind finding_of(cpu_category category) {
    for (const auto& entry : findings_table)
        if (entry.category == category) return entry.kind;
    return finding_kind::host;  // unknown: the CPU's activity is not in the trace
}

std::vector<timeline_finding> timeline_findings(const timeline_model& model,
                                                std::optional<std::int64_t> measured_step_ns) {
    std::vector<timeline_finding> out;
    for (const auto& gpu : model.devices) {
        std::vector<timeline_finding> mine;
        // Where the trace records what the CPU did, the host gaps' time goes to one finding per category.
        const bool by_category = gpu.cpu_recorded && gpu.total(gap_cause::host).count > 0;
        if (by_category) category_findings(model, gpu, mine);
        for (gap_cause cause : {gap_cause::sync, gap_cause::pageable, gap_cause::memset, gap_cause::host}) {
            if (cause == gap_cause::host && by_category) continue;
            const auto& total = gpu.total(cause);
            if (total.count == 0 && !(cause == gap_cause::pageable && gpu.pageable_exclusive_ns > 0)) continue;
            // A wait removed leaves the CPU's own work: the span less the time it was blocked in
            // calls of this cause. A CPU-bound gap's fix changes the CPU's work: no CPU floor is known.
            const std::int64_t cpu_floor =
                cause == gap_cause::host ? 0 : gpu.span_ns() - gpu.cpu_blocked_ns[static_cast<std::size_t>(cause)];
            // Pinned, asynchronous copies also take the pageable copies' own time off the critical path
            // (they run at the link's speed, beside the compute, on a copy engine): the busy time only
            // those copies account for goes too. The copies still take their bytes at the pinned rate
            // the trace shows: a floor where it shows one (otherwise unknown, and said so).
            // A CPU that gives the GPU its work ahead of time also closes the short intervals it was late
            // for (the GPU idle between back-to-back launches, under the gap threshold).
            const std::int64_t removed = total.total_ns +
                                         (cause == gap_cause::pageable ? gpu.pageable_exclusive_ns : std::int64_t(0)) +
                                         (cause == gap_cause::host ? gpu.short_host.total_ns : std::int64_t(0));
            const std::int64_t link_floor = cause == gap_cause::pageable && gpu.pinned_rate && gpu.pageable_bytes > 0
                                                ? std::llround(double(gpu.pageable_bytes) / *gpu.pinned_rate)
                                                : 0;
            auto finding = estimate(gpu, finding_of(cause), removed, cpu_floor, link_floor);
            finding.gaps = longest_of(gpu, cause, 3);
            if (worth_it(finding)) mine.push_back(finding);
        }
        // Most kernels shorter than one launch can feed: the short gaps between them are the launch
        // rate, which CUDA graphs or fusion remove (the long ones are the causes above).
        // Where the dispatch finding stands, it takes the short host gaps with it: launch-bound stays for the
        // gaps between kernels queued ahead (fusion's, not a graph's).
        const bool dispatch_named = std::any_of(mine.begin(), mine.end(), [](const timeline_finding& finding) {
            return finding.kind == finding_kind::dispatch;
        });
        if (gpu.kernels > 0 && 2 * gpu.small_kernels >= gpu.kernels && gpu.short_gaps.total_ns > 0) {
            auto finding = estimate(gpu, finding_kind::small_kernels, gpu.short_gaps.total_ns, 0);
            finding.queued = 2 * gpu.short_host.total_ns < gpu.short_gaps.total_ns;
            if (worth_it(finding) && !(dispatch_named && !finding.queued)) mine.push_back(finding);
        }
        // Communication that runs alone could run beside the compute (and the reverse): at best the
        // shorter of the two exposed parts hides under the other. The kernels' own times stay; NCCL
        // kernels that share the SMs with compute may run slower, so this is a floor, not a forecast.
        if (gpu.communication_ns > 0) {
            const std::int64_t hideable =
                std::min(gpu.communication_ns - gpu.overlap_ns, gpu.compute_ns - gpu.overlap_ns);
            if (hideable > 0) {
                auto finding = estimate(gpu, finding_kind::communication, hideable, 0);
                if (worth_it(finding)) mine.push_back(finding);
            }
        }
        std::stable_sort(mine.begin(), mine.end(), [](const timeline_finding& left, const timeline_finding& right) {
            return left.before_ns - left.after_ns > right.before_ns - right.after_ns;
        });
        if (mine.empty()) {
            timeline_finding finding;
            finding.kind = finding_kind::busy;
            finding.device = gpu.device;
            finding.before_ns = finding.after_ns = gpu.span_ns();
            mine.push_back(finding);
        }
        // SMs left idle inside the kernels themselves, named where they add up to more than run-to-run
        // noise of the span (SM time a batch that fills the GPU could put work into).
        if (gpu.small_grid_idle_sm_ns > 0 &&
            double(gpu.small_grid_idle_sm_ns) >= run_to_run_noise * double(gpu.span_ns())) {
            timeline_finding finding;
            finding.kind = finding_kind::small_grids;
            finding.device = gpu.device;
            finding.before_ns = finding.after_ns = gpu.span_ns();
            mine.push_back(finding);
        }
        if (measured_step_ns && model.steps.count > 0 && gpu.span_ns() > 0)
            for (auto& finding : mine) {
                if (!finding.est_speedup) continue;
                finding.measured_step_ns = measured_step_ns;
                // The GPU's share of the trace does not change with the profiler's cost on the CPU; where the
                // CPU's own remaining time binds (a host category), it is the CPU's share of the measured step.
                const bool cpu_time = is_category(finding.kind) && finding.binds == floor_kind::cpu;
                finding.after_per_step_ns =
                    cpu_time
                        ? std::llround(double(finding.after_ns) / double(gpu.span_ns()) * double(*measured_step_ns))
                        : std::llround(double(finding.after_ns) / double(gpu.span_ns()) * double(gpu.steps_span_ns()) /
                                       double(model.steps.count));
                // An in-process loader's time per batch is the CPU's too: N workers leave max(the rest, its
                // share of the measured step / N).
                if (finding.loader_per_batch_ns && finding.rest_per_step_ns) {
                    const double loader = double(*finding.loader_per_batch_ns) * double(model.steps.count) /
                                          double(gpu.span_ns()) * double(*measured_step_ns);
                    const double rest = double(finding.after_ns) / double(gpu.span_ns()) * double(gpu.steps_span_ns()) /
                                        double(model.steps.count);
                    finding.loader_measured_ns = std::llround(loader);
                    for (int workers : {1, 2, 4, 8, 16, 32})
                        finding.with_workers.emplace_back(workers, std::llround(std::max(rest, loader / workers)));
                }
                if (*finding.after_per_step_ns > 0)
                    finding.est_speedup_measured =
                        std::max(1.0, double(*measured_step_ns) / double(*finding.after_per_step_ns));
            }
        out.insert(out.end(), mine.begin(), mine.end());
    }
    return out;
}

}  // namespace roofline::timeline
