#include "models/roofline_model.hpp"

#include "models/roofline_parts.hpp"

#include <algorithm>
#include <cmath>
#include <memory>
#include <mutex>

namespace roofline {

const resource_use* kernel_roofline::find(resource id) const {
    for (const auto& use : resources)
        if (use.id == id) return &use;
    return nullptr;
}

const unmeasured_resource* kernel_roofline::find_unmeasured(resource id) const {
    for (const auto& uncounted : unmeasured)
        if (uncounted.id == id) return &uncounted;
    return nullptr;
}

std::vector<std::string> kernel_roofline::missing_metrics() const {
    std::vector<std::string> out;
    for (const auto& use : resources)
        for (const auto& id : use.missing) out.push_back(id);
    for (const auto& uncounted : unmeasured)
        for (const auto& id : uncounted.missing) out.push_back(id);
    std::sort(out.begin(), out.end());
    out.erase(std::unique(out.begin(), out.end()), out.end());
    return out;
}

std::optional<double> kernel_roofline::intensity(resource level) const {
    const std::optional<double>& bytes = level == resource::dram ? bytes_dram
                                         : level == resource::l2 ? bytes_l2
                                                                 : bytes_l1;
    if (!bytes || *bytes <= 0 || !flops_counted) return std::nullopt;
    return flops / *bytes;
}

namespace detail {

void check_against_spec(kernel_roofline& roof, resource id, double measured, double spec_value) {
    if (spec_value <= 0 || measured <= 0) return;
    if (std::fabs(measured / spec_value - 1.0) > 0.10)
        roof.warnings.push_back({roof_warning_kind::peak_differs, id, measured, spec_value, {}, {}});
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
    {resource::dram, 0.897},        {resource::l2, 0.818},     {resource::fp32, 0.746},
    {resource::fp64, 0.987},        {resource::fp16, 0.938},   {resource::tensor_fp16, 0.832},
    {resource::tensor_bf16, 0.903}, {resource::pipe_alu, 0.8}, {resource::tensor_tf32, 0.882},
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

const peak_figure* peak_origin::pooled(const peak_figure& wanted) {
    static std::mutex lock;
    static std::vector<std::unique_ptr<const peak_figure>> pool;
    std::lock_guard<std::mutex> hold(lock);
    // A handful of figures per GPU: a linear search is the cheapest index.
    for (const auto& kept : pool)
        if (kept->from == wanted.from && kept->acc == wanted.acc && kept->estimated == wanted.estimated &&
            kept->bandwidth == wanted.bandwidth && kept->what == wanted.what && kept->source == wanted.source &&
            kept->figure == wanted.figure && kept->at_mhz == wanted.at_mhz)
            return kept.get();
    pool.push_back(std::make_unique<const peak_figure>(wanted));
    return pool.back().get();
}

practical_choice practical_share_of(const gpu_spec& spec, resource id) {
    auto it = spec.practical_fraction.find(id);
    if (it != spec.practical_fraction.end() && it->second.value)
        return {*it->second.value, practical_origin::spec, it->second.source, {}, false};
    if (info(id).tensor)
        if (auto mean = measured_tensor_mean(spec))
            return {mean->first, practical_origin::tensor_mean, {}, mean->second, false};
    for (const auto& fallback : default_practical)
        if (fallback.id == id) return {fallback.share, practical_origin::default_share, {}, {}, true};
    if (info(id).tensor) {
        double sum = 0.0;
        int tensor_count = 0;
        for (const auto& fallback : default_practical)
            if (info(fallback.id).tensor) sum += fallback.share, ++tensor_count;
        return {sum / tensor_count, practical_origin::default_tensor_mean, {}, {}, true};
    }
    return {1.0, practical_origin::raw_peak, {}, {}, false};
}

std::vector<resource> default_practical_resources(const gpu_spec& spec) {
    std::vector<resource> out;
    for (const auto& listed : all_resources())
        if (practical_share_of(spec, listed.id).is_default) out.push_back(listed.id);
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
// The name's word counts as the counters' (named.wgmma): every kernel of examples/ whose name says wgmma
// (cuDNN's _wgmma_ attention, nvjet_sm90, sm90_xmma on TF32/BF16/FP16) ran HGMMA on its raw page; and where
// the name says the precision (nvjet_sm90_tst: BF16), its practical share is the one (17 of 17 nvjet kernels
// of examples/ did their MMA work in the precision their name says, on their raw pages).
std::optional<double> stated_tensor_floor(const kernel_roofline& roof, const metric_view& metrics, const gpu_spec& spec,
                                          const name_hints& named) {
    if (spec.compute_capability != "9.0") return std::nullopt;
    const auto mma = metrics.find(mma_cycles_metric);
    const auto gmma = metrics.find("sm__inst_executed_pipe_tensor_op_gmma.avg.pct_of_peak_sustained_elapsed");
    const bool wgmma =
        (gmma && *gmma > 0.0) || metrics.find("derived__tensor_pipe_wgmma").value_or(0.0) > 0.0 || named.wgmma;
    if (!mma || *mma <= 0.0 || !wgmma) return std::nullopt;
    double practical = 0.0;
    for (resource precision : precisions())
        if (info(precision).tensor && precision != resource::tensor_fp64) {
            if (roof.find(precision)) return std::nullopt;  // a counted precision carries its own floor
            if (named.tensor_precision && precision != *named.tensor_precision) continue;
            practical = std::max(practical, practical_share_of(spec, precision).share);
        }
    if (practical <= 0.0) return std::nullopt;
    return *mma / 100.0 * roof.duration_ns / practical;
}

// The bounds of the resources the capture has no counter for: a compute unit is at most as busy as
// ncu's SM speed of light (the busiest SM sub-unit, pipes and issue included), a memory level at most
// as busy as its memory speed of light (the busiest memory unit); 1 where the capture lacks that too.
// The MMA cycles of a kernel whose every tensor precision is measured at zero work are zero.
void bound_unmeasured(kernel_roofline& roof, const metric_view& metrics, const gpu_spec& spec,
                      const name_hints& named) {
    const auto sm = metrics.find("sm__throughput.avg.pct_of_peak_sustained_elapsed");
    const auto memory = metrics.find("gpu__compute_memory_throughput.avg.pct_of_peak_sustained_elapsed");
    bool tensor_idle = true;
    for (resource precision : precisions())
        if (info(precision).tensor) {
            const resource_use* use = roof.find(precision);
            tensor_idle = tensor_idle && !roof.find_unmeasured(precision) && (!use || use->work <= 0);
        }
    for (auto& unmeasured : roof.unmeasured) {
        const auto& bound = info(unmeasured.id).kind == resource_kind::memory ? memory : sm;
        unmeasured.hi = std::clamp(bound.value_or(100.0) / 100.0, 0.0, 1.0);
        if (unmeasured.id == resource::pipe_tensor && tensor_idle) unmeasured.hi = 0.0;
        // On GH100 the FP64 units and the tensor cores issue through one pipe: ncu's "Shared" pipe is
        // their sum (on the raw pages of examples/h100 and h200, sm__pipe_shared_cycles_active equals
        // sm__inst_executed_pipe_fp64 plus the MMA cycles, kernel by kernel). The tensor work is at most
        // what the FP64 pipe leaves of it.
        if ((info(unmeasured.id).tensor || unmeasured.id == resource::pipe_tensor) && spec.compute_capability == "9.0")
            if (const resource_use* fp64 = roof.find(resource::pipe_fp64))
                unmeasured.hi = std::min(unmeasured.hi, std::max(0.0, 1.0 - fp64->utilisation));
        // A tensor precision's FLOPs are at most the MMA cycles' share of its peak: a busy cycle does at
        // most one cycle of the fastest path's work (wgmma's HGMMA equals it, mma.sync's HMMA does two
        // thirds on GH100: examples/h100 pairs_raw, wmma_staged 28.9% of the FP16 peak in 43.4% MMA cycles).
        if (info(unmeasured.id).tensor && unmeasured.id != resource::tensor_fp64 && spec.compute_capability == "9.0")
            if (const auto mma = metrics.find(mma_cycles_metric))
                unmeasured.hi = std::min(unmeasured.hi, std::max(0.0, *mma / 100.0));
        // The math pipes are no busier than the one ncu's HighPipeUtilization rule names as the highest (by
        // elapsed cycles; an instruction-based share is never above its cycle-based one, and the rule's
        // instruction-based figure bounds those directly), and no precision does more than its pipe's share of
        // its peak. The rule leaves out the pipes fed through MIO: on the raw pages of examples/, LSU, ADU and XU
        // ran above the figure it stated (reduce_naive's XU at 60% against "49.9%"), so they, TEX and TMA keep
        // the SM's bound alone (tests/test_ncu_rule_values.cpp).
        const resource_info& what = info(unmeasured.id);
        const bool math_pipe = unmeasured.id == resource::pipe_alu || unmeasured.id == resource::pipe_fma ||
                               unmeasured.id == resource::pipe_fp64 || unmeasured.id == resource::pipe_uniform ||
                               unmeasured.id == resource::pipe_cbu || unmeasured.id == resource::pipe_tensor;
        if (math_pipe || what.precision) {
            auto highest = metrics.find("derived__pipe_highest_pct");
            if (const auto by_instructions = metrics.find("derived__pipe_highest_inst_pct");
                by_instructions && math_pipe && unmeasured.id != resource::pipe_tensor)
                highest = highest ? std::min(*highest, *by_instructions) : *by_instructions;
            if (highest) unmeasured.hi = std::min(unmeasured.hi, std::max(0.0, *highest / 100.0));
        }
        // The memory pipes are no busier than ncu's "Mem Pipes Busy" (sm__memory_throughput, the SM's memory
        // instruction throughput): on the 638 raw pages' kernels of examples/ it was the largest of the LSU, ADU
        // and TEX pipes' shares, never under one of them (the XU pipe ran up to 7.9x above it: not bounded here).
        if (unmeasured.id == resource::pipe_lsu || unmeasured.id == resource::pipe_adu ||
            unmeasured.id == resource::pipe_tex)
            if (const auto memory_pipes = metrics.find("sm__memory_throughput.avg.pct_of_peak_sustained_elapsed"))
                unmeasured.hi = std::min(unmeasured.hi, std::max(0.0, *memory_pipes / 100.0));
        // A kernel whose name says its MMA precision does no MMA work in another.
        if (named.tensor_precision && what.tensor && unmeasured.id != *named.tensor_precision) unmeasured.hi = 0.0;
        // ATen's own kernels run no MMA. (They do run FP16 instructions on the FMA pipe where a tensor is Half:
        // up to 8.4% of its peak on examples/heldout_vision's raw page, although none of 144 ATen launches of the
        // bf16 and FP32 programs before it did: the FP16 share stays bounded by the busiest pipe.)
        if (named.no_mma && (what.tensor || unmeasured.id == resource::pipe_tensor)) unmeasured.hi = 0.0;
        unmeasured.practical = practical_share_of(spec, unmeasured.id).share;
    }
}

// Every resource at the least work its counters prove (roof_reading::least_work): an open share at its lower
// bound, a resource without a counter at no work in the floors (it stays unmeasured: facts that ask whether it
// did any work stay open).
void read_as_least_work(kernel_roofline& roof) {
    for (auto& use : roof.resources) {
        if (use.exact()) continue;
        use.useful = use.useful_lo;
        use.useful_lo = use.useful;
        use.missing.clear();
    }
    for (auto& open : roof.unmeasured) open.hi = 0.0;
}

}  // namespace

kernel_roofline build_roofline(const metric_view& metrics, const gpu_spec& spec, const name_hints& named,
                               roof_reading reading) {
    kernel_roofline roof;
    auto duration = metrics.find("gpu__time_duration.sum");
    if (!duration || *duration <= 0) {
        roof.missing = lacking_input::duration;
        return roof;
    }
    roof.placed = true;
    roof.duration_ns = *duration;
    roof.sm_clock_hz = spec.boost_clock_mhz.value * 1e6;
    for (const char* clock : {"sm__cycles_elapsed.avg.per_second", "smsp__cycles_elapsed.avg.per_second",
                              "gpc__cycles_elapsed.avg.per_second"})
        if (auto clk = metrics.find(clock)) {
            roof.sm_clock_hz = *clk;
            roof.sm_clock_counter = clock;
            break;
        }
    roof.dram_clock_hz = metrics.find("dram__cycles_elapsed.avg.per_second").value_or(0.0);
    detail::add_precisions(roof, metrics, spec);
    detail::add_pipes(roof, metrics);
    detail::add_memory(roof, metrics, spec);
    detail::add_chart_ceilings(roof, metrics, spec);
    roof.resources.shrink_to_fit();  // held for every kernel of a capture: no doubling slack
    bound_unmeasured(roof, metrics, spec, named);
    if (reading == roof_reading::least_work) read_as_least_work(roof);
    const resource_use* top = nullptr;
    const resource_use* top_practical = nullptr;
    for (auto& use : roof.resources) {
        const practical_choice choice = practical_share_of(spec, use.id);
        use.practical = choice.share;
        use.practical_default = choice.is_default;
        use.floor_ns = use.useful * roof.duration_ns / choice.share;
        use.floor_lo_ns = use.useful_lo * roof.duration_ns / choice.share;
        if (!info(use.id).in_floor) continue;
        if (!top || use.useful_min() > top->useful_min()) top = &use;
        if (!top_practical || use.floor_min_ns() > top_practical->floor_min_ns()) top_practical = &use;
        roof.pct_of_roof_hi = std::max(roof.pct_of_roof_hi, use.useful * 100.0);
        roof.practical_floor_hi_ns = std::max(roof.practical_floor_hi_ns, use.floor_ns);
    }
    if (top) {
        roof.binding = top->id;
        roof.pct_of_roof = top->useful_min() * 100.0;
        roof.floor_ns = top->useful_min() * roof.duration_ns;
        roof.binding_practical = top_practical->id;
        roof.practical_floor_ns = top_practical->floor_min_ns();
    }
    roof.stated_tensor_floor_ns = stated_tensor_floor(roof, metrics, spec, named);
    if (roof.stated_tensor_floor_ns && *roof.stated_tensor_floor_ns > roof.practical_floor_ns) {
        roof.practical_floor_ns = *roof.stated_tensor_floor_ns;
        roof.binding_practical = resource::pipe_tensor;
    }
    for (const auto& unmeasured : roof.unmeasured) {
        if (!info(unmeasured.id).in_floor) continue;
        roof.pct_of_roof_hi = std::max(roof.pct_of_roof_hi, unmeasured.hi * 100.0);
        roof.practical_floor_hi_ns = std::max(roof.practical_floor_hi_ns, unmeasured.floor_hi_ns(roof.duration_ns));
    }
    roof.pct_of_roof_hi = std::max(roof.pct_of_roof_hi, roof.pct_of_roof);
    roof.practical_floor_hi_ns = std::max(roof.practical_floor_hi_ns, roof.practical_floor_ns);
    roof.floor_hi_ns = roof.pct_of_roof_hi / 100.0 * roof.duration_ns;
    if (spec.dram_bandwidth_tbs.value <= 0 && !roof.find(resource::dram)) {
        // A GPU nothing identifies (capture_spec.hpp, spec_without_peaks): the kernel's time and
        // bytes are measured, but no roof is known to place it against, nor whether memory binds.
        roof.placed = false;
        roof.missing = lacking_input::gpu_peaks;
    }
    // Above the roof only where the counters prove it: the lower bound of the share (an upper bound
    // above 1 is what the capture leaves open, not a measurement).
    for (const auto& use : roof.resources)
        if (use.useful_min() > 1.0)
            roof.warnings.push_back({roof_warning_kind::above_roof, use.id, use.useful_min(), 0.0,
                                     use.peak > 0 ? pooled_string() : use.formula,
                                     use.peak > 0 ? use.peak_from : peak_origin{}});
    return roof;
}

}  // namespace roofline
