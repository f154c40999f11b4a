#include "classify.hpp"

#include <cstdio>

namespace roofline {
namespace {

std::string pct(double u) {
    char buf[32];
    std::snprintf(buf, sizeof buf, "%.1f%%", u * 100.0);
    return buf;
}

std::string num(double v) {
    char buf[32];
    std::snprintf(buf, sizeof buf, "%.4g", v);
    return buf;
}

const resource_use* best(const kernel_roofline& k, bool (*pick)(const resource_use&)) {
    const resource_use* b = nullptr;
    for (const auto& r : k.resources)
        if (pick(r) && (!b || r.utilisation > b->utilisation)) b = &r;
    return b;
}

}  // namespace

classification classify(const kernel_roofline& k, const launch_shape& shape, const classify_thresholds& t) {
    classification c;
    if (!k.placed) {
        c.bound = "unknown";
        c.reasons.push_back("the capture lacks " + k.missing);
        return c;
    }
    const resource_use* mem = best(k, [](const resource_use& r) { return r.kind == resource_kind::memory; });
    const resource_use* comp = best(k, [](const resource_use& r) { return r.kind == resource_kind::compute; });
    double mu = mem ? mem->utilisation : 0.0, cu = comp ? comp->utilisation : 0.0;
    if (std::max(mu, cu) >= t.near_roof) {
        if (mu >= cu) {
            c.bound = "memory";
            c.limiter = mem->id;
            c.reasons.push_back(mem->id + " runs at " + pct(mu) + " of its peak (" + mem->formula + "), at or above the " +
                                pct(t.near_roof) + " that counts as near a roof, and above every compute unit (best " +
                                (comp ? comp->id + " at " + pct(cu) : std::string("none measured")) + ")");
            for (const char* lower : {"dram", "l2"}) {
                if (lower == mem->id) break;
                const resource_use* r = k.find(lower);
                if (r && r->utilisation >= t.prefer_lower_level * mu) {
                    c.limiter = r->id;
                    c.reasons.push_back(r->id + " runs at " + pct(r->utilisation) + ", at least " + pct(t.prefer_lower_level) + " of " +
                                        mem->id + "'s load: the traffic comes from " + r->id + ", so it is named as the limiter");
                    break;
                }
            }
            return c;
        }
        c.bound = "compute";
        // Name the most specific unit that explains most of the SM's load: a precision first
        // (a FLOP roof), then a pipe, else the SM as a whole (issue-bound).
        const resource_use* prec = best(k, [](const resource_use& r) { return r.is_precision; });
        const resource_use* pipe = best(k, [](const resource_use& r) { return r.id.rfind("pipe_", 0) == 0; });
        const resource_use* named = comp;
        if (prec && prec->utilisation >= t.specific_share * cu) named = prec;
        else if (pipe && pipe->utilisation >= t.specific_share * cu) named = pipe;
        c.limiter = named->id;
        c.reasons.push_back(comp->id + " runs at " + pct(cu) + " of its peak (" + comp->formula + "), above every memory level (best " +
                            (mem ? mem->id + " at " + pct(mu) : std::string("none measured")) + ")");
        if (named != comp)
            c.reasons.push_back(named->id + " carries " + pct(named->utilisation) + ", at least " + pct(t.specific_share) +
                                " of that, so it is named as the limiter");
        else if (comp->id == "sm")
            c.reasons.push_back("no single precision or pipe reaches " + pct(t.specific_share) +
                                " of the SM's utilisation (or the export has none per pipe: the details page does not), so the SM as a whole is named");
        return c;
    }
    std::string below = "no resource reaches " + pct(t.near_roof) + " of its peak (highest: " + (k.binding.empty() ? "none" : k.binding) +
                        " at " + pct(k.pct_of_roof / 100.0) + ")";
    double per_launch_ns = k.duration_ns / double(shape.launches ? shape.launches : 1);
    if (per_launch_ns < t.launch_ns) {
        c.bound = "launch";
        c.reasons.push_back(below);
        c.reasons.push_back("each launch lasts " + num(per_launch_ns / 1000.0) + " us on average, under the " + num(t.launch_ns / 1000.0) +
                            " us where launch overhead is of the same size as the work");
        return c;
    }
    bool few_blocks = shape.grid_blocks > 0 && shape.sm_count > 0 && shape.grid_blocks < shape.sm_count;
    bool under_wave = shape.waves > 0 && shape.waves < 1.0;
    if (few_blocks || under_wave) {
        c.bound = "small_grid";
        c.reasons.push_back(below);
        if (few_blocks)
            c.reasons.push_back("the grid has " + num(shape.grid_blocks) + " blocks for " + num(shape.sm_count) + " SMs, so " +
                                num(shape.sm_count - shape.grid_blocks) + " SMs have nothing to do");
        else
            c.reasons.push_back("the grid fills " + num(shape.waves) + " of one wave (launch__waves_per_multiprocessor)");
        return c;
    }
    c.bound = "latency";
    c.reasons.push_back(below);
    c.reasons.push_back("the grid fills the GPU (" + num(shape.grid_blocks) + " blocks, " + num(shape.waves) +
                        " waves), so the warps wait on latency rather than on a unit's throughput");
    return c;
}

}  // namespace roofline
