#include "analyzer/diagnose/kernel_facts.hpp"

#include "analyzer/base/metric_catalogue.hpp"
#include "analyzer/diagnose/fact_table.hpp"

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

const resource_use* resource_of(const kernel_result& k, resource id) { return k.roof.find(id); }

// A share of a resource: exact where measured exactly, between bounds where the capture lacks what
// decides it (measured[lo, hi]) or lacks its counters (0 .. unmeasured bound), 0 where the kernel does
// not use it, unknown for a resource of which nothing is known.
fact_value share_of(const kernel_result& k, resource id, double (*lo)(const resource_use&),
                    double (*hi)(const resource_use&),
                    double (*unmeasured_hi)(const unmeasured_resource&, const kernel_result&),
                    std::optional<double> unused) {
    if (const resource_use* u = resource_of(k, id))
        return fact_value::between(lo(*u), hi(*u), std::vector<std::string>(u->missing.begin(), u->missing.end()));
    if (const unmeasured_resource* u = k.roof.find_unmeasured(id))
        return fact_value::between(0.0, unmeasured_hi(*u, k),
                                   std::vector<std::string>(u->missing.begin(), u->missing.end()));
    return unused;
}

double busy_hi(const unmeasured_resource& u, const kernel_result&) { return u.hi; }
double floor_hi(const unmeasured_resource& u, const kernel_result& k) { return u.floor_hi_ns(k.roof.duration_ns); }

// A boolean over the possibilities a verdict leaves: true where the only one is `r`, false where `r` is
// none of them, open otherwise.
template <class T>
fact_value one_of(const std::vector<T>& possible, const T& r, const std::vector<std::string>& missing) {
    if (std::find(possible.begin(), possible.end(), r) == possible.end()) return 0.0;
    if (possible.size() == 1) return 1.0;
    return detail::undecided(missing);
}

const std::vector<family>& families() {
    static const std::vector<family> table = {
        {"util_", value_type::number,
         "busy share 0..1 of a resource as ncu sees it, waste included (replays, excess sectors, conflicts)",
         [](const kernel_result& k, const gpu_spec&, resource r) {
             return share_of(
                 k, r, [](const resource_use& u) { return u.utilisation; },
                 [](const resource_use& u) { return u.utilisation; }, busy_hi, std::nullopt);
         }},
        {"useful_", value_type::number,
         "the share of the duration the resource's useful work needs at its peak (0 where the kernel does not use it)",
         [](const kernel_result& k, const gpu_spec&, resource r) {
             if (!k.roof.placed) return fact_value();
             return share_of(
                 k, r, [](const resource_use& u) { return u.useful_min(); },
                 [](const resource_use& u) { return u.useful; }, busy_hi, 0.0);
         }},
        {"pressure_", value_type::number,
         "busy share over the practical share: 1 = as busy as the best kernels keep it",
         [](const kernel_result& k, const gpu_spec&, resource r) {
             return share_of(
                 k, r, [](const resource_use& u) { return u.utilisation / u.practical; },
                 [](const resource_use& u) { return u.utilisation / u.practical; },
                 [](const unmeasured_resource& u, const kernel_result&) { return u.hi / u.practical; }, std::nullopt);
         }},
        {"practical_", value_type::number,
         "the share of the resource's peak real kernels reach on this GPU (hwspecs practical_fraction; where none is "
         "measured, the H100 "
         "SXM's share of the same roof as a default, or 1 for roofs measured nowhere)",
         [](const kernel_result&, const gpu_spec& s, resource r) {
             return fact_value(practical_share_of(s, r).share);
         }},
        {"peak_", value_type::number,
         "the peak of a roofline resource at the capture's clock, per second (dram: bytes, precisions: FLOP); for a "
         "precision the kernel "
         "does not use, the spec's figure at that clock",
         [](const kernel_result& k, const gpu_spec& spec, resource res) -> fact_value {
             if (const resource_use* u = k.roof.find(res); u && u->peak > 0) return u->peak;
             if (k.roof.sm_clock_hz <= 0) return std::nullopt;
             return spec_peak_per_second(spec, res, k.roof.sm_clock_hz);
         }},
        {"work_ns_", value_type::number,
         "the resource's useful work as time at its raw peak: useful x duration (0 where unused)",
         [](const kernel_result& k, const gpu_spec&, resource r) {
             auto v = share_of(
                 k, r, [](const resource_use& u) { return u.useful_min(); },
                 [](const resource_use& u) { return u.useful; }, busy_hi, 0.0);
             if (v.range) v.range = value_range{v.range->lo * k.roof.duration_ns, v.range->hi * k.roof.duration_ns};
             return v;
         }},
        {"floor_ns_", value_type::number, "the resource's useful work at its practical share, in ns (0 where unused)",
         [](const kernel_result& k, const gpu_spec&, resource r) {
             return share_of(
                 k, r, [](const resource_use& u) { return u.floor_min_ns(); },
                 [](const resource_use& u) { return u.floor_ns; }, floor_hi, 0.0);
         }},
        {"flops_", value_type::number, "FLOPs of one precision (0 where the kernel did none)",
         [](const kernel_result& k, const gpu_spec&, resource r) -> fact_value {
             if (const unmeasured_resource* u = k.roof.find_unmeasured(r)) {
                 fact_value v;
                 v.missing.assign(u->missing.begin(), u->missing.end());
                 return v;
             }
             const resource_use* u = resource_of(k, r);
             if (!u || !info(u->id).precision) return k.roof.flops_counted ? fact_value(0.0) : fact_value();
             // FP16 counts that may be HFMA2.MMA moves: the FLOPs are at most what they count.
             const bool unsure = !u->exact() && u->useful_min() <= 0.0;
             return fact_value::between(unsure ? 0.0 : u->work, u->work,
                                        std::vector<std::string>(u->missing.begin(), u->missing.end()));
         }},
        {"binds_", value_type::boolean,
         "true when this resource's practical floor is the kernel's largest, or within 5% of it (floors that close "
         "cannot be told apart)",
         [](const kernel_result& k, const gpu_spec&, resource r) -> fact_value {
             if (!info(r).in_floor) return 0.0;
             double lo = 0.0, hi = 0.0;
             std::vector<std::string> missing;
             if (const resource_use* u = resource_of(k, r)) {
                 lo = u->floor_min_ns(), hi = u->floor_ns;
                 missing.assign(u->missing.begin(), u->missing.end());
             } else if (const unmeasured_resource* u = k.roof.find_unmeasured(r)) {
                 hi = u->floor_hi_ns(k.roof.duration_ns);
                 missing.assign(u->missing.begin(), u->missing.end());
             }
             if (lo > 0 && lo >= 0.95 * k.roof.practical_floor_hi_ns) return 1.0;
             if (hi <= 0 || hi < 0.95 * k.roof.practical_floor_ns) return 0.0;
             if (k.roof.floors_exact() && lo == hi) return flag(hi >= 0.95 * k.roof.practical_floor_ns);
             auto all = k.roof.missing_metrics();
             missing.insert(missing.end(), all.begin(), all.end());
             return detail::undecided(std::move(missing));
         }},
        {"limiter_", value_type::boolean, "true when the classification names this resource as the limiter",
         [](const kernel_result& k, const gpu_spec&, resource r) {
             // A verdict that records no possibilities is a plain one: its limiter, or none.
             if (k.verdict.possible_bounds.empty()) return flag(k.verdict.limiter == r);
             return one_of(k.verdict.possible_limiters, r, k.verdict.missing);
         }},
    };
    return table;
}

