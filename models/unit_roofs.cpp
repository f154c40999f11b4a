// The execution pipes, the issue slots and the SM as a whole: busy shares as ncu reports them.
#include "models/roofline_parts.hpp"

#include "analyzer/base/format.hpp"

#include <algorithm>
#include <cmath>

namespace roofline::detail {

// Pipe utilisations as ncu reports them: warp instructions executed over the pipe's peak rate,
// over elapsed cycles. Instructions are the work, so busy and useful are the same share.
void add_pipes(kernel_roofline& k, const metric_view& m) {
    auto add = [&](resource id, double pct, std::string formula) {
        resource_use r;
        r.id = id;
        r.utilisation = r.useful = pct / 100.0;
        r.formula = std::move(formula);
        k.resources.push_back(std::move(r));
    };
    // Every pipe of the vocabulary but the tensor pipe, whose instruction count would include
    // HFMA2.MMA moves: sm__inst_executed_pipe_<alu, fma, ...>.
    for (const auto& p : all_resources()) {
        if (!p.pipe || p.id == resource::pipe_tensor) continue;
        std::string metric = std::string("sm__inst_executed_") + p.name + ".avg.pct_of_peak_sustained_elapsed";
        if (auto v = m.find(metric)) add(p.id, *v, metric);
    }
    // The tensor pipe's MMA cycles only (HMMA/HGMMA/QGMMA/IMMA/IGMMA/BMMA/BGMMA, plus DMMA): the
    // plain sm__pipe_tensor_cycles_active also counts HFMA2.MMA moves. It names what is busy;
    // the tensor precisions carry the floor (their FLOPs at the fastest path's rate).
    if (auto mma = m.find("sm__pipe_tensor_type_hmma_hgmma_qgmma_imma_igmma_bmma_bgmma_cycles_active.avg.pct_of_peak_sustained_elapsed")) {
        double dmma = m.find("sm__pipe_tensor_op_dmma_cycles_active.avg.pct_of_peak_sustained_elapsed").value_or(0.0);
        add(resource::pipe_tensor, *mma + dmma,
            "sm__pipe_tensor_type_hmma_hgmma_qgmma_imma_igmma_bmma_bgmma_cycles_active + sm__pipe_tensor_op_dmma_cycles_active "
            "(MMA cycles only, avg.pct_of_peak_sustained_elapsed)");
    }
    // Issue slots: one warp instruction per cycle per scheduler.
    if (auto v = m.find("sm__inst_issued.avg.pct_of_peak_sustained_elapsed"))
        add(resource::issue, *v, "sm__inst_issued.avg.pct_of_peak_sustained_elapsed (one instruction per scheduler per cycle)");
    if (auto v = m.find("sm__throughput.avg.pct_of_peak_sustained_elapsed"))
        add(resource::sm, *v, "sm__throughput.avg.pct_of_peak_sustained_elapsed (ncu's SM speed of light: the busiest SM sub-unit)");
}

}  // namespace roofline::detail
