#include "analyzer/base/metric_catalogue.hpp"

#include "analyzer/base/embedded.hpp"
#include "analyzer/base/json_files.hpp"

#include <nlohmann/json.hpp>

#include <algorithm>
#include <stdexcept>

namespace roofline {
namespace {

nlohmann::json catalogue_json() {
    const auto& files = embedded_catalogue();
    if (files.size() != 1) throw std::logic_error("metric catalogue: expected one embedded file");
    return parse_json_file<nlohmann::json>(files.front().contents, files.front().name, error_code::bad_spec);
}

std::vector<metric_family> load_families() {
    std::vector<metric_family> out;
    const auto j = catalogue_json();
    if (!j.contains("families")) return out;
    for (const auto& m : j.at("families"))
        out.push_back({m.at("prefix").get<std::string>(), m.value("suffix", std::string()), m.at("example").get<std::string>(),
                       m.at("meaning").get<std::string>(), m.at("collected_by").get<std::string>(),
                       m.value("gh100_members", std::vector<std::string>())});
    return out;
}

std::vector<std::string> load_gh100_list(const char* key) {
    const auto j = catalogue_json();
    if (!j.contains("gh100")) return {};
    return j.at("gh100").value(key, std::vector<std::string>());
}

std::vector<metric_entry> load() {
    std::vector<metric_entry> out;
    for (const auto& f : embedded_catalogue()) {
        auto j = parse_json_file<nlohmann::json>(f.contents, f.name, error_code::bad_spec);
        for (const auto& m : j.at("metrics")) {
            metric_entry e;
            e.id = m.at("id").get<std::string>();
            e.unit = m.value("unit", "");
            e.meaning = m.at("meaning").get<std::string>();
            e.pitfall = m.value("pitfall", "");
            e.collected_by = m.at("collected_by").get<std::string>();
            out.push_back(std::move(e));
        }
    }
    std::sort(out.begin(), out.end(), [](const metric_entry& a, const metric_entry& b) { return a.id < b.id; });
    for (std::size_t i = 1; i < out.size(); ++i)
        if (out[i].id == out[i - 1].id) throw std::logic_error("metric catalogue: " + out[i].id + " is listed twice");
    return out;
}

}  // namespace

const std::vector<metric_entry>& metric_catalogue() {
    static const std::vector<metric_entry> all = load();
    return all;
}

const metric_entry* find_metric(const std::string& id) {
    const auto& all = metric_catalogue();
    auto it = std::lower_bound(all.begin(), all.end(), id, [](const metric_entry& e, const std::string& k) { return e.id < k; });
    return it != all.end() && it->id == id ? &*it : nullptr;
}

const std::vector<metric_family>& metric_families() {
    static const std::vector<metric_family> all = load_families();
    return all;
}

const std::vector<std::string>& absent_on_gh100() {
    static const std::vector<std::string> all = load_gh100_list("absent");
    return all;
}

const std::vector<std::string>& gh100_derived_sections() {
    static const std::vector<std::string> all = load_gh100_list("derived_sections");
    return all;
}

bool engine_reads(std::string_view id) {
    if (find_metric(std::string(id))) return true;
    for (const auto& f : metric_families())
        if (id.size() >= f.prefix.size() + f.suffix.size() && id.substr(0, f.prefix.size()) == f.prefix &&
            id.substr(id.size() - f.suffix.size()) == f.suffix)
            return true;
    return false;
}

}  // namespace roofline
