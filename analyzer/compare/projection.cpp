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
peak_ratio ratio_of(const resource_use& r, const gpu_spec& s, const gpu_spec& t, double clk_s, double clk_t) {
    peak_ratio p;
    const double clocks = clk_t / clk_s;
    const double sms = t.sm_count.value / s.sm_count.value;
    const std::string clock_text = mhz(clk_t) + " / " + mhz(clk_s);
    if (info(r.id).precision) {
        auto pt = spec_peak_per_second(t, r.id, clk_t);
        auto ps = spec_peak_per_second(s, r.id, clk_s);
        if (!pt) {
            p.missing = true;
            p.basis = t.name + " has no " + std::string(name(r.id)) + " roof in its spec";
            return p;
        }
        if (!ps && r.peak <= 0) {
            p.missing = true;
            p.basis = s.name + " has no " + std::string(name(r.id)) + " peak to scale from";
            return p;
        }
        p.ratio = *pt / (ps ? *ps : r.peak);
        p.basis = format_si(*pt, "FLOP/s") + " / " + format_si(ps ? *ps : r.peak, "FLOP/s") + " (spec peaks at " +
                  clock_text + ")";
        return p;
    }
    switch (r.id) {
        case resource::dram:
            p.ratio = t.dram_bandwidth_tbs.value / s.dram_bandwidth_tbs.value;
            p.basis = significant(t.dram_bandwidth_tbs.value, 4) + " / " + significant(s.dram_bandwidth_tbs.value, 4) +
                      " TB/s (spec DRAM bandwidths; the DRAM clock is not the SM's)";
            return p;
        case resource::l2:
            if (t.l2_bytes_per_clock.value && s.l2_bytes_per_clock.value) {
                p.ratio = *t.l2_bytes_per_clock.value / *s.l2_bytes_per_clock.value * clocks;
                p.basis = significant(*t.l2_bytes_per_clock.value, 6) + " / " +
                          significant(*s.l2_bytes_per_clock.value, 6) + " B/clock x " + clock_text;
            } else {
                p.ratio = clocks;
                p.assumed = true;
                p.basis = "L2 bytes per clock taken equal (a spec lacks them) x " + clock_text;
            }
            return p;
        case resource::l1:
            if (t.l1_bytes_per_clock_per_sm.value && s.l1_bytes_per_clock_per_sm.value) {
                p.ratio = *t.l1_bytes_per_clock_per_sm.value / *s.l1_bytes_per_clock_per_sm.value * sms * clocks;
                p.basis = significant(*t.l1_bytes_per_clock_per_sm.value, 6) + " / " +
                          significant(*s.l1_bytes_per_clock_per_sm.value, 6) + " B/clock/SM x " +
                          significant(t.sm_count.value, 6) + " / " + significant(s.sm_count.value, 6) + " SMs x " +
                          clock_text;
            } else {
                p.ratio = sms * clocks;
                p.assumed = true;
                p.basis = "L1 bytes per clock per SM taken equal (a spec lacks them) x " +
                          significant(t.sm_count.value, 6) + " / " + significant(s.sm_count.value, 6) + " SMs x " +
                          clock_text;
            }
            return p;
        default:
            // Pipes and issue slots: per-SM rates of the same architecture, so SMs x clock.
            p.ratio = sms * clocks;
            p.assumed = t.compute_capability != s.compute_capability;
            p.basis = significant(t.sm_count.value, 6) + " / " + significant(s.sm_count.value, 6) + " SMs x " +
                      clock_text +
                      (p.assumed ? " (per-SM rate taken equal across compute capabilities " + s.compute_capability +
                                       " and " + t.compute_capability + ")"
                                 : "");
            return p;
    }
}

double target_clock(const kernel_roofline& roof, const gpu_spec& s, const gpu_spec& t, const projection_options& o) {
    if (o.target_sm_clock_hz > 0) return o.target_sm_clock_hz;
    return t.boost_clock_mhz.value / s.boost_clock_mhz.value * roof.sm_clock_hz;
}

}  // namespace

const char* name(projection_basis b) { return b == projection_basis::floor ? "floor" : "busy"; }

const char* name(projection_kind k) {
    switch (k) {
        case projection_kind::scaled:
            return "scaled";
        case projection_kind::unchanged:
            return "unchanged";
        case projection_kind::unprojected:
            return "unprojected";
    }
    return "unprojected";
}

