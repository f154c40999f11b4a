#include "analyzer/base/metric_catalogue.hpp"

#include "analyzer/base/embedded.hpp"
#include "analyzer/base/json_files.hpp"

#include <nlohmann/json.hpp>

#include <algorithm>
#include <set>
#include <stdexcept>

namespace roofline {
namespace {

// The catalogue is compiled in: a malformed entry is the engine's bug, not the user's input.
[[noreturn]] void bad_catalogue(const std::string& what) { throw std::logic_error("metric catalogue: " + what); }

nlohmann::json catalogue_json() {
    const auto& files = embedded_catalogue();
    if (files.size() != 1) bad_catalogue("expected one embedded file");
    return parse_json_file<nlohmann::json>(files.front().contents, files.front().name, error_code::bad_spec);
}

const nlohmann::json& catalogue_document() {
    static const nlohmann::json parsed = catalogue_json();
    return parsed;
}

// {"sum": [...], "scale": k}, "another_name", {"zero": why} or {"none": why}.
chip_form form_from(const nlohmann::json& node, const std::string& where) {
    chip_form form;
    if (node.is_string()) {
        form.what = chip_form::kind::counters;
        form.counters = {node.get<std::string>()};
    } else if (node.contains("sum")) {
        form.what = chip_form::kind::counters;
        form.counters = node.at("sum").get<std::vector<std::string>>();
        form.scale = node.value("scale", 1.0);
        if (form.counters.empty()) bad_catalogue(where + ": an empty sum");
    } else if (node.contains("zero")) {
        form.what = chip_form::kind::zero;
        form.why = node.at("zero").get<std::string>();
    } else if (node.contains("none")) {
        form.what = chip_form::kind::none;
        form.why = node.at("none").get<std::string>();
    } else {
        bad_catalogue(where + ": a chip form is a name, {\"sum\": ...}, {\"zero\": why} or {\"none\": why}");
    }
    return form;
}

metric_kind kind_named(const std::string& kind_name, const std::string& id) {
    if (kind_name == "counter") return metric_kind::counter;
    if (kind_name == "attribute") return metric_kind::attribute;
    if (kind_name == "derived") return metric_kind::derived;
    bad_catalogue(id + ": kind \"" + kind_name + "\" is not counter, attribute or derived");
}

std::vector<chip> load_chips() {
    std::vector<chip> out;
    for (const auto& chip_node : catalogue_document().at("chips"))
        out.push_back({chip_node.at("id").get<std::string>(),
                       chip_node.at("compute_capability").get<std::vector<std::string>>(),
                       chip_node.at("ncu_arch").get<std::string>(), chip_node.at("listing").get<std::string>(),
                       chip_node.at("gpus").get<std::string>()});
    return out;
}

std::vector<metric_entry> load() {
    std::vector<metric_entry> out;
    for (const auto& metric_node : catalogue_document().at("metrics")) {
        metric_entry entry;
        entry.id = metric_node.at("id").get<std::string>();
        entry.unit = metric_node.value("unit", "");
        entry.meaning = metric_node.at("meaning").get<std::string>();
        entry.pitfall = metric_node.value("pitfall", "");
        entry.collected_by = metric_node.at("collected_by").get<std::string>();
        entry.kind = kind_named(metric_node.value("kind", "counter"), entry.id);
        if (metric_node.contains("from")) entry.from = form_from(metric_node.at("from"), entry.id);
        if (metric_node.contains("on"))
            for (const auto& [chip_id, form] : metric_node.at("on").items()) {
                if (!find_chip(chip_id)) bad_catalogue(entry.id + ": no chip \"" + chip_id + "\"");
                entry.on[chip_id] = form_from(form, entry.id + " on " + chip_id);
            }
        entry.stated_by = metric_node.value("stated_by", "");
        if (metric_node.contains("source_metrics")) {
            const auto& source_node = metric_node.at("source_metrics");
            entry.source = source_definition{source_node.at("inputs").get<std::vector<std::string>>(),
                                             source_node.at("expression").get<std::string>(),
                                             source_node.at("stock_section").get<std::string>()};
        }
        out.push_back(std::move(entry));
    }
    std::sort(out.begin(), out.end(),
              [](const metric_entry& left, const metric_entry& right) { return left.id < right.id; });
    for (std::size_t i = 1; i < out.size(); ++i)
        if (out[i].id == out[i - 1].id) bad_catalogue(out[i].id + " is listed twice");
    return out;
}

std::vector<metric_family> load_families() {
    std::vector<metric_family> out;
    for (const auto& family_node : catalogue_document().at("families")) {
        metric_family family{family_node.at("prefix").get<std::string>(),
                             family_node.value("suffix", std::string()),
                             family_node.at("example").get<std::string>(),
                             family_node.at("meaning").get<std::string>(),
                             family_node.at("collected_by").get<std::string>(),
                             family_node.value("not_planned", std::string()),
                             {}};
        for (const auto& [chip_id, ids] : family_node.at("members").items()) {
            if (!find_chip(chip_id)) bad_catalogue(family.prefix + ": no chip \"" + chip_id + "\"");
            family.members[chip_id] = ids.get<std::vector<std::string>>();
        }
        out.push_back(std::move(family));
    }
    return out;
}

// Every metric id some stage keeps: the ids, the counters of every chip's forms, sorted.
std::vector<std::string> load_read_ids() {
    std::set<std::string> ids;
    for (const auto& entry : metric_catalogue()) {
        ids.insert(entry.id);
        if (entry.from) ids.insert(entry.from->counters.begin(), entry.from->counters.end());
        for (const auto& [chip_id, form] : entry.on) ids.insert(form.counters.begin(), form.counters.end());
    }
    return {ids.begin(), ids.end()};
}

}  // namespace

int chip::arch_number() const { return std::stoi(ncu_arch.substr(3)); }

const chip_form& metric_entry::form_on(const chip* target_chip) const {
    static const chip_form same;
    if (target_chip)
        if (auto it = on.find(target_chip->id); it != on.end()) return it->second;
    return from ? *from : same;
}

bool metric_family::matches(std::string_view id) const {
    return id.size() >= prefix.size() + suffix.size() && id.substr(0, prefix.size()) == prefix &&
           id.substr(id.size() - suffix.size()) == suffix;
}

const std::vector<chip>& chips() {
    static const std::vector<chip> all = load_chips();
    return all;
}

const chip* find_chip(std::string_view id) {
    for (const auto& candidate : chips())
        if (candidate.id == id) return &candidate;
    return nullptr;
}

std::string normal_cc(std::string_view cc) {
    std::string normal(cc);
    if (!normal.empty() && normal.find('.') == std::string::npos) normal += ".0";
    return normal;
}

const chip* chip_for_cc(std::string_view cc) {
    const std::string want = normal_cc(cc);
    for (const auto& candidate : chips())
        for (const auto& capability : candidate.compute_capabilities)
            if (capability == want) return &candidate;
    return nullptr;
}

const std::vector<metric_entry>& metric_catalogue() {
    static const std::vector<metric_entry> all = load();
    return all;
}

const metric_entry* find_metric(const std::string& id) {
    const auto& all = metric_catalogue();
    auto it = std::lower_bound(all.begin(), all.end(), id,
                               [](const metric_entry& entry, const std::string& target) { return entry.id < target; });
    return it != all.end() && it->id == id ? &*it : nullptr;
}

const std::vector<metric_family>& metric_families() {
    static const std::vector<metric_family> all = load_families();
    return all;
}

bool engine_reads(std::string_view id) {
    static const std::vector<std::string> ids = load_read_ids();
    if (std::binary_search(ids.begin(), ids.end(), id)) return true;
    for (const auto& family : metric_families())
        if (family.matches(id)) return true;
    return false;
}

std::vector<std::string> names_on(const metric_entry& entry, const chip* target_chip) {
    const chip_form& form = entry.form_on(target_chip);
    switch (form.what) {
        case chip_form::kind::same:
            return {entry.id};
        case chip_form::kind::counters:
            return form.counters;
        case chip_form::kind::zero:
        case chip_form::kind::none:
            return {};
    }
    return {};
}

}  // namespace roofline
