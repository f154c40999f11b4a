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

const char* status_text(diff_status status) {
    switch (status) {
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

diff_key key_of(const analysed_kernel& kernel) {
    return {kernel.group.name, kernel.group.grid_size, kernel.group.block_size};
}

// Each key's kernels in launch order (the line of their first launch), and the keys in the order
// their first kernel was launched.
struct keyed {
    std::map<diff_key, std::vector<const analysed_kernel*>> by_key;
    std::vector<diff_key> order;
};

keyed by_key(const analysis& capture) {
    std::vector<const analysed_kernel*> in_order;
    for (const auto& kernel : capture.kernels) in_order.push_back(&kernel);
    std::stable_sort(in_order.begin(), in_order.end(), [](const analysed_kernel* left, const analysed_kernel* right) {
        return left->group.first_line < right->group.first_line;
    });
    keyed out;
    for (const auto* kernel : in_order) {
        auto& list = out.by_key[key_of(*kernel)];
        if (list.empty()) out.order.push_back(key_of(*kernel));
        list.push_back(kernel);
    }
    return out;
}

// The finding ids of one kernel, once each, in the rule trees' ranking.
std::vector<std::string> finding_ids(const analysed_kernel* kernel) {
    std::vector<std::string> ids;
    if (!kernel) return ids;
    for (const auto& kernel_finding : kernel->diagnosis.findings)
        if (std::find(ids.begin(), ids.end(), kernel_finding.id) == ids.end()) ids.push_back(kernel_finding.id);
    return ids;
}

// The ids of `of` that `other` lacks, in `of`'s order.
std::vector<std::string> missing_from(const std::vector<std::string>& of, const std::vector<std::string>& other) {
    std::vector<std::string> out;
    for (const auto& id : of)
        if (std::find(other.begin(), other.end(), id) == other.end()) out.push_back(id);
    return out;
}

double time_of(const analysed_kernel* kernel) { return kernel && kernel->roof.placed ? kernel->roof.duration_ns : 0.0; }

// "kernel 7 copy_vec4 (grid (1056, 1, 1), block (256, 1, 1))", with " #2" for the second of its name and shape.
std::string kernel_words(std::size_t number, const kernel_diff& entry) {
    const auto& group = entry.any().group;
    std::string out = "kernel " + std::to_string(number) + " " + kernel_label(group.name);
    if (group.grid_size && group.block_size)
        out += " (grid " + to_string(*group.grid_size) + ", block " + to_string(*group.block_size) + ")";
    if (entry.occurrence) out += " #" + std::to_string(entry.occurrence);
    return out;
}

std::string slower_words(double pct, double base_ns, double new_ns) {
    return "got " + decimals(pct, 2) + "% slower (" + format_duration_ns(base_ns) + " -> " +
           format_duration_ns(new_ns) + ")";
}

// The metrics whose absence left something open, over every kernel of a capture: its metric set, as the
// engine sees it.
std::set<std::string> missing_of(const analysis& capture) {
    std::set<std::string> out;
    for (const auto& kernel : capture.kernels)
        out.insert(kernel.diagnosis.missing_metrics.begin(), kernel.diagnosis.missing_metrics.end());
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
    auto some = [](const std::vector<std::string>& names) {
        return names.front() + (names.size() > 1 ? " and " + std::to_string(names.size() - 1) + " more" : "");
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
    capture_diff diff;
    diff.base = std::move(base);
    diff.next = std::move(next);
    diff.options = options;
    diff.same_gpu = diff.base.gpu.id == diff.next.gpu.id;
    diff.comparability = comparability_warnings(diff.base, diff.next);
    const double gate = options.fail_if_slower_pct.value_or(0.0);
    // Over the gate: slower by more than the threshold and beyond the noise floor.
    auto over = [&](double pct, diff_status status) {
        return options.fail_if_slower_pct && pct > gate && status == diff_status::slower;
    };

    const keyed base_keys = by_key(diff.base), next_keys = by_key(diff.next);
    std::vector<kernel_diff> matched_or_gone, added;
    for (const auto& key : base_keys.order) {
        const auto& bs = base_keys.by_key.at(key);
        const auto found = next_keys.by_key.find(key);
        const std::size_t ns = found == next_keys.by_key.end() ? 0 : found->second.size();
        const bool ambiguous = bs.size() > 1 || ns > 1;
        diff.ambiguous_keys += ambiguous;
        for (std::size_t i = 0; i < std::max(bs.size(), ns); ++i) {
            kernel_diff entry;
            entry.base = i < bs.size() ? bs[i] : nullptr;
            entry.next = i < ns ? found->second[i] : nullptr;
            entry.occurrence = ambiguous ? i + 1 : 0;
            (entry.base ? matched_or_gone : added).push_back(entry);
        }
    }
    for (const auto& key : next_keys.order)
        if (!base_keys.by_key.count(key)) {
            const auto& ns = next_keys.by_key.at(key);
            diff.ambiguous_keys += ns.size() > 1;
            for (std::size_t i = 0; i < ns.size(); ++i) {
                kernel_diff entry;
                entry.next = ns[i];
                entry.occurrence = ns.size() > 1 ? i + 1 : 0;
                added.push_back(entry);
            }
        }

    for (auto* list : {&matched_or_gone, &added})
        for (auto& entry : *list) {
            const auto before = finding_ids(entry.base), after = finding_ids(entry.next);
            entry.findings_appeared = missing_from(after, before);
            entry.findings_gone = missing_from(before, after);
            if (!entry.next) {
                entry.status = diff_status::gone;
                ++diff.gone;
            } else if (!entry.base) {
                entry.status = diff_status::added;
                ++diff.added;
            } else {
                ++diff.matched;
                const double t0 = time_of(entry.base), t1 = time_of(entry.next);
                if (t0 > 0 && t1 > 0) {
                    entry.change_pct = (t1 - t0) / t0 * 100.0;
                    entry.status = change_status(
                        t0, t1, std::max(entry.base->group.launches, entry.next->group.launches), options);
                    entry.over_gate = over(*entry.change_pct, entry.status);
                } else {
                    entry.status = diff_status::unmeasured;
                }
            }
        }
    // Longest first by the longer of the two times; ties by name, then launch order.
    auto longer = [](const kernel_diff& left, const kernel_diff& right) {
        const double left_ns = std::max(time_of(left.base), time_of(left.next)),
                     right_ns = std::max(time_of(right.base), time_of(right.next));
        if (left_ns != right_ns) return left_ns > right_ns;
        if (left.any().group.name != right.any().group.name) return left.any().group.name < right.any().group.name;
        return left.occurrence < right.occurrence;
    };
    std::stable_sort(matched_or_gone.begin(), matched_or_gone.end(), longer);
    std::stable_sort(added.begin(), added.end(), longer);
    diff.kernels = std::move(matched_or_gone);
    diff.kernels.insert(diff.kernels.end(), added.begin(), added.end());

    if (diff.base.total_ns > 0 && diff.next.total_ns > 0) {
        diff.total_change_pct = (diff.next.total_ns - diff.base.total_ns) / diff.base.total_ns * 100.0;
        diff.total_status = change_status(diff.base.total_ns, diff.next.total_ns,
                                          std::max(diff.base.launches_kept, diff.next.launches_kept), options);
        diff.total_over_gate = over(*diff.total_change_pct, diff.total_status);
    } else {
        diff.total_status = diff_status::unmeasured;
    }
    if (diff.total_over_gate)
        diff.gate_failures.push_back("the workload total " +
                                     slower_words(*diff.total_change_pct, diff.base.total_ns, diff.next.total_ns));
    for (std::size_t i = 0; i < diff.kernels.size(); ++i)
        if (const auto& entry = diff.kernels[i]; entry.over_gate)
            diff.gate_failures.push_back(kernel_words(i + 1, entry) + " " +
                                         slower_words(*entry.change_pct, time_of(entry.base), time_of(entry.next)));
    return diff;
}

}  // namespace roofline
