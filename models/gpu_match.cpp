#include "models/gpu_match.hpp"

#include "analyzer/base/format.hpp"
#include "analyzer/base/input_error.hpp"

#include <cctype>
#include <cmath>

namespace roofline {
namespace {

std::string lower(std::string s) {
    for (auto& c : s) c = char(std::tolower(static_cast<unsigned char>(c)));
    return s;
}

std::string known_ids(const std::vector<gpu_spec>& specs) {
    std::string s;
    for (const auto& g : specs) s += (s.empty() ? "" : ", ") + g.id;
    return s;
}

std::string describe(const gpu_identity& id) {
    std::string s = id.display_name.empty() ? "a GPU with no device name in the export" : "\"" + id.display_name + "\"";
    s += " (CC " + (id.cc.empty() ? std::string("?") : id.cc);
    if (id.sm_count) s += ", " + std::to_string(long(*id.sm_count)) + " SMs";
    return s + ")";
}

}  // namespace

gpu_choice match_gpu(const std::vector<gpu_spec>& specs, const gpu_identity& id, const std::string& forced, const std::string& file) {
    if (!forced.empty()) {
        for (const auto& s : specs)
            if (lower(s.id) == lower(forced) || lower(s.name) == lower(forced)) return {&s, "chosen with --gpu"};
        throw input_error(error_code::unknown_gpu, file, 0, 0, "--gpu " + forced + " names no known GPU; known: " + known_ids(specs));
    }
    if (!id.display_name.empty())
        for (const auto& s : specs)
            for (const auto& n : s.device_names)
                if (lower(n) == lower(id.display_name)) return {&s, "matched by device name \"" + id.display_name + "\""};
    std::vector<const gpu_spec*> candidates;
    for (const auto& s : specs) {
        if (id.cc.empty() || s.compute_capability != id.cc) continue;
        if (id.sm_count && std::lround(*id.sm_count) != std::lround(s.sm_count.value)) continue;
        candidates.push_back(&s);
    }
    if (candidates.size() > 1 && id.dram_clock_mhz) {
        const gpu_spec* nearest = nullptr;
        double best = 0.15;  // within 15% of the spec's DRAM clock
        for (const auto* s : candidates) {
            if (!s->detect_dram_clock_mhz) continue;
            double d = std::fabs(*id.dram_clock_mhz / *s->detect_dram_clock_mhz - 1.0);
            if (d < best) {
                best = d;
                nearest = s;
            }
        }
        if (nearest)
            return {nearest, "matched by CC " + id.cc + ", " + std::to_string(std::lround(id.sm_count.value_or(0.0))) +
                                 " SMs and a DRAM clock of " + fixed(*id.dram_clock_mhz, 0) + " MHz"};
    }
    if (candidates.size() == 1) {
        return {candidates.front(), "matched by compute capability " + id.cc +
                                        (id.sm_count ? " and " + std::to_string(std::lround(*id.sm_count)) + " SMs" : std::string())};
    }
    if (candidates.size() > 1) {
        std::string names;
        for (const auto* c : candidates) names += (names.empty() ? "" : ", ") + c->id;
        throw input_error(error_code::unknown_gpu, file, 0, 0,
                          describe(id) + " fits several GPU specs (" + names + "); pass --gpu with one of them");
    }
    throw input_error(
        error_code::unknown_gpu, file, 0, 0,
        "no GPU spec matches " + describe(id) + "; pass --gpu (known: " + known_ids(specs) + ") or add a spec file with --hwspecs DIR");
}

}  // namespace roofline
