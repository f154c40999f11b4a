#include "analyzer/timeline/timeline_findings.hpp"

#include "analyzer/base/noise.hpp"

#include <algorithm>
#include <cmath>

namespace roofline::timeline {
namespace {

// A finding that gains less than run-to-run noise is not an opportunity anyone could measure.
bool worth_it(const timeline_finding& f) { return f.est_speedup && *f.est_speedup >= 1.0 + run_to_run_noise; }

timeline_finding estimate(const device_timeline& d, finding_kind kind, std::int64_t removed, std::int64_t cpu_floor,
                          std::int64_t link_floor = 0) {
    timeline_finding f;
    f.kind = kind;
    f.device = d.device;
    f.removed_ns = removed;
    f.before_ns = d.span_ns();
    const std::int64_t gpu_floor = f.before_ns - removed;
    f.after_ns = std::max({gpu_floor, cpu_floor, link_floor});
    f.binds = f.after_ns == gpu_floor ? floor_kind::gpu : f.after_ns == cpu_floor ? floor_kind::cpu : floor_kind::link;
    if (f.after_ns > 0) f.est_speedup = double(f.before_ns) / double(f.after_ns);
    return f;
}

bool is_category(finding_kind k) { return info(k).category.has_value(); }

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
void category_findings(const timeline_model& m, const device_timeline& d, std::vector<timeline_finding>& out) {
    constexpr std::array<cpu_category, 6> host = {cpu_category::data_loading, cpu_category::optimizer,
                                                  cpu_category::dispatch,     cpu_category::python,
                                                  cpu_category::user_range,   cpu_category::unknown};
    cpu_category largest = host[0];
    for (cpu_category c : host)
        if (d.time_of(c).ns > d.time_of(largest).ns) largest = c;
    for (cpu_category c : host) {
        const category_time& ct = d.time_of(c);
        if (ct.ns <= 0) continue;
        std::int64_t removed = ct.ns;
        if (c == cpu_category::dispatch) removed += d.short_host.total_ns;
        if (removed <= 0) continue;
        // What the CPU did in the other host gaps stays. Less than the GPU's busy time, it runs while the
        // GPU works once the largest cost is gone (the CPU gets ahead): that fix removes every host gap.
        // Otherwise the CPU stays the bottleneck: the time after is its own remaining time, the span less
        // this category's (the CPU's time, which the profiler inflates: scaled by the measured step below).
        const std::int64_t all_host = d.total(gap_cause::host).total_ns + d.short_host.total_ns;
        const bool hides = c == largest && all_host - removed <= d.busy_ns;
        if (hides) removed = all_host;
        std::int64_t floor = 0;
        if (c == cpu_category::dispatch) floor = d.busy_ns + std::int64_t(d.kernels) * graph_kernel_gap_ns;
        auto f = estimate(d, finding_of(c), removed, floor);
        // The graph's floor is the GPU's own time; the span less this category's, where the rest does not
        // hide, is the CPU's.
        f.binds = hides || f.after_ns == floor ? floor_kind::gpu : floor_kind::cpu;
        f.all_host = hides;
        if (c == cpu_category::dispatch) f.graph_floor_ns = floor;
        if (c == cpu_category::data_loading && !d.loader_workers && d.loader_batches > 0 && m.steps.count > 0) {
            const std::int64_t per_batch = d.loader_in_process_ns / std::int64_t(d.loader_batches);
            const std::int64_t rest = (d.span_ns() - removed) / std::int64_t(m.steps.count);
            f.loader_per_batch_ns = per_batch;
            f.rest_per_step_ns = rest;
            if (rest > 0) f.workers_to_hide = int(std::min<std::int64_t>(1024, (per_batch + rest - 1) / rest));
        }
        for (std::size_t i = 0; i < d.gaps.size(); ++i)
            if (d.gaps[i].cause == gap_cause::host && d.gaps[i].category == c) f.gaps.push_back(i);
        std::stable_sort(f.gaps.begin(), f.gaps.end(),
                         [&](std::size_t a, std::size_t b) { return d.gaps[a].length() > d.gaps[b].length(); });
        if (f.gaps.size() > 3) f.gaps.resize(3);
        if (worth_it(f)) out.push_back(f);
    }
}

}  // namespace

constexpr finding_info findings_table[] = {
    {finding_kind::sync, "sync-gaps", gap_cause::sync, std::nullopt},
    {finding_kind::host, "cpu-bound-gaps", gap_cause::host, std::nullopt},
    {finding_kind::pageable, "pageable-copies", gap_cause::pageable, std::nullopt},
    {finding_kind::memset, "sync-memset-gaps", gap_cause::memset, std::nullopt},
    {finding_kind::small_kernels, "launch-bound", std::nullopt, std::nullopt},
    {finding_kind::communication, "exposed-communication", std::nullopt, std::nullopt},
    {finding_kind::busy, "gpu-busy", std::nullopt, std::nullopt},
    {finding_kind::small_grids, "small-grids", std::nullopt, std::nullopt},
    {finding_kind::data_loading, "data-loading-gaps", gap_cause::host, cpu_category::data_loading},
    {finding_kind::optimizer, "optimizer-gaps", gap_cause::host, cpu_category::optimizer},
    {finding_kind::dispatch, "dispatch-gaps", gap_cause::host, cpu_category::dispatch},
    {finding_kind::python, "python-gaps", gap_cause::host, cpu_category::python},
    {finding_kind::user_range, "user-range-gaps", gap_cause::host, cpu_category::user_range},
};

const finding_info& info(finding_kind k) {
    for (const auto& f : findings_table)
        if (f.kind == k) return f;
    return findings_table[6];  // gpu-busy: every kind is in the table (tests/test_timeline.cpp)
}

finding_kind finding_of(gap_cause c) {
    for (const auto& f : findings_table)
        if (f.cause == c && !f.category) return f.kind;
    return finding_kind::host;
}

finding_kind finding_of(cpu_category c) {
    for (const auto& f : findings_table)
        if (f.category == c) return f.kind;
    return finding_kind::host;  // unknown: the CPU's activity is not in the trace
}

std::vector<timeline_finding> timeline_findings(const timeline_model& m, std::optional<std::int64_t> measured_step_ns) {
    std::vector<timeline_finding> out;
    for (const auto& d : m.devices) {
        std::vector<timeline_finding> mine;
        // Where the trace records what the CPU did, the host gaps' time goes to one finding per category.
        const bool by_category = d.cpu_recorded && d.total(gap_cause::host).count > 0;
        if (by_category) category_findings(m, d, mine);
        for (gap_cause c : {gap_cause::sync, gap_cause::pageable, gap_cause::memset, gap_cause::host}) {
            if (c == gap_cause::host && by_category) continue;
            const auto& total = d.total(c);
            if (total.count == 0 && !(c == gap_cause::pageable && d.pageable_exclusive_ns > 0)) continue;
            // A wait removed leaves the CPU's own work: the span less the time it was blocked in
            // calls of this cause. A CPU-bound gap's fix changes the CPU's work: no CPU floor is known.
            const std::int64_t cpu_floor =
                c == gap_cause::host ? 0 : d.span_ns() - d.cpu_blocked_ns[static_cast<std::size_t>(c)];
            // Pinned, asynchronous copies also take the pageable copies' own time off the critical path
            // (they run at the link's speed, beside the compute, on a copy engine): the busy time only
            // those copies account for goes too. The copies still take their bytes at the pinned rate
            // the trace shows: a floor where it shows one (otherwise unknown, and said so).
            // A CPU that gives the GPU its work ahead of time also closes the short intervals it was late
            // for (the GPU idle between back-to-back launches, under the gap threshold).
            const std::int64_t removed = total.total_ns +
                                         (c == gap_cause::pageable ? d.pageable_exclusive_ns : std::int64_t(0)) +
                                         (c == gap_cause::host ? d.short_host.total_ns : std::int64_t(0));
            const std::int64_t link_floor = c == gap_cause::pageable && d.pinned_rate && d.pageable_bytes > 0
                                                ? std::llround(double(d.pageable_bytes) / *d.pinned_rate)
                                                : 0;
            auto f = estimate(d, finding_of(c), removed, cpu_floor, link_floor);
            f.gaps = longest_of(d, c, 3);
            if (worth_it(f)) mine.push_back(f);
        }
        // Most kernels shorter than one launch can feed: the short gaps between them are the launch
        // rate, which CUDA graphs or fusion remove (the long ones are the causes above).
        // Where the dispatch finding stands, it takes the short host gaps with it: launch-bound stays for the
        // gaps between kernels queued ahead (fusion's, not a graph's).
        const bool dispatch_named = std::any_of(
            mine.begin(), mine.end(), [](const timeline_finding& f) { return f.kind == finding_kind::dispatch; });
        if (d.kernels > 0 && 2 * d.small_kernels >= d.kernels && d.short_gaps.total_ns > 0) {
            auto f = estimate(d, finding_kind::small_kernels, d.short_gaps.total_ns, 0);
            f.queued = 2 * d.short_host.total_ns < d.short_gaps.total_ns;
            if (worth_it(f) && !(dispatch_named && !f.queued)) mine.push_back(f);
        }
        // Communication that runs alone could run beside the compute (and the reverse): at best the
        // shorter of the two exposed parts hides under the other. The kernels' own times stay; NCCL
        // kernels that share the SMs with compute may run slower, so this is a floor, not a forecast.
        if (d.communication_ns > 0) {
            const std::int64_t hideable = std::min(d.communication_ns - d.overlap_ns, d.compute_ns - d.overlap_ns);
            if (hideable > 0) {
                auto f = estimate(d, finding_kind::communication, hideable, 0);
                if (worth_it(f)) mine.push_back(f);
            }
        }
        std::stable_sort(mine.begin(), mine.end(), [](const timeline_finding& a, const timeline_finding& b) {
            return a.before_ns - a.after_ns > b.before_ns - b.after_ns;
        });
        if (mine.empty()) {
            timeline_finding f;
            f.kind = finding_kind::busy;
            f.device = d.device;
            f.before_ns = f.after_ns = d.span_ns();
            mine.push_back(f);
        }
        // SMs left idle inside the kernels themselves, named where they add up to more than run-to-run
        // noise of the span (SM time a batch that fills the GPU could put work into).
        if (d.small_grid_idle_sm_ns > 0 && double(d.small_grid_idle_sm_ns) >= run_to_run_noise * double(d.span_ns())) {
            timeline_finding f;
            f.kind = finding_kind::small_grids;
            f.device = d.device;
            f.before_ns = f.after_ns = d.span_ns();
            mine.push_back(f);
        }
        if (measured_step_ns && m.steps.count > 0 && d.span_ns() > 0)
            for (auto& f : mine) {
                if (!f.est_speedup) continue;
                f.measured_step_ns = measured_step_ns;
                // The GPU's share of the trace does not change with the profiler's cost on the CPU; where the
                // CPU's own remaining time binds (a host category), it is the CPU's share of the measured step.
                const bool cpu_time = is_category(f.kind) && f.binds == floor_kind::cpu;
                f.after_per_step_ns =
                    cpu_time ? std::llround(double(f.after_ns) / double(d.span_ns()) * double(*measured_step_ns))
                             : std::llround(double(f.after_ns) / double(d.span_ns()) * double(d.steps_span_ns()) /
                                            double(m.steps.count));
                // An in-process loader's time per batch is the CPU's too: N workers leave max(the rest, its
                // share of the measured step / N).
                if (f.loader_per_batch_ns && f.rest_per_step_ns) {
                    const double loader = double(*f.loader_per_batch_ns) * double(m.steps.count) / double(d.span_ns()) *
                                          double(*measured_step_ns);
                    const double rest =
                        double(f.after_ns) / double(d.span_ns()) * double(d.steps_span_ns()) / double(m.steps.count);
                    f.loader_measured_ns = std::llround(loader);
                    for (int n : {1, 2, 4, 8, 16, 32})
                        f.with_workers.emplace_back(n, std::llround(std::max(rest, loader / n)));
                }
                if (*f.after_per_step_ns > 0)
                    f.est_speedup_measured = std::max(1.0, double(*measured_step_ns) / double(*f.after_per_step_ns));
            }
        out.insert(out.end(), mine.begin(), mine.end());
    }
    return out;
}

}  // namespace roofline::timeline
