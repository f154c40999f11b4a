#include "analyzer/read/chip_names.hpp"

#include <algorithm>

namespace roofline {
namespace {

// scale x the sum of the counters, where `captured` holds them all.
std::optional<double> form_value(const chip_form& form, const metric_values& captured) {
    double sum = 0.0;
    for (const auto& id : form.counters) {
        auto counter = captured.peek(id);
        if (!counter) return std::nullopt;
        sum += *counter;
    }
    return form.scale * sum;
}

// A capture of a chip the catalogue does not know: the first chip's form that the capture holds whole.
std::optional<double> any_chip_form(const metric_entry& entry, const metric_values& captured) {
    for (const auto& [chip_id, form] : entry.on)
        if (form.what == chip_form::kind::counters)
            if (auto value = form_value(form, captured)) return value;
    return std::nullopt;
}

}  // namespace

void resolve_chip_names(metric_values& metrics, const chip* for_chip) {
    const metric_values captured = metrics;  // forms read what the capture held, not what an earlier form wrote
    for (const auto& entry : metric_catalogue()) {
        const chip_form& form = entry.form_on(for_chip);
        std::optional<double> value;
        switch (form.what) {
            case chip_form::kind::zero:
                if (!captured.peek(entry.id)) value = 0.0;
                break;
            case chip_form::kind::counters: {
                // The capture's own counter of the quantity wins (ncu's derived__ column beside its base
                // counters), unless the id is one part of the chip's sum.
                const bool part =
                    std::find(form.counters.begin(), form.counters.end(), entry.id) != form.counters.end();
                if (captured.peek(entry.id) && !part) break;
                value = form_value(form, captured);
                if (!value && part) {
                    metrics.erase(entry.id);  // the capture holds one part of the sum under the id: not the quantity
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
        if (!value && !captured.peek(entry.id) && form.what != chip_form::kind::zero)
            value = any_chip_form(entry, captured);
        if (value) metrics.set(intern_metric(entry.id), *value);
    }
}

}  // namespace roofline
