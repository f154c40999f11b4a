#include "analyzer/diagnose/kernel_facts.hpp"

#include "analyzer/base/metric_catalogue.hpp"
#include "analyzer/diagnose/fact_table.hpp"

#include <functional>

namespace roofline::rules {
namespace {

using detail::fact;
using detail::facts;
using detail::find_fact;
using detail::flag;
using detail::number;

struct family {
    std::string prefix;
    value_type type;
    std::string doc;
    std::function<std::optional<double>(const kernel_result&, const gpu_spec&, resource)> get;
};

const resource_use* resource_of(const kernel_result& k, resource id) { return k.roof.find(id); }

const std::vector<family>& families() {
    static const std::vector<family> table = {
        {"util_", value_type::number, "busy share 0..1 of a resource as ncu sees it, waste included (replays, excess sectors, conflicts)",
         [](const kernel_result& k, const gpu_spec&, resource r) {
             const resource_use* u = resource_of(k, r);
             return u ? std::optional<double>(u->utilisation) : std::nullopt;
         }},
        {"useful_", value_type::number,
         "the share of the duration the resource's useful work needs at its peak (0 where the kernel does not use it)",
         [](const kernel_result& k, const gpu_spec&, resource r) {
             const resource_use* u = resource_of(k, r);
             return k.roof.placed ? std::optional<double>(u ? u->useful : 0.0) : std::nullopt;
         }},
        {"pressure_", value_type::number, "busy share over the practical share: 1 = as busy as the best kernels keep it",
         [](const kernel_result& k, const gpu_spec&, resource r) {
             const resource_use* u = resource_of(k, r);
             return u ? std::optional<double>(u->utilisation / u->practical) : std::nullopt;
         }},
        {"practical_", value_type::number,
         "the share of the resource's peak real kernels reach on this GPU (hwspecs practical_fraction; where none is measured, the H100 "
         "SXM's share of the same roof as a default, or 1 for roofs measured nowhere)",
         [](const kernel_result&, const gpu_spec& s, resource r) { return std::optional<double>(practical_share_of(s, r).share); }},
        {"peak_", value_type::number,
         "the peak of a roofline resource at the capture's clock, per second (dram: bytes, precisions: FLOP); for a precision the kernel "
         "does not use, the spec's figure at that clock",
         [](const kernel_result& k, const gpu_spec& spec, resource res) -> std::optional<double> {
             if (const resource_use* u = k.roof.find(res); u && u->peak > 0) return u->peak;
             if (k.roof.sm_clock_hz <= 0) return std::nullopt;
             return spec_peak_per_second(spec, res, k.roof.sm_clock_hz);
         }},
        {"work_ns_", value_type::number, "the resource's useful work as time at its raw peak: useful x duration (0 where unused)",
         [](const kernel_result& k, const gpu_spec&, resource r) {
             const resource_use* u = resource_of(k, r);
             return std::optional<double>(u ? u->useful * k.roof.duration_ns : 0.0);
         }},
        {"floor_ns_", value_type::number, "the resource's useful work at its practical share, in ns (0 where unused)",
         [](const kernel_result& k, const gpu_spec&, resource r) {
             const resource_use* u = resource_of(k, r);
             return std::optional<double>(u ? u->floor_ns : 0.0);
         }},
        {"flops_", value_type::number, "FLOPs of one precision (0 where the kernel did none)",
         [](const kernel_result& k, const gpu_spec&, resource r) {
             const resource_use* u = resource_of(k, r);
             return k.roof.flops_counted ? std::optional<double>(u && info(u->id).precision ? u->work : 0.0) : std::nullopt;
         }},
        {"binds_", value_type::boolean,
         "true when this resource's practical floor is the kernel's largest, or within 5% of it (floors that close cannot be told apart)",
         [](const kernel_result& k, const gpu_spec&, resource r) {
             const resource_use* u = resource_of(k, r);
             return flag(u && info(u->id).in_floor && u->floor_ns > 0 && u->floor_ns >= 0.95 * k.roof.practical_floor_ns);
         }},
        {"limiter_", value_type::boolean, "true when the classification names this resource as the limiter",
         [](const kernel_result& k, const gpu_spec&, resource r) { return flag(k.verdict.limiter == r); }},
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
    return [&k, &spec](const std::string& name) -> std::optional<double> {
        if (const fact* f = find_fact(name)) return f->get(k, spec);
        if (auto [fam, res] = split_family(name); fam) return fam->get(k, spec, res);
        if (auto b = bound_fact(name)) return flag(k.verdict.bound == *b);
        return number(k, name.c_str());
    };
}

std::optional<double> evaluate_evidence(const evidence_value& e, const kernel_result& k, const gpu_spec& spec) {
    if (e.is_label) return std::nullopt;
    // The text parsed and type-checked once already (when its tree loaded, or as the engine wrote
    // it): a parse error here is the engine's bug and propagates.
    return expression::parse(e.expression, fact_type).evaluate(kernel_facts(k, spec));
}

}  // namespace roofline::rules
