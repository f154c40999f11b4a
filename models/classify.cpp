#include "models/classify.hpp"

#include <algorithm>
#include <cmath>

namespace roofline {
namespace {

// A reason built field by field: reason(kind).on(load).against(other).at(threshold)...
struct reason : verdict_reason {
    explicit reason(reason_kind k) { kind = k; }
    reason& on(std::optional<unit_load> u) {
        unit = std::move(u);
        return *this;
    }
    reason& against(std::optional<unit_load> u) {
        other = std::move(u);
        return *this;
    }
    reason& naming(resource r) {
        named = r;
        return *this;
    }
    reason& of(double v) {
        value = v;
        return *this;
    }
    reason& counting(double c) {
        count = c;
        return *this;
    }
    reason& at(double t) {
        threshold = t;
        return *this;
    }
    reason& lacking(lacking_input l) {
        lacks = l;
        return *this;
    }
    reason& or_else(std::vector<std::string> a) {
        alternatives = std::move(a);
        return *this;
    }
};

// The load a reason records of a measured resource.
unit_load load(const resource_use& r) { return {r.id, r.utilisation, r.practical, r.formula}; }
std::optional<unit_load> load_of(const resource_use* r) {
    return r ? std::optional<unit_load>(load(*r)) : std::nullopt;
}

double pressure(const resource_use& r) { return r.practical > 0 ? r.utilisation / r.practical : r.utilisation; }
double pressure_hi(const unmeasured_resource& u) { return u.practical > 0 ? u.hi / u.practical : u.hi; }

bool is_memory(resource r) { return info(r).kind == resource_kind::memory; }
// Issue slots carry floors, not a verdict: what fills them is named by a pipe or the SM.
bool is_compute_unit(resource r) { return info(r).kind == resource_kind::compute && r != resource::issue; }

const resource_use* best(const kernel_roofline& k, bool (*pick)(resource)) {
    const resource_use* b = nullptr;
    for (const auto& r : k.resources)
        if (pick(r.id) && (!b || pressure(r) > pressure(*b))) b = &r;
    return b;
}

// A measured resource whose share the capture leaves open above what it measured (DRAM without the
// store counter: the writes its stores still owe): the most it may be under, and what would decide it.
double pressure_hi(const resource_use& r) {
    const double hi = std::max(r.utilisation, r.useful);
    return r.practical > 0 ? hi / r.practical : hi;
}
bool open_above(const resource_use& r) { return !r.exact() && r.useful > r.utilisation; }

// What the unmeasured resources of one kind allow, and the measured ones open above what they measured:
// the highest pressure any of them may be under.
double unmeasured_hi(const kernel_roofline& k, bool (*pick)(resource)) {
    double hi = 0.0;
    for (const auto& u : k.unmeasured)
        if (pick(u.id)) hi = std::max(hi, pressure_hi(u));
    for (const auto& r : k.resources)
        if (pick(r.id) && open_above(r)) hi = std::max(hi, pressure_hi(r));
    return hi;
}

// The open possibilities of a verdict, and the counters that would close them.
struct openings {
    classification& c;
    const kernel_roofline& k;
    void bound(roofline::bound b) {
        if (std::find(c.possible_bounds.begin(), c.possible_bounds.end(), b) == c.possible_bounds.end())
            c.possible_bounds.push_back(b);
    }
    void limiter(resource r) {
        if (std::find(c.possible_limiters.begin(), c.possible_limiters.end(), r) == c.possible_limiters.end())
            c.possible_limiters.push_back(r);
    }
    // An unmeasured resource that could change the verdict: a possible limiter, and what would measure it.
    void could_be(const unmeasured_resource& u) { could_be(u.id, u.missing); }
    void could_be(const resource_use& r) { could_be(r.id, r.missing); }
    void could_be(resource id, const std::vector<pooled_string>& missing) {
        limiter(id);
        for (const auto& m : missing)
            if (std::find(c.missing.begin(), c.missing.end(), std::string(m)) == c.missing.end())
                c.missing.push_back(m);
    }
};

// Below every roof: launch overhead, too small a grid, or latency.
roofline::bound below_roofs(const kernel_roofline& k, const launch_shape& shape, const classify_thresholds& t,
                            std::vector<verdict_reason>* reasons) {
    double per_launch_ns = k.duration_ns / double(shape.launches ? shape.launches : 1);
    if (per_launch_ns < t.launch_ns) {
        if (reasons) reasons->push_back(reason(reason_kind::short_launches).of(per_launch_ns).at(t.launch_ns));
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

void name_memory_limiter(classification& c, openings& open, const kernel_roofline& k, const resource_use* mem,
                         const resource_use* comp, double mu, const classify_thresholds& t) {
    c.limiter = mem->id;
    c.reasons.push_back(reason(reason_kind::memory_near_roof).on(load(*mem)).against(load_of(comp)).at(t.near_roof));
    for (resource lower : {resource::dram, resource::l2}) {
        if (lower == mem->id) break;
        const resource_use* r = k.find(lower);
        if (r && pressure(*r) >= t.prefer_lower_level * mu) {
            c.limiter = r->id;
            c.reasons.push_back(
                reason(reason_kind::lower_level_named).on(load(*r)).against(load(*mem)).at(t.prefer_lower_level));
            break;
        }
    }
    open.limiter(*c.limiter);
    // A memory level without counters that may carry the load, or be the lower level it comes from.
    for (const auto& u : k.unmeasured)
        if (is_memory(u.id) && pressure_hi(u) >= t.prefer_lower_level * mu) open.could_be(u);
    // A level measured, but open above it, that may carry as much: DRAM owing writes it did not make yet.
    for (const auto& r : k.resources)
        if (is_memory(r.id) && r.id != *c.limiter && open_above(r) && pressure_hi(r) >= t.prefer_lower_level * mu)
            open.could_be(r);
}

void name_compute_limiter(classification& c, openings& open, const kernel_roofline& k, const resource_use* mem,
                          const resource_use* comp, double cu, const classify_thresholds& t) {
    // Name the most specific unit that explains most of the SM's load: a precision first
    // (a FLOP roof), then a pipe, else the SM as a whole (issue-bound). The MMA pipe names
    // the tensor precision with the most FLOPs: its cycles are that precision's work.
    const resource_use* prec = best(k, [](resource r) { return info(r).precision; });
    const resource_use* pipe = best(k, [](resource r) { return info(r).pipe; });
    const resource_use* named = comp;
    if (prec && pressure(*prec) >= t.specific_share * cu)
        named = prec;
    else if (pipe && pressure(*pipe) >= t.specific_share * cu)
        named = pipe;
    // A precision or pipe without counters that may reach the share that would name it instead.
    const bool named_precision = info(named->id).precision;
    for (const auto& u : k.unmeasured)
        if ((info(u.id).precision || (info(u.id).pipe && !named_precision)) && pressure_hi(u) >= t.specific_share * cu)
            open.could_be(u);
    const verdict_reason above = reason(reason_kind::compute_near_roof).on(load(*comp)).against(load_of(mem));
    if (named->id == resource::pipe_tensor) {
        const resource_use* most = nullptr;
        for (const auto& r : k.resources)
            if (info(r.id).tensor && (!most || r.work > most->work)) most = &r;
        if (most) {
            c.limiter = most->id;
            open.limiter(most->id);
            c.reasons.push_back(above);
            c.reasons.push_back(
                reason(reason_kind::tensor_precision).on(load(*named)).naming(most->id).of(most->useful));
            return;
        }
    }
    c.limiter = named->id;
    open.limiter(named->id);
    c.reasons.push_back(above);
    if (named != comp)
        c.reasons.push_back(reason(reason_kind::specific_unit).on(load(*named)).at(t.specific_share));
    else if (comp->id == resource::sm)
        c.reasons.push_back(reason(reason_kind::sm_as_whole).at(t.specific_share));
}

}  // namespace

namespace {

classification classify_once(const kernel_roofline& k, const launch_shape& shape, const classify_thresholds& t) {
    classification c;
    openings open{c, k};
    if (!k.placed) {
        c.bound = bound::unknown;
        c.reasons.push_back(reason(reason_kind::not_placed).lacking(k.missing));
        return c;
    }
    const resource_use* mem = best(k, is_memory);
    const resource_use* comp = best(k, is_compute_unit);
    const double mu = mem ? pressure(*mem) : 0.0, cu = comp ? pressure(*comp) : 0.0;
    // What the resources without counters allow: each may be as busy as its speed of light.
    const double mu_hi = std::max(mu, unmeasured_hi(k, is_memory)),
                 cu_hi = std::max(cu, unmeasured_hi(k, is_compute_unit));
    const bool near = std::max(mu, cu) >= t.near_roof;
    const bool maybe_near = std::max(mu_hi, cu_hi) >= t.near_roof;
    if (near || maybe_near) {
        // Memory where its measured load is the larger, compute otherwise; each other side is open
        // where unmeasured units may outweigh it.
        const bool memory_wins = mu >= cu && mem && mu >= t.near_roof;
        const bool compute_wins = cu > mu && comp && cu >= t.near_roof;
        const bool memory_open = mu_hi >= t.near_roof && mu_hi >= cu;
        const bool compute_open = cu_hi >= t.near_roof && cu_hi > mu;
        if (memory_wins || (!near && memory_open)) open.bound(bound::memory);
        if (compute_wins || (!near && compute_open)) open.bound(bound::compute);
        if (memory_wins && compute_open) open.bound(bound::compute);
        if (compute_wins && memory_open) open.bound(bound::memory);
        if (!near) open.bound(below_roofs(k, shape, t, nullptr));
        for (const auto& u : k.unmeasured) {
            const bool compute_side = is_compute_unit(u.id);
            if (!compute_side && !is_memory(u.id)) continue;
            const double hi = pressure_hi(u);
            if (hi >= t.near_roof && hi >= (compute_side ? mu : cu) && (compute_side ? !compute_wins : !memory_wins))
                open.could_be(u);
        }
        for (const auto& r : k.resources)
            if (is_memory(r.id) && open_above(r) && !memory_wins && pressure_hi(r) >= t.near_roof &&
                pressure_hi(r) >= cu)
                open.could_be(r);
        if (c.possible_bounds.size() == 1 && memory_wins) {
            c.bound = bound::memory;
            name_memory_limiter(c, open, k, mem, comp, mu, t);
        } else if (c.possible_bounds.size() == 1 && compute_wins) {
            c.bound = bound::compute;
            name_compute_limiter(c, open, k, mem, comp, cu, t);
        } else {
            // The measured leader of each side that stays possible is a possible limiter too.
            if (mem &&
                std::find(c.possible_bounds.begin(), c.possible_bounds.end(), bound::memory) != c.possible_bounds.end())
                open.limiter(mem->id);
            if (comp && std::find(c.possible_bounds.begin(), c.possible_bounds.end(), bound::compute) !=
                            c.possible_bounds.end())
                open.limiter(comp->id);
            c.bound = bound::unknown;
            c.reasons.push_back(reason(reason_kind::bound_open)
                                    .on(std::max(mu, cu) > 0 ? load_of(mu >= cu ? mem : comp) : std::nullopt));
        }
        if (c.possible_limiters.size() > 1) {
            c.reasons.push_back(reason(reason_kind::limiter_open));
            c.limiter.reset();
        }
        return c;
    }
    const resource_use* busiest = std::max(mu, cu) > 0 ? (mu >= cu ? mem : comp) : nullptr;
    c.reasons.push_back(reason(reason_kind::below_every_roof).on(load_of(busiest)).at(t.near_roof));
    c.bound = below_roofs(k, shape, t, &c.reasons);
    open.bound(c.bound);
    return c;
}

}  // namespace

classification classify(const kernel_roofline& k, const launch_shape& shape, const classify_thresholds& t) {
    classification c = classify_once(k, shape, t);
    if (!c.decided() || !k.placed) return c;
    // Ties: where one measured busy share moved by run-to-run noise, up or down, names another limiter
    // (a nearer level, the other side of memory against compute, a threshold crossed), that limiter is
    // named beside this one: another capture of the same program may name it.
    std::vector<std::string> alternatives;
    kernel_roofline moved = k;  // one share moved at a time, put back after
    for (std::size_t i = 0; i < k.resources.size(); ++i)
        for (double move : {1.0 + run_to_run_noise, 1.0 - run_to_run_noise}) {
            if (k.resources[i].utilisation == 0.0) break;  // an idle unit stays idle: nothing moves
            moved.resources[i].utilisation = k.resources[i].utilisation * move;
            const classification other = classify_once(moved, shape, t);
            moved.resources[i].utilisation = k.resources[i].utilisation;
            // A move that leaves the verdict open names no other verdict (the open one says so itself).
            if ((other.bound == c.bound && other.limiter == c.limiter) || !other.decided()) continue;
            const std::string text = verdict_text(other);
            if (std::find(alternatives.begin(), alternatives.end(), text) == alternatives.end())
                alternatives.push_back(text);
            if (other.limiter && other.limiter != c.limiter &&
                std::find(c.tied_limiters.begin(), c.tied_limiters.end(), *other.limiter) == c.tied_limiters.end())
                c.tied_limiters.push_back(*other.limiter);
            if (other.bound != c.bound &&
                std::find(c.tied_bounds.begin(), c.tied_bounds.end(), other.bound) == c.tied_bounds.end())
                c.tied_bounds.push_back(other.bound);
        }
    if (!alternatives.empty())
        c.reasons.push_back(reason(reason_kind::verdict_within_noise).of(run_to_run_noise).or_else(alternatives));
    return c;
}

const char* name(reason_kind k) {
    switch (k) {
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

std::string verdict_text(const classification& c, const char* separator) {
    if (c.possible_bounds.size() > 1 || c.possible_limiters.size() > 1) {
        std::string s;
        for (bound b : c.possible_bounds) s += (s.empty() ? "" : " or ") + std::string(name(b));
        if (c.possible_bounds.size() == 1 && c.possible_limiters.empty()) return s;
        // Two candidates are named; more are the reasons' to list.
        std::string l;
        for (resource r : c.possible_limiters) l += (l.empty() ? "" : " or ") + std::string(name(r));
        if (c.possible_limiters.size() > 2) l = "?";
        return s + (l.empty() ? "" : separator + l) + (l == "?" ? "" : "?");
    }
    return c.limiter ? std::string(name(c.bound)) + separator + name(*c.limiter) : name(c.bound);
}

}  // namespace roofline
