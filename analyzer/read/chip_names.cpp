#include "analyzer/read/chip_names.hpp"

#include <algorithm>

namespace roofline {
namespace {

// scale x the sum of the counters, where `captured` holds them all.
std::optional<double> form_value(const chip_form& f, const metric_values& captured) {
    double sum = 0.0;
    for (const auto& id : f.counters) {
        auto v = captured.peek(id);
        if (!v) return std::nullopt;
        sum += *v;
    }
    return f.scale * sum;
}

// A capture of a chip the catalogue does not know: the first chip's form that the capture holds whole.
std::optional<double> any_chip_form(const metric_entry& m, const metric_values& captured) {
    for (const auto& [chip_id, f] : m.on)
        if (f.what == chip_form::kind::counters)
            if (auto v = form_value(f, captured)) return v;
    return std::nullopt;
}

}  // namespace

void resolve_chip_names(metric_values& metrics, const chip* c) {
    const metric_values captured = metrics;  // forms read what the capture held, not what an earlier form wrote
    for (const auto& m : metric_catalogue()) {
        const chip_form& f = m.form_on(c);
        std::optional<double> value;
        switch (f.what) {
            case chip_form::kind::zero:
                if (!captured.peek(m.id)) value = 0.0;
                break;
            case chip_form::kind::counters: {
                // The capture's own counter of the quantity wins (ncu's derived__ column beside its base
                // counters), unless the id is one part of the chip's sum.
                const bool part = std::find(f.counters.begin(), f.counters.end(), m.id) != f.counters.end();
                if (captured.peek(m.id) && !part) break;
                value = form_value(f, captured);
                if (!value && part) {
                    metrics.erase(m.id);  // the capture holds one part of the sum under the id: not the quantity
                    continue;
                }
                break;
            }
            case chip_form::kind::same:
            case chip_form::kind::none:
                break;
        }
        // A name another chip uses for it, where the capture lacks the id and this chip's own form:
        // chips name their counters apart, so a whole form of another chip is this quantity.
        if (!value && !captured.peek(m.id) && f.what != chip_form::kind::zero) value = any_chip_form(m, captured);
        if (value) metrics.set(intern_metric(m.id), *value);
    }
}

}  // namespace roofline
