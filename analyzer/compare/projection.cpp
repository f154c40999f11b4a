#include "analyzer/compare/projection.hpp"

#include "analyzer/base/format.hpp"
#include "analyzer/report/text.hpp"
#include "models/classify.hpp"

#include <algorithm>

namespace roofline {
namespace {

struct peak_ratio {
    double ratio = 1.0;
    std::string basis;
    bool assumed = false;
    bool missing = false;  // the target has no such roof
};

std::string mhz(double hz) { return significant(hz / 1e6, 4) + " MHz"; }

// Target peak over source peak for one resource, both from the specs (datasheet against datasheet,
// so a capture's measured peak that disagrees with its spec does not leak into the ratio), the
// clock-bound ones at the two SM clocks.
peak_ratio ratio_of(const resource_use& usage, const gpu_spec& source, const gpu_spec& target, double clk_s,
                    double clk_t) {
    peak_ratio result;
    const double clocks = clk_t / clk_s;
    const double sms = target.sm_count.value / source.sm_count.value;
    const std::string clock_text = mhz(clk_t) + " / " + mhz(clk_s);
    if (info(usage.id).precision) {
        auto target_peak = spec_peak_per_second(target, usage.id, clk_t);
        auto source_peak = spec_peak_per_second(source, usage.id, clk_s);
        if (!target_peak) {
            result.missing = true;
            result.basis = target.name + " has no " + std::string(name(usage.id)) + " roof in its spec";
            return result;
        }
        if (!source_peak && usage.peak <= 0) {
            result.missing = true;
            result.basis = source.name + " has no " + std::string(name(usage.id)) + " peak to scale from";
            return result;
        }
        result.ratio = *target_peak / (source_peak ? *source_peak : usage.peak);
        result.basis = format_si(*target_peak, "FLOP/s") + " / " +
                       format_si(source_peak ? *source_peak : usage.peak, "FLOP/s") + " (spec peaks at " + clock_text +
                       ")";
        return result;
    }
    switch (usage.id) {
        case resource::dram:
            result.ratio = target.dram_bandwidth_tbs.value / source.dram_bandwidth_tbs.value;
            result.basis = significant(target.dram_bandwidth_tbs.value, 4) + " / " +
                           significant(source.dram_bandwidth_tbs.value, 4) +
                           " TB/s (spec DRAM bandwidths; the DRAM clock is not the SM's)";
            return result;
        case resource::l2:
            if (target.l2_bytes_per_clock.value && source.l2_bytes_per_clock.value) {
                result.ratio = *target.l2_bytes_per_clock.value / *source.l2_bytes_per_clock.value * clocks;
                result.basis = significant(*target.l2_bytes_per_clock.value, 6) + " / " +
                               significant(*source.l2_bytes_per_clock.value, 6) + " B/clock x " + clock_text;
            } else {
                result.ratio = clocks;
                result.assumed = true;
                result.basis = "L2 bytes per clock taken equal (a spec lacks them) x " + clock_text;
            }
            return result;
        case resource::l1:
            if (target.l1_bytes_per_clock_per_sm.value && source.l1_bytes_per_clock_per_sm.value) {
                result.ratio =
                    *target.l1_bytes_per_clock_per_sm.value / *source.l1_bytes_per_clock_per_sm.value * sms * clocks;
                result.basis = significant(*target.l1_bytes_per_clock_per_sm.value, 6) + " / " +
                               significant(*source.l1_bytes_per_clock_per_sm.value, 6) + " B/clock/SM x " +
                               significant(target.sm_count.value, 6) + " / " + significant(source.sm_count.value, 6) +
                               " SMs x " + clock_text;
            } else {
                result.ratio = sms * clocks;
                result.assumed = true;
                result.basis = "L1 bytes per clock per SM taken equal (a spec lacks them) x " +
                               significant(target.sm_count.value, 6) + " / " + significant(source.sm_count.value, 6) +
                               " SMs x " + clock_text;
            }
            return result;
        default:
            // Pipes and issue slots: per-SM rates of the same architecture, so SMs x clock.
            result.ratio = sms * clocks;
            result.assumed = target.compute_capability != source.compute_capability;
            result.basis = significant(target.sm_count.value, 6) + " / " + significant(source.sm_count.value, 6) +
                           " SMs x " + clock_text +
                           (result.assumed ? " (per-SM rate taken equal across compute capabilities " +
                                                 source.compute_capability + " and " + target.compute_capability + ")"
                                           : "");
            return result;
    }
}

double target_clock(const kernel_roofline& roof, const gpu_spec& source, const gpu_spec& target,
                    const projection_options& options) {
    if (options.target_sm_clock_hz > 0) return options.target_sm_clock_hz;
    return target.boost_clock_mhz.value / source.boost_clock_mhz.value * roof.sm_clock_hz;
}

}  // namespace

const char* name(projection_basis basis) { return basis == projection_basis::floor ? "floor" : "busy"; }

const char* name(projection_kind kind) {
    switch (kind) {
        case projection_kind::scaled:
            return "scaled";
        case projection_kind::unchanged:
            return "unchanged";
        case projection_kind::unprojected:
            return "unprojected";
    }
    return "unprojected";
}

kernel_projection project_kernel(const kernel_result& kernel, const gpu_spec& source, const gpu_spec& target,
                                 const projection_options& options) {
    kernel_projection projection;
    projection.kernel = kernel.group.name;
    projection.launches = kernel.group.launches;
    projection.source_bound = kernel.verdict.bound;
    const kernel_roofline& roof = kernel.roof;
    projection.measured_ns = roof.duration_ns;
    projection.projected_ns = roof.duration_ns;
    if (!roof.placed) {
        projection.why = "not placed on the source GPU (" + lacking_text(roof.missing) + "): kept as measured";
        return projection;
    }
    projection.source_sm_clock_hz = roof.sm_clock_hz;
    projection.target_sm_clock_hz = target_clock(roof, source, target, options);
    std::string missing;
    for (const auto& usage : roof.resources) {
        if (!info(usage.id).in_floor || (usage.useful <= 0.0 && usage.utilisation <= 0.0)) continue;
        const peak_ratio pr =
            ratio_of(usage, source, target, projection.source_sm_clock_hz, projection.target_sm_clock_hz);
        if (pr.missing) {
            missing += (missing.empty() ? "" : "; ") + pr.basis;
            continue;
        }
        resource_projection rp;
        rp.id = usage.id;
        rp.peak_ratio = pr.ratio;
        rp.peak_basis = pr.basis;
        rp.peak_assumed = pr.assumed;
        rp.source_practical = usage.practical;
        rp.target_practical = practical_share_of(target, usage.id).share;
        rp.source_floor_ns = usage.floor_ns;
        rp.target_floor_ns = usage.useful * roof.duration_ns / pr.ratio / rp.target_practical;
        rp.source_busy_ns = usage.utilisation * roof.duration_ns / usage.practical;
        rp.target_busy_ns = usage.utilisation * roof.duration_ns / pr.ratio / rp.target_practical;
        projection.resources.push_back(std::move(rp));
    }
    const resource_projection *floor_s = nullptr, *floor_t = nullptr, *busy_s = nullptr, *busy_t = nullptr;
    for (const auto& rp : projection.resources) {
        if (!floor_s || rp.source_floor_ns > floor_s->source_floor_ns) floor_s = &rp;
        if (!floor_t || rp.target_floor_ns > floor_t->target_floor_ns) floor_t = &rp;
        if (!busy_s || rp.source_busy_ns > busy_s->source_busy_ns) busy_s = &rp;
        if (!busy_t || rp.target_busy_ns > busy_t->target_busy_ns) busy_t = &rp;
    }
    if (floor_s) {
        projection.source_floor_ns = floor_s->source_floor_ns;
        projection.target_floor_ns = floor_t->target_floor_ns;
        projection.source_busy_ns = busy_s->source_busy_ns;
        projection.target_busy_ns = busy_t->target_busy_ns;
    }
    // Near its floor a kernel is limited by its useful work; further away, by the waste its busiest
    // unit carries (the same code carries the same waste to the target).
    const double near_floor = classify_thresholds{}.near_roof;
    projection.basis = roof.roof_share() >= near_floor ? projection_basis::floor : projection_basis::busy;
    const bool by_floor = projection.basis == projection_basis::floor;
    if (floor_s) {
        projection.source_binding = (by_floor ? floor_s : busy_s)->id;
        projection.target_binding = (by_floor ? floor_t : busy_t)->id;
    }
    projection.binding_changes = projection.source_binding != projection.target_binding;
    const bound verdict_bound = kernel.verdict.bound;
    if (verdict_bound == bound::latency || verdict_bound == bound::small_grid || verdict_bound == bound::launch) {
        projection.kind = projection_kind::unchanged;
        projection.why =
            std::string(name(verdict_bound)) + "-bound on the source GPU (" + format_percent(roof.roof_share()) +
            " of its practical floor): its time is set by latencies, the grid or launch overhead, not by a peak, "
            "so it is "
            "projected unchanged";
        return projection;
    }
    if (!missing.empty()) {
        projection.why = missing + ": kept as measured";
        return projection;
    }
    const double from = by_floor ? projection.source_floor_ns : projection.source_busy_ns;
    const double to = by_floor ? projection.target_floor_ns : projection.target_busy_ns;
    if (!floor_s || from <= 0.0) {
        projection.why = "no resource with a floor on the source GPU: kept as measured";
        return projection;
    }
    projection.kind = projection_kind::scaled;
    projection.projected_ns = projection.measured_ns * to / from;
    projection.why =
        std::string(name(verdict_bound)) + "-bound at " + format_percent(roof.roof_share()) +
        " of its practical floor" +
        (by_floor ? ": measured x target floor / source floor (" + format_duration_ns(to) + " / " +
                        format_duration_ns(from) + ")"
                  : ", under " + format_percent(near_floor) +
                        ", so its time is the waste its busiest unit carries: measured x target busy time / source "
                        "busy time (" +
                        format_duration_ns(to) + " / " + format_duration_ns(from) + ")");
    return projection;
}

workload_projection project_workload(std::vector<kernel_projection> kernels, const gpu_spec& source,
                                     const gpu_spec& target, const projection_options& options) {
    workload_projection workload;
    workload.source_gpu = source.name;
    workload.target_gpu = target.name;
    workload.kernels = std::move(kernels);
    for (const auto& kernel : workload.kernels) {
        workload.measured_ns += kernel.measured_ns;
        workload.projected_ns += kernel.projected_ns;
    }
    // Figures of either spec that are neither published nor measured (hwspecs "estimated": true): named with
    // every projection that may rest on them.
    std::string estimated;
    for (const gpu_spec* spec : {&source, &target}) {
        auto note = [&](bool is_estimated, std::optional<double> value, const std::string& what) {
            if (is_estimated && value)
                estimated += (estimated.empty() ? "" : "; ") + spec->name + " " + what + " " + significant(*value, 6);
        };
        for (const auto& [precision, peak] : spec->peaks_tflops)
            note(peak.estimated, peak.value, std::string(name(precision)) + " TFLOP/s");
        note(spec->dram_bandwidth_tbs.estimated, spec->dram_bandwidth_tbs.value, "DRAM TB/s");
        note(spec->l2_bytes_per_clock.estimated, spec->l2_bytes_per_clock.value, "L2 bytes/clock");
        note(spec->l1_bytes_per_clock_per_sm.estimated, spec->l1_bytes_per_clock_per_sm.value, "L1 bytes/clock/SM");
    }
    workload.assumptions = {
        "Same code, same traffic, same share of the practical peak: each kernel does the same work (FLOPs per "
        "precision, bytes per "
        "memory level, pipe instructions) on " +
            target.name + " and stays as far from its roof as on " + source.name +
            ", so projected = measured x floor on the target / floor on the source, each floor the largest over the "
            "resources of "
            "useful work / (peak x practical share).",
        "Peaks are the two spec files' figures (datasheet against datasheet); cache and pipe peaks scale with SM count "
        "and SM clock, "
        "and a figure one spec lacks is taken equal on both (marked).",
        options.target_sm_clock_hz > 0
            ? "The target runs at an SM clock of " + mhz(options.target_sm_clock_hz) + " (--sm-clock)."
            : "The target runs at the same share of its boost clock (" + significant(target.boost_clock_mhz.value, 6) +
                  " MHz) as the capture ran of the source's (" + significant(source.boost_clock_mhz.value, 6) +
                  " MHz); ncu locks clocks to base, and the two GPUs' base clocks may differ: --sm-clock states the "
                  "target's.",
        "Practical shares are each GPU's own (hwspecs practical_fraction, or the stated default where the GPU has none "
        "measured).",
        "A kernel under 60% of its practical floor (the near-roof line of the classification) spends its time on waste "
        "(replays, "
        "excess sectors, bank conflicts) that the same code carries to the target: its time scales with its busy times "
        "(busy share "
        "x duration / practical share) instead of its floors.",
        "Kernels bound by latency, a small grid or launch overhead are far from every roof: peaks do not set their "
        "time, so they are "
        "projected unchanged and flagged; so are kernels the model cannot place or that use a roof the target lacks.",
        "Cache capacity is not modelled: a working set that fits one GPU's L2 and not the other's changes the traffic, "
        "and the "
        "projection with it."};
    if (!estimated.empty())
        workload.assumptions.push_back(
            "Estimated figures (neither published nor measured: hwspecs \"estimated\": true), used wherever a "
            "kernel's floor rests on them: " +
            estimated + ".");
    return workload;
}

}  // namespace roofline
