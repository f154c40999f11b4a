#include "models/gpu_match.hpp"

#include "analyzer/base/format.hpp"
#include "analyzer/base/input_error.hpp"

#include <cctype>
#include <cmath>

namespace roofline {
namespace {

std::string lower(std::string mixed_case) {
    for (auto& ch : mixed_case) ch = char(std::tolower(static_cast<unsigned char>(ch)));
    return mixed_case;
}

// The spec whose detect names include `display_name` (case-insensitive); nullptr for none or "".
const gpu_spec* spec_of_device(const std::vector<gpu_spec>& specs, const std::string& display_name) {
    if (display_name.empty()) return nullptr;
    for (const auto& spec : specs)
        for (const auto& device_name : spec.device_names)
            if (lower(device_name) == lower(display_name)) return &spec;
    return nullptr;
}

std::string known_ids(const std::vector<gpu_spec>& specs) {
    std::string ids;
    for (const auto& spec : specs) ids += (ids.empty() ? "" : ", ") + spec.id;
    return ids;
}

std::string describe(const gpu_identity& id) {
    std::string description =
        id.display_name.empty() ? "a GPU with no device name in the export" : "\"" + id.display_name + "\"";
    description += " (CC " + (id.cc.empty() ? std::string("?") : id.cc);
    if (id.sm_count) description += ", " + std::to_string(long(*id.sm_count)) + " SMs";
    return description + ")";
}

}  // namespace

gpu_choice match_gpu(const std::vector<gpu_spec>& specs, const gpu_identity& id, const std::string& forced,
                     const std::string& file) {
    if (!forced.empty()) {
        for (const auto& spec : specs)
            if (lower(spec.id) == lower(forced) || lower(spec.name) == lower(forced))
                return {&spec, {gpu_match_reason::kind::forced, id, {}}};
        throw input_error(error_code::unknown_gpu, file, 0, 0,
                          "--gpu " + forced + " names no known GPU; known: " + known_ids(specs));
    }
    if (const gpu_spec* by_name = spec_of_device(specs, id.display_name))
        return {by_name, {gpu_match_reason::kind::device_name, id, {}}};
    std::vector<const gpu_spec*> candidates;
    for (const auto& spec : specs) {
        if (id.cc.empty() || spec.compute_capability != id.cc) continue;
        if (id.sm_count && std::lround(*id.sm_count) != std::lround(spec.sm_count.value)) continue;
        candidates.push_back(&spec);
    }
    if (candidates.size() > 1 && id.dram_clock_mhz) {
        const gpu_spec* nearest = nullptr;
        double best = 0.15;  // within 15% of the spec's DRAM clock
        for (const auto* candidate : candidates) {
            if (!candidate->detect_dram_clock_mhz) continue;
            double distance = std::fabs(*id.dram_clock_mhz / *candidate->detect_dram_clock_mhz - 1.0);
            if (distance < best) {
                best = distance;
                nearest = candidate;
            }
        }
        if (nearest) return {nearest, {gpu_match_reason::kind::cc_sms_dram_clock, id, {}}};
    }
    if (candidates.size() == 1) {
        return {candidates.front(), {gpu_match_reason::kind::compute_capability, id, {}}};
    }
    if (candidates.size() > 1) {
        std::string names;
        for (const auto* candidate : candidates) names += (names.empty() ? "" : ", ") + candidate->id;
        throw input_error(error_code::unknown_gpu, file, 0, 0,
                          describe(id) + " fits several GPU specs (" + names + "); pass --gpu with one of them");
    }
    throw input_error(error_code::unknown_gpu, file, 0, 0,
                      "no GPU spec matches " + describe(id) + "; pass --gpu (known: " + known_ids(specs) +
                          ") or add a spec file with --hwspecs DIR");
}

// --gpu naming another GPU than the one the capture says it ran on (its device name is another
// spec's, or its compute capability differs) is a mistake unless asked for with --gpu-override.
void check_forced_gpu(const std::vector<gpu_spec>& specs, const gpu_spec& chosen, const gpu_identity& id,
                      const std::string& file) {
    const gpu_spec* named = spec_of_device(specs, id.display_name);
    const std::string ran_on = named && named->id != chosen.id ? named->id : "";
    const bool cc_differs = !id.cc.empty() && !chosen.compute_capability.empty() && id.cc != chosen.compute_capability;
    if (ran_on.empty() && !cc_differs) return;
    throw input_error(error_code::unknown_gpu, file, 0, 0,
                      "--gpu " + chosen.id + " contradicts the capture, which ran on " +
                          (id.display_name.empty() ? std::string("a GPU") : "\"" + id.display_name + "\"") +
                          (ran_on.empty() ? "" : " (spec " + ran_on + ")") + " of compute capability " +
                          (id.cc.empty() ? "?" : id.cc) +
                          (cc_differs ? ", not " + chosen.compute_capability : std::string()) +
                          "; add --gpu-override to place its kernels under " + chosen.id + "'s roofs anyway");
}

}  // namespace roofline
