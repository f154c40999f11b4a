#include "models/classify.hpp"

#include "analyzer/base/format.hpp"

namespace roofline {
namespace {

std::string pct(double u) { return format_percent(u); }
std::string num(double v) { return format_number(v); }
std::string id(const resource_use& r) { return name(r.id); }

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
        c.bound = bound::unknown;
        c.reasons.push_back("the capture lacks " + k.missing);
        return c;
    }
    const resource_use* mem = best(k, [](const resource_use& r) { return info(r.id).kind == resource_kind::memory; });
    // Issue slots carry floors, not a verdict: what fills them is named by a pipe or the SM.
    const resource_use* comp =
        best(k, [](const resource_use& r) { return info(r.id).kind == resource_kind::compute && r.id != resource::issue; });
    double mu = mem ? pressure(*mem) : 0.0, cu = comp ? pressure(*comp) : 0.0;
    if (std::max(mu, cu) >= t.near_roof) {
        if (mu >= cu) {
            c.bound = bound::memory;
            c.limiter = mem->id;
            c.reasons.push_back(id(*mem) + " runs at " + pressure_text(*mem) + " (" + mem->formula + "), at or above the " +
                                pct(t.near_roof) + " that counts as near a roof, and above every compute unit (best " +
                                (comp ? id(*comp) + " at " + pressure_text(*comp) : std::string("none measured")) + ")");
            for (resource lower : {resource::dram, resource::l2}) {
                if (lower == mem->id) break;
                const resource_use* r = k.find(lower);
                if (r && pressure(*r) >= t.prefer_lower_level * mu) {
                    c.limiter = r->id;
                    c.reasons.push_back(id(*r) + " runs at " + pressure_text(*r) + ", at least " + pct(t.prefer_lower_level) + " of " +
                                        id(*mem) + "'s load: the traffic comes from " + id(*r) + ", so it is named as the limiter");
                    break;
                }
            }
            return c;
        }
        c.bound = bound::compute;
        // Name the most specific unit that explains most of the SM's load: a precision first
        // (a FLOP roof), then a pipe, else the SM as a whole (issue-bound). The MMA pipe names
        // the tensor precision with the most FLOPs: its cycles are that precision's work.
        const resource_use* prec = best(k, [](const resource_use& r) { return info(r.id).precision; });
        const resource_use* pipe = best(k, [](const resource_use& r) { return info(r.id).pipe; });
        const resource_use* named = comp;
        if (prec && pressure(*prec) >= t.specific_share * cu)
            named = prec;
        else if (pipe && pressure(*pipe) >= t.specific_share * cu)
            named = pipe;
        if (named->id == resource::pipe_tensor) {
            const resource_use* most = nullptr;
            for (const auto& r : k.resources)
                if (info(r.id).tensor && (!most || r.work > most->work)) most = &r;
            if (most) {
                c.limiter = most->id;
                c.reasons.push_back(id(*comp) + " runs at " + pressure_text(*comp) + " (" + comp->formula +
                                    "), above every memory level (best " +
                                    (mem ? id(*mem) + " at " + pressure_text(*mem) : std::string("none measured")) + ")");
                c.reasons.push_back("the tensor pipe's MMA cycles carry " + pct(named->utilisation) + ", and its work is " + id(*most) +
                                    " (" + pct(most->useful) + " of that precision's fastest-path peak), so " + id(*most) +
                                    " is named as the limiter");
                return c;
            }
        }
        c.limiter = named->id;
        c.reasons.push_back(id(*comp) + " runs at " + pressure_text(*comp) + " (" + comp->formula + "), above every memory level (best " +
                            (mem ? id(*mem) + " at " + pressure_text(*mem) : std::string("none measured")) + ")");
        if (named != comp)
            c.reasons.push_back(id(*named) + " carries " + pressure_text(*named) + ", at least " + pct(t.specific_share) +
                                " of that, so it is named as the limiter");
        else if (comp->id == resource::sm)
            c.reasons.push_back(
                "no single precision or pipe reaches " + pct(t.specific_share) +
                " of the SM's utilisation (or the export has none per pipe: the details page does not), so the SM as a whole is named");
        return c;
    }
    const resource_use* busiest = std::max(mu, cu) > 0 ? (mu >= cu ? mem : comp) : nullptr;
    std::string below = "no resource reaches " + pct(t.near_roof) + " of its practical share (busiest: " +
                        (busiest ? id(*busiest) + " at " + pressure_text(*busiest) : std::string("none")) + ")";
    double per_launch_ns = k.duration_ns / double(shape.launches ? shape.launches : 1);
    if (per_launch_ns < t.launch_ns) {
        c.bound = bound::launch;
        c.reasons.push_back(below);
        c.reasons.push_back("each launch lasts " + num(per_launch_ns / 1000.0) + " us on average, under the " + num(t.launch_ns / 1000.0) +
                            " us where launch overhead is of the same size as the work");
        return c;
    }
    bool few_blocks = shape.grid_blocks > 0 && shape.sm_count > 0 && shape.grid_blocks < shape.sm_count;
    bool under_wave = shape.waves > 0 && shape.waves < 1.0;
    if (few_blocks || under_wave) {
        c.bound = bound::small_grid;
        c.reasons.push_back(below);
        if (few_blocks)
            c.reasons.push_back("the grid has " + num(shape.grid_blocks) + " blocks for " + num(shape.sm_count) + " SMs, so " +
                                num(shape.sm_count - shape.grid_blocks) + " SMs have nothing to do");
        else
            c.reasons.push_back("the grid fills " + num(shape.waves) + " of one wave (launch__waves_per_multiprocessor)");
        return c;
    }
    c.bound = bound::latency;
    c.reasons.push_back(below);
    c.reasons.push_back("the grid fills the GPU (" + num(shape.grid_blocks) + " blocks, " + num(shape.waves) +
                        " waves), so the warps wait on latency rather than on a unit's throughput");
    return c;
}

std::string verdict_text(const classification& c, const char* separator) {
    return c.limiter ? std::string(name(c.bound)) + separator + name(*c.limiter) : name(c.bound);
}

}  // namespace roofline
