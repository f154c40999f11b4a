#include "analyzer/diagnose/estimate.hpp"

#include "analyzer/base/format.hpp"

#include <algorithm>

namespace roofline::diagnose {
namespace {

std::string number_text(double value) { return format_number(value); }

// Half the last digit of a share ncu prints in percent with two decimals (0.005 point), as a share.
constexpr double printed_share_rounding = 0.00005;

// A fix that takes less than this share off the limiter's work does not change what limits.
constexpr double limiter_changed_below = 0.05;

double practical_of(const kernel_result& kernel, const gpu_spec& gpu, resource id) {
    const resource_use* use = kernel.roof.find(id);
    return use ? use->practical : practical_share_of(gpu, id).share;
}

// The resource under the most pressure now: busy work over its practical share.
std::optional<resource> limiter_of(const kernel_result& kernel, const gpu_spec& gpu,
                                   const std::map<resource, double>& work) {
    std::optional<resource> top;
    double most = -1.0;
    for (const auto& [id, ns] : work) {
        const double floor_ns = ns / practical_of(kernel, gpu, id);
        if (floor_ns > most) {
            most = floor_ns;
            top = id;
        }
    }
    return top;
}

// The time after a fix that leaves `after` (work per resource, ns at raw peak): the largest floor of
// it at the practical shares, and for a fix that keeps the kernel's latency, the current time scaled
// by what is left of the limiter's work.
estimate_outcome time_after(const kernel_result& kernel, const gpu_spec& gpu, const std::map<resource, double>& work,
                            const std::map<resource, double>& after, bool keeps_latency, double at_least,
                            bool removes_launch) {
    estimate_outcome out;
    for (const auto& [id, ns] : after) {
        const double floor_ns = ns / practical_of(kernel, gpu, id);
        if (floor_ns > out.after_ns) {
            out.after_ns = floor_ns;
            out.binds_after = {after_bound_kind::resource, id};
        }
    }
    if (keeps_latency) {
        // A fix that removes one waste: on a kernel a unit bounds, removing it from that unit
        // makes the kernel a clean stream (the floors), removing it elsewhere buys nothing. On a
        // kernel no unit bounds (latency), only the limiter's busy share of the time shrinks.
        const std::optional<resource> top = limiter_of(kernel, gpu, work);
        const resource limiter = top.value_or(resource::sm);
        const double before = top && work.count(limiter) ? work.at(limiter) : 0.0;
        if (before > 0) {
            const double left = (after.count(limiter) ? after.at(limiter) : before) / before;
            const double pressure =
                std::min(1.0, before / practical_of(kernel, gpu, limiter) / kernel.roof.duration_ns);
            const bool bounded = kernel.verdict.bound == bound::memory || kernel.verdict.bound == bound::compute;
            double kept = kernel.roof.duration_ns;
            if (!bounded)
                kept *= 1.0 - pressure * (1.0 - left);
            else if (left < 1.0 - limiter_changed_below)
                kept = 0.0;
            if (kept > out.after_ns) {
                out.after_ns = kept;
                out.binds_after = {bounded ? after_bound_kind::limiter_kept : after_bound_kind::latency_kept, limiter};
            }
        }
    }
    if (at_least > out.after_ns) {
        out.after_ns = at_least;
        out.binds_after = {after_bound_kind::own_bound};
    }
    const double shortest = gpu.min_kernel_ns.value.value_or(0.0);
    if (!removes_launch && shortest > out.after_ns) {
        out.after_ns = shortest;
        out.binds_after = {after_bound_kind::shortest_launch};
    }
    return out;
}

bool is_memory_level(resource id) { return info(id).kind == resource_kind::memory; }

}  // namespace

std::map<resource, double> current_work(const kernel_roofline& roof) {
    std::map<resource, double> work;
    for (const auto& use : roof.resources)
        if (info(use.id).in_floor) work[use.id] = use.utilisation * roof.duration_ns;
    return work;
}

std::map<resource, double> useful_work(const kernel_roofline& roof) {
    std::map<resource, double> work;
    for (const auto& use : roof.resources)
        if (info(use.id).in_floor) work[use.id] = use.useful * roof.duration_ns;
    return work;
}

finding_estimate estimate_fix(const estimate_spec& spec, const kernel_result& kernel, const gpu_spec& gpu,
                              const name_values& facts, std::vector<std::string>* missing) {
    finding_estimate result;
    result.why = spec.why;
    std::map<resource, double> work = current_work(kernel.roof);
    std::map<resource, double> changed;
    // The same changes at each open value's upper bound (the least a scale takes off, the most an addition
    // adds), from each resource's most work (busy, or a useful share above it where the capture bounds one so):
    // for the most time the fix can leave. Unbounded where an addition has no upper bound.
    std::map<resource, double> work_most = work;
    for (const auto& use : kernel.roof.resources)
        if (info(use.id).in_floor) work_most[use.id] = std::max(use.utilisation, use.useful) * kernel.roof.duration_ns;
    std::map<resource, double> changed_most;
    bool most_unbounded = false;
    // Once an input is open the estimate is not decided; the rest is still worked through at each open
    // value's lower bound (the most a scale can take off, the least an addition adds), for the least time the
    // fix can leave. What the report lists (the changes written out, the missing metrics) stops at the first
    // open input, as it did before that bound was kept.
    bool open_input = false;
    const auto lower_bound_of = [](const evaluation& evaluated) { return evaluated.range ? evaluated.range->lo : 0.0; };
    for (const auto& change : spec.changes) {
        const evaluation evaluated = change.amount.evaluate_range(facts);
        const auto amount = evaluated.value();
        if (!open_input) {
            if (missing) missing->insert(missing->end(), evaluated.missing.begin(), evaluated.missing.end());
            std::string on;
            for (resource id : change.on) on += (on.empty() ? "" : ", ") + std::string(name(id));
            result.changes.push_back(
                on + (change.add ? " + " : " x ") + "(" + change.amount.text() + ")" +
                (amount ? " = " + (change.add ? format_duration_ns(*amount) : number_text(*amount)) : std::string()));
        }
        open_input = open_input || !amount;
        const double used = amount.value_or(lower_bound_of(evaluated));
        std::optional<double> used_most = amount;
        if (!used_most && evaluated.range) used_most = evaluated.range->hi;
        if (!used_most && !change.add) used_most = 1.0;  // a scale takes off nothing at the least
        most_unbounded = most_unbounded || !used_most;
        for (resource id : change.on) {
            double before = changed.count(id) ? changed[id] : (work.count(id) ? work[id] : 0.0);
            // A fix removes waste: it never adds work where it scales, and scales never go negative.
            changed[id] = change.add ? before + std::max(0.0, used) : before * std::clamp(used, 0.0, 1.0);
            if (!used_most) continue;
            double before_most =
                changed_most.count(id) ? changed_most[id] : (work_most.count(id) ? work_most[id] : 0.0);
            changed_most[id] =
                change.add ? before_most + std::max(0.0, *used_most) : before_most * std::clamp(*used_most, 0.0, 1.0);
        }
    }
    double at_least = 0.0;
    std::optional<double> at_least_most = 0.0;
    if (spec.at_least) {
        const evaluation evaluated = spec.at_least->evaluate_range(facts);
        const auto at_least_value = evaluated.value();
        if (missing && !open_input) missing->insert(missing->end(), evaluated.missing.begin(), evaluated.missing.end());
        open_input = open_input || !at_least_value;
        at_least = std::max(0.0, at_least_value.value_or(lower_bound_of(evaluated)));
        at_least_most = at_least_value ? at_least_value
                                       : (evaluated.range ? std::optional<double>(evaluated.range->hi) : std::nullopt);
    }
    // What the fix leaves on every resource (one meaning per resource: busy work now, useful work the
    // least any fix of its kind leaves; fix_kind in rule_tree.hpp).
    const auto leaves_of = [&](const std::map<resource, double>& from, const std::map<resource, double>& useful,
                               const std::map<resource, double>& changes) {
        std::map<resource, double> kept = from;
        if (spec.kind == fix_kind::restructures)
            for (const auto& [id, ns] : useful)
                if (is_memory_level(id) || info(id).precision) kept[id] = std::min(kept[id], ns);
        for (const auto& [id, ns] : changes) {
            kept[id] = ns;
            // Removing waste leaves the useful work: a memory level never drops under its useful bytes.
            if (spec.kind == fix_kind::removes_waste && is_memory_level(id) && useful.count(id))
                kept[id] = std::max(ns, std::min(useful.at(id), from.count(id) ? from.at(id) : 0.0));
        }
        return kept;
    };
    const auto leaves = [&](const std::map<resource, double>& useful) { return leaves_of(work, useful, changed); };
    const std::map<resource, double> left = leaves(useful_work(kernel.roof));
    estimate_outcome out = time_after(kernel, gpu, work, left, spec.keeps_latency(), at_least, spec.removes_launch);
    // Atomics to one L2 line run one after another: a fix that keeps them cannot beat their chain.
    // Without the atomics' counters (a details page, an older metric plan) the chain is unknown: it may
    // be longer than every other floor, so the estimate is not decided (below).
    double chain = 0.0;
    fact_value chain_fact;
    if (!spec.removes_atomics) {
        chain_fact = facts("atomic_chain_ns");
        if (auto exact_chain = chain_fact.value())
            chain = *exact_chain;
        else if (chain_fact.range)
            chain = chain_fact.range->lo;
    }
    if (chain > out.after_ns) {
        out.after_ns = chain;
        out.binds_after = {after_bound_kind::atomic_chain};
    }
    // The time after the fix is the largest floor of what it leaves: a resource the capture has no
    // counter for may hold a larger one than any measured, and a waste-removal fix keeps the kernel's
    // latency only as the verdict says. Where either may change the answer, the estimate is not decided.
    const double duration = kernel.roof.duration_ns;
    // The least time the fix can leave where the estimate is open: the floors of what it leaves, and the
    // latency a waste-removal fix keeps only where the verdict and every floor are measured (an unmeasured
    // resource may be the limiter, or the kernel bounded, and then the fix keeps none of it).
    const auto least_after = [&]() -> std::optional<double> {
        bool latency_sure = spec.keeps_latency() && kernel.verdict.decided() && kernel.verdict.bound != bound::unknown;
        for (const auto& unmeasured_use : kernel.roof.unmeasured)
            latency_sure = latency_sure && !info(unmeasured_use.id).in_floor;
        // Each resource's useful work at the least the capture allows (a details page bounds it from above).
        std::map<resource, double> useful_least;
        for (const auto& use : kernel.roof.resources)
            if (info(use.id).in_floor)
                // A precision always carries its lower bound (a rate ncu states in whole percents: half a point
                // under it), even where no counter is missing.
                useful_least[use.id] =
                    (info(use.id).precision ? std::min(use.useful_lo, use.useful_min()) : use.useful_min()) * duration;
        // A precision's FLOPs are its busy work too: the fix leaves at least their lower bound where it does not
        // change them.
        // L1's busy share where the capture lacks its LSU wavefront counters is the whole unit's throughput
        // (l1tex__throughput), an upper bound of the data stage's busy share that the model reads elsewhere: at
        // the least, the work L1 keeps is its useful work's lower bound.
        std::map<resource, double> work_least = work;
        for (const auto& use : kernel.roof.resources)
            if (use.useful_from == useful_basis::l1_at_most_busy) work_least[use.id] = use.useful_min() * duration;
        std::map<resource, double> left_least = leaves_of(work_least, useful_least, changed);
        for (const auto& [id, ns] : useful_least)
            if (info(id).precision && !changed.count(id)) left_least[id] = std::min(left_least[id], ns);
        // A details page prints each share in percent to two decimals: what the fix leaves is at least the
        // share half a hundredth of a point under what it printed (a kernel at "0.05%" issue may be at 0.045%).
        for (auto& [id, ns] : left_least) ns = std::max(0.0, ns - printed_share_rounding * duration);
        double least = time_after(kernel, gpu, work, left_least, latency_sure, at_least, spec.removes_launch).after_ns;
        least = std::max(least, chain);
        if (duration <= 0 || least <= 0) return std::nullopt;
        return std::min(least, duration);
    };
    // The most time the fix can leave where the estimate is open: every resource at the most work the capture
    // allows (an unmeasured one at its bound), what the fix changes at its least, the kernel's latency kept where
    // the fix keeps it, and an open atomic chain or own bound at its upper end.
    const auto most_after = [&]() -> std::optional<double> {
        if (most_unbounded || !at_least_most || duration <= 0) return std::nullopt;
        std::map<resource, double> left_most = leaves_of(work_most, useful_work(kernel.roof), changed_most);
        for (const auto& unmeasured_use : kernel.roof.unmeasured)
            if (info(unmeasured_use.id).in_floor && !changed_most.count(unmeasured_use.id))
                left_most[unmeasured_use.id] = std::max(left_most[unmeasured_use.id], unmeasured_use.hi * duration);
        // A share printed to two decimals may be half a hundredth of a point over what it shows.
        for (auto& [id, ns] : left_most) ns += printed_share_rounding * duration;
        // An atomic chain the capture cannot see (a details page counts no atomics) is left out: where one
        // binds, atomic-serialisation, undecided, is named among the findings that could outrank the first.
        double chain_most = 0.0;
        if (!spec.removes_atomics) {
            if (const auto exact_chain = chain_fact.value())
                chain_most = *exact_chain;
            else if (chain_fact.range)
                chain_most = chain_fact.range->hi;
        }
        double most =
            time_after(kernel, gpu, work_most, left_most, spec.keeps_latency(), *at_least_most, spec.removes_launch)
                .after_ns;
        most = std::max(most, chain_most);
        if (most <= 0) return std::nullopt;
        return std::min(most, duration);
    };
    const auto keep_least = [&] {
        result.time_after_at_least_ns = least_after();
        if (result.time_after_at_least_ns) result.speedup_at_most = duration / *result.time_after_at_least_ns;
        result.time_after_at_most_ns = most_after();
        if (result.time_after_at_most_ns) result.speedup_at_least = duration / *result.time_after_at_most_ns;
    };
    if (open_input) {
        keep_least();
        return result;
    }
    std::vector<std::string> open;
    for (const auto& unmeasured_use : kernel.roof.unmeasured)
        if (info(unmeasured_use.id).in_floor && unmeasured_use.floor_hi_ns(kernel.roof.duration_ns) > out.after_ns)
            open.insert(open.end(), unmeasured_use.missing.begin(), unmeasured_use.missing.end());
    if (spec.keeps_latency() && !kernel.verdict.decided())
        open.insert(open.end(), kernel.verdict.missing.begin(), kernel.verdict.missing.end());
    if (!spec.removes_atomics && !chain_fact.exact())
        open.insert(open.end(), chain_fact.missing.begin(), chain_fact.missing.end());
    if (!open.empty() || (spec.keeps_latency() && kernel.verdict.bound == bound::unknown)) {
        if (missing) missing->insert(missing->end(), open.begin(), open.end());
        keep_least();
        return result;
    }
    if (duration <= 0 || out.after_ns <= 0) return result;
    // A fix never makes a kernel slower.
    const double after = std::min(out.after_ns, duration);
    // What the fix changes: the resources whose work it leaves different from what they are busy with now.
    result.effect.changed_work.clear();
    for (const auto& [id, ns] : left)
        if (!work.count(id) || ns != work.at(id)) result.effect.changed_work[id] = ns;
    result.effect.at_least_ns = at_least;
    result.effect.atomic_chain_ns = chain;
    result.effect.removes_launch = spec.removes_launch;
    result.effect.changes_work = !spec.changes.empty() || spec.kind == fix_kind::restructures;
    result.effect.keeps_latency = spec.keeps_latency();
    result.time_after_ns = after;
    result.speedup = duration / after;
    result.time_saved_ns = duration - after;
    result.binds_after = out.after_ns >= duration ? after_bound{after_bound_kind::unchanged} : out.binds_after;
    return result;
}

void estimate_finding(finding& target, const estimate_spec& spec, const kernel_result& kernel, const gpu_spec& gpu,
                      const name_values& facts, std::vector<std::string>* missing) {
    finding_estimate result = estimate_fix(spec, kernel, gpu, facts, missing);
    target.estimate_why = std::move(result.why);
    target.estimate_changes = std::move(result.changes);
    target.est_time_after_ns = result.time_after_ns;
    target.est_speedup = result.speedup;
    target.est_time_saved_ns = result.time_saved_ns;
    target.est_time_after_at_least_ns = result.time_after_at_least_ns;
    target.est_speedup_at_most = result.speedup_at_most;
    target.est_time_after_at_most_ns = result.time_after_at_most_ns;
    target.est_speedup_at_least = result.speedup_at_least;
    target.binds_after = result.binds_after;
    target.effect = std::move(result.effect);
}

estimate_outcome combined_after(const kernel_result& kernel, const gpu_spec& gpu,
                                const std::vector<const finding*>& fixes) {
    const std::map<resource, double> work = current_work(kernel.roof);
    std::map<resource, double> least = work;
    bool removes_launch = false, only_work_fixes = true;
    double chain = fixes.empty() ? 0.0 : fixes.front()->effect.atomic_chain_ns;
    for (const finding* included : fixes) {
        chain = std::min(chain, included->effect.atomic_chain_ns);
        removes_launch = removes_launch || included->effect.removes_launch;
        only_work_fixes = only_work_fixes && included->effect.keeps_latency;
        for (const auto& [id, ns] : included->effect.changed_work)
            least[id] = std::min(least.count(id) ? least[id] : ns, ns);
    }
    // With a fix among them that closes the gap, the floors are what is left.
    estimate_outcome out = time_after(kernel, gpu, work, least, only_work_fixes, 0.0, removes_launch);
    if (chain > out.after_ns) {
        out.after_ns = chain;
        out.binds_after = {after_bound_kind::atomic_chain};
    }
    return out;
}

}  // namespace roofline::diagnose