kernel_projection project_kernel(const kernel_result& k, const gpu_spec& source, const gpu_spec& target,
                                 const projection_options& o) {
    kernel_projection p;
    p.kernel = k.group.name;
    p.launches = k.group.launches;
    p.source_bound = k.verdict.bound;
    const kernel_roofline& roof = k.roof;
    p.measured_ns = roof.duration_ns;
    p.projected_ns = roof.duration_ns;
    if (!roof.placed) {
        p.why = "not placed on the source GPU (" + lacking_text(roof.missing) + "): kept as measured";
        return p;
    }
    p.source_sm_clock_hz = roof.sm_clock_hz;
    p.target_sm_clock_hz = target_clock(roof, source, target, o);
    std::string missing;
    for (const auto& r : roof.resources) {
        if (!info(r.id).in_floor || (r.useful <= 0.0 && r.utilisation <= 0.0)) continue;
        const peak_ratio pr = ratio_of(r, source, target, p.source_sm_clock_hz, p.target_sm_clock_hz);
        if (pr.missing) {
            missing += (missing.empty() ? "" : "; ") + pr.basis;
            continue;
        }
        resource_projection rp;
        rp.id = r.id;
        rp.peak_ratio = pr.ratio;
        rp.peak_basis = pr.basis;
        rp.peak_assumed = pr.assumed;
        rp.source_practical = r.practical;
        rp.target_practical = practical_share_of(target, r.id).share;
        rp.source_floor_ns = r.floor_ns;
        rp.target_floor_ns = r.useful * roof.duration_ns / pr.ratio / rp.target_practical;
        rp.source_busy_ns = r.utilisation * roof.duration_ns / r.practical;
        rp.target_busy_ns = r.utilisation * roof.duration_ns / pr.ratio / rp.target_practical;
        p.resources.push_back(std::move(rp));
    }
    const resource_projection *floor_s = nullptr, *floor_t = nullptr, *busy_s = nullptr, *busy_t = nullptr;
    for (const auto& rp : p.resources) {
        if (!floor_s || rp.source_floor_ns > floor_s->source_floor_ns) floor_s = &rp;
        if (!floor_t || rp.target_floor_ns > floor_t->target_floor_ns) floor_t = &rp;
        if (!busy_s || rp.source_busy_ns > busy_s->source_busy_ns) busy_s = &rp;
        if (!busy_t || rp.target_busy_ns > busy_t->target_busy_ns) busy_t = &rp;
    }
    if (floor_s) {
        p.source_floor_ns = floor_s->source_floor_ns;
        p.target_floor_ns = floor_t->target_floor_ns;
        p.source_busy_ns = busy_s->source_busy_ns;
        p.target_busy_ns = busy_t->target_busy_ns;
    }
    // Near its floor a kernel is limited by its useful work; further away, by the waste its busiest
    // unit carries (the same code carries the same waste to the target).
    const double near_floor = classify_thresholds{}.near_roof;
    p.basis = roof.roof_share() >= near_floor ? projection_basis::floor : projection_basis::busy;
    const bool by_floor = p.basis == projection_basis::floor;
    if (floor_s) {
        p.source_binding = (by_floor ? floor_s : busy_s)->id;
        p.target_binding = (by_floor ? floor_t : busy_t)->id;
    }
    p.binding_changes = p.source_binding != p.target_binding;
    const bound b = k.verdict.bound;
    if (b == bound::latency || b == bound::small_grid || b == bound::launch) {
        p.kind = projection_kind::unchanged;
        p.why = std::string(name(b)) + "-bound on the source GPU (" + format_percent(roof.roof_share()) +
                " of its practical floor): its time is set by latencies, the grid or launch overhead, not by a peak, "
                "so it is "
                "projected unchanged";
        return p;
    }
    if (!missing.empty()) {
        p.why = missing + ": kept as measured";
        return p;
    }
    const double from = by_floor ? p.source_floor_ns : p.source_busy_ns;
    const double to = by_floor ? p.target_floor_ns : p.target_busy_ns;
    if (!floor_s || from <= 0.0) {
        p.why = "no resource with a floor on the source GPU: kept as measured";
        return p;
    }
    p.kind = projection_kind::scaled;
    p.projected_ns = p.measured_ns * to / from;
    p.why = std::string(name(b)) + "-bound at " + format_percent(roof.roof_share()) + " of its practical floor" +
            (by_floor ? ": measured x target floor / source floor (" + format_duration_ns(to) + " / " +
                            format_duration_ns(from) + ")"
                      : ", under " + format_percent(near_floor) +
                            ", so its time is the waste its busiest unit carries: measured x target busy time / source "
                            "busy time (" +
                            format_duration_ns(to) + " / " + format_duration_ns(from) + ")");
    return p;
}

workload_projection project_workload(std::vector<kernel_projection> kernels, const gpu_spec& source,
                                     const gpu_spec& target, const projection_options& o) {
    workload_projection w;
    w.source_gpu = source.name;
    w.target_gpu = target.name;
    w.kernels = std::move(kernels);
    for (const auto& k : w.kernels) {
        w.measured_ns += k.measured_ns;
        w.projected_ns += k.projected_ns;
    }
    // Figures of either spec that are neither published nor measured (hwspecs "estimated": true): named with
    // every projection that may rest on them.
    std::string estimated;
    for (const gpu_spec* g : {&source, &target}) {
        auto note = [&](bool is_estimated, std::optional<double> v, const std::string& what) {
            if (is_estimated && v)
                estimated += (estimated.empty() ? "" : "; ") + g->name + " " + what + " " + significant(*v, 6);
        };
        for (const auto& [r, n] : g->peaks_tflops) note(n.estimated, n.value, std::string(name(r)) + " TFLOP/s");
        note(g->dram_bandwidth_tbs.estimated, g->dram_bandwidth_tbs.value, "DRAM TB/s");
        note(g->l2_bytes_per_clock.estimated, g->l2_bytes_per_clock.value, "L2 bytes/clock");
        note(g->l1_bytes_per_clock_per_sm.estimated, g->l1_bytes_per_clock_per_sm.value, "L1 bytes/clock/SM");
    }
    w.assumptions = {
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
        o.target_sm_clock_hz > 0
            ? "The target runs at an SM clock of " + mhz(o.target_sm_clock_hz) + " (--sm-clock)."
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
        w.assumptions.push_back(
            "Estimated figures (neither published nor measured: hwspecs \"estimated\": true), used wherever a "
            "kernel's floor rests on them: " +
            estimated + ".");
    return w;
}

}  // namespace roofline
