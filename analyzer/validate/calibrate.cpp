#include "analyzer/validate/calibrate.hpp"

#include "analyzer/base/format.hpp"
#include "analyzer/report/table.hpp"

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

std::string three_decimals(double v) { return fixed(v, 3); }

}  // namespace

std::vector<roof_sample> calibration_samples(const pairs_report& r) {
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
    for (const auto& p : r.pairs) {
        bool matches = !p.fixed.verdicts.empty();
        for (const auto& v : p.fixed.verdicts) matches = matches && v == p.fixed.expect;
        add(p.fixed.kernels.empty() ? p.fixed.case_name : p.fixed.kernels.front(), p.fixed.expect, matches && p.fixed.kernels.size() == 1,
            p.fixed.roof_pct, p.fixed.l2_pct);
        // The library kernel the pair is held to (cuBLAS for the tensor pair) is a real kernel on
        // the same roof, and the best one known: it counts beside the fixed kernel.
        if (!p.reference_kernel.empty())
            add(p.reference_kernel.substr(0, p.reference_kernel.find('(')), p.fixed.expect, p.reference_verdict == p.fixed.expect,
                p.reference_roof_pct, p.reference_l2_pct);
    }
    for (const auto& ref : r.references)
        add(ref.kernel.substr(0, ref.kernel.find('(')), ref.expect, ref.verdict == ref.expect, ref.roof_pct, ref.l2_pct);
    return out;
}

std::string render_calibration(const pairs_report& r, const std::vector<practical_share>& fit, const cross_validation& cv,
                               const std::string& dir) {
    std::ostringstream out;
    out << "# Practical share of each roof on the " << r.gpu_name << "\n\n"
        << "Fitted by `roofline calibrate " << dir << "` to the kernels of `" << r.capture
        << "` that sit on the roof they were built for (the fixed side of each pair, its library reference if it has one, and the roof "
           "references, where the verdict is what kernels/pairs.json expects): least squares in log space, so the share is the geometric "
           "mean of their utilisations.\n\n";
    table t({"roof", "practical share", "kernels", "lowest", "highest", "spread (geometric sd)", "fitted on"});
    for (const auto& p : fit) {
        std::string names;
        for (const auto& k : p.kernels) names += (names.empty() ? "" : ", ") + code(k);
        t.row({p.roof, format_percent(p.fraction), std::to_string(p.kernels.size()), format_percent(p.lowest), format_percent(p.highest),
               three_decimals(p.spread), names});
    }
    out << t.markdown();
    out << "\n## Held-out check\n\n"
        << "No share is judged on the kernels it was fitted to: on each roof the kernels, sorted by name, go alternately into two "
           "halves, each half is fitted alone, and its share predicts the other half's kernels. The error is the measured share over "
           "the predicted one (1 = exact): a gain estimate on a kernel the share never saw misses by about that factor. A roof with "
           "one kernel cannot be checked.\n\n";
    table c({"roof", "kernels", "checked", "typical error (geometric rms)", "worst error", "worst kernel"});
    for (const auto& x : cv.roofs)
        c.row({x.roof, std::to_string(x.kernels), std::to_string(x.checked), x.checked ? three_decimals(x.rms) : "-",
               x.checked ? three_decimals(x.worst) : "-", x.checked ? code(x.worst_kernel) : "-"});
    out << c.markdown() << "\n";
    table h({"roof", "kernel", "half", "measured share", "share fitted on the other half", "error"});
    for (const auto& x : cv.samples)
        h.row({x.roof, code(x.kernel), std::to_string(x.fold + 1), format_percent(x.utilisation), format_percent(x.predicted),
               three_decimals(x.error())});
    out << h.markdown();
    nlohmann::ordered_json j;
    for (const auto& p : fit) {
        std::string names;
        for (const auto& k : p.kernels) names += (names.empty() ? "" : ", ") + k;
        j[p.roof] = {
            {"value", std::stod(three_decimals(p.fraction))},
            {"source", "C: roofline calibrate " + dir + ": " +
                           (p.kernels.size() == 1 ? "one kernel" : "geometric mean over " + std::to_string(p.kernels.size()) + " kernels") +
                           " on this roof under ncu (" + names + ")"}};
    }
    out << "\nFor the GPU's hwspecs file (roofs not listed here keep their entries):\n\n```json\n\"practical_fraction\": " << j.dump(2)
        << "\n```\n";
    return out.str();
}

}  // namespace roofline
