#include "analyzer/diagnose/kernel_facts.hpp"

#include "analyzer/base/metric_catalogue.hpp"
#include "analyzer/diagnose/fact_table.hpp"

#include <algorithm>
#include <functional>

namespace roofline::diagnose {
namespace {

using detail::fact;
using detail::facts;
using detail::find_fact;
using detail::flag;
using detail::metric;

struct family {
    std::string prefix;
    value_type type;
    std::string doc;
    std::function<fact_value(const kernel_result&, const gpu_spec&, resource)> get;
};

const resource_use* resource_of(const kernel_result& kernel, resource id) { return kernel.roof.find(id); }

// A share of a resource: exact where measured exactly, between bounds where the capture lacks what
// decides it (measured[lo, hi]) or lacks its counters (0 .. unmeasured bound), 0 where the kernel does
// not use it, unknown for a resource of which nothing is known.
fact_value share_of(const kernel_result& kernel, resource id, double (*lo)(const resource_use&),
                    double (*hi)(const resource_use&),
                    double (*unmeasured_hi)(const unmeasured_resource&, const kernel_result&),
                    std::optional<double> unused) {
    if (const resource_use* use = resource_of(kernel, id))
        return fact_value::between(lo(*use), hi(*use),
                                   std::vector<std::string>(use->missing.begin(), use->missing.end()));
    if (const unmeasured_resource* unmeasured = kernel.roof.find_unmeasured(id))
        return fact_value::between(0.0, unmeasured_hi(*unmeasured, kernel),
                                   std::vector<std::string>(unmeasured->missing.begin(), unmeasured->missing.end()));
    return unused;
}

double busy_hi(const unmeasured_resource& unmeasured, const kernel_result&) { return unmeasured.hi; }
double floor_hi(const unmeasured_resource& unmeasured, const kernel_result& kernel) {
    return unmeasured.floor_hi_ns(kernel.roof.duration_ns);
}

// A boolean over the possibilities a verdict leaves: true where the only one is `wanted`, false where `wanted` is
// none of them, open otherwise.
template <class Choice>
fact_value one_of(const std::vector<Choice>& possible, const Choice& wanted, const std::vector<std::string>& missing) {
    if (std::find(possible.begin(), possible.end(), wanted) == possible.end()) return 0.0;
    if (possible.size() == 1) return 1.0;
    return detail::undecided(missing);
}

const std::vector<family>& families() {
    static const std::vector<family> table = {
        {"util_", value_type::number,
         "busy share 0..1 of a resource as ncu sees it, waste included (replays, excess sectors, conflicts)",
         [](const kernel_result& kernel, const gpu_spec&, resource id) {
             return share_of(
                 kernel, id, [](const resource_use& use) { return use.utilisation; },
                 [](const resource_use& use) { return use.utilisation; }, busy_hi, std::nullopt);
         }},
        {"useful_", value_type::number,
         "the share of the duration the resource's useful work needs at its peak (0 where the kernel does not use it)",
         [](const kernel_result& kernel, const gpu_spec&, resource id) {
             if (!kernel.roof.placed) return fact_value();
             return share_of(
                 kernel, id, [](const resource_use& use) { return use.useful_min(); },
                 [](const resource_use& use) { return use.useful; }, busy_hi, 0.0);
         }},
        {"pressure_", value_type::number,
         "busy share over the practical share: 1 = as busy as the best kernels keep it",
         [](const kernel_result& kernel, const gpu_spec&, resource id) {
             return share_of(
                 kernel, id, [](const resource_use& use) { return use.utilisation / use.practical; },
                 [](const resource_use& use) { return use.utilisation / use.practical; },
                 [](const unmeasured_resource& unmeasured, const kernel_result&) {
                     return unmeasured.hi / unmeasured.practical;
                 },
                 std::nullopt);
         }},
        {"practical_", value_type::number,
         "the share of the resource's peak real kernels reach on this GPU (hwspecs practical_fraction; where none is "
         "measured, the H100 "
         "SXM's share of the same roof as a default, or 1 for roofs measured nowhere)",
         [](const kernel_result&, const gpu_spec& spec, resource id) {
             return fact_value(practical_share_of(spec, id).share);
         }},
        {"peak_", value_type::number,
         "the peak of a roofline resource at the capture's clock, per second (dram: bytes, precisions: FLOP); for a "
         "precision the kernel "
         "does not use, the spec's figure at that clock",
         [](const kernel_result& kernel, const gpu_spec& spec, resource res) -> fact_value {
             if (const resource_use* use = kernel.roof.find(res); use && use->peak > 0) return use->peak;
             if (kernel.roof.sm_clock_hz <= 0) return std::nullopt;
             return spec_peak_per_second(spec, res, kernel.roof.sm_clock_hz);
         }},
        {"work_ns_", value_type::number,
         "the resource's useful work as time at its raw peak: useful x duration (0 where unused)",
         [](const kernel_result& kernel, const gpu_spec&, resource id) {
             auto work_ns = share_of(
                 kernel, id, [](const resource_use& use) { return use.useful_min(); },
                 [](const resource_use& use) { return use.useful; }, busy_hi, 0.0);
             if (work_ns.range)
                 work_ns.range = value_range{work_ns.range->lo * kernel.roof.duration_ns,
                                             work_ns.range->hi * kernel.roof.duration_ns};
             return work_ns;
         }},
        {"floor_ns_", value_type::number, "the resource's useful work at its practical share, in ns (0 where unused)",
         [](const kernel_result& kernel, const gpu_spec&, resource id) {
             return share_of(
                 kernel, id, [](const resource_use& use) { return use.floor_min_ns(); },
                 [](const resource_use& use) { return use.floor_ns; }, floor_hi, 0.0);
         }},
        {"flops_", value_type::number, "FLOPs of one precision (0 where the kernel did none)",
         [](const kernel_result& kernel, const gpu_spec&, resource id) -> fact_value {
             if (const unmeasured_resource* unmeasured = kernel.roof.find_unmeasured(id)) {
                 fact_value unknown;
                 unknown.missing.assign(unmeasured->missing.begin(), unmeasured->missing.end());
                 return unknown;
             }
             const resource_use* use = resource_of(kernel, id);
             if (!use || !info(use->id).precision) return kernel.roof.flops_counted ? fact_value(0.0) : fact_value();
             // FP16 counts that may be HFMA2.MMA moves: the FLOPs are at most what they count.
             const bool unsure = !use->exact() && use->useful_min() <= 0.0;
             return fact_value::between(unsure ? 0.0 : use->work, use->work,
                                        std::vector<std::string>(use->missing.begin(), use->missing.end()));
         }},
        {"binds_", value_type::boolean,
         "true when this resource's practical floor is the kernel's largest, or within 5% of it (floors that close "
         "cannot be told apart)",
         [](const kernel_result& kernel, const gpu_spec&, resource id) -> fact_value {
             if (!info(id).in_floor) return 0.0;
             double lo = 0.0, hi = 0.0;
             std::vector<std::string> missing;
             if (const resource_use* use = resource_of(kernel, id)) {
                 lo = use->floor_min_ns(), hi = use->floor_ns;
                 missing.assign(use->missing.begin(), use->missing.end());
             } else if (const unmeasured_resource* unmeasured = kernel.roof.find_unmeasured(id)) {
                 hi = unmeasured->floor_hi_ns(kernel.roof.duration_ns);
                 missing.assign(unmeasured->missing.begin(), unmeasured->missing.end());
             }
             if (lo > 0 && lo >= 0.95 * kernel.roof.practical_floor_hi_ns) return 1.0;
             if (hi <= 0 || hi < 0.95 * kernel.roof.practical_floor_ns) return 0.0;
             if (kernel.roof.floors_exact() && lo == hi) return flag(hi >= 0.95 * kernel.roof.practical_floor_ns);
             auto all = kernel.roof.missing_metrics();
             missing.insert(missing.end(), all.begin(), all.end());
             return detail::undecided(std::move(missing));
         }},
        {"limiter_", value_type::boolean, "true when the classification names this resource as the limiter",
         [](const kernel_result& kernel, const gpu_spec&, resource id) {
             // A verdict that records no possibilities is a plain one: its limiter, or none.
             if (kernel.verdict.possible_bounds.empty()) return flag(kernel.verdict.limiter == id);
             return one_of(kernel.verdict.possible_limiters, id, kernel.verdict.missing);
         }},
    };
    return table;
}

// The family and resource of a name like useful_dram, or nullptr.
std::pair<const family*, resource> split_family(const std::string& name) {
    for (const auto& fam : families()) {
        if (name.rfind(fam.prefix, 0) != 0) continue;
        if (auto id = resource_named(std::string_view(name).substr(fam.prefix.size()))) return {&fam, *id};
    }
    return {nullptr, resource::sm};
}

// bound_memory, bound_compute, ...: every bound a verdict can name (unknown is no verdict).
std::optional<bound> bound_fact(const std::string& name) {
    for (bound candidate : all_bounds())
        if (candidate != bound::unknown && name == std::string("bound_") + roofline::name(candidate)) return candidate;
    return std::nullopt;
}

}  // namespace

const std::vector<std::pair<std::string, std::string>>& derived_fact_docs() {
    static const std::vector<std::pair<std::string, std::string>> docs = [] {
        std::vector<std::pair<std::string, std::string>> rows;
        for (const auto& entry : facts()) rows.emplace_back(entry.name, entry.doc);
        for (const auto& fam : families()) rows.emplace_back(fam.prefix + "<resource>", fam.doc);
        std::string bounds;
        for (bound listed : all_bounds())
            if (listed != bound::unknown)
                bounds += (bounds.empty() ? "bound_" : ", bound_") + std::string(name(listed));
        rows.emplace_back(bounds, "the classification, true/false");
        return rows;
    }();
    return docs;
}

std::optional<value_type> fact_type(const std::string& name) {
    if (const fact* derived = find_fact(name)) return derived->type;
    if (auto [fam, res] = split_family(name); fam) return fam->type;
    if (bound_fact(name)) return value_type::boolean;
    if (find_metric(name)) return value_type::number;
    return std::nullopt;
}

namespace {

// A stall reason a details page's CPIStall rule does not name, where the rule named others: ncu names every reason
// that takes at least 30% of the cycles between two issued instructions. On the details/raw pairs of examples/ the
// reasons it named held 30.1% or more on the raw page, those it left out 30.9% at most (29.3% but for drain), so
// an unnamed reason is bounded by 31% of smsp__average_warp_latency_per_inst_issued.ratio. Unknown otherwise.
fact_value unstated_stall(const kernel_result& kernel, const std::string& name, const fact_value& unknown) {
    static const std::string prefix = "smsp__average_warps_issue_stalled_", suffix = "_per_issue_active.ratio";
    if (name.size() <= prefix.size() + suffix.size() || name.compare(0, prefix.size(), prefix) != 0 ||
        name.compare(name.size() - suffix.size(), suffix.size(), suffix) != 0)
        return unknown;
    const bool named_some = std::any_of(kernel.group.rules.begin(), kernel.group.rules.end(), [](const ncu_rule& rule) {
        return rule.name == "CPIStall" && rule.description.find("being stalled waiting") != std::string::npos;
    });
    const auto total = metric(kernel, "smsp__average_warp_latency_per_inst_issued.ratio");
    if (!named_some || !total) return unknown;
    constexpr double unnamed_stall_share_below = 0.31;
    return fact_value::between(0.0, unnamed_stall_share_below * *total, {name});
}

}  // namespace

name_values kernel_facts(const kernel_result& kernel, const gpu_spec& spec) {
    return [&kernel, &spec](const std::string& name) -> fact_value {
        // An unknown value names the metrics its getter looked up and did not find, where it does not
        // say itself.
        metric_miss_log misses;
        fact_value value;
        if (const fact* derived = find_fact(name))
            value = derived->get(kernel, spec);
        else if (auto [fam, res] = split_family(name); fam)
            value = fam->get(kernel, spec, res);
        else if (auto named_bound = bound_fact(name))
            value = kernel.verdict.possible_bounds.empty()
                        ? fact_value(flag(kernel.verdict.bound == *named_bound))
                        : one_of(kernel.verdict.possible_bounds, *named_bound, kernel.verdict.missing);
        else
            value = metric(kernel, name.c_str());
        if (!value.range) value = unstated_stall(kernel, name, value);
        if (!value.range && value.missing.empty()) value.missing = misses.ids();
        return value;
    };
}

std::optional<double> evaluate_evidence(const evidence_value& evidence, const kernel_result& kernel,
                                        const gpu_spec& spec) {
    if (evidence.is_label()) return std::nullopt;
    // The text parsed and type-checked once already (when its tree loaded, or as the engine wrote
    // it): a parse error here is the engine's bug and propagates.
    return expression::parse(evidence.expression, fact_type).evaluate(kernel_facts(kernel, spec));
}

}  // namespace roofline::diagnose
