// Matching two captures' kernels and measuring each change (diff.hpp). The key is the kernel table's
// own: the full name, the grid and the block. The kernel table folds every launch of one key into
// one kernel, so a key names one kernel per side unless the capture holds it more than once (two
// devices' launches, or a table made otherwise); those are matched in launch order.
#include "analyzer/compare/diff.hpp"
#include "analyzer/read/kernel_names.hpp"

#include "analyzer/base/format.hpp"
#include "analyzer/report/text.hpp"

#include <algorithm>
#include <cmath>
#include <iterator>
#include <map>
#include <set>
#include <tuple>

namespace roofline {

const char* status_text(diff_status s) {
    switch (s) {
        case diff_status::faster:
            return "faster";
        case diff_status::slower:
            return "slower";
        case diff_status::within_noise:
            return "within noise";
        case diff_status::gone:
            return "gone";
        case diff_status::added:
            return "new";
        case diff_status::unmeasured:
            return "no time";
    }
    return "";
}

diff_status change_status(double base_ns, double new_ns, std::size_t launches, const diff_options& options) {
    const double floor_ns = std::max(options.noise_pct / 100.0 * base_ns, options.noise_ns * double(launches));
    if (new_ns - base_ns > floor_ns) return diff_status::slower;
    if (base_ns - new_ns > floor_ns) return diff_status::faster;
    return diff_status::within_noise;
}

namespace {

using diff_key = std::tuple<std::string, std::optional<launch_dims>, std::optional<launch_dims>>;

diff_key key_of(const analysed_kernel& k) { return {k.group.name, k.group.grid_size, k.group.block_size}; }

// Each key's kernels in launch order (the line of their first launch), and the keys in the order
// their first kernel was launched.
struct keyed {
    std::map<diff_key, std::vector<const analysed_kernel*>> by_key;
    std::vector<diff_key> order;
};

keyed by_key(const analysis& a) {
    std::vector<const analysed_kernel*> in_order;
    for (const auto& k : a.kernels) in_order.push_back(&k);
    std::stable_sort(in_order.begin(), in_order.end(), [](const analysed_kernel* x, const analysed_kernel* y) {
        return x->group.first_line < y->group.first_line;
    });
    keyed out;
    for (const auto* k : in_order) {
        auto& list = out.by_key[key_of(*k)];
        if (list.empty()) out.order.push_back(key_of(*k));
        list.push_back(k);
    }
    return out;
}

// The finding ids of one kernel, once each, in the rule trees' ranking.
std::vector<std::string> finding_ids(const analysed_kernel* k) {
    std::vector<std::string> ids;
    if (!k) return ids;
    for (const auto& f : k->diagnosis.findings)
        if (std::find(ids.begin(), ids.end(), f.id) == ids.end()) ids.push_back(f.id);
    return ids;
}

// The ids of `of` that `other` lacks, in `of`'s order.
std::vector<std::string> missing_from(const std::vector<std::string>& of, const std::vector<std::string>& other) {
    std::vector<std::string> out;
    for (const auto& id : of)
        if (std::find(other.begin(), other.end(), id) == other.end()) out.push_back(id);
    return out;
}

double time_of(const analysed_kernel* k) { return k && k->roof.placed ? k->roof.duration_ns : 0.0; }

// "kernel 7 copy_vec4 (grid (1056, 1, 1), block (256, 1, 1))", with " #2" for the second of its name and shape.
std::string kernel_words(std::size_t number, const kernel_diff& k) {
    const auto& g = k.any().group;
    std::string s = "kernel " + std::to_string(number) + " " + kernel_label(g.name);
    if (g.grid_size && g.block_size)
        s += " (grid " + to_string(*g.grid_size) + ", block " + to_string(*g.block_size) + ")";
    if (k.occurrence) s += " #" + std::to_string(k.occurrence);
    return s;
}

std::string slower_words(double pct, double base_ns, double new_ns) {
    return "got " + decimals(pct, 2) + "% slower (" + format_duration_ns(base_ns) + " -> " +
           format_duration_ns(new_ns) + ")";
}

// The metrics whose absence left something open, over every kernel of a capture: its metric set, as the
// engine sees it.
std::set<std::string> missing_of(const analysis& a) {
    std::set<std::string> out;
    for (const auto& k : a.kernels) out.insert(k.diagnosis.missing_metrics.begin(), k.diagnosis.missing_metrics.end());
    return out;
}

std::vector<std::string> comparability_warnings(const analysis& base, const analysis& next) {
    std::vector<std::string> out;
    if (base.read.form != next.read.form)
        out.push_back(
            std::string("the captures are different pages of ncu's export (base: ") + ncu_form_name(base.read.form) +
            ", new: " + ncu_form_name(next.read.form) +
            "): what one page lacks (a details page has no FLOP, pipe or waste counters) changes verdicts and findings "
            "by itself; export both with the same --page");
    const auto mb = missing_of(base), mn = missing_of(next);
    std::vector<std::string> only_base, only_next;
    std::set_difference(mn.begin(), mn.end(), mb.begin(), mb.end(),
                        std::back_inserter(only_base));  // base has, new lacks
    std::set_difference(mb.begin(), mb.end(), mn.begin(), mn.end(), std::back_inserter(only_next));
    auto some = [](const std::vector<std::string>& v) {
        return v.front() + (v.size() > 1 ? " and " + std::to_string(v.size() - 1) + " more" : "");
    };
    if (!only_base.empty() || !only_next.empty())
        out.push_back("the captures hold different metric sets (" +
                      (only_base.empty() ? std::string() : "new lacks " + some(only_base)) +
                      (only_base.empty() || only_next.empty() ? "" : "; ") +
                      (only_next.empty() ? std::string() : "base lacks " + some(only_next)) +
                      "): a finding that needs them can appear or go for that alone; profile both with the same --set "
                      "or --metrics");
    return out;
}

}  // namespace

capture_diff diff_analyses(analysis base, analysis next, const diff_options& options) {
    capture_diff d;
    d.base = std::move(base);
    d.next = std::move(next);
    d.options = options;
    d.same_gpu = d.base.gpu.id == d.next.gpu.id;
    d.comparability = comparability_warnings(d.base, d.next);
    const double gate = options.fail_if_slower_pct.value_or(0.0);
    // Over the gate: slower by more than the threshold and beyond the noise floor.
    auto over = [&](double pct, diff_status status) {
        return options.fail_if_slower_pct && pct > gate && status == diff_status::slower;
    };

    const keyed b = by_key(d.base), n = by_key(d.next);
    std::vector<kernel_diff> matched_or_gone, added;
    for (const auto& key : b.order) {
        const auto& bs = b.by_key.at(key);
        const auto found = n.by_key.find(key);
        const std::size_t ns = found == n.by_key.end() ? 0 : found->second.size();
        const bool ambiguous = bs.size() > 1 || ns > 1;
        d.ambiguous_keys += ambiguous;
        for (std::size_t i = 0; i < std::max(bs.size(), ns); ++i) {
            kernel_diff k;
            k.base = i < bs.size() ? bs[i] : nullptr;
            k.next = i < ns ? found->second[i] : nullptr;
            k.occurrence = ambiguous ? i + 1 : 0;
            (k.base ? matched_or_gone : added).push_back(k);
        }
    }
    for (const auto& key : n.order)
        if (!b.by_key.count(key)) {
            const auto& ns = n.by_key.at(key);
            d.ambiguous_keys += ns.size() > 1;
            for (std::size_t i = 0; i < ns.size(); ++i) {
                kernel_diff k;
                k.next = ns[i];
                k.occurrence = ns.size() > 1 ? i + 1 : 0;
                added.push_back(k);
            }
        }

    for (auto* list : {&matched_or_gone, &added})
        for (auto& k : *list) {
            const auto before = finding_ids(k.base), after = finding_ids(k.next);
            k.findings_appeared = missing_from(after, before);
            k.findings_gone = missing_from(before, after);
            if (!k.next) {
                k.status = diff_status::gone;
                ++d.gone;
            } else if (!k.base) {
                k.status = diff_status::added;
                ++d.added;
            } else {
                ++d.matched;
                const double t0 = time_of(k.base), t1 = time_of(k.next);
                if (t0 > 0 && t1 > 0) {
                    k.change_pct = (t1 - t0) / t0 * 100.0;
                    k.status = change_status(t0, t1, std::max(k.base->group.launches, k.next->group.launches), options);
                    k.over_gate = over(*k.change_pct, k.status);
                } else {
                    k.status = diff_status::unmeasured;
                }
            }
        }
    // Longest first by the longer of the two times; ties by name, then launch order.
    auto longer = [](const kernel_diff& x, const kernel_diff& y) {
        const double tx = std::max(time_of(x.base), time_of(x.next)), ty = std::max(time_of(y.base), time_of(y.next));
        if (tx != ty) return tx > ty;
        if (x.any().group.name != y.any().group.name) return x.any().group.name < y.any().group.name;
        return x.occurrence < y.occurrence;
    };
    std::stable_sort(matched_or_gone.begin(), matched_or_gone.end(), longer);
    std::stable_sort(added.begin(), added.end(), longer);
    d.kernels = std::move(matched_or_gone);
    d.kernels.insert(d.kernels.end(), added.begin(), added.end());

    if (d.base.total_ns > 0 && d.next.total_ns > 0) {
        d.total_change_pct = (d.next.total_ns - d.base.total_ns) / d.base.total_ns * 100.0;
        d.total_status = change_status(d.base.total_ns, d.next.total_ns,
                                       std::max(d.base.launches_kept, d.next.launches_kept), options);
        d.total_over_gate = over(*d.total_change_pct, d.total_status);
    } else {
        d.total_status = diff_status::unmeasured;
    }
    if (d.total_over_gate)
        d.gate_failures.push_back("the workload total " +
                                  slower_words(*d.total_change_pct, d.base.total_ns, d.next.total_ns));
    for (std::size_t i = 0; i < d.kernels.size(); ++i)
        if (const auto& k = d.kernels[i]; k.over_gate)
            d.gate_failures.push_back(kernel_words(i + 1, k) + " " +
                                      slower_words(*k.change_pct, time_of(k.base), time_of(k.next)));
    return d;
}

}  // namespace roofline
