#include "models/classify.hpp"

#include <algorithm>
#include <cmath>

namespace roofline {
namespace {

// A reason built field by field: reason(kind).on(load).against(other).at(threshold)...
struct reason : verdict_reason {
    explicit reason(reason_kind which) { kind = which; }
    reason& on(std::optional<unit_load> measured) {
        unit = std::move(measured);
        return *this;
    }
    reason& against(std::optional<unit_load> compared) {
        other = std::move(compared);
        return *this;
    }
    reason& naming(resource id) {
        named = id;
        return *this;
    }
    reason& of(double amount) {
        value = amount;
        return *this;
    }
    reason& counting(double how_many) {
        count = how_many;
        return *this;
    }
    reason& at(double limit) {
        threshold = limit;
        return *this;
    }
    reason& lacking(lacking_input what) {
        lacks = what;
        return *this;
    }
    reason& or_else(std::vector<std::string> verdicts) {
        alternatives = std::move(verdicts);
        return *this;
    }
};

// The load a reason records of a measured resource.
unit_load load(const resource_use& use) { return {use.id, use.utilisation, use.practical, use.formula}; }
std::optional<unit_load> load_of(const resource_use* use) {
    return use ? std::optional<unit_load>(load(*use)) : std::nullopt;
}

double pressure(const resource_use& use) {
    return use.practical > 0 ? use.utilisation / use.practical : use.utilisation;
}
double pressure_hi(const unmeasured_resource& unmeasured) {
    return unmeasured.practical > 0 ? unmeasured.hi / unmeasured.practical : unmeasured.hi;
}

bool is_memory(resource id) { return info(id).kind == resource_kind::memory; }
// Issue slots carry floors, not a verdict: what fills them is named by a pipe or the SM.
bool is_compute_unit(resource id) { return info(id).kind == resource_kind::compute && id != resource::issue; }

const resource_use* best(const kernel_roofline& roof, bool (*pick)(resource)) {
    const resource_use* top = nullptr;
    for (const auto& use : roof.resources)
        if (pick(use.id) && (!top || pressure(use) > pressure(*top))) top = &use;
    return top;
}

// A measured resource whose share the capture leaves open above what it measured (DRAM without the
// store counter: the writes its stores still owe): the most it may be under, and what would decide it.
double pressure_hi(const resource_use& use) {
    const double hi = std::max(use.utilisation, use.useful);
    return use.practical > 0 ? hi / use.practical : hi;
}
bool open_above(const resource_use& use) { return !use.exact() && use.useful > use.utilisation; }

// What the unmeasured resources of one kind allow, and the measured ones open above what they measured:
// the highest pressure any of them may be under.
double unmeasured_hi(const kernel_roofline& roof, bool (*pick)(resource)) {
    double hi = 0.0;
    for (const auto& unmeasured : roof.unmeasured)
        if (pick(unmeasured.id)) hi = std::max(hi, pressure_hi(unmeasured));
    for (const auto& use : roof.resources)
        if (pick(use.id) && open_above(use)) hi = std::max(hi, pressure_hi(use));
    return hi;
}

// The open possibilities of a verdict, and the counters that would close them.
struct openings {
    classification& verdict;
    const kernel_roofline& roof;
    void bound(roofline::bound value) {
        if (std::find(verdict.possible_bounds.begin(), verdict.possible_bounds.end(), value) ==
            verdict.possible_bounds.end())
            verdict.possible_bounds.push_back(value);
    }
    void limiter(resource id) {
        if (std::find(verdict.possible_limiters.begin(), verdict.possible_limiters.end(), id) ==
            verdict.possible_limiters.end())
            verdict.possible_limiters.push_back(id);
    }
    // An unmeasured resource that could change the verdict: a possible limiter, and what would measure it.
    void could_be(const unmeasured_resource& unmeasured) { could_be(unmeasured.id, unmeasured.missing); }
    void could_be(const resource_use& use) { could_be(use.id, use.missing); }
    void could_be(resource id, const std::vector<pooled_string>& missing) {
        limiter(id);
        for (const auto& missing_metric : missing)
            if (std::find(verdict.missing.begin(), verdict.missing.end(), std::string(missing_metric)) ==
                verdict.missing.end())
                verdict.missing.push_back(missing_metric);
    }
};

// Below every roof: launch overhead, too small a grid, or latency.
roofline::bound below_roofs(const kernel_roofline& roof, const launch_shape& shape,
                            const classify_thresholds& thresholds, std::vector<verdict_reason>* reasons) {
    double per_launch_ns = roof.duration_ns / double(shape.launches ? shape.launches : 1);
    if (per_launch_ns < thresholds.launch_ns) {
        if (reasons) reasons->push_back(reason(reason_kind::short_launches).of(per_launch_ns).at(thresholds.launch_ns));
        return bound::launch;
    }
    // Small grid means idle SMs: fewer blocks than SMs. A grid under one wave with a block for every SM
    // leaves no SM idle, only fewer warps resident than an SM holds: latency, which more warps hide.
    const bool few_blocks = shape.grid_blocks > 0 && shape.sm_count > 0 && shape.grid_blocks < shape.sm_count;
    if (few_blocks) {
        if (reasons) reasons->push_back(reason(reason_kind::idle_sms).of(shape.grid_blocks).counting(shape.sm_count));
        return bound::small_grid;
    }
    if (reasons && shape.waves > 0 && shape.waves < 1.0)
        reasons->push_back(reason(reason_kind::under_one_wave).of(shape.waves));
    if (reasons) reasons->push_back(reason(reason_kind::grid_fills_gpu).of(shape.grid_blocks).counting(shape.waves));
    return bound::latency;
}

void name_memory_limiter(classification& verdict, openings& open, const kernel_roofline& roof, const resource_use* mem,
                         const resource_use* comp, double mu, const classify_thresholds& thresholds) {
    verdict.limiter = mem->id;
    verdict.reasons.push_back(
        reason(reason_kind::memory_near_roof).on(load(*mem)).against(load_of(comp)).at(thresholds.near_roof));
    for (resource lower : {resource::dram, resource::l2}) {
        if (lower == mem->id) break;
        const resource_use* lower_use = roof.find(lower);
        if (lower_use && pressure(*lower_use) >= thresholds.prefer_lower_level * mu) {
            verdict.limiter = lower_use->id;
            verdict.reasons.push_back(reason(reason_kind::lower_level_named)
                                          .on(load(*lower_use))
                                          .against(load(*mem))
                                          .at(thresholds.prefer_lower_level));
            break;
        }
    }
    open.limiter(*verdict.limiter);
    // A memory level without counters that may carry the load, or be the lower level it comes from.
    for (const auto& unmeasured : roof.unmeasured)
        if (is_memory(unmeasured.id) && pressure_hi(unmeasured) >= thresholds.prefer_lower_level * mu)
            open.could_be(unmeasured);
    // A level measured, but open above it, that may carry as much: DRAM owing writes it did not make yet.
    for (const auto& use : roof.resources)
        if (is_memory(use.id) && use.id != *verdict.limiter && open_above(use) &&
            pressure_hi(use) >= thresholds.prefer_lower_level * mu)
            open.could_be(use);
}

void name_compute_limiter(classification& verdict, openings& open, const kernel_roofline& roof, const resource_use* mem,
                          const resource_use* comp, double cu, const classify_thresholds& thresholds) {
    // Name the most specific unit that explains most of the SM's load: a precision first
    // (a FLOP roof), then a pipe, else the SM as a whole (issue-bound). The MMA pipe names
    // the tensor precision with the most FLOPs: its cycles are that precision's work.
    const resource_use* prec = best(roof, [](resource id) { return info(id).precision; });
    const resource_use* pipe = best(roof, [](resource id) { return info(id).pipe; });
    const resource_use* named = comp;
    if (prec && pressure(*prec) >= thresholds.specific_share * cu)
        named = prec;
    else if (pipe && pressure(*pipe) >= thresholds.specific_share * cu)
        named = pipe;
    // A precision or pipe without counters that may reach the share that would name it instead.
    const bool named_precision = info(named->id).precision;
    for (const auto& unmeasured : roof.unmeasured)
        if ((info(unmeasured.id).precision || (info(unmeasured.id).pipe && !named_precision)) &&
            pressure_hi(unmeasured) >= thresholds.specific_share * cu)
            open.could_be(unmeasured);
    const verdict_reason above = reason(reason_kind::compute_near_roof).on(load(*comp)).against(load_of(mem));
    if (named->id == resource::pipe_tensor) {
        const resource_use* most = nullptr;
        for (const auto& use : roof.resources)
            if (info(use.id).tensor && (!most || use.work > most->work)) most = &use;
        if (most) {
            verdict.limiter = most->id;
            open.limiter(most->id);
            verdict.reasons.push_back(above);
            verdict.reasons.push_back(
                reason(reason_kind::tensor_precision).on(load(*named)).naming(most->id).of(most->useful));
            return;
        }
    }
    verdict.limiter = named->id;
    open.limiter(named->id);
    verdict.reasons.push_back(above);
    if (named != comp)
        verdict.reasons.push_back(reason(reason_kind::specific_unit).on(load(*named)).at(thresholds.specific_share));
    else if (comp->id == resource::sm)
        verdict.reasons.push_back(reason(reason_kind::sm_as_whole).at(thresholds.specific_share));
}

}  // namespace

namespace {

classification classify_once(const kernel_roofline& roof, const launch_shape& shape,
                             const classify_thresholds& thresholds) {
    classification verdict;
    openings open{verdict, roof};
    if (!roof.placed) {
        verdict.bound = bound::unknown;
        verdict.reasons.push_back(reason(reason_kind::not_placed).lacking(roof.missing));
        return verdict;
    }
    const resource_use* mem = best(roof, is_memory);
    const resource_use* comp = best(roof, is_compute_unit);
    const double mu = mem ? pressure(*mem) : 0.0, cu = comp ? pressure(*comp) : 0.0;
    // What the resources without counters allow: each may be as busy as its speed of light.
    const double mu_hi = std::max(mu, unmeasured_hi(roof, is_memory)),
                 cu_hi = std::max(cu, unmeasured_hi(roof, is_compute_unit));
    const bool near = std::max(mu, cu) >= thresholds.near_roof;
    const bool maybe_near = std::max(mu_hi, cu_hi) >= thresholds.near_roof;
    if (near || maybe_near) {
        // Memory where its measured load is the larger, compute otherwise; each other side is open
        // where unmeasured units may outweigh it.
        const bool memory_wins = mu >= cu && mem && mu >= thresholds.near_roof;
        const bool compute_wins = cu > mu && comp && cu >= thresholds.near_roof;
        const bool memory_open = mu_hi >= thresholds.near_roof && mu_hi >= cu;
        const bool compute_open = cu_hi >= thresholds.near_roof && cu_hi > mu;
        if (memory_wins || (!near && memory_open)) open.bound(bound::memory);
        if (compute_wins || (!near && compute_open)) open.bound(bound::compute);
        if (memory_wins && compute_open) open.bound(bound::compute);
        if (compute_wins && memory_open) open.bound(bound::memory);
        if (!near) open.bound(below_roofs(roof, shape, thresholds, nullptr));
        for (const auto& unmeasured : roof.unmeasured) {
            const bool compute_side = is_compute_unit(unmeasured.id);
            if (!compute_side && !is_memory(unmeasured.id)) continue;
            const double hi = pressure_hi(unmeasured);
            if (hi >= thresholds.near_roof && hi >= (compute_side ? mu : cu) &&
                (compute_side ? !compute_wins : !memory_wins))
                open.could_be(unmeasured);
        }
        for (const auto& use : roof.resources)
            if (is_memory(use.id) && open_above(use) && !memory_wins && pressure_hi(use) >= thresholds.near_roof &&
                pressure_hi(use) >= cu)
                open.could_be(use);
        if (verdict.possible_bounds.size() == 1 && memory_wins) {
            verdict.bound = bound::memory;
            name_memory_limiter(verdict, open, roof, mem, comp, mu, thresholds);
        } else if (verdict.possible_bounds.size() == 1 && compute_wins) {
            verdict.bound = bound::compute;
            name_compute_limiter(verdict, open, roof, mem, comp, cu, thresholds);
        } else {
            // Each side that stays possible: every limiter it could name is possible too (its measured leader, a
            // lower memory level, a precision or pipe without counters busy enough to be the one named), as the
            // verdict would name it if that side won.
            const auto side_limiters = [&](auto name_limiter) {
                classification scratch;
                openings scratch_open{scratch, roof};
                name_limiter(scratch, scratch_open);
                for (resource id : scratch.possible_limiters) open.limiter(id);
                for (const auto& metric_id : scratch.missing)
                    if (std::find(verdict.missing.begin(), verdict.missing.end(), metric_id) == verdict.missing.end())
                        verdict.missing.push_back(metric_id);
            };
            if (mem && std::find(verdict.possible_bounds.begin(), verdict.possible_bounds.end(), bound::memory) !=
                           verdict.possible_bounds.end())
                side_limiters([&](classification& scratch, openings& scratch_open) {
                    name_memory_limiter(scratch, scratch_open, roof, mem, comp, mu, thresholds);
                });
            if (comp && std::find(verdict.possible_bounds.begin(), verdict.possible_bounds.end(), bound::compute) !=
                            verdict.possible_bounds.end())
                side_limiters([&](classification& scratch, openings& scratch_open) {
                    name_compute_limiter(scratch, scratch_open, roof, mem, comp, cu, thresholds);
                });
            verdict.bound = bound::unknown;
            verdict.reasons.push_back(reason(reason_kind::bound_open)
                                          .on(std::max(mu, cu) > 0 ? load_of(mu >= cu ? mem : comp) : std::nullopt));
        }
        if (verdict.possible_limiters.size() > 1) {
            verdict.reasons.push_back(reason(reason_kind::limiter_open));
            verdict.limiter.reset();
        }
        return verdict;
    }
    const resource_use* busiest = std::max(mu, cu) > 0 ? (mu >= cu ? mem : comp) : nullptr;
    verdict.reasons.push_back(reason(reason_kind::below_every_roof).on(load_of(busiest)).at(thresholds.near_roof));
    verdict.bound = below_roofs(roof, shape, thresholds, &verdict.reasons);
    open.bound(verdict.bound);
    return verdict;
}

}  // namespace

classification classify(const kernel_roofline& roof, const launch_shape& shape, const classify_thresholds& thresholds) {
    classification verdict = classify_once(roof, shape, thresholds);
    if (!verdict.decided() || !roof.placed) return verdict;
    // Ties: where one measured busy share moved by run-to-run noise, up or down, names another limiter
    // (a nearer level, the other side of memory against compute, a threshold crossed), that limiter is
    // named beside this one: another capture of the same program may name it.
    std::vector<std::string> alternatives;
    kernel_roofline moved = roof;  // one share moved at a time, put back after
    for (std::size_t i = 0; i < roof.resources.size(); ++i)
        for (double move : {1.0 + run_to_run_noise, 1.0 - run_to_run_noise}) {
            if (roof.resources[i].utilisation == 0.0) break;  // an idle unit stays idle: nothing moves
            moved.resources[i].utilisation = roof.resources[i].utilisation * move;
            const classification other = classify_once(moved, shape, thresholds);
            moved.resources[i].utilisation = roof.resources[i].utilisation;
            // A move that leaves the verdict open names no other verdict (the open one says so itself).
            if ((other.bound == verdict.bound && other.limiter == verdict.limiter) || !other.decided()) continue;
            const std::string text = verdict_text(other);
            if (std::find(alternatives.begin(), alternatives.end(), text) == alternatives.end())
                alternatives.push_back(text);
            if (other.limiter && other.limiter != verdict.limiter &&
                std::find(verdict.tied_limiters.begin(), verdict.tied_limiters.end(), *other.limiter) ==
                    verdict.tied_limiters.end())
                verdict.tied_limiters.push_back(*other.limiter);
            if (other.bound != verdict.bound && std::find(verdict.tied_bounds.begin(), verdict.tied_bounds.end(),
                                                          other.bound) == verdict.tied_bounds.end())
                verdict.tied_bounds.push_back(other.bound);
        }
    if (!alternatives.empty())
        verdict.reasons.push_back(reason(reason_kind::verdict_within_noise).of(run_to_run_noise).or_else(alternatives));
    return verdict;
}

const char* name(reason_kind kind) {
    switch (kind) {
        case reason_kind::short_launches:
            return "short_launches";
        case reason_kind::idle_sms:
            return "idle_sms";
        case reason_kind::under_one_wave:
            return "under_one_wave";
        case reason_kind::grid_fills_gpu:
            return "grid_fills_gpu";
        case reason_kind::memory_near_roof:
            return "memory_near_roof";
        case reason_kind::lower_level_named:
            return "lower_level_named";
        case reason_kind::compute_near_roof:
            return "compute_near_roof";
        case reason_kind::tensor_precision:
            return "tensor_precision";
        case reason_kind::specific_unit:
            return "specific_unit";
        case reason_kind::sm_as_whole:
            return "sm_as_whole";
        case reason_kind::not_placed:
            return "not_placed";
        case reason_kind::bound_open:
            return "bound_open";
        case reason_kind::limiter_open:
            return "limiter_open";
        case reason_kind::below_every_roof:
            return "below_every_roof";
        case reason_kind::verdict_within_noise:
            return "verdict_within_noise";
    }
    return "?";
}

std::string verdict_text(const classification& verdict, const char* separator) {
    if (verdict.possible_bounds.size() > 1 || verdict.possible_limiters.size() > 1) {
        std::string bounds;
        for (bound possible : verdict.possible_bounds)
            bounds += (bounds.empty() ? "" : " or ") + std::string(name(possible));
        if (verdict.possible_bounds.size() == 1 && verdict.possible_limiters.empty()) return bounds;
        // Two candidates are named; more are the reasons' to list.
        std::string limiters;
        for (resource id : verdict.possible_limiters)
            limiters += (limiters.empty() ? "" : " or ") + std::string(name(id));
        if (verdict.possible_limiters.size() > 2) limiters = "?";
        return bounds + (limiters.empty() ? "" : separator + limiters) + (limiters == "?" ? "" : "?");
    }
    return verdict.limiter ? std::string(name(verdict.bound)) + separator + name(*verdict.limiter)
                           : name(verdict.bound);
}

}  // namespace roofline
