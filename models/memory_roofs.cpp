// The memory levels: DRAM bytes over its peak, L2 and L1 busy shares, and the useful parts of
// each (the waste of uncoalesced accesses and bank conflicts taken out); the chart's cache and
// issue ceilings.
#include "models/roofline_parts.hpp"

#include "analyzer/base/format.hpp"

#include <algorithm>
#include <cmath>
#include <limits>

namespace roofline {
namespace {

// Reads metrics and remembers those the capture lacks, for a value that needs all of them.
struct needs {
    const metric_view& metrics;
    std::vector<pooled_string> missing;
    double operator()(const char* id) {
        if (auto value = metrics.find(id)) return *value;
        missing.emplace_back(id);
        return 0.0;
    }
};

// The L1/shared data path split by what it carries: wgmma's operand reads from shared memory (the
// tensor pipe's feed, not LSU work), bank-conflict replays and the excess of uncoalesced global
// accesses. Every counter of it is needed: `missing` lists those the capture lacks (then the split,
// and L1's useful share, are not known).
struct l1_split {
    std::optional<l1_traffic> traffic;
    std::vector<pooled_string> missing;
};

l1_split split_l1(const metric_view& metrics) {
    needs need{metrics, {}};
    l1_traffic traffic;
    traffic.lsu = need("l1tex__data_pipe_lsu_wavefronts.sum.pct_of_peak_sustained_elapsed");
    traffic.shared =
        std::min(traffic.lsu, need("l1tex__data_pipe_lsu_wavefronts_mem_shared.sum.pct_of_peak_sustained_elapsed"));
    traffic.shared_ld = need("l1tex__data_pipe_lsu_wavefronts_mem_shared_op_ld.sum.pct_of_peak_sustained_elapsed");
    const double st = need("l1tex__data_pipe_lsu_wavefronts_mem_shared_op_st.sum.pct_of_peak_sustained_elapsed");
    traffic.shared_atom = need("l1tex__data_pipe_lsu_wavefronts_mem_shared_op_atom.sum.pct_of_peak_sustained_elapsed");
    if (need("sm__inst_executed_pipe_tensor_op_gmma.avg.pct_of_peak_sustained_elapsed") > 0.0)
        traffic.gmma_feed = std::max(0.0, traffic.shared - traffic.shared_ld - st - traffic.shared_atom);
    const double wavefronts = need("l1tex__data_pipe_lsu_wavefronts_mem_shared.sum");
    const double shared_excess = need("derived__memory_l1_wavefronts_shared_excessive");
    if (wavefronts > 0)
        traffic.shared_excess =
            std::min(traffic.shared - traffic.gmma_feed, traffic.shared * shared_excess / wavefronts);
    const double ld_waves = need("l1tex__data_pipe_lsu_wavefronts_mem_shared_op_ld.sum");
    const double conflicts = need("l1tex__data_bank_conflicts_pipe_lsu_mem_shared_op_ld.sum");
    if (ld_waves > 0) traffic.shared_ld_conflicts = traffic.shared_ld * std::min(1.0, conflicts / ld_waves);
    traffic.global = std::max(0.0, traffic.lsu - traffic.shared);
    const double sectors =
        need("l1tex__t_sectors_pipe_lsu_mem_global_op_ld.sum") + need("l1tex__t_sectors_pipe_lsu_mem_global_op_st.sum");
    const double requests = need("l1tex__t_requests_pipe_lsu_mem_global_op_ld.sum") +
                            need("l1tex__t_requests_pipe_lsu_mem_global_op_st.sum");
    const double excess = need("derived__memory_l2_theoretical_sectors_global_excessive");
    const double cycles = need("l1tex__cycles_elapsed.avg");
    auto sms = metrics.first_of({"launch__sm_count", "device__attribute_multiprocessor_count"});
    if (!sms) need("launch__sm_count");
    if (sectors > 0 && traffic.global > 0 && sms) {
        const double measured = traffic.global / 100.0 * cycles * *sms;
        const double ideal = std::max(requests, (sectors - excess) / 4.0);
        if (measured > 0) traffic.global_ideal_share = std::clamp(ideal / measured, 0.0, 1.0);
    }
    if (!need.missing.empty()) return {std::nullopt, std::move(need.missing)};
    return {traffic, {}};
}

// The bytes the kernel's global stores wrote into L2: 32 per store sector through L1 (stores skip L1's
// cache, so every store sector goes on to L2). nullopt without the counter.
std::optional<double> stored_bytes(const metric_view& metrics) {
    if (auto sectors = metrics.find("l1tex__t_sectors_pipe_lsu_mem_global_op_st.sum")) return *sectors * 32.0;
    return std::nullopt;
}

// DRAM: bytes over the peak bandwidth at the DRAM clock the capture ran at. Bytes read and written
// both, or their total, or its rate, or ncu's own percentage; without any, DRAM is unmeasured.
void add_dram(kernel_roofline& roof, const metric_view& metrics, const gpu_spec& spec) {
    const double t_s = roof.duration_ns * 1e-9;
    std::optional<double> bytes;
    std::string bytes_from;
    roof.bytes_dram_read = metrics.find("dram__bytes_read.sum");
    roof.bytes_dram_written = metrics.find("dram__bytes_write.sum");
    roof.bytes_stored = stored_bytes(metrics);
    if (roof.bytes_dram_read && roof.bytes_dram_written) {
        // Stores that are still dirty in L2 when the kernel ends reach DRAM later (during the next
        // kernel, or at the next eviction), not in dram__bytes_write: an elementwise kernel that writes as
        // much as it reads would look half as DRAM-bound as it is. The writes it owes are the bytes its
        // global stores put in L2, less what L2 can hold dirty (its capacity): stores to the same
        // addresses again and again cost DRAM only once per line that leaves L2.
        double owed = *roof.bytes_dram_written;
        if (roof.bytes_stored && *roof.bytes_stored > owed) {
            const double l2_bytes = spec.l2_mib.value.value_or(0.0) * 1024.0 * 1024.0;
            owed = std::min(*roof.bytes_stored, owed + l2_bytes);
        }
        roof.bytes_dram_owed_write = owed;
        bytes = *roof.bytes_dram_read + owed;
        bytes_from = owed > *roof.bytes_dram_written
                         ? "(dram__bytes_read.sum + max(dram__bytes_write.sum, global store "
                           "bytes up to L2's capacity beyond it))"
                         : "(dram__bytes_read.sum + dram__bytes_write.sum)";
    } else if (auto total = metrics.find("dram__bytes.sum")) {
        bytes = *total;
        bytes_from = "dram__bytes.sum";
    } else if (auto rate = metrics.find("dram__bytes.sum.per_second")) {
        bytes = *rate * t_s;
        bytes_from = "dram__bytes.sum.per_second x duration";
    }
    double spec_bw = spec.dram_bandwidth_tbs.value * 1e12;
    auto peak_per_cycle = metrics.find("dram__bytes.sum.peak_sustained");
    resource_use dram;
    dram.id = resource::dram;
    if (peak_per_cycle && roof.dram_clock_hz > 0) {
        dram.peak = *peak_per_cycle * roof.dram_clock_hz;
        peak_figure from_counters;
        from_counters.from = peak_figure::kind::counters;
        from_counters.what = "dram__bytes.sum.peak_sustained x dram__cycles_elapsed.avg.per_second";
        dram.peak_from.figure = peak_origin::pooled(from_counters);
        detail::check_against_spec(roof, resource::dram, dram.peak, spec_bw);
    } else {
        dram.peak = spec_bw;
        dram.peak_estimated = spec.dram_bandwidth_tbs.estimated;
        peak_figure from_spec;
        from_spec.from = peak_figure::kind::spec;
        from_spec.estimated = dram.peak_estimated;
        from_spec.bandwidth = true;
        from_spec.what = spec.file;
        from_spec.source = spec.dram_bandwidth_tbs.source;
        from_spec.figure = spec.dram_bandwidth_tbs.value;
        dram.peak_from.figure = peak_origin::pooled(from_spec);
    }
    if (bytes && dram.peak <= 0) {
        // No peak (no spec could be chosen, the capture has no peak counter): the bytes are known,
        // the share of a roof is not; ncu's own percentage, where collected, still is.
        roof.bytes_dram = *bytes;
        if (auto pct = metrics.find("gpu__dram_throughput.avg.pct_of_peak_sustained_elapsed")) {
            dram.work = *bytes;
            dram.utilisation = dram.useful = dram.useful_lo = *pct / 100.0;
            dram.formula = "gpu__dram_throughput.avg.pct_of_peak_sustained_elapsed";
            roof.resources.push_back(dram);
        }
    } else if (bytes) {
        roof.bytes_dram = *bytes;
        dram.work = *bytes;
        dram.utilisation = dram.useful = dram.useful_lo = *bytes / (dram.peak * t_s);
        dram.formula = bytes_from + " / (peak x duration)";
        roof.resources.push_back(dram);
    } else if (auto pct = metrics.find("gpu__dram_throughput.avg.pct_of_peak_sustained_elapsed")) {
        dram.utilisation = dram.useful = dram.useful_lo = *pct / 100.0;
        dram.formula = "gpu__dram_throughput.avg.pct_of_peak_sustained_elapsed";
        roof.resources.push_back(dram);
    } else {
        // No total: one direction alone leaves the other unknown.
        std::vector<pooled_string> lacking;
        if (!roof.bytes_dram_read) lacking.emplace_back("dram__bytes_read.sum");
        if (!roof.bytes_dram_written) lacking.emplace_back("dram__bytes_write.sum");
        roof.unmeasured.push_back({resource::dram, 1.0, 1.0, std::move(lacking)});
    }
}

// L2: busy is ncu's speed of light (tag lookups, DRAM fills and write-backs included); the
// useful share is the sectors the SMs asked of L2, less the excess sectors of uncoalesced
// accesses that reached it. Without those counters the useful share lies between 0 and the busy
// one (or the sectors asked, where the capture has them).
void add_l2(kernel_roofline& roof, const metric_view& metrics, std::vector<pooled_string> excess_missing) {
    auto pct = metrics.find("lts__throughput.avg.pct_of_peak_sustained_elapsed");
    if (!pct) {
        roof.unmeasured.push_back(
            {resource::l2, 1.0, 1.0, {pooled_string("lts__throughput.avg.pct_of_peak_sustained_elapsed")}});
        return;
    }
    resource_use l2;
    l2.id = resource::l2;
    l2.work = roof.bytes_l2.value_or(0.0);
    l2.utilisation = l2.useful = *pct / 100.0;
    l2.formula = "lts__throughput.avg.pct_of_peak_sustained_elapsed";
    // Useful: the sectors the SMs asked of L2, less the excess of uncoalesced accesses that
    // reached it. The fills and write-backs of the kernel's DRAM traffic, which lts__throughput
    // also counts, are the dram resource's work.
    auto asked = metrics.find("lts__t_sectors_srcunit_tex.sum.pct_of_peak_sustained_elapsed");
    if (asked && roof.l2_excess_share) {
        l2.useful = *asked / 100.0 * (1.0 - *roof.l2_excess_share);
        l2.useful_from = useful_basis::l2_asked_less_excess;
    } else {
        if (!asked) l2.missing.emplace_back("lts__t_sectors_srcunit_tex.sum.pct_of_peak_sustained_elapsed");
        for (auto& id : excess_missing) l2.missing.push_back(id);
        if (asked) l2.useful = std::min(l2.useful, *asked / 100.0);
        l2.useful_from = asked ? useful_basis::l2_at_most_asked : useful_basis::l2_at_most_busy;
    }
    l2.useful_lo = l2.exact() ? l2.useful : 0.0;
    roof.resources.push_back(std::move(l2));
}

// L1 over elapsed cycles of every SM: the "active" form (all the details page has) counts
// only SMs with work, so four busy blocks on a 132-SM GPU read as a busy L1.
void add_l1(kernel_roofline& roof, const metric_view& metrics, const std::vector<pooled_string>& split_missing) {
    const std::optional<l1_traffic>& l1s = roof.l1;
    resource_use l1;
    l1.id = resource::l1;
    l1.work = roof.bytes_l1.value_or(0.0);
    bool have_l1 = false;
    if (auto pct = metrics.find("l1tex__throughput.avg.pct_of_peak_sustained_elapsed")) {
        have_l1 = true;
        l1.utilisation = *pct / 100.0;
        l1.formula = "l1tex__throughput.avg.pct_of_peak_sustained_elapsed";
    } else if (auto active = metrics.find("l1tex__throughput.avg.pct_of_peak_sustained_active")) {
        have_l1 = true;
        auto busy = metrics.find("sm__cycles_active.avg");
        auto elapsed = metrics.find("sm__cycles_elapsed.max");
        if (busy && elapsed && *elapsed > 0) {
            l1.utilisation = *active / 100.0 * std::min(1.0, *busy / *elapsed);
            l1.formula =
                "l1tex__throughput.avg.pct_of_peak_sustained_active x sm__cycles_active.avg / sm__cycles_elapsed.max";
        } else {
            l1.utilisation = *active / 100.0;
            l1.formula = "l1tex__throughput.avg.pct_of_peak_sustained_active (over active cycles only)";
        }
    }
    if (have_l1) {
        l1.useful = l1.utilisation;
        if (l1s) {
            // wgmma reads A and B from shared memory through the L1 data banks: that is the tensor
            // pipe's operand feed, busy exactly when the tensor pipe is. Where the LSU data stage is
            // L1's busiest sub-unit, the feed is taken off L1's busy share and given to the tensor pipe.
            if (l1s->gmma_feed > 0.0 && l1.utilisation * 100.0 <= l1s->lsu + 0.5) {
                l1.utilisation = std::max(0.0, l1s->lsu - l1s->gmma_feed) / 100.0;
                l1.formula =
                    "l1tex__data_pipe_lsu_wavefronts.sum.pct_of_peak_sustained_elapsed less wgmma's operand reads from "
                    "shared memory";
                roof.notes.push_back({roof_note_kind::l1_gmma_feed, l1s->gmma_feed, 0.0, {}});
            }
            l1.useful = std::max(0.0, (l1s->shared - l1s->gmma_feed - l1s->shared_excess) +
                                          l1s->global * l1s->global_ideal_share) /
                        100.0;
            l1.useful_from = useful_basis::l1_wavefronts;
        } else {
            l1.missing = split_missing;
            l1.useful_from = useful_basis::l1_at_most_busy;
        }
        l1.useful_lo = l1.exact() ? l1.useful : 0.0;
        roof.resources.push_back(std::move(l1));
    } else {
        roof.unmeasured.push_back(
            {resource::l1, 1.0, 1.0, {pooled_string("l1tex__throughput.avg.pct_of_peak_sustained_elapsed")}});
    }
}

}  // namespace

namespace detail {

// Without the store counter, the writes a kernel's stores still owe DRAM (dirty in L2 at its end) are
// unknown: the measured DRAM share is a lower bound. The owed bytes are at most what L2 holds (its
// capacity), at most what passed through L2 (its busy share of its peak bytes, where the capture has
// ncu's L2 peak counters), and at most what L1's LSU data stage carried (its busy share of one
// 128-byte wavefront per SM per cycle: every global store goes through it). Where none is known, the
// share is open up to 1.
void owes_unknown_writes(kernel_roofline& roof, const metric_view& metrics, const gpu_spec& spec, double t_s) {
    auto dram = std::find_if(roof.resources.begin(), roof.resources.end(),
                             [](const resource_use& use) { return use.id == resource::dram; });
    if (roof.bytes_stored || dram == roof.resources.end() || dram->peak <= 0 || t_s <= 0) return;
    double owed = spec.l2_mib.value ? *spec.l2_mib.value * 1024.0 * 1024.0 : std::numeric_limits<double>::infinity();
    const auto l2_busy = metrics.find("lts__throughput.avg.pct_of_peak_sustained_elapsed");
    const auto l2_per_cycle = metrics.find("derived__lts__lts2xbar_bytes.sum.peak_sustained");
    const auto l2_clock = metrics.find("lts__cycles_elapsed.avg.per_second");
    if (l2_busy && l2_per_cycle && l2_clock) owed = std::min(owed, *l2_busy / 100.0 * *l2_per_cycle * *l2_clock * t_s);
    if (const resource_use* l1 = roof.find(resource::l1); l1 && roof.sm_clock_hz > 0)
        // The spec's L1 bytes per clock per SM where it has one, else one 128-byte LSU wavefront per cycle.
        owed = std::min(owed, l1->utilisation * spec.l1_bytes_per_clock_per_sm.value.value_or(128.0) *
                                  spec.sm_count.value * roof.sm_clock_hz * t_s);
    dram->useful = std::isfinite(owed) ? dram->useful_lo + owed / (dram->peak * t_s) : std::max(1.0, dram->useful_lo);
    dram->missing.emplace_back("l1tex__t_sectors_pipe_lsu_mem_global_op_st.sum");
    dram->useful_from = useful_basis::dram_owed_writes;
}

void add_memory(kernel_roofline& roof, const metric_view& metrics, const gpu_spec& spec) {
    const double t_s = roof.duration_ns * 1e-9;
    add_dram(roof, metrics, spec);
    if (auto bytes_per_s = metrics.find("derived__lts__lts2xbar_bytes.sum.per_second"))
        roof.bytes_l2 = *bytes_per_s * t_s;
    if (auto bytes_per_s = metrics.find("derived__l1tex__lsu_writeback_bytes_mem_lgds.sum.per_second"))
        roof.bytes_l1 = *bytes_per_s * t_s;
    l1_split split = split_l1(metrics);
    roof.l1 = split.traffic;
    // Excess sectors reach L2 only where L1 did not absorb them: at most what L2 saw beyond the ideal.
    needs need{metrics, {}};
    const double sectors = need("lts__t_sectors_srcunit_tex.sum");
    const double g_excess = need("derived__memory_l2_theoretical_sectors_global_excessive");
    const double g_sectors =
        need("l1tex__t_sectors_pipe_lsu_mem_global_op_ld.sum") + need("l1tex__t_sectors_pipe_lsu_mem_global_op_st.sum");
    if (need.missing.empty())
        roof.l2_excess_share =
            sectors > 0 ? std::min(g_excess, std::max(0.0, sectors - (g_sectors - g_excess))) / sectors : 0.0;
    else if (const auto excess = metrics.find("derived__memory_l2_theoretical_sectors_global_excessive");
             excess && *excess == 0.0)
        roof.l2_excess_share = 0.0;  // no excess sectors at all: none reached L2
    add_l2(roof, metrics, std::move(need.missing));
    add_l1(roof, metrics, split.missing);
    owes_unknown_writes(roof, metrics, spec, t_s);
}

// The L2 and L1 ceilings: bytes per cycle at their peak (ncu's own counters) x their clock; the
// issue ceiling: one warp instruction per scheduler (four per SM) per cycle.
void add_chart_ceilings(kernel_roofline& roof, const metric_view& metrics, const gpu_spec& spec) {
    auto product = [&](const char* per_cycle, const char* clock) -> std::optional<double> {
        auto per_cycle_value = metrics.find(per_cycle), clock_value = metrics.find(clock);
        if (per_cycle_value && clock_value && *per_cycle_value * *clock_value > 0)
            return *per_cycle_value * *clock_value;
        return std::nullopt;
    };
    roof.peak_l2_bytes_per_s =
        product("derived__lts__lts2xbar_bytes.sum.peak_sustained", "lts__cycles_elapsed.avg.per_second");
    roof.peak_l1_bytes_per_s = product("derived__l1tex__lsu_writeback_bytes_mem_lgds.sum.peak_sustained",
                                       "l1tex__cycles_elapsed.avg.per_second");
    if (auto instructions = metrics.find("smsp__inst_executed.sum"); instructions && *instructions > 0)
        roof.warp_instructions = *instructions;
    if (roof.sm_clock_hz > 0) roof.issue_peak_per_s = 4.0 * spec.sm_count.value * roof.sm_clock_hz;
}

}  // namespace detail
}  // namespace roofline
