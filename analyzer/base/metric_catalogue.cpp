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
    static const nlohmann::json j = catalogue_json();
    return j;
}

// {"sum": [...], "scale": k}, "another_name", {"zero": why} or {"none": why}.
chip_form form_from(const nlohmann::json& j, const std::string& where) {
    chip_form f;
    if (j.is_string()) {
        f.what = chip_form::kind::counters;
        f.counters = {j.get<std::string>()};
    } else if (j.contains("sum")) {
        f.what = chip_form::kind::counters;
        f.counters = j.at("sum").get<std::vector<std::string>>();
        f.scale = j.value("scale", 1.0);
        if (f.counters.empty()) bad_catalogue(where + ": an empty sum");
    } else if (j.contains("zero")) {
        f.what = chip_form::kind::zero;
        f.why = j.at("zero").get<std::string>();
    } else if (j.contains("none")) {
        f.what = chip_form::kind::none;
        f.why = j.at("none").get<std::string>();
    } else {
        bad_catalogue(where + ": a chip form is a name, {\"sum\": ...}, {\"zero\": why} or {\"none\": why}");
    }
    return f;
}

metric_kind kind_named(const std::string& k, const std::string& id) {
    if (k == "counter") return metric_kind::counter;
    if (k == "attribute") return metric_kind::attribute;
    if (k == "derived") return metric_kind::derived;
    bad_catalogue(id + ": kind \"" + k + "\" is not counter, attribute or derived");
}

std::vector<chip> load_chips() {
    std::vector<chip> out;
    for (const auto& c : catalogue_document().at("chips"))
        out.push_back({c.at("id").get<std::string>(), c.at("compute_capability").get<std::vector<std::string>>(),
                       c.at("ncu_arch").get<std::string>(), c.at("listing").get<std::string>(),
                       c.at("gpus").get<std::string>()});
    return out;
}

std::vector<metric_entry> load() {
    std::vector<metric_entry> out;
    for (const auto& m : catalogue_document().at("metrics")) {
        metric_entry e;
        e.id = m.at("id").get<std::string>();
        e.unit = m.value("unit", "");
        e.meaning = m.at("meaning").get<std::string>();
        e.pitfall = m.value("pitfall", "");
        e.collected_by = m.at("collected_by").get<std::string>();
        e.kind = kind_named(m.value("kind", "counter"), e.id);
        if (m.contains("from")) e.from = form_from(m.at("from"), e.id);
        if (m.contains("on"))
            for (const auto& [chip_id, form] : m.at("on").items()) {
                if (!find_chip(chip_id)) bad_catalogue(e.id + ": no chip \"" + chip_id + "\"");
                e.on[chip_id] = form_from(form, e.id + " on " + chip_id);
            }
        e.stated_by = m.value("stated_by", "");
        if (m.contains("source_metrics")) {
            const auto& s = m.at("source_metrics");
            e.source =
                source_definition{s.at("inputs").get<std::vector<std::string>>(), s.at("expression").get<std::string>(),
                                  s.at("stock_section").get<std::string>()};
        }
        out.push_back(std::move(e));
    }
    std::sort(out.begin(), out.end(), [](const metric_entry& a, const metric_entry& b) { return a.id < b.id; });
    for (std::size_t i = 1; i < out.size(); ++i)
        if (out[i].id == out[i - 1].id) bad_catalogue(out[i].id + " is listed twice");
    return out;
}

std::vector<metric_family> load_families() {
    std::vector<metric_family> out;
    for (const auto& m : catalogue_document().at("families")) {
        metric_family f{m.at("prefix").get<std::string>(),
                        m.value("suffix", std::string()),
                        m.at("example").get<std::string>(),
                        m.at("meaning").get<std::string>(),
                        m.at("collected_by").get<std::string>(),
                        m.value("not_planned", std::string()),
                        {}};
        for (const auto& [chip_id, ids] : m.at("members").items()) {
            if (!find_chip(chip_id)) bad_catalogue(f.prefix + ": no chip \"" + chip_id + "\"");
            f.members[chip_id] = ids.get<std::vector<std::string>>();
        }
        out.push_back(std::move(f));
    }
    return out;
}

// Every metric id some stage keeps: the ids, the counters of every chip's forms, sorted.
std::vector<std::string> load_read_ids() {
    std::set<std::string> ids;
    for (const auto& m : metric_catalogue()) {
        ids.insert(m.id);
        if (m.from) ids.insert(m.from->counters.begin(), m.from->counters.end());
        for (const auto& [c, f] : m.on) ids.insert(f.counters.begin(), f.counters.end());
    }
    return {ids.begin(), ids.end()};
}

}  // namespace

int chip::arch_number() const { return std::stoi(ncu_arch.substr(3)); }

const chip_form& metric_entry::form_on(const chip* c) const {
    static const chip_form same;
    if (c)
        if (auto it = on.find(c->id); it != on.end()) return it->second;
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
    for (const auto& c : chips())
        if (c.id == id) return &c;
    return nullptr;
}

std::string normal_cc(std::string_view cc) {
    std::string s(cc);
    if (!s.empty() && s.find('.') == std::string::npos) s += ".0";
    return s;
}

const chip* chip_for_cc(std::string_view cc) {
    const std::string want = normal_cc(cc);
    for (const auto& c : chips())
        for (const auto& x : c.compute_capabilities)
            if (x == want) return &c;
    return nullptr;
}

const std::vector<metric_entry>& metric_catalogue() {
    static const std::vector<metric_entry> all = load();
    return all;
}

const metric_entry* find_metric(const std::string& id) {
    const auto& all = metric_catalogue();
    auto it = std::lower_bound(all.begin(), all.end(), id,
                               [](const metric_entry& e, const std::string& k) { return e.id < k; });
    return it != all.end() && it->id == id ? &*it : nullptr;
}

const std::vector<metric_family>& metric_families() {
    static const std::vector<metric_family> all = load_families();
    return all;
}

bool engine_reads(std::string_view id) {
    static const std::vector<std::string> ids = load_read_ids();
    if (std::binary_search(ids.begin(), ids.end(), id)) return true;
    for (const auto& f : metric_families())
        if (f.matches(id)) return true;
    return false;
}

std::vector<std::string> names_on(const metric_entry& m, const chip* c) {
    const chip_form& f = m.form_on(c);
    switch (f.what) {
        case chip_form::kind::same:
            return {m.id};
        case chip_form::kind::counters:
            return f.counters;
        case chip_form::kind::zero:
        case chip_form::kind::none:
            return {};
    }
    return {};
}

}  // namespace roofline
