#include "analyzer/diagnose/fact_table.hpp"

#include "analyzer/base/metric_catalogue.hpp"
#include "analyzer/read/ncu_rule_values.hpp"

#include <algorithm>
#include <cmath>
#include <map>
#include <tuple>

namespace roofline::diagnose::detail {
namespace {

std::optional<double> ratio(std::optional<double> numerator, std::optional<double> denominator) {
    if (!numerator || !denominator) return std::nullopt;
    if (*denominator <= 0) return *numerator <= 0 ? std::optional<double>(0.0) : std::nullopt;
    return *numerator / *denominator;
}

// Every metric is looked up, so an unknown value names all it lacked, not only the first.
std::optional<double> sum_of(std::initializer_list<std::optional<double>> parts) {
    double total = 0.0;
    for (const auto& part : parts) {
        if (!part) return std::nullopt;
        total += *part;
    }
    return total;
}

std::optional<double> global_sectors(const kernel_result& kernel) {
    return sum_of({metric(kernel, "l1tex__t_sectors_pipe_lsu_mem_global_op_ld.sum"),
                   metric(kernel, "l1tex__t_sectors_pipe_lsu_mem_global_op_st.sum")});
}

// Local-memory sectors that reach L2: every store (L1 writes local memory through to L2, seen on
// the H100: 98.7% store "hits" and as many L2 write sectors as local stores) and the load misses.
std::optional<double> local_sectors_to_l2(const kernel_result& kernel) {
    auto hit = metric(kernel, "l1tex__t_sector_pipe_lsu_mem_local_op_ld_hit_rate.pct");
    auto ld = metric(kernel, "l1tex__t_sectors_pipe_lsu_mem_local_op_ld.sum");
    auto st = metric(kernel, "l1tex__t_sectors_pipe_lsu_mem_local_op_st.sum");
    if (!hit || !ld || !st) return std::nullopt;
    return *ld * (1.0 - *hit / 100.0) + *st;
}

// Bytes of data the threads moved through L1, counted at the granularity they need: global
// sectors less the excess of uncoalesced accesses (32 bytes each) and shared-memory load
// wavefronts less conflict replays (up to 128 bytes each). Local memory is private scratch, not
// data, and is left out. Not the L1 writeback counter, which counts 128-byte cycles and so grows
// 32-fold with a scattered access.
std::optional<double> l1_load_bytes(const kernel_result& kernel) {
    auto sectors = global_sectors(kernel);
    auto excess = metric(kernel, "derived__memory_l2_theoretical_sectors_global_excessive");
    auto shared_ld = metric(kernel, "l1tex__data_pipe_lsu_wavefronts_mem_shared_op_ld.sum");
    auto conflicts = metric(kernel, "l1tex__data_bank_conflicts_pipe_lsu_mem_shared_op_ld.sum");
    if (!sectors || !excess || !shared_ld || !conflicts) return std::nullopt;
    return 32.0 * std::max(0.0, *sectors - *excess) + 128.0 * std::max(0.0, *shared_ld - *conflicts);
}

// A launch-shape value: 0 stands for "not in the capture" (kernel_result.hpp's launch_shape).
fact_value shape_fact(double value, const char* metric) {
    if (value > 0) return value;
    fact_value unknown;
    unknown.missing = {metric};
    return unknown;
}

// What the roofline lacks for one resource: its own missing metrics, measured or not.
std::vector<std::string> missing_of(const kernel_result& kernel, resource id) {
    std::vector<std::string> out;
    if (const resource_use* use = kernel.roof.find(id)) out.assign(use->missing.begin(), use->missing.end());
    if (const unmeasured_resource* unmeasured = kernel.roof.find_unmeasured(id))
        out.assign(unmeasured->missing.begin(), unmeasured->missing.end());
    return out;
}

// A part of L1's LSU data-stage traffic as a share of all of it; unknown without L1's wavefront counters.
fact_value l1_share(const kernel_result& kernel, double (*part)(const l1_traffic&)) {
    if (!kernel.roof.l1) {
        fact_value unknown;
        unknown.missing = missing_of(kernel, resource::l1);
        return unknown;
    }
    return kernel.roof.l1->lsu > 0 ? std::clamp(part(*kernel.roof.l1) / kernel.roof.l1->lsu, 0.0, 1.0) : 0.0;
}

// The dense tensor ops of each MMA instruction path beside the path's dense peak (the families of
// analyzer/base/metrics.json): the share that ran on a path slower than the fastest of its source type
// on this GPU. Unknown where the capture lacks the per-path counters (the metric plan leaves them out:
// each costs a replay pass), 0 on a chip with one path per type (Ampere, Ada).
fact_value slow_mma_path_share(const kernel_result& kernel) {
    static const std::string prefix = "sm__ops_path_tensor_op_", ops_end = "_sparsity_off.sum";
    auto source_of = [](const std::string& id) {  // ..._src_<source>[_dst_<type>]_sparsity_off.sum
        const std::size_t src = id.find("_src_");
        const std::string body = id.substr(src + 5, id.size() - ops_end.size() - src - 5);
        return body.substr(0, body.find("_dst_"));
    };
    std::map<std::string, double> fastest;
    std::vector<std::tuple<std::string, double, double>> paths;  // source, ops, peak
    for (const auto& [key, value] : kernel.group.metrics.entries()) {
        const std::string& id = metric_name(key);
        if (id.rfind(prefix, 0) != 0 || id.size() < ops_end.size() ||
            id.compare(id.size() - ops_end.size(), ops_end.size(), ops_end) != 0)
            continue;
        metric_read_log::note(id);  // read by name, not through find(): `roofline metrics` counts it
        auto peak = metric(kernel, (id + ".peak_sustained").c_str());
        if (!peak) continue;
        const std::string source = source_of(id);
        fastest[source] = std::max(fastest[source], *peak);
        paths.emplace_back(source, value, *peak);
    }
    if (paths.empty()) {
        const chip* gpu_chip = chip_for_cc(kernel.group.cc);
        const metric_family* per_path = nullptr;
        for (const auto& listed : metric_families())
            if (listed.suffix == ops_end) per_path = &listed;
        if (gpu_chip && per_path && per_path->members.at(gpu_chip->id).empty()) return 0.0;
        fact_value unknown;
        if (gpu_chip && per_path) unknown.missing = per_path->members.at(gpu_chip->id);
        return unknown;
    }
    double slow = 0.0, all = 0.0;
    for (const auto& [source, ops, peak] : paths) {
        all += ops;
        if (peak < fastest[source] * 0.99) slow += ops;  // rates within 1% are one rate
    }
    return all > 0 ? slow / all : 0.0;
}

// The busiest tensor precision's floor over the duration, between what the counters prove and what
// the unmeasured tensor precisions allow.
fact_value tensor_share(const kernel_result& kernel) {
    const double duration_ns = kernel.roof.duration_ns;
    if (duration_ns <= 0) return 0.0;
    double lo = 0.0, hi = 0.0;
    std::vector<std::string> missing;
    for (const auto& use : kernel.roof.resources)
        if (info(use.id).tensor) {
            lo = std::max(lo, use.floor_min_ns() / duration_ns);
            hi = std::max(hi, use.floor_ns / duration_ns);
            missing.insert(missing.end(), use.missing.begin(), use.missing.end());
        }
    for (const auto& unmeasured : kernel.roof.unmeasured)
        if (info(unmeasured.id).tensor) {
            hi = std::max(hi, unmeasured.floor_hi_ns(duration_ns) / duration_ns);
            missing.insert(missing.end(), unmeasured.missing.begin(), unmeasured.missing.end());
        }
    if (kernel.roof.stated_tensor_floor_ns) lo = std::max(lo, *kernel.roof.stated_tensor_floor_ns / duration_ns);
    hi = std::max(hi, lo);
    return fact_value::between(lo, hi, std::move(missing));
}

constexpr const char* mma_cycles_metric =
    "sm__pipe_tensor_type_hmma_hgmma_qgmma_imma_igmma_bmma_bgmma_cycles_active.avg.pct_of_peak_sustained_elapsed";

// Tensor-path work happened: some tensor precision did measured work; none did where every one is
// measured at zero; open otherwise.
fact_value mma_ran(const kernel_result& kernel) {
    for (const auto& use : kernel.roof.resources)
        if (info(use.id).tensor && use.work > 0) return 1.0;
    std::vector<std::string> missing;
    for (const auto& unmeasured : kernel.roof.unmeasured)
        if (info(unmeasured.id).tensor)
            missing.insert(missing.end(), unmeasured.missing.begin(), unmeasured.missing.end());
    if (missing.empty()) return flag(false);
    // Without the op counts (a details page), the MMA cycles: they count HMMA/HGMMA/QGMMA/IMMA/... only,
    // never HFMA2.MMA moves. 1% or more: kernels with no tensor op at all read up to 0.09% on the raw
    // pages of examples/wild (lib_c_raw: DeviceScanInitKernel 0.093, cupy_copy 0.008).
    if (const auto mma = kernel.group.metrics.find(mma_cycles_metric); mma && *mma >= 1.0) return 1.0;
    // A library kernel whose name states a tensor math path (rules/origins: cuBLAS's tensorop and xmma kernels,
    // nvjet's type letters, attention's 16-bit types, FP32 memory-efficient attention built for sm_80 on: TF32)
    // runs MMA: all 79 such kernels on the raw pages of examples/ did.
    if (const std::string math = kernel.origin.facts.math.str();
        math.size() > 7 && math.compare(math.size() - 7, 7, "_tensor") == 0)
        return 1.0;
    // A kind of kernel that runs no tensor-core instruction, by its name (rules/origins: ATen's own).
    if (kernel.origin.facts.math == "no_mma") return flag(false);
    return undecided(std::move(missing));
}

}  // namespace

std::optional<double> metric(const kernel_result& kernel, const char* id) { return kernel.group.metrics.find(id); }

// Global atomics and the L2 lines they hit (atomic_chain_ns).
struct atomic_count {
    fact_value requests, lines;
};
atomic_count atomic_counts(const kernel_result& kernel) {
    static const char* ops[] = {"red", "atom_dot_alu", "atom_dot_cas"};
    double requests = 0.0, misses = 0.0;
    std::vector<std::string> missing;
    for (const char* op : ops) {
        const std::string requests_metric = std::string("lts__t_requests_srcunit_tex_op_") + op + ".sum";
        const std::string misses_metric = std::string("lts__t_sectors_srcunit_tex_op_") + op + "_lookup_miss.sum";
        if (auto value = metric(kernel, requests_metric.c_str()))
            requests += *value;
        else
            missing.push_back(requests_metric);
        if (auto value = metric(kernel, misses_metric.c_str()))
            misses += *value;
        else
            missing.push_back(misses_metric);
    }
    if (!missing.empty()) {
        fact_value unknown;
        unknown.missing = missing;
        return {unknown, unknown};
    }
    return {requests, std::max(1.0, misses)};
}

fact_value atomic_chain_ns(const kernel_result& kernel, const gpu_spec& gpu) {
    const atomic_count counts = atomic_counts(kernel);
    const auto requests = counts.requests.value(), lines = counts.lines.value();
    if (!requests || !lines) return counts.requests;
    auto clock = metric(kernel, "lts__cycles_elapsed.avg.per_second");
    if (!clock || *clock <= 0) {
        fact_value unknown;
        unknown.missing = {"lts__cycles_elapsed.avg.per_second"};
        return unknown;
    }
    return *requests / *lines * gpu.same_line_atomic_cycles.value.value_or(1.0) / *clock * 1e9;
}

fact_value undecided(std::vector<std::string> missing) { return fact_value::between(0.0, 1.0, std::move(missing)); }

fact_value roof_between(const kernel_result& kernel, double lo, double hi) {
    return fact_value::between(lo, hi, kernel.roof.missing_metrics());
}

namespace {

// The launch: time, launches, grid and waves.
std::vector<fact> shape_facts() {
    return {
        {"duration_ns", value_type::number, "total GPU time of the kernel over its launches",
         [](const kernel_result& kernel, const gpu_spec&) { return std::optional<double>(kernel.roof.duration_ns); }},
        {"per_launch_ns", value_type::number, "mean duration of one launch",
         [](const kernel_result& kernel, const gpu_spec&) {
             return std::optional<double>(kernel.roof.duration_ns /
                                          double(kernel.group.launches ? kernel.group.launches : 1));
         }},
        {"launches", value_type::number, "number of launches",
         [](const kernel_result& kernel, const gpu_spec&) {
             return std::optional<double>(double(kernel.group.launches));
         }},
        {"grid_blocks", value_type::number, "launch__grid_size",
         [](const kernel_result& kernel, const gpu_spec&) {
             return shape_fact(kernel.shape.grid_blocks, "launch__grid_size");
         }},
        {"warp_lanes_launched", value_type::number,
         "threads per warp the block shape launches: block threads / ceil(block threads / 32); 32 for blocks of whole "
         "warps, 16 "
         "for a 4 x 4 block (lanes a launch never fills are not divergence)",
         [](const kernel_result& kernel, const gpu_spec&) -> fact_value {
             if (!kernel.group.block_size || kernel.group.block_size->count() <= 0) {
                 fact_value unknown;
                 unknown.missing = {"launch__block_size"};
                 return unknown;
             }
             const double threads = double(kernel.group.block_size->count());
             return threads / std::ceil(threads / 32.0);
         }},
        {"waves", value_type::number, "launch__waves_per_multiprocessor",
         [](const kernel_result& kernel, const gpu_spec&) {
             return shape_fact(kernel.shape.waves, "launch__waves_per_multiprocessor");
         }},
        {"sm_count", value_type::number, "SMs on the GPU",
         [](const kernel_result& kernel, const gpu_spec&) {
             return shape_fact(kernel.shape.sm_count, "launch__sm_count");
         }},
        {"tail_idle_share", value_type::number,
         "(ceil(waves) - waves) / ceil(waves): the share of block slots the last, partial wave leaves idle over the "
         "run",
         [](const kernel_result& kernel, const gpu_spec&) -> fact_value {
             if (kernel.shape.waves <= 0) return shape_fact(0.0, "launch__waves_per_multiprocessor");
             const double whole = std::ceil(kernel.shape.waves - 1e-9);
             return (whole - kernel.shape.waves) / whole;
         }},
    };
}

// The roofline: floors, FLOPs and bytes, and the tensor pipe.
std::vector<fact> roofline_facts() {
    return {
        {"pct_of_roof", value_type::number, "the largest useful share over every resource, in percent of its raw peak",
         [](const kernel_result& kernel, const gpu_spec&) {
             return kernel.roof.placed ? roof_between(kernel, kernel.roof.pct_of_roof, kernel.roof.pct_of_roof_hi)
                                       : fact_value();
         }},
        {"floor_ns", value_type::number, "the largest useful time at raw peak over every resource",
         [](const kernel_result& kernel, const gpu_spec&) {
             return kernel.roof.placed ? roof_between(kernel, kernel.roof.floor_ns, kernel.roof.floor_hi_ns)
                                       : fact_value();
         }},
        {"practical_floor_ns", value_type::number,
         "the largest useful time at the practical share over every resource: no fix that keeps the work beats it",
         [](const kernel_result& kernel, const gpu_spec&) {
             return kernel.roof.placed
                        ? roof_between(kernel, kernel.roof.practical_floor_ns, kernel.roof.practical_floor_hi_ns)
                        : fact_value();
         }},
        {"roof_share", value_type::number,
         "practical_floor_ns / duration_ns: 1 = as fast as the best kernels run this work on this GPU",
         [](const kernel_result& kernel, const gpu_spec&) {
             return kernel.roof.placed ? roof_between(kernel, kernel.roof.roof_share(), kernel.roof.roof_share_hi())
                                       : fact_value();
         }},
        {"flops", value_type::number, "FLOPs over all precisions",
         [](const kernel_result& kernel, const gpu_spec&) -> fact_value {
             std::vector<std::string> missing;
             double unsure = 0.0;  // FP16 counts that may be HFMA2.MMA moves
             for (const auto& unmeasured : kernel.roof.unmeasured)
                 if (info(unmeasured.id).precision)
                     missing.insert(missing.end(), unmeasured.missing.begin(), unmeasured.missing.end());
             for (const auto& use : kernel.roof.resources)
                 if (info(use.id).precision && !use.exact() && use.useful_min() <= 0.0) {
                     unsure += use.work;
                     missing.insert(missing.end(), use.missing.begin(), use.missing.end());
                 }
             if (!kernel.roof.flops_counted || (!missing.empty() && unsure <= 0.0)) {
                 fact_value unknown;
                 unknown.missing = std::move(missing);
                 return unknown;
             }
             return fact_value::between(kernel.roof.flops - unsure, kernel.roof.flops, std::move(missing));
         }},
        {"bytes_dram", value_type::number, "bytes moved to and from DRAM",
         [](const kernel_result& kernel, const gpu_spec&) -> fact_value {
             if (kernel.roof.bytes_dram) return *kernel.roof.bytes_dram;
             fact_value unknown;
             unknown.missing = missing_of(kernel, resource::dram);
             return unknown;
         }},
        {"atomic_requests", value_type::number,
         "global atomics and reductions the SMs sent to L2 "
         "(lts__t_requests_srcunit_tex_op_{red,atom_dot_alu,atom_dot_cas}.sum)",
         [](const kernel_result& kernel, const gpu_spec&) { return atomic_counts(kernel).requests; }},
        {"atomic_lines", value_type::number,
         "the L2 lines those atomics hit, at least 1: their L2 lookup misses, since ncu flushes the caches before each "
         "pass "
         "(lts__t_sectors_srcunit_tex_op_{red,atom_dot_alu,atom_dot_cas}_lookup_miss.sum)",
         [](const kernel_result& kernel, const gpu_spec&) { return atomic_counts(kernel).lines; }},
        {"atomic_chain_ns", value_type::number,
         "the time the atomics on one line take one after another, at the mean number per line: atomic_requests / "
         "atomic_lines x "
         "the GPU's same_line_atomic_cycles (hwspecs; 1, ncu's peak, where unmeasured) / the L2 clock "
         "(lts__cycles_elapsed.avg.per_second). Atomics to one line run in the slice that owns it, each after the "
         "last: no fix "
         "that keeps them is faster",
         [](const kernel_result& kernel, const gpu_spec& gpu) { return atomic_chain_ns(kernel, gpu); }},
        {"min_kernel_ns", value_type::number,
         "the shortest a launch lasts on this GPU (hwspecs min_kernel_ns; 0 where unknown)",
         [](const kernel_result&, const gpu_spec& spec) {
             return std::optional<double>(spec.min_kernel_ns.value.value_or(0.0));
         }},
        {"mma", value_type::boolean,
         "the kernel ran real MMA instructions: tensor-path ops (sm__ops_path_tensor_src_*, exact counts that "
         "HFMA2.MMA moves do not "
         "reach)",
         [](const kernel_result& kernel, const gpu_spec&) { return mma_ran(kernel); }},
        {"tensor_binds", value_type::boolean, "a tensor precision has the kernel's largest practical floor",
         [](const kernel_result& kernel, const gpu_spec&) -> fact_value {
             const auto is_tensor = [](resource id) { return info(id).tensor || id == resource::pipe_tensor; };
             const bool tensor = kernel.roof.binding_practical && is_tensor(*kernel.roof.binding_practical);
             if (kernel.roof.floors_exact()) return flag(tensor);
             // Where the proven largest floor is a tensor one and no other resource's floor can exceed it by more
             // than 5% (their upper bounds, measured or not), it binds; where no tensor floor can reach the proven
             // largest, it does not. Open otherwise.
             const double proven = kernel.roof.practical_floor_ns;
             double other_hi = 0.0, tensor_hi = tensor ? proven : 0.0;
             const auto widen = [&](resource id, double floor_hi_ns) {
                 if (!info(id).in_floor) return;
                 double& largest = is_tensor(id) ? tensor_hi : other_hi;
                 largest = std::max(largest, floor_hi_ns);
             };
             for (const auto& use : kernel.roof.resources) widen(use.id, use.floor_ns);
             for (const auto& open : kernel.roof.unmeasured) widen(open.id, open.floor_hi_ns(kernel.roof.duration_ns));
             // "Binds" as binds_<resource> has it: the largest floor, or within 5% of it (floors that close cannot
             // be told apart).
             if (tensor && 0.95 * other_hi <= proven) return 1.0;
             if (!tensor && tensor_hi < proven) return 0.0;
             return undecided(kernel.roof.missing_metrics());
         }},
        {"warp_specialised", value_type::boolean,
         "the kernel issues warpgroup MMA (wgmma) or TMA copies: producer and consumer warps hand tiles over through "
         "mbarriers by design",
         [](const kernel_result& kernel, const gpu_spec&) -> fact_value {
             auto gmma = metric(kernel, "sm__inst_executed_pipe_tensor_op_gmma.avg.pct_of_peak_sustained_elapsed");
             auto tma = metric(kernel, "smsp__inst_executed_op_tma_ld.sum");
             if ((gmma && *gmma > 0.0) || (tma && *tma > 0.0)) return 1.0;
             // ncu's words for it on a details page (a sentence, never a column to ask for)
             if (kernel.group.metrics.find("derived__tensor_pipe_wgmma").value_or(0.0) > 0.0) return 1.0;
             if (gmma && tma) return 0.0;
             // A library kernel's name: wgmma in it (cuDNN's _wgmma_ attention, nvjet_sm90), or none possible
             // (built for an architecture before sm_90, whose code has neither wgmma nor TMA; FlashAttention-2's
             // Sm80 traits). Checked on every raw page of examples/ that names one: the gmma counter agreed.
             if (const auto named = wgmma_named(kernel.origin.facts)) return flag(*named);
             // Open: name the counters only (the sentence read above is no column a profile can ask for).
             std::vector<std::string> lacking;
             if (!gmma) lacking.emplace_back("sm__inst_executed_pipe_tensor_op_gmma.avg.pct_of_peak_sustained_elapsed");
             if (!tma) lacking.emplace_back("smsp__inst_executed_op_tma_ld.sum");
             return undecided(std::move(lacking));
         }},
        {"slow_mma_path_share", value_type::number,
         "the share of the dense tensor ops that ran on an MMA instruction path slower than this GPU's fastest for the "
         "same source type "
         "(mma.sync's HMMA where Hopper has wgmma and Blackwell tcgen05), from the per-path op counters and their "
         "peaks (0 without "
         "tensor work; unknown on chips without instruction paths)",
         [](const kernel_result& kernel, const gpu_spec&) -> fact_value { return slow_mma_path_share(kernel); }},
        {"tensor_share", value_type::number,
         "the busiest tensor precision's floor over the duration: its FLOPs at the practical share of its fastest "
         "path, over the time "
         "taken (0 without tensor work)",
         [](const kernel_result& kernel, const gpu_spec&) { return tensor_share(kernel); }},
    };
}

// Memory traffic: reuse, the excess of uncoalesced access, bank conflicts, local memory.
std::vector<fact> traffic_facts() {
    return {
        {"reuse_l1", value_type::number,
         "bytes of data the threads moved through L1 (global sectors less uncoalesced excess, x 32; shared-load "
         "wavefronts less conflicts, "
         "x 128; local scratch left out) per byte moved to or from DRAM: how many times each DRAM byte passes L1",
         [](const kernel_result& kernel, const gpu_spec&) {
             return ratio(l1_load_bytes(kernel), kernel.roof.bytes_dram);
         }},
        {"reuse_l2", value_type::number,
         "sectors of data the SMs asked of L2 (lts__t_sectors_srcunit_tex less local scratch, x 32 bytes) per byte "
         "moved to or from DRAM",
         [](const kernel_result& kernel, const gpu_spec&) {
             auto sectors = metric(kernel, "lts__t_sectors_srcunit_tex.sum");
             auto local = local_sectors_to_l2(kernel);
             return ratio(
                 sectors && local ? std::optional<double>(std::max(0.0, *sectors - *local) * 32.0) : std::nullopt,
                 kernel.roof.bytes_dram);
         }},
        {"global_excess_share", value_type::number,
         "excess global sectors (derived__memory_l2_theoretical_sectors_global_excessive) over the global sectors "
         "moved: bytes no thread asked for (on a details page, ncu's UncoalescedGlobalAccess rule states both; where "
         "it is silent and its section ran, there is none)",
         [](const kernel_result& kernel, const gpu_spec&) -> fact_value {
             const auto excessive = metric(kernel, "derived__memory_l2_theoretical_sectors_global_excessive");
             auto share = ratio(excessive, global_sectors(kernel));
             if (share) return *share;
             // No excess (a details page whose Source Counters rule is silent): none, whatever the sectors.
             if (excessive && *excessive == 0.0) return 0.0;
             // A details page lists no sector counts, but ncu's UncoalescedGlobalAccess rule states both.
             if (const auto stated = uncoalesced_sectors_stated(kernel.group.rules))
                 return stated->excessive / stated->total;
             return std::nullopt;
         }},
        {"l2_excess_share", value_type::number,
         "the excess global sectors that reached L2 (those L1 did not absorb), over the sectors the SMs asked of L2",
         [](const kernel_result& kernel, const gpu_spec&) -> fact_value {
             if (kernel.roof.l2_excess_share) return *kernel.roof.l2_excess_share;
             fact_value unknown;
             unknown.missing = missing_of(kernel, resource::l2);
             return unknown;
         }},
        {"l2_excess_transaction_share", value_type::number,
         "the share of L2's SM-side transactions an uncoalesced pattern wastes: where the excess reached L2, L2 "
         "handles one transaction "
         "per line a request touches, as L1 does, so it scales like L1's global wavefronts",
         [](const kernel_result& kernel, const gpu_spec& gpu) -> fact_value {
             auto l2 = find_fact("l2_excess_share")->get(kernel, gpu).value();
             auto ge = find_fact("global_excess_share")->get(kernel, gpu).value();
             if (!l2 || !ge || !kernel.roof.l1) {
                 fact_value unknown;
                 if (!kernel.roof.l1) unknown.missing = missing_of(kernel, resource::l1);
                 return unknown;
             }
             if (*ge <= 0) return 0.0;
             return std::clamp(*l2 / *ge * (1.0 - kernel.roof.l1->global_ideal_share), 0.0, 1.0);
         }},
        {"dram_excess_share", value_type::number,
         "DRAM bytes read beyond what the global loads use (load sectors x "
         "smsp__sass_average_data_bytes_per_sector_mem_global_op_ld) and "
         "the other L2 traffic needs, over all DRAM bytes: excess load sectors DRAM fetched, and the reads partial "
         "stores cause. Partial "
         "writes themselves are merged in L2",
         [](const kernel_result& kernel, const gpu_spec&) -> fact_value {
             auto read = metric(kernel, "dram__bytes_read.sum");
             auto ld = metric(kernel, "l1tex__t_sectors_pipe_lsu_mem_global_op_ld.sum");
             auto used = metric(kernel, "smsp__sass_average_data_bytes_per_sector_mem_global_op_ld.ratio");
             if (!read || !ld || !used || !kernel.roof.bytes_dram) return std::nullopt;
             if (*kernel.roof.bytes_dram <= 0) return 0.0;
             return std::clamp((*read - *ld * *used) / *kernel.roof.bytes_dram, 0.0, 1.0);
         }},
        {"l1_global_share", value_type::number,
         "global and local wavefronts over all LSU data-stage wavefronts of L1 (the rest are shared memory)",
         [](const kernel_result& kernel, const gpu_spec&) {
             return l1_share(kernel, [](const l1_traffic& traffic) { return traffic.global; });
         }},
        {"global_wavefront_ideal_share", value_type::number,
         "the global wavefronts a coalesced pattern needs, max(requests, ideal sectors / 4), over those L1 measured (1 "
         "= coalesced)",
         [](const kernel_result& kernel, const gpu_spec&) -> fact_value {
             if (kernel.roof.l1) return kernel.roof.l1->global_ideal_share;
             fact_value unknown;
             unknown.missing = missing_of(kernel, resource::l1);
             return unknown;
         }},
        {"shared_conflict_share", value_type::number,
         "shared-memory load wavefronts that are bank-conflict replays, over all LSU data-stage wavefronts of L1",
         [](const kernel_result& kernel, const gpu_spec&) {
             return l1_share(kernel, [](const l1_traffic& traffic) { return traffic.shared_ld_conflicts; });
         }},
        {"shared_excess_share", value_type::number,
         "shared-memory excess wavefronts (derived__memory_l1_wavefronts_shared_excessive: conflicts of loads, stores "
         "and atomics) over all LSU data-stage wavefronts of L1 (0 on a details page where ncu's "
         "UncoalescedSharedAccess rule is silent and its section ran)",
         [](const kernel_result& kernel, const gpu_spec&) {
             // No excess (a details page whose Source Counters rule is silent): none, whatever the wavefronts.
             if (const auto excessive = metric(kernel, "derived__memory_l1_wavefronts_shared_excessive");
                 excessive && *excessive == 0.0 && !kernel.roof.l1)
                 return fact_value(0.0);
             return l1_share(kernel, [](const l1_traffic& traffic) { return traffic.shared_excess; });
         }},
        {"shared_atomic_share", value_type::number,
         "shared-memory atomic wavefronts over all LSU data-stage wavefronts of L1",
         [](const kernel_result& kernel, const gpu_spec&) {
             return l1_share(kernel, [](const l1_traffic& traffic) { return traffic.shared_atom; });
         }},
        {"flops_per_load_byte", value_type::number,
         "CUDA-core FLOPs per byte the threads loaded through L1 (see reuse_l1): a register-tiled matrix product stays "
         "under 8 (16 FMAs "
         "per 4-byte value loaded); a polynomial or a transcendental computes far more on registers",
         [](const kernel_result& kernel, const gpu_spec&) -> fact_value {
             std::vector<std::string> missing;
             for (const auto& unmeasured : kernel.roof.unmeasured)
                 if (info(unmeasured.id).precision && !info(unmeasured.id).tensor)
                     missing.insert(missing.end(), unmeasured.missing.begin(), unmeasured.missing.end());
             auto bytes = l1_load_bytes(kernel);
             if (!missing.empty() || !bytes) {
                 fact_value unknown;
                 unknown.missing = std::move(missing);
                 return unknown;
             }
             double cuda_core = 0.0, unsure = 0.0;
             for (const auto& use : kernel.roof.resources)
                 if (info(use.id).precision && !info(use.id).tensor) {
                     cuda_core += use.work;
                     if (!use.exact()) unsure += use.work;
                 }
             auto hi = ratio(cuda_core, bytes), lo = ratio(cuda_core - unsure, bytes);
             if (!hi || !lo) return std::nullopt;
             return fact_value::between(*lo, *hi, kernel.roof.missing_metrics());
         }},
        {"local_sector_share", value_type::number,
         "local-memory sectors over global and local sectors moved through L1 (loads and stores)",
         [](const kernel_result& kernel, const gpu_spec&) -> fact_value {
             auto ld = metric(kernel, "l1tex__t_sectors_pipe_lsu_mem_local_op_ld.sum");
             auto st = metric(kernel, "l1tex__t_sectors_pipe_lsu_mem_local_op_st.sum");
             auto global = global_sectors(kernel);
             if (!ld || !st || !global) return std::nullopt;
             const double local = *ld + *st;
             return local + *global > 0 ? local / (local + *global) : 0.0;
         }},
        {"local_l2_share", value_type::number,
         "local-memory sectors that reach L2 (every store, since L1 writes local memory through; the load misses) over "
         "the sectors the SMs "
         "asked of L2",
         [](const kernel_result& kernel, const gpu_spec&) -> fact_value {
             auto s2 = metric(kernel, "lts__t_sectors_srcunit_tex.sum");
             auto local = local_sectors_to_l2(kernel);
             if (!s2 || !local) return std::nullopt;
             return *s2 > 0 ? std::clamp(*local / *s2, 0.0, 1.0) : 0.0;
         }},
    };
}

// The instruction mix, divergence and the limiter.
std::vector<fact> instruction_facts() {
    return {
        {"load_inst_share", value_type::number,
         "global, local and shared load instructions over all warp instructions executed",
         [](const kernel_result& kernel, const gpu_spec&) -> fact_value {
             auto all = metric(kernel, "smsp__inst_executed.sum");
             auto loads = sum_of({metric(kernel, "smsp__sass_inst_executed_op_global_ld.sum"),
                                  metric(kernel, "smsp__sass_inst_executed_op_shared_ld.sum"),
                                  metric(kernel, "smsp__sass_inst_executed_op_local_ld.sum")});
             if (!all || !loads) return std::nullopt;
             return *all > 0 ? std::min(1.0, *loads / *all) : 0.0;
         }},
        {"local_inst_share", value_type::number,
         "local load and store instructions over all warp instructions executed",
         [](const kernel_result& kernel, const gpu_spec&) -> fact_value {
             auto all = metric(kernel, "smsp__inst_executed.sum");
             auto local = sum_of({metric(kernel, "smsp__sass_inst_executed_op_local_ld.sum"),
                                  metric(kernel, "smsp__sass_inst_executed_op_local_st.sum")});
             if (!all || !local) return std::nullopt;
             return *all > 0 ? std::min(1.0, *local / *all) : 0.0;
         }},
        {"lanes_active", value_type::number,
         "threads that execute an instruction, on average, of a warp's 32 "
         "(smsp__thread_inst_executed_per_inst_executed.ratio)",
         [](const kernel_result& kernel, const gpu_spec&) {
             return metric(kernel, "smsp__thread_inst_executed_per_inst_executed.ratio");
         }},
        {"limiter_tensor", value_type::boolean,
         "true when the limiter is a tensor-core precision (tensor_fp16, tensor_bf16, ...)",
         [](const kernel_result& kernel, const gpu_spec&) -> fact_value {
             const auto& can = kernel.verdict.possible_limiters;
             const auto tensor = std::count_if(can.begin(), can.end(), [](resource id) { return info(id).tensor; });
             if (tensor == 0) return 0.0;
             if (std::size_t(tensor) == can.size() && kernel.verdict.possible_bounds.size() == 1) return 1.0;
             return undecided(kernel.verdict.missing);
         }},
    };
}

// The architecture of the GPU x10 (90 for CC 9.0), 0 where the spec does not say.
int gpu_sm(const gpu_spec& gpu) {
    const auto dot = gpu.compute_capability.find('.');
    if (dot == std::string::npos) return 0;
    try {
        return std::stoi(gpu.compute_capability.substr(0, dot)) * 10 +
               std::stoi(gpu.compute_capability.substr(dot + 1));
    } catch (const std::exception&) {
        return 0;
    }
}

// Where the kernel comes from (rules/origins/*.json) and what its name says. Always known: a name no
// pattern matches is the user's own, and a fact the name does not state is 0 (false).
std::vector<fact> origin_facts() {
    std::vector<fact> out = {
        {"source_owned", value_type::boolean,
         "the user owns the kernel's source: a kernel of their own or a CUTLASS template they instantiate, so "
         "kernel-author fixes are theirs to make (rules/origins/*.json)",
         [](const kernel_result& kernel, const gpu_spec&) { return flag(source_owned(kernel.origin.kind)); }},
        {"name_alignment_bytes", value_type::number,
         "the operand alignment a library GEMM's name states (align1, aligna4/alignc4: the smallest), in bytes: "
         "elements x the element size of the math path the name states (bf16/fp16 2, tf32/fp32 4, fp64 8, int8/fp8 1); "
         "tensor cores want 16. 0 where the name does not say either",
         [](const kernel_result& kernel, const gpu_spec&) {
             const auto& math = kernel.origin.facts.math;
             const double element = math == "fp64_simt" || math == "fp64_tensor"     ? 8.0
                                    : math == "fp32_simt" || math == "tf32_tensor"   ? 4.0
                                    : math == "bf16_tensor" || math == "fp16_tensor" ? 2.0
                                    : math == "int8_tensor" || math == "fp8_tensor"  ? 1.0
                                                                                     : 0.0;
             return std::optional<double>(element * kernel.origin.facts.alignment);
         }},
        {"name_built_for_sm", value_type::number,
         "the architecture a library kernel was built for, x10 (cutlass_75_: 75, sm80_xmma: 80); 0 where the name does "
         "not say",
         [](const kernel_result& kernel, const gpu_spec&) {
             return std::optional<double>(kernel.origin.facts.built_for_sm);
         }},
        {"name_older_arch", value_type::boolean,
         "the name says the kernel was built for an older architecture than the GPU it ran on (a cutlass_75 kernel on "
         "sm_90): the library found no kernel of this GPU's generation for the call",
         [](const kernel_result& kernel, const gpu_spec& gpu) {
             const int built = kernel.origin.facts.built_for_sm, sm = gpu_sm(gpu);
             return flag(built > 0 && sm > 0 && built / 10 < sm / 10);
         }},
        {"name_fp32_simt", value_type::boolean,
         "the name says FP32 on CUDA cores (ffma, simt_sgemm, f32f32_f32f32): TF32 or a 16-bit type is not in use",
         [](const kernel_result& kernel, const gpu_spec&) { return flag(kernel.origin.facts.math == "fp32_simt"); }},
        {"aten_strided", value_type::boolean,
         "PyTorch ran its general strided elementwise kernel (elementwise_kernel<...>): an input is not contiguous",
         [](const kernel_result& kernel, const gpu_spec&) {
             return flag(kernel.origin.kind == origin_kind::aten && kernel.origin.facts.path == "strided");
         }},
        {"aten_unrolled", value_type::boolean,
         "PyTorch ran unrolled_elementwise_kernel, its fallback when the inputs cannot be read as vectors "
         "(misaligned, or mixed types that need casts)",
         [](const kernel_result& kernel, const gpu_spec&) {
             return flag(kernel.origin.kind == origin_kind::aten && kernel.origin.facts.path == "unrolled");
         }},
    };
    for (origin_kind kind : {origin_kind::user, origin_kind::cutlass, origin_kind::cublas, origin_kind::cudnn,
                             origin_kind::attention, origin_kind::triton, origin_kind::aten, origin_kind::cub,
                             origin_kind::nccl, origin_kind::cupy, origin_kind::library})
        out.push_back(
            {std::string("origin_") + name(kind), value_type::boolean,
             std::string("the kernel's origin is ") + name(kind) + " (rules/origins/*.json)",
             [kind](const kernel_result& kernel, const gpu_spec&) { return flag(kernel.origin.kind == kind); }});
    return out;
}

}  // namespace

const std::vector<fact>& facts() {
    static const std::vector<fact> table = [] {
        std::vector<fact> all;
        for (auto part : {shape_facts, roofline_facts, traffic_facts, instruction_facts, origin_facts}) {
            auto part_facts = part();
            all.insert(all.end(), part_facts.begin(), part_facts.end());
        }
        return all;
    }();
    return table;
}

const fact* find_fact(const std::string& name) {
    static const std::map<std::string, const fact*> index = [] {
        std::map<std::string, const fact*> by_name;
        for (const auto& entry : facts()) by_name[entry.name] = &entry;
        return by_name;
    }();
    auto it = index.find(name);
    return it == index.end() ? nullptr : it->second;
}

}  // namespace roofline::diagnose::detail
