#include "analyzer/compare/timeline_diff.hpp"

#include "analyzer/base/format.hpp"
#include "analyzer/timeline/trace_file.hpp"

#include <algorithm>
#include <cmath>
#include <map>

namespace roofline::timeline {
namespace {

trace_side side_of(const std::string& path, std::int64_t min_gap_ns) {
    trace_side s;
    s.source = std::make_unique<trace>(read_trace_file(path));
    s.model = model_timeline(*s.source, min_gap_ns);
    s.findings = timeline_findings(s.model);
    return s;
}

// A device's time per step: the span of the GPU work its steps launched over their count, or the
// span where the trace marks none.
double step_ns(const device_timeline& d, const step_figures& steps, bool per_step) {
    return per_step ? double(d.steps_span_ns()) / double(steps.count) : double(d.span_ns());
}

std::map<std::string, const kernel_total*> by_name(const trace& t, const device_timeline& d) {
    std::map<std::string, const kernel_total*> out;
    for (const auto& k : d.kernel_totals) out[t.name(k.name)] = &k;
    return out;
}

void compare_kernels(const trace_side& base, const trace_side& next, device_change& c) {
    const auto a = by_name(*base.source, *c.base), b = by_name(*next.source, *c.next);
    for (const auto& [name, k] : a) {
        auto it = b.find(name);
        if (it == b.end()) {
            c.gone.push_back({name, k->total_ns, 0, k->launches, 0});
        } else {
            c.moved.push_back({name, k->total_ns, it->second->total_ns, k->launches, it->second->launches});
        }
    }
    for (const auto& [name, k] : b)
        if (!a.count(name)) c.appeared.push_back({name, 0, k->total_ns, 0, k->launches});
    auto by_size = [](const kernel_change& x, const kernel_change& y) {
        const auto dx = std::llabs(x.next_ns - x.base_ns), dy = std::llabs(y.next_ns - y.base_ns);
        return dx != dy ? dx > dy : x.name < y.name;
    };
    for (auto* v : {&c.gone, &c.appeared, &c.moved}) std::sort(v->begin(), v->end(), by_size);
    if (c.moved.size() > 10) c.moved.resize(10);
}

}  // namespace

timeline_diff diff_traces(const std::string& base_path, const std::string& next_path, std::int64_t min_gap_ns,
                          std::optional<double> fail_if_slower_pct, double noise_pct) {
    timeline_diff d;
    d.base = side_of(base_path, min_gap_ns);
    d.next = side_of(next_path, min_gap_ns);
    d.fail_if_slower_pct = fail_if_slower_pct;
    d.noise_pct = noise_pct;
    d.per_step = d.base.model.steps.count > 0 && d.next.model.steps.count > 0;
    std::map<std::int32_t, device_change> devices;
    for (const auto& dev : d.base.model.devices) devices[dev.device].base = &dev;
    for (const auto& dev : d.next.model.devices) devices[dev.device].next = &dev;
    for (auto& [id, c] : devices) {
        c.device = id;
        if (c.base) c.base_step_ns = step_ns(*c.base, d.base.model.steps, d.per_step);
        if (c.next) c.next_step_ns = step_ns(*c.next, d.next.model.steps, d.per_step);
        if (c.base && c.next) {
            if (c.base_step_ns > 0) c.change_pct = (c.next_step_ns - c.base_step_ns) / c.base_step_ns * 100.0;
            compare_kernels(d.base, d.next, c);
            if (fail_if_slower_pct && c.change_pct && *c.change_pct > *fail_if_slower_pct && *c.change_pct > noise_pct)
                d.gate_failures.push_back("GPU " + std::to_string(id) + ": " + decimals(*c.change_pct, 2) +
                                          "% slower " + (d.per_step ? "per step" : "over its span"));
        }
        d.devices.push_back(std::move(c));
    }
    return d;
}

}  // namespace roofline::timeline
