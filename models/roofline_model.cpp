#include "models/roofline_model.hpp"

#include "models/roofline_parts.hpp"

#include <algorithm>
#include <cmath>
#include <memory>
#include <mutex>

namespace roofline {

const resource_use* kernel_roofline::find(resource id) const {
    for (const auto& r : resources)
        if (r.id == id) return &r;
    return nullptr;
}

const unmeasured_resource* kernel_roofline::find_unmeasured(resource id) const {
    for (const auto& u : unmeasured)
        if (u.id == id) return &u;
    return nullptr;
}

std::vector<std::string> kernel_roofline::missing_metrics() const {
    std::vector<std::string> out;
    for (const auto& r : resources)
        for (const auto& id : r.missing) out.push_back(id);
    for (const auto& u : unmeasured)
        for (const auto& id : u.missing) out.push_back(id);
    std::sort(out.begin(), out.end());
    out.erase(std::unique(out.begin(), out.end()), out.end());
    return out;
}

std::optional<double> kernel_roofline::intensity(resource level) const {
    const std::optional<double>& b = level == resource::dram ? bytes_dram : level == resource::l2 ? bytes_l2 : bytes_l1;
    if (!b || *b <= 0 || !flops_counted) return std::nullopt;
    return flops / *b;
}

namespace detail {

void check_against_spec(kernel_roofline& k, resource id, double measured, double spec_value) {
    if (spec_value <= 0 || measured <= 0) return;
    if (std::fabs(measured / spec_value - 1.0) > 0.10)
        k.warnings.push_back({roof_warning_kind::peak_differs, id, measured, spec_value, {}, {}});
}

}  // namespace detail

namespace {

// Practical shares for a GPU that has none measured (every shipped spec but the H100 SXM's and the
// H200's): the H100 SXM's measured share of the same roof (hwspecs/h100-sxm.json, fitted by
// `roofline calibrate` on examples/h100; tests/test_gpu_spec.cpp keeps the two equal). What the best
// kernels sustain against a datasheet peak comes from the same mechanisms on every recent NVIDIA
// part (DRAM refresh and read/write turnarounds, L2 slice conflicts, dependency and issue overheads
// on the pipes, the tensor pipe's operand feed), and the H200, the one other GPU measured, lands
// within 5 points of the H100 on every roof but L2 (0.891 against 0.818). It is a stand-in, not a
// measurement: reports name every share that is one, and `roofline calibrate` on a capture of
// kernels/ on the GPU itself replaces it.
struct default_share {
    resource id;
    double share;
};
constexpr default_share default_practical[] = {
    {resource::dram, 0.897}, {resource::l2, 0.818},          {resource::fp32, 0.746},        {resource::fp64, 0.987},
    {resource::fp16, 0.938}, {resource::tensor_fp16, 0.832}, {resource::tensor_bf16, 0.903}, {resource::pipe_alu, 0.8},
};
// The mean share of this GPU's measured tensor precisions, and which they are; nullopt where none is measured.
std::optional<std::pair<double, std::vector<resource>>> measured_tensor_mean(const gpu_spec& spec) {
    double sum = 0.0;
    std::vector<resource> from;
    for (const auto& [id, share] : spec.practical_fraction)
        if (info(id).tensor && share.value) {
            sum += *share.value;
            from.push_back(id);
        }
    if (from.empty()) return std::nullopt;
    return std::make_pair(sum / double(from.size()), from);
}

}  // namespace

const peak_figure* peak_origin::pooled(const peak_figure& f) {
    static std::mutex lock;
    static std::vector<std::unique_ptr<const peak_figure>> pool;
    std::lock_guard<std::mutex> hold(lock);
    // A handful of figures per GPU: a linear search is the cheapest index.
    for (const auto& p : pool)
        if (p->from == f.from && p->acc == f.acc && p->estimated == f.estimated && p->bandwidth == f.bandwidth &&
            p->what == f.what && p->source == f.source && p->figure == f.figure && p->at_mhz == f.at_mhz)
            return p.get();
    pool.push_back(std::make_unique<const peak_figure>(f));
    return pool.back().get();
}

practical_choice practical_share_of(const gpu_spec& spec, resource r) {
    auto it = spec.practical_fraction.find(r);
    if (it != spec.practical_fraction.end() && it->second.value)
        return {*it->second.value, practical_origin::spec, it->second.source, {}, false};
    if (info(r).tensor)
        if (auto mean = measured_tensor_mean(spec))
            return {mean->first, practical_origin::tensor_mean, {}, mean->second, false};
    for (const auto& d : default_practical)
        if (d.id == r) return {d.share, practical_origin::default_share, {}, {}, true};
    if (info(r).tensor) {
        double sum = 0.0;
        int n = 0;
        for (const auto& d : default_practical)
            if (info(d.id).tensor) sum += d.share, ++n;
        return {sum / n, practical_origin::default_tensor_mean, {}, {}, true};
    }
    return {1.0, practical_origin::raw_peak, {}, {}, false};
}

std::vector<resource> default_practical_resources(const gpu_spec& spec) {
    std::vector<resource> out;
    for (const auto& r : all_resources())
        if (practical_share_of(spec, r.id).is_default) out.push_back(r.id);
    return out;
}

namespace {

constexpr const char* mma_cycles_metric =
    "sm__pipe_tensor_type_hmma_hgmma_qgmma_imma_igmma_bmma_bgmma_cycles_active.avg.pct_of_peak_sustained_elapsed";

// The tensor floor of a GH100 kernel whose tensor precisions are all unmeasured (a details page), where
// the counters or ncu's words say it ran warpgroup MMA: HGMMA does one cycle of its precision's peak work
// per busy cycle of the pipe, so that precision ran at the MMA cycles' share of its peak (raw pages of
// examples/: FP16 nvjet 89.8% and 89.8%, BF16 nvjet 90.3 and 90.3, TF32 sm90_xmma 88.2 and 88.2, BF16 sm90_xmma
// fprop 90.1 and 90.1, wgmma_tma 77.0 and 77.0, cuDNN's SDPA 41.9 and 41.9; FP8 and INT8 wgmma were not
// measured). Which precision is not known, so the floor uses the largest practical share of any: the
// smallest floor the cycles allow. The first finding it decides on a details page stays provisional.
// The name's word counts as the counters' (wgmma_by_name): every kernel of examples/ whose name says wgmma
// (cuDNN's _wgmma_ attention, nvjet_sm90, sm90_xmma on TF32/BF16/FP16) ran HGMMA on its raw page.
std::optional<double> stated_tensor_floor(const kernel_roofline& k, const metric_view& m, const gpu_spec& spec,
                                          bool wgmma_by_name) {
    if (spec.compute_capability != "9.0") return std::nullopt;
    const auto mma = m.find(mma_cycles_metric);
    const auto gmma = m.find("sm__inst_executed_pipe_tensor_op_gmma.avg.pct_of_peak_sustained_elapsed");
    const bool wgmma =
        (gmma && *gmma > 0.0) || m.find("derived__tensor_pipe_wgmma").value_or(0.0) > 0.0 || wgmma_by_name;
    if (!mma || *mma <= 0.0 || !wgmma) return std::nullopt;
    double practical = 0.0;
    for (resource p : precisions())
        if (info(p).tensor && p != resource::tensor_fp64) {
            if (k.find(p)) return std::nullopt;  // a counted precision carries its own floor
            practical = std::max(practical, practical_share_of(spec, p).share);
        }
    if (practical <= 0.0) return std::nullopt;
    return *mma / 100.0 * k.duration_ns / practical;
}

// The bounds of the resources the capture has no counter for: a compute unit is at most as busy as
// ncu's SM speed of light (the busiest SM sub-unit, pipes and issue included), a memory level at most
// as busy as its memory speed of light (the busiest memory unit); 1 where the capture lacks that too.
// The MMA cycles of a kernel whose every tensor precision is measured at zero work are zero.
void bound_unmeasured(kernel_roofline& k, const metric_view& m, const gpu_spec& spec) {
    const auto sm = m.find("sm__throughput.avg.pct_of_peak_sustained_elapsed");
    const auto memory = m.find("gpu__compute_memory_throughput.avg.pct_of_peak_sustained_elapsed");
    bool tensor_idle = true;
    for (resource p : precisions())
        if (info(p).tensor) {
            const resource_use* r = k.find(p);
            tensor_idle = tensor_idle && !k.find_unmeasured(p) && (!r || r->work <= 0);
        }
    for (auto& u : k.unmeasured) {
        const auto& bound = info(u.id).kind == resource_kind::memory ? memory : sm;
        u.hi = std::clamp(bound.value_or(100.0) / 100.0, 0.0, 1.0);
        if (u.id == resource::pipe_tensor && tensor_idle) u.hi = 0.0;
        // On GH100 the FP64 units and the tensor cores issue through one pipe: ncu's "Shared" pipe is
        // their sum (on the raw pages of examples/h100 and h200, sm__pipe_shared_cycles_active equals
        // sm__inst_executed_pipe_fp64 plus the MMA cycles, kernel by kernel). The tensor work is at most
        // what the FP64 pipe leaves of it.
        if ((info(u.id).tensor || u.id == resource::pipe_tensor) && spec.compute_capability == "9.0")
            if (const resource_use* fp64 = k.find(resource::pipe_fp64))
                u.hi = std::min(u.hi, std::max(0.0, 1.0 - fp64->utilisation));
        // A tensor precision's FLOPs are at most the MMA cycles' share of its peak: a busy cycle does at
        // most one cycle of the fastest path's work (wgmma's HGMMA equals it, mma.sync's HMMA does two
        // thirds on GH100: examples/h100 pairs_raw, wmma_staged 28.9% of the FP16 peak in 43.4% MMA cycles).
        if (info(u.id).tensor && u.id != resource::tensor_fp64 && spec.compute_capability == "9.0")
            if (const auto mma = m.find(mma_cycles_metric)) u.hi = std::min(u.hi, std::max(0.0, *mma / 100.0));
        u.practical = practical_share_of(spec, u.id).share;
    }
}

}  // namespace

kernel_roofline build_roofline(const metric_view& m, const gpu_spec& spec, bool wgmma_by_name) {
    kernel_roofline k;
    auto duration = m.find("gpu__time_duration.sum");
    if (!duration || *duration <= 0) {
        k.missing = lacking_input::duration;
        return k;
    }
    k.placed = true;
    k.duration_ns = *duration;
    k.sm_clock_hz = spec.boost_clock_mhz.value * 1e6;
    for (const char* clock : {"sm__cycles_elapsed.avg.per_second", "smsp__cycles_elapsed.avg.per_second",
                              "gpc__cycles_elapsed.avg.per_second"})
        if (auto clk = m.find(clock)) {
            k.sm_clock_hz = *clk;
            k.sm_clock_counter = clock;
            break;
        }
    k.dram_clock_hz = m.find("dram__cycles_elapsed.avg.per_second").value_or(0.0);
    detail::add_precisions(k, m, spec);
    detail::add_pipes(k, m);
    detail::add_memory(k, m, spec);
    detail::add_chart_ceilings(k, m, spec);
    k.resources.shrink_to_fit();  // held for every kernel of a capture: no doubling slack
    bound_unmeasured(k, m, spec);
    const resource_use* top = nullptr;
    const resource_use* top_practical = nullptr;
    for (auto& r : k.resources) {
        const practical_choice p = practical_share_of(spec, r.id);
        r.practical = p.share;
        r.practical_default = p.is_default;
        r.floor_ns = r.useful * k.duration_ns / p.share;
        r.floor_lo_ns = r.useful_lo * k.duration_ns / p.share;
        if (!info(r.id).in_floor) continue;
        if (!top || r.useful_min() > top->useful_min()) top = &r;
        if (!top_practical || r.floor_min_ns() > top_practical->floor_min_ns()) top_practical = &r;
        k.pct_of_roof_hi = std::max(k.pct_of_roof_hi, r.useful * 100.0);
        k.practical_floor_hi_ns = std::max(k.practical_floor_hi_ns, r.floor_ns);
    }
    if (top) {
        k.binding = top->id;
        k.pct_of_roof = top->useful_min() * 100.0;
        k.floor_ns = top->useful_min() * k.duration_ns;
        k.binding_practical = top_practical->id;
        k.practical_floor_ns = top_practical->floor_min_ns();
    }
    k.stated_tensor_floor_ns = stated_tensor_floor(k, m, spec, wgmma_by_name);
    if (k.stated_tensor_floor_ns && *k.stated_tensor_floor_ns > k.practical_floor_ns) {
        k.practical_floor_ns = *k.stated_tensor_floor_ns;
        k.binding_practical = resource::pipe_tensor;
    }
    for (const auto& u : k.unmeasured) {
        if (!info(u.id).in_floor) continue;
        k.pct_of_roof_hi = std::max(k.pct_of_roof_hi, u.hi * 100.0);
        k.practical_floor_hi_ns = std::max(k.practical_floor_hi_ns, u.floor_hi_ns(k.duration_ns));
    }
    k.pct_of_roof_hi = std::max(k.pct_of_roof_hi, k.pct_of_roof);
    k.practical_floor_hi_ns = std::max(k.practical_floor_hi_ns, k.practical_floor_ns);
    k.floor_hi_ns = k.pct_of_roof_hi / 100.0 * k.duration_ns;
    if (spec.dram_bandwidth_tbs.value <= 0 && !k.find(resource::dram)) {
        // A GPU nothing identifies (capture_spec.hpp, spec_without_peaks): the kernel's time and
        // bytes are measured, but no roof is known to place it against, nor whether memory binds.
        k.placed = false;
        k.missing = lacking_input::gpu_peaks;
    }
    // Above the roof only where the counters prove it: the lower bound of the share (an upper bound
    // above 1 is what the capture leaves open, not a measurement).
    for (const auto& r : k.resources)
        if (r.useful_min() > 1.0)
            k.warnings.push_back({roof_warning_kind::above_roof, r.id, r.useful_min(), 0.0,
                                  r.peak > 0 ? pooled_string() : r.formula, r.peak > 0 ? r.peak_from : peak_origin{}});
    return k;
}

}  // namespace roofline