// The family and resource of a name like useful_dram, or nullptr.
std::pair<const family*, resource> split_family(const std::string& name) {
    for (const auto& f : families()) {
        if (name.rfind(f.prefix, 0) != 0) continue;
        if (auto r = resource_named(std::string_view(name).substr(f.prefix.size()))) return {&f, *r};
    }
    return {nullptr, resource::sm};
}

// bound_memory, bound_compute, ...: every bound a verdict can name (unknown is no verdict).
std::optional<bound> bound_fact(const std::string& name) {
    for (bound b : all_bounds())
        if (b != bound::unknown && name == std::string("bound_") + roofline::name(b)) return b;
    return std::nullopt;
}

}  // namespace

const std::vector<std::pair<std::string, std::string>>& derived_fact_docs() {
    static const std::vector<std::pair<std::string, std::string>> docs = [] {
        std::vector<std::pair<std::string, std::string>> d;
        for (const auto& f : facts()) d.emplace_back(f.name, f.doc);
        for (const auto& f : families()) d.emplace_back(f.prefix + "<resource>", f.doc);
        std::string bounds;
        for (bound b : all_bounds())
            if (b != bound::unknown) bounds += (bounds.empty() ? "bound_" : ", bound_") + std::string(name(b));
        d.emplace_back(bounds, "the classification, true/false");
        return d;
    }();
    return docs;
}

std::optional<value_type> fact_type(const std::string& name) {
    if (const fact* f = find_fact(name)) return f->type;
    if (auto [fam, res] = split_family(name); fam) return fam->type;
    if (bound_fact(name)) return value_type::boolean;
    if (find_metric(name)) return value_type::number;
    return std::nullopt;
}

name_values kernel_facts(const kernel_result& k, const gpu_spec& spec) {
    return [&k, &spec](const std::string& name) -> fact_value {
        // An unknown value names the metrics its getter looked up and did not find, where it does not
        // say itself.
        metric_miss_log misses;
        fact_value v;
        if (const fact* f = find_fact(name))
            v = f->get(k, spec);
        else if (auto [fam, res] = split_family(name); fam)
            v = fam->get(k, spec, res);
        else if (auto b = bound_fact(name))
            v = k.verdict.possible_bounds.empty() ? fact_value(flag(k.verdict.bound == *b))
                                                  : one_of(k.verdict.possible_bounds, *b, k.verdict.missing);
        else
            v = metric(k, name.c_str());
        if (!v.range && v.missing.empty()) v.missing = misses.ids();
        return v;
    };
}

std::optional<double> evaluate_evidence(const evidence_value& e, const kernel_result& k, const gpu_spec& spec) {
    if (e.is_label()) return std::nullopt;
    // The text parsed and type-checked once already (when its tree loaded, or as the engine wrote
    // it): a parse error here is the engine's bug and propagates.
    return expression::parse(e.expression, fact_type).evaluate(kernel_facts(k, spec));
}

}  // namespace roofline::diagnose
