#include "models/classify.hpp"

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

double pressure(const resource_use& r) { return r.practical > 0 ? r.utilisation / r.practical : r.utilisation; }

const resource_use* best(const kernel_roofline& k, bool (*pick)(const resource_use&)) {
    const resource_use* b = nullptr;
    for (const auto& r : k.resources)
        if (pick(r) && (!b || pressure(r) > pressure(*b))) b = &r;
    return b;
}

std::string pressure_text(const resource_use& r) {
    return pct(r.utilisation) + " busy" + (r.practical < 1.0 ? ", " + pct(pressure(r)) + " of its practical share" : std::string());
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
    // Issue slots carry floors, not a verdict: what fills them is named by a pipe or the SM.
    const resource_use* comp = best(k, [](const resource_use& r) { return r.kind == resource_kind::compute && r.id != "issue"; });
    double mu = mem ? pressure(*mem) : 0.0, cu = comp ? pressure(*comp) : 0.0;
    if (std::max(mu, cu) >= t.near_roof) {
        if (mu >= cu) {
            c.bound = "memory";
            c.limiter = mem->id;
            c.reasons.push_back(mem->id + " runs at " + pressure_text(*mem) + " (" + mem->formula + "), at or above the " +
                                pct(t.near_roof) + " that counts as near a roof, and above every compute unit (best " +
                                (comp ? comp->id + " at " + pressure_text(*comp) : std::string("none measured")) + ")");
            for (const char* lower : {"dram", "l2"}) {
                if (lower == mem->id) break;
                const resource_use* r = k.find(lower);
                if (r && pressure(*r) >= t.prefer_lower_level * mu) {
                    c.limiter = r->id;
                    c.reasons.push_back(r->id + " runs at " + pressure_text(*r) + ", at least " + pct(t.prefer_lower_level) + " of " +
                                        mem->id + "'s load: the traffic comes from " + r->id + ", so it is named as the limiter");
                    break;
                }
            }
            return c;
        }
        c.bound = "compute";
        // Name the most specific unit that explains most of the SM's load: a precision first
        // (a FLOP roof), then a pipe, else the SM as a whole (issue-bound). The MMA pipe names
        // the tensor precision with the most FLOPs: its cycles are that precision's work.
        const resource_use* prec = best(k, [](const resource_use& r) { return r.is_precision; });
        const resource_use* pipe = best(k, [](const resource_use& r) { return r.id.rfind("pipe_", 0) == 0; });
        const resource_use* named = comp;
        if (prec && pressure(*prec) >= t.specific_share * cu) named = prec;
        else if (pipe && pressure(*pipe) >= t.specific_share * cu) named = pipe;
        if (named->id == "pipe_tensor") {
            const resource_use* most = nullptr;
            for (const auto& r : k.resources)
                if (r.is_precision && r.id.rfind("tensor_", 0) == 0 && (!most || r.work > most->work)) most = &r;
            if (most) {
                c.limiter = most->id;
                c.reasons.push_back(comp->id + " runs at " + pressure_text(*comp) + " (" + comp->formula + "), above every memory level (best " +
                                    (mem ? mem->id + " at " + pressure_text(*mem) : std::string("none measured")) + ")");
                c.reasons.push_back("the tensor pipe's MMA cycles carry " + pct(named->utilisation) + ", and its work is " + most->id +
                                    " (" + pct(most->useful) + " of that precision's fastest-path peak), so " + most->id + " is named as the limiter");
                return c;
            }
        }
        c.limiter = named->id;
        c.reasons.push_back(comp->id + " runs at " + pressure_text(*comp) + " (" + comp->formula + "), above every memory level (best " +
                            (mem ? mem->id + " at " + pressure_text(*mem) : std::string("none measured")) + ")");
        if (named != comp)
            c.reasons.push_back(named->id + " carries " + pressure_text(*named) + ", at least " + pct(t.specific_share) +
                                " of that, so it is named as the limiter");
        else if (comp->id == "sm")
            c.reasons.push_back("no single precision or pipe reaches " + pct(t.specific_share) +
                                " of the SM's utilisation (or the export has none per pipe: the details page does not), so the SM as a whole is named");
        return c;
    }
    const resource_use* busiest = std::max(mu, cu) > 0 ? (mu >= cu ? mem : comp) : nullptr;
    std::string below = "no resource reaches " + pct(t.near_roof) + " of its practical share (busiest: " +
                        (busiest ? busiest->id + " at " + pressure_text(*busiest) : std::string("none")) + ")";
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
