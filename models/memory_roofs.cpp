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
    const metric_view& m;
    std::vector<pooled_string> missing;
    double operator()(const char* id) {
        if (auto v = m.find(id)) return *v;
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

l1_split split_l1(const metric_view& m) {
    needs need{m, {}};
    l1_traffic s;
    s.lsu = need("l1tex__data_pipe_lsu_wavefronts.sum.pct_of_peak_sustained_elapsed");
    s.shared = std::min(s.lsu, need("l1tex__data_pipe_lsu_wavefronts_mem_shared.sum.pct_of_peak_sustained_elapsed"));
    s.shared_ld = need("l1tex__data_pipe_lsu_wavefronts_mem_shared_op_ld.sum.pct_of_peak_sustained_elapsed");
    const double st = need("l1tex__data_pipe_lsu_wavefronts_mem_shared_op_st.sum.pct_of_peak_sustained_elapsed");
    s.shared_atom = need("l1tex__data_pipe_lsu_wavefronts_mem_shared_op_atom.sum.pct_of_peak_sustained_elapsed");
    if (need("sm__inst_executed_pipe_tensor_op_gmma.avg.pct_of_peak_sustained_elapsed") > 0.0)
        s.gmma_feed = std::max(0.0, s.shared - s.shared_ld - st - s.shared_atom);
    const double wavefronts = need("l1tex__data_pipe_lsu_wavefronts_mem_shared.sum");
    const double shared_excess = need("derived__memory_l1_wavefronts_shared_excessive");
    if (wavefronts > 0) s.shared_excess = std::min(s.shared - s.gmma_feed, s.shared * shared_excess / wavefronts);
    const double ld_waves = need("l1tex__data_pipe_lsu_wavefronts_mem_shared_op_ld.sum");
    const double conflicts = need("l1tex__data_bank_conflicts_pipe_lsu_mem_shared_op_ld.sum");
    if (ld_waves > 0) s.shared_ld_conflicts = s.shared_ld * std::min(1.0, conflicts / ld_waves);
    s.global = std::max(0.0, s.lsu - s.shared);
    const double sectors =
        need("l1tex__t_sectors_pipe_lsu_mem_global_op_ld.sum") + need("l1tex__t_sectors_pipe_lsu_mem_global_op_st.sum");
    const double requests = need("l1tex__t_requests_pipe_lsu_mem_global_op_ld.sum") +
                            need("l1tex__t_requests_pipe_lsu_mem_global_op_st.sum");
    const double excess = need("derived__memory_l2_theoretical_sectors_global_excessive");
    const double cycles = need("l1tex__cycles_elapsed.avg");
    auto sms = m.first_of({"launch__sm_count", "device__attribute_multiprocessor_count"});
    if (!sms) need("launch__sm_count");
    if (sectors > 0 && s.global > 0 && sms) {
        const double measured = s.global / 100.0 * cycles * *sms;
        const double ideal = std::max(requests, (sectors - excess) / 4.0);
        if (measured > 0) s.global_ideal_share = std::clamp(ideal / measured, 0.0, 1.0);
    }
    if (!need.missing.empty()) return {std::nullopt, std::move(need.missing)};
    return {s, {}};
}

// The bytes the kernel's global stores wrote into L2: 32 per store sector through L1 (stores skip L1's
// cache, so every store sector goes on to L2). nullopt without the counter.
std::optional<double> stored_bytes(const metric_view& m) {
    if (auto sectors = m.find("l1tex__t_sectors_pipe_lsu_mem_global_op_st.sum")) return *sectors * 32.0;
    return std::nullopt;
}

// DRAM: bytes over the peak bandwidth at the DRAM clock the capture ran at. Bytes read and written
// both, or their total, or its rate, or ncu's own percentage; without any, DRAM is unmeasured.
void add_dram(kernel_roofline& k, const metric_view& m, const gpu_spec& spec) {
    const double t_s = k.duration_ns * 1e-9;
    std::optional<double> bytes;
    std::string bytes_from;
    k.bytes_dram_read = m.find("dram__bytes_read.sum");
    k.bytes_dram_written = m.find("dram__bytes_write.sum");
    k.bytes_stored = stored_bytes(m);
    if (k.bytes_dram_read && k.bytes_dram_written) {
        // Stores that are still dirty in L2 when the kernel ends reach DRAM later (during the next
        // kernel, or at the next eviction), not in dram__bytes_write: an elementwise kernel that writes as
        // much as it reads would look half as DRAM-bound as it is. The writes it owes are the bytes its
        // global stores put in L2, less what L2 can hold dirty (its capacity): stores to the same
        // addresses again and again cost DRAM only once per line that leaves L2.
        double owed = *k.bytes_dram_written;
        if (k.bytes_stored && *k.bytes_stored > owed) {
            const double l2_bytes = spec.l2_mib.value.value_or(0.0) * 1024.0 * 1024.0;
            owed = std::min(*k.bytes_stored, owed + l2_bytes);
        }
        k.bytes_dram_owed_write = owed;
        bytes = *k.bytes_dram_read + owed;
        bytes_from = owed > *k.bytes_dram_written ? "(dram__bytes_read.sum + max(dram__bytes_write.sum, global store "
                                                    "bytes up to L2's capacity beyond it))"
                                                  : "(dram__bytes_read.sum + dram__bytes_write.sum)";
    } else if (auto b = m.find("dram__bytes.sum")) {
        bytes = *b;
        bytes_from = "dram__bytes.sum";
    } else if (auto rate = m.find("dram__bytes.sum.per_second")) {
        bytes = *rate * t_s;
        bytes_from = "dram__bytes.sum.per_second x duration";
    }
    double spec_bw = spec.dram_bandwidth_tbs.value * 1e12;
    auto peak_per_cycle = m.find("dram__bytes.sum.peak_sustained");
    resource_use dram;
    dram.id = resource::dram;
    if (peak_per_cycle && k.dram_clock_hz > 0) {
        dram.peak = *peak_per_cycle * k.dram_clock_hz;
        peak_figure f;
        f.from = peak_figure::kind::counters;
        f.what = "dram__bytes.sum.peak_sustained x dram__cycles_elapsed.avg.per_second";
        dram.peak_from.figure = peak_origin::pooled(f);
        detail::check_against_spec(k, resource::dram, dram.peak, spec_bw);
    } else {
        dram.peak = spec_bw;
        dram.peak_estimated = spec.dram_bandwidth_tbs.estimated;
        peak_figure f;
        f.from = peak_figure::kind::spec;
        f.estimated = dram.peak_estimated;
        f.bandwidth = true;
        f.what = spec.file;
        f.source = spec.dram_bandwidth_tbs.source;
        f.figure = spec.dram_bandwidth_tbs.value;
        dram.peak_from.figure = peak_origin::pooled(f);
    }
    if (bytes && dram.peak <= 0) {
        // No peak (no spec could be chosen, the capture has no peak counter): the bytes are known,
        // the share of a roof is not; ncu's own percentage, where collected, still is.
        k.bytes_dram = *bytes;
        if (auto pct = m.find("gpu__dram_throughput.avg.pct_of_peak_sustained_elapsed")) {
            dram.work = *bytes;
            dram.utilisation = dram.useful = dram.useful_lo = *pct / 100.0;
            dram.formula = "gpu__dram_throughput.avg.pct_of_peak_sustained_elapsed";
            k.resources.push_back(dram);
        }
    } else if (bytes) {
        k.bytes_dram = *bytes;
        dram.work = *bytes;
        dram.utilisation = dram.useful = dram.useful_lo = *bytes / (dram.peak * t_s);
        dram.formula = bytes_from + " / (peak x duration)";
        k.resources.push_back(dram);
    } else if (auto pct = m.find("gpu__dram_throughput.avg.pct_of_peak_sustained_elapsed")) {
        dram.utilisation = dram.useful = dram.useful_lo = *pct / 100.0;
        dram.formula = "gpu__dram_throughput.avg.pct_of_peak_sustained_elapsed";
        k.resources.push_back(dram);
    } else {
        // No total: one direction alone leaves the other unknown.
        std::vector<pooled_string> lacking;
        if (!k.bytes_dram_read) lacking.emplace_back("dram__bytes_read.sum");
        if (!k.bytes_dram_written) lacking.emplace_back("dram__bytes_write.sum");
        k.unmeasured.push_back({resource::dram, 1.0, 1.0, std::move(lacking)});
    }
}

// L2: busy is ncu's speed of light (tag lookups, DRAM fills and write-backs included); the
// useful share is the sectors the SMs asked of L2, less the excess sectors of uncoalesced
// accesses that reached it. Without those counters the useful share lies between 0 and the busy
// one (or the sectors asked, where the capture has them).
void add_l2(kernel_roofline& k, const metric_view& m, std::vector<pooled_string> excess_missing) {
    auto pct = m.find("lts__throughput.avg.pct_of_peak_sustained_elapsed");
    if (!pct) {
        k.unmeasured.push_back(
            {resource::l2, 1.0, 1.0, {pooled_string("lts__throughput.avg.pct_of_peak_sustained_elapsed")}});
        return;
    }
    resource_use r;
    r.id = resource::l2;
    r.work = k.bytes_l2.value_or(0.0);
    r.utilisation = r.useful = *pct / 100.0;
    r.formula = "lts__throughput.avg.pct_of_peak_sustained_elapsed";
    // Useful: the sectors the SMs asked of L2, less the excess of uncoalesced accesses that
    // reached it. The fills and write-backs of the kernel's DRAM traffic, which lts__throughput
    // also counts, are the dram resource's work.
    auto asked = m.find("lts__t_sectors_srcunit_tex.sum.pct_of_peak_sustained_elapsed");
    if (asked && k.l2_excess_share) {
        r.useful = *asked / 100.0 * (1.0 - *k.l2_excess_share);
        r.useful_from = useful_basis::l2_asked_less_excess;
    } else {
        if (!asked) r.missing.emplace_back("lts__t_sectors_srcunit_tex.sum.pct_of_peak_sustained_elapsed");
        for (auto& id : excess_missing) r.missing.push_back(id);
        if (asked) r.useful = std::min(r.useful, *asked / 100.0);
        r.useful_from = asked ? useful_basis::l2_at_most_asked : useful_basis::l2_at_most_busy;
    }
    r.useful_lo = r.exact() ? r.useful : 0.0;
    k.resources.push_back(std::move(r));
}

// L1 over elapsed cycles of every SM: the "active" form (all the details page has) counts
// only SMs with work, so four busy blocks on a 132-SM GPU read as a busy L1.
void add_l1(kernel_roofline& k, const metric_view& m, const std::vector<pooled_string>& split_missing) {
    const std::optional<l1_traffic>& l1s = k.l1;
    resource_use l1;
    l1.id = resource::l1;
    l1.work = k.bytes_l1.value_or(0.0);
    bool have_l1 = false;
    if (auto pct = m.find("l1tex__throughput.avg.pct_of_peak_sustained_elapsed")) {
        have_l1 = true;
        l1.utilisation = *pct / 100.0;
        l1.formula = "l1tex__throughput.avg.pct_of_peak_sustained_elapsed";
    } else if (auto active = m.find("l1tex__throughput.avg.pct_of_peak_sustained_active")) {
        have_l1 = true;
        auto busy = m.find("sm__cycles_active.avg");
        auto elapsed = m.find("sm__cycles_elapsed.max");
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
                k.notes.push_back({roof_note_kind::l1_gmma_feed, l1s->gmma_feed, 0.0, {}});
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
        k.resources.push_back(std::move(l1));
    } else {
        k.unmeasured.push_back(
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
void owes_unknown_writes(kernel_roofline& k, const metric_view& m, const gpu_spec& spec, double t_s) {
    auto dram = std::find_if(k.resources.begin(), k.resources.end(),
                             [](const resource_use& r) { return r.id == resource::dram; });
    if (k.bytes_stored || dram == k.resources.end() || dram->peak <= 0 || t_s <= 0) return;
    double owed = spec.l2_mib.value ? *spec.l2_mib.value * 1024.0 * 1024.0 : std::numeric_limits<double>::infinity();
    const auto l2_busy = m.find("lts__throughput.avg.pct_of_peak_sustained_elapsed");
    const auto l2_per_cycle = m.find("derived__lts__lts2xbar_bytes.sum.peak_sustained");
    const auto l2_clock = m.find("lts__cycles_elapsed.avg.per_second");
    if (l2_busy && l2_per_cycle && l2_clock) owed = std::min(owed, *l2_busy / 100.0 * *l2_per_cycle * *l2_clock * t_s);
    if (const resource_use* l1 = k.find(resource::l1); l1 && k.sm_clock_hz > 0)
        // The spec's L1 bytes per clock per SM where it has one, else one 128-byte LSU wavefront per cycle.
        owed = std::min(owed, l1->utilisation * spec.l1_bytes_per_clock_per_sm.value.value_or(128.0) *
                                  spec.sm_count.value * k.sm_clock_hz * t_s);
    dram->useful = std::isfinite(owed) ? dram->useful_lo + owed / (dram->peak * t_s) : std::max(1.0, dram->useful_lo);
    dram->missing.emplace_back("l1tex__t_sectors_pipe_lsu_mem_global_op_st.sum");
    dram->useful_from = useful_basis::dram_owed_writes;
}

void add_memory(kernel_roofline& k, const metric_view& m, const gpu_spec& spec) {
    const double t_s = k.duration_ns * 1e-9;
    add_dram(k, m, spec);
    if (auto v = m.find("derived__lts__lts2xbar_bytes.sum.per_second")) k.bytes_l2 = *v * t_s;
    if (auto v = m.find("derived__l1tex__lsu_writeback_bytes_mem_lgds.sum.per_second")) k.bytes_l1 = *v * t_s;
    l1_split split = split_l1(m);
    k.l1 = split.traffic;
    // Excess sectors reach L2 only where L1 did not absorb them: at most what L2 saw beyond the ideal.
    needs need{m, {}};
    const double sectors = need("lts__t_sectors_srcunit_tex.sum");
    const double g_excess = need("derived__memory_l2_theoretical_sectors_global_excessive");
    const double g_sectors =
        need("l1tex__t_sectors_pipe_lsu_mem_global_op_ld.sum") + need("l1tex__t_sectors_pipe_lsu_mem_global_op_st.sum");
    if (need.missing.empty())
        k.l2_excess_share =
            sectors > 0 ? std::min(g_excess, std::max(0.0, sectors - (g_sectors - g_excess))) / sectors : 0.0;
    add_l2(k, m, std::move(need.missing));
    add_l1(k, m, split.missing);
    owes_unknown_writes(k, m, spec, t_s);
}

// The L2 and L1 ceilings: bytes per cycle at their peak (ncu's own counters) x their clock; the
// issue ceiling: one warp instruction per scheduler (four per SM) per cycle.
void add_chart_ceilings(kernel_roofline& k, const metric_view& m, const gpu_spec& spec) {
    auto product = [&](const char* per_cycle, const char* clock) -> std::optional<double> {
        auto a = m.find(per_cycle), b = m.find(clock);
        if (a && b && *a * *b > 0) return *a * *b;
        return std::nullopt;
    };
    k.peak_l2_bytes_per_s =
        product("derived__lts__lts2xbar_bytes.sum.peak_sustained", "lts__cycles_elapsed.avg.per_second");
    k.peak_l1_bytes_per_s = product("derived__l1tex__lsu_writeback_bytes_mem_lgds.sum.peak_sustained",
                                    "l1tex__cycles_elapsed.avg.per_second");
    if (auto n = m.find("smsp__inst_executed.sum"); n && *n > 0) k.warp_instructions = *n;
    if (k.sm_clock_hz > 0) k.issue_peak_per_s = 4.0 * spec.sm_count.value * k.sm_clock_hz;
}

}  // namespace detail
}  // namespace roofline
