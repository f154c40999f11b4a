// The execution pipes, the issue slots and the SM as a whole: busy shares as ncu reports them.
#include "models/roofline_parts.hpp"

#include "analyzer/base/format.hpp"

#include <algorithm>
#include <cmath>

namespace roofline::detail {

// Pipe utilisations as ncu reports them: warp instructions executed over the pipe's peak rate,
// over elapsed cycles. Instructions are the work, so busy and useful are the same share.
void add_pipes(kernel_roofline& roof, const metric_view& metrics) {
    auto add = [&](resource id, double pct, std::string formula) {
        resource_use use;
        use.id = id;
        use.utilisation = use.useful = pct / 100.0;
        use.formula = std::move(formula);
        roof.resources.push_back(std::move(use));
    };
    // Every pipe of the vocabulary but the tensor pipe, whose instruction count would include
    // HFMA2.MMA moves: sm__inst_executed_pipe_<alu, fma, ...>.
    // A pipe or the issue slots without their counter: unmeasured (build_roofline bounds it).
    auto unmeasured = [&](resource id, std::vector<pooled_string> missing) {
        roof.unmeasured.push_back({id, 1.0, 1.0, std::move(missing)});
    };
    for (const auto& entry : all_resources()) {
        if (!entry.pipe || entry.id == resource::pipe_tensor) continue;
        std::string metric = std::string("sm__inst_executed_") + entry.name + ".avg.pct_of_peak_sustained_elapsed";
        if (auto value = metrics.find(metric))
            add(entry.id, *value, metric);
        else
            unmeasured(entry.id, {pooled_string(metric)});
    }
    // The tensor pipe's MMA cycles only (HMMA/HGMMA/QGMMA/IMMA/IGMMA/BMMA/BGMMA, plus DMMA): the
    // plain sm__pipe_tensor_cycles_active also counts HFMA2.MMA moves. It names what is busy;
    // the tensor precisions carry the floor (their FLOPs at the fastest path's rate).
    static const char* const mma_cycles =
        "sm__pipe_tensor_type_hmma_hgmma_qgmma_imma_igmma_bmma_bgmma_cycles_active.avg.pct_of_peak_sustained_elapsed";
    static const char* const dmma_cycles = "sm__pipe_tensor_op_dmma_cycles_active.avg.pct_of_peak_sustained_elapsed";
    auto mma = metrics.find(mma_cycles);
    auto dmma = metrics.find(dmma_cycles);
    if (mma && dmma)
        add(resource::pipe_tensor, *mma + *dmma,
            "sm__pipe_tensor_type_hmma_hgmma_qgmma_imma_igmma_bmma_bgmma_cycles_active + "
            "sm__pipe_tensor_op_dmma_cycles_active "
            "(MMA cycles only, avg.pct_of_peak_sustained_elapsed)");
    else {
        std::vector<pooled_string> lacking;
        if (!mma) lacking.emplace_back(mma_cycles);
        if (!dmma) lacking.emplace_back(dmma_cycles);
        unmeasured(resource::pipe_tensor, std::move(lacking));
    }
    // Issue slots: one warp instruction per cycle per scheduler.
    static const char* const issued = "sm__inst_issued.avg.pct_of_peak_sustained_elapsed";
    if (auto value = metrics.find(issued))
        add(resource::issue, *value,
            "sm__inst_issued.avg.pct_of_peak_sustained_elapsed (one instruction per scheduler per cycle)");
    else
        unmeasured(resource::issue, {pooled_string(issued)});
    if (auto value = metrics.find("sm__throughput.avg.pct_of_peak_sustained_elapsed"))
        add(resource::sm, *value,
            "sm__throughput.avg.pct_of_peak_sustained_elapsed (ncu's SM speed of light: the busiest SM sub-unit)");
}

}  // namespace roofline::detail
