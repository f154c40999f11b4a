#include "analyzer/validate/calibrate.hpp"
#include "analyzer/read/kernel_names.hpp"

#include "analyzer/base/embedded.hpp"
#include "analyzer/base/format.hpp"
#include "analyzer/base/input_error.hpp"
#include "analyzer/render/json_number.hpp"
#include "analyzer/render/table.hpp"
#include "analyzer/report/text.hpp"
#include "models/classify.hpp"

#include <nlohmann/json.hpp>

#include <cstdio>
#include <set>
#include <sstream>

namespace roofline {
namespace {

// "memory/dram" -> "dram"; "" for verdicts without a roof (small_grid, launch, latency).
std::string roof_of(const std::string& expect) {
    auto slash = expect.find('/');
    return slash == std::string::npos ? "" : expect.substr(slash + 1);
}

std::string three_decimals(double value) { return decimals(value, 3); }

// The "practical_fraction" entries of the fit, as the hwspecs files write them.
nlohmann::ordered_json practical_fraction_json(const std::vector<practical_share>& fit, const std::string& dir) {
    nlohmann::ordered_json fractions;
    for (const auto& share : fit) {
        std::string names;
        for (const auto& kernel : share.kernels) names += (names.empty() ? "" : ", ") + kernel;
        fractions[share.roof] = {
            {"value", std::stod(three_decimals(share.fraction))},
            {"source", "C: roofline calibrate " + dir + ": " +
                           (share.kernels.size() == 1
                                ? "one kernel"
                                : "geometric mean over " + std::to_string(share.kernels.size()) + " kernels") +
                           " on this roof under ncu (" + names + ")"}};
    }
    return fractions;
}

}  // namespace

std::vector<roof_sample> calibration_samples(const pairs_report& report) {
    std::vector<roof_sample> out;
    std::set<std::string> seen;
    auto add = [&](const std::string& kernel, const std::string& expect, bool matches, const std::optional<double>& pct,
                   const std::optional<double>& l2_pct = std::nullopt) {
        const std::string roof = roof_of(expect);
        // A roof the kernel never touched says nothing about how close kernels get to it.
        if (roof.empty() || !matches || !pct || *pct <= 0.0 || !seen.insert(kernel).second) return;
        out.push_back({roof, kernel, *pct / 100.0});
        // Every DRAM byte passes L2 (fills and write-backs): a kernel streaming at the DRAM roof
        // keeps L2 as busy as streaming traffic makes it, so its L2 share is an L2 sample too.
        if (roof == "dram" && l2_pct && *l2_pct > 0.0) out.push_back({"l2", kernel, *l2_pct / 100.0});
    };
    for (const auto& pair : report.pairs) {
        bool matches = !pair.fixed.verdicts.empty();
        for (const auto& verdict : pair.fixed.verdicts) matches = matches && verdict == pair.fixed.expect;
        add(pair.fixed.kernels.empty() ? pair.fixed.case_name : pair.fixed.kernels.front(), pair.fixed.expect,
            matches && pair.fixed.kernels.size() == 1, pair.fixed.roof_pct, pair.fixed.l2_pct);
        // The library kernel the pair is held to (cuBLAS for the tensor pair) is a real kernel on
        // the same roof, and the best one known: it counts beside the fixed kernel.
        if (!pair.reference_kernel.empty())
            add(pair.reference_kernel.substr(0, pair.reference_kernel.find('(')), pair.fixed.expect,
                pair.reference_verdict == pair.fixed.expect, pair.reference_roof_pct, pair.reference_l2_pct);
    }
    for (const auto& ref : report.references)
        add(ref.kernel.substr(0, ref.kernel.find('(')), ref.expect, ref.verdict == ref.expect, ref.roof_pct,
            ref.l2_pct);
    return out;
}

std::vector<transfer_sample> transfer_samples(const std::vector<const analysis*>& captures) {
    std::vector<transfer_sample> out;
    std::set<std::string> seen;
    const double near_floor = classify_thresholds{}.near_roof;
    for (const analysis* capture : captures)
        for (const auto& kernel : capture->kernels) {
            const kernel_roofline& roof = kernel.roof;
            if (!roof.placed || !roof.binding_practical || roof.roof_share() < near_floor || kernel.group.launches == 0)
                continue;
            const resource level = *roof.binding_practical;
            // The verdict too: a kernel whose DRAM floor is near but whose L2 is the limit (a gather
            // at full occupancy) does not stream at DRAM's pace.
            if (kernel.verdict.bound != bound::memory || kernel.verdict.limiter != level) continue;
            const std::optional<double>& bytes = level == resource::dram ? roof.bytes_dram
                                                 : level == resource::l2 ? roof.bytes_l2
                                                 : level == resource::l1 ? roof.bytes_l1
                                                                         : std::optional<double>();
            if (!bytes || *bytes <= 0 || !seen.insert(kernel.group.name).second) continue;
            double peak = 0.0;
            if (level == resource::dram) {
                if (const resource_use* dram_use = roof.find(resource::dram)) peak = dram_use->peak;
            } else {
                peak = (level == resource::l2 ? roof.peak_l2_bytes_per_s : roof.peak_l1_bytes_per_s).value_or(0.0);
            }
            const double launches = double(kernel.group.launches);
            out.push_back(
                {name(level), kernel_label(kernel.group.name), *bytes / launches, roof.duration_ns / launches, peak});
        }
    return out;
}

std::string render_calibration(const pairs_report& report, const std::vector<practical_share>& fit,
                               const cross_validation& cv, const std::vector<bandwidth_fit>& bandwidths,
                               const std::string& dir) {
    std::ostringstream out;
    out << "# Practical share of each roof on the " << report.gpu_name << "\n\n"
        << "Fitted by `roofline calibrate " << dir << "` to the kernels of `" << report.capture
        << "` that sit on the roof they were built for (the fixed side of each pair, its library reference if it has "
           "one, and the roof "
           "references, where the verdict is what kernels/pairs.json expects): least squares in log space, so the "
           "share is the geometric "
           "mean of their utilisations.\n\n";
    table fit_table({"roof", "practical share", "kernels", "lowest", "highest", "spread (geometric sd)", "fitted on"});
    for (const auto& share : fit) {
        std::string names;
        for (const auto& kernel : share.kernels) names += (names.empty() ? "" : ", ") + code_span(kernel);
        fit_table.row({share.roof, format_percent(share.fraction), std::to_string(share.kernels.size()),
                       format_percent(share.lowest), format_percent(share.highest), three_decimals(share.spread),
                       names});
    }
    out << fit_table.markdown();
    out << "\n## Held-out check\n\n"
        << "No share is judged on the kernels it was fitted to: on each roof the kernels, sorted by name, go "
           "alternately into two "
           "halves, each half is fitted alone, and its share predicts the other half's kernels. The error is the "
           "measured share over "
           "the predicted one (1 = exact): a gain estimate on a kernel the share never saw misses by about that "
           "factor. A roof with "
           "one kernel cannot be checked.\n\n";
    table check_table({"roof", "kernels", "checked", "typical error (geometric rms)", "worst error", "worst kernel"});
    for (const auto& checked_roof : cv.roofs)
        check_table.row({checked_roof.roof, std::to_string(checked_roof.kernels), std::to_string(checked_roof.checked),
                         checked_roof.checked ? three_decimals(checked_roof.rms) : "-",
                         checked_roof.checked ? three_decimals(checked_roof.worst) : "-",
                         checked_roof.checked ? code_span(checked_roof.worst_kernel) : "-"});
    out << check_table.markdown() << "\n";
    table halves_table({"roof", "kernel", "half", "measured share", "share fitted on the other half", "error"});
    for (const auto& sample : cv.samples)
        halves_table.row({sample.roof, code_span(sample.kernel), std::to_string(sample.fold + 1),
                          format_percent(sample.utilisation), format_percent(sample.predicted),
                          three_decimals(sample.error())});
    out << halves_table.markdown();
    out << "\n## Bandwidth and latency of each memory level\n\n"
        << "t = bytes / bandwidth + t0, fitted by least squares (each kernel weighed by its own time) to the kernels "
           "of the folder's "
           "captures whose practical floor the level sets, at 60% of it or more: they stream at that level. t0 is what "
           "a launch costs "
           "before its bytes count (launch, ramp-up, drain); \"of peak\" is the fitted bandwidth over the level's peak "
           "at the "
           "capture's clocks, the share a long transfer sustains. A level needs 3 kernels whose largest transfer is "
           "twice the "
           "smallest; a t0 below zero is unresolved: the kernels are too long for a launch's cost to show through "
           "their spread.\n\n";
    table bw({"level", "kernels", "bandwidth", "of peak", "t0", "typical error (geometric rms)"});
    for (const auto& level_fit : bandwidths)
        bw.row({level_fit.level, std::to_string(level_fit.kernels),
                level_fit.fitted ? format_si(level_fit.bytes_per_s, "B/s") : "not fitted",
                level_fit.fitted && level_fit.peak_bytes_per_s > 0
                    ? format_percent(level_fit.bytes_per_s / level_fit.peak_bytes_per_s)
                    : "-",
                level_fit.fitted
                    ? (level_fit.t0_ns < 0 ? "unresolved (fit: -" + format_duration_ns(-level_fit.t0_ns) + ")"
                                           : format_duration_ns(level_fit.t0_ns))
                    : "-",
                level_fit.fitted ? three_decimals(level_fit.rms) : "-"});
    out << bw.markdown() << "\n";
    table br({"level", "kernel", "bytes per launch", "measured", "fitted", "fitted / measured"});
    for (const auto& level_fit : bandwidths)
        for (const auto& residual : level_fit.residuals)
            br.row({level_fit.level, code_span(residual.kernel), format_si(residual.bytes, "B"),
                    format_duration_ns(residual.ns), level_fit.fitted ? format_duration_ns(residual.fitted_ns) : "-",
                    level_fit.fitted ? three_decimals(residual.error()) : "-"});
    out << br.markdown();
    const nlohmann::ordered_json fractions = practical_fraction_json(fit, dir);
    out << "\nFor the GPU's hwspecs file (roofs not listed here keep their "
           "entries):\n\n```json\n\"practical_fraction\": "
        << fractions.dump(2) << "\n```\n";
    return out.str();
}

std::string calibrated_spec(const pairs_report& report, const std::vector<practical_share>& fit,
                            const std::string& dir) {
    for (const auto& spec_file : embedded_hwspecs()) {
        auto spec = nlohmann::ordered_json::parse(spec_file.contents);
        if (!spec.is_object() || spec.value("id", "") != report.gpu_id) continue;
        nlohmann::ordered_json& shares = spec["practical_fraction"];
        if (!shares.is_object()) shares = nlohmann::ordered_json::object();
        const nlohmann::ordered_json fitted = practical_fraction_json(fit, dir);
        for (const auto& entry : fitted.items()) shares[entry.key()] = entry.value();
        return json_text(spec);
    }
    throw input_error(error_code::unknown_gpu, dir, 0, 0,
                      "--spec-out: the capture's GPU (" + report.gpu_name +
                          ") has no shipped spec file to calibrate; add one to hwspecs/ first");
}

}  // namespace roofline
