#include "analyzer/report/text.hpp"

#include "analyzer/base/format.hpp"
#include "analyzer/read/kernel_names.hpp"
#include "models/classify.hpp"

#include <algorithm>
#include <cctype>
#include <cmath>
#include <iterator>
#include <map>

namespace roofline {

std::string rate_unit(resource r) { return work_unit(r) + "/s"; }
std::string work_unit(resource r) { return info(r).work_unit; }

std::string intensity_text(const kernel_roofline& k, resource level) {
    auto v = k.intensity(level);
    return v ? format_number(*v) : "n/a";
}

namespace {

bool starts_with(const std::string& s, const char* p) { return s.rfind(p, 0) == 0; }
bool ends_with(const std::string& s, const std::string& p) {
    return s.size() >= p.size() && s.compare(s.size() - p.size(), p.size(), p) == 0;
}
bool is_name(const std::string& s) {
    return !s.empty() && std::all_of(s.begin(), s.end(), [](char c) {
        return std::isalnum(static_cast<unsigned char>(c)) || c == '_' || c == '.';
    });
}

}  // namespace

namespace {

std::string one_value_text(const std::string& n, double v) {
    if (is_name(n)) {
        if (ends_with(n, "_ns")) return format_duration_ns(v);
        if (n.find("pct") != std::string::npos) return format_percent(v / 100.0);
        if (starts_with(n, "util_") || starts_with(n, "useful_") || starts_with(n, "pressure_") ||
            starts_with(n, "practical_") || ends_with(n, "_share"))
            return format_percent(v);
    }
    return format_number(v);
}

}  // namespace

std::string named_value_text(const diagnose::evidence_value& x, const char* absent) {
    if (const auto b = x.bounds()) {
        // The capture only bounds it.
        if (x.type == diagnose::value_type::boolean) return "undecided";
        return "between " + one_value_text(evidence_name(x), b->lo) + " and " + one_value_text(evidence_name(x), b->hi);
    }
    const auto v = x.value();
    if (!v) return absent;
    if (x.type == diagnose::value_type::boolean) return *v != 0.0 ? "true" : "false";
    return one_value_text(evidence_name(x), *v);
}

std::string count_text(std::size_t n, const char* singular, const char* plural) {
    return std::to_string(n) + " " + (n == 1 ? singular : plural);
}

std::vector<std::string> kernel_labels(const analysis& a) {
    std::vector<std::string> labels;
    labels.reserve(a.kernels.size());
    std::map<std::string, std::size_t> count;
    for (const auto& k : a.kernels) ++count[labels.emplace_back(kernel_label(k.group.name))];
    std::map<std::string, std::size_t> seen;
    for (auto& l : labels)
        if (count[l] > 1) l += " #" + std::to_string(++seen[l]);
    return labels;
}

std::string achieved_text(const kernel_result& k) {
    // The limiter's rate when it has a work count (a compute/fp32 kernel shows FLOP/s even
    // when ncu's SM throughput binds), else the binding resource's.
    const resource_use* b = k.roof.find(k.verdict.limiter);
    if (!b || b->work <= 0) b = k.roof.find(k.roof.binding);
    if (!b) return "-";
    if (b->work > 0 && k.roof.duration_ns > 0)
        return format_si(b->work / (k.roof.duration_ns * 1e-9), rate_unit(b->id)) + " " + name(b->id);
    return format_percent(b->utilisation) + " of " + name(b->id);
}

std::string roof_pct_text(const kernel_result& k) {
    if (!k.roof.placed) return "-";
    // Where the capture only bounds it: from what the counters prove to what they allow.
    std::string t = k.roof.pct_of_roof_hi > k.roof.pct_of_roof ? format_percent(k.roof.pct_of_roof / 100.0) + "-" +
                                                                     format_percent(k.roof.pct_of_roof_hi / 100.0)
                                                               : format_percent(k.roof.pct_of_roof / 100.0);
    if (k.roof.binding && k.verdict.limiter && k.roof.binding != k.verdict.limiter)
        t += " " + std::string(name(*k.roof.binding));
    return t;
}

namespace {

// How each bound is shown: the chart's fill (hex) and the terminal's ANSI SGR colour.
struct bound_style {
    bound b;
    const char* hex;
    const char* ansi;
};
constexpr bound_style bound_styles[] = {
    {bound::memory, "#1f77b4", "34"},     {bound::compute, "#d62728", "31"}, {bound::latency, "#ff7f0e", "33"},
    {bound::small_grid, "#9467bd", "35"}, {bound::launch, "#7f7f7f", "37"},  {bound::unknown, "#7f7f7f", "37"},
};

const bound_style& style_of(bound b) {
    for (const auto& s : bound_styles)
        if (s.b == b) return s;
    return bound_styles[std::size(bound_styles) - 1];
}

}  // namespace

const char* bound_hex_colour(bound b) { return style_of(b).hex; }
const char* bound_ansi_colour(bound b) { return style_of(b).ansi; }

std::vector<opportunity> opportunities(const analysis& a) {
    std::vector<opportunity> out;
    for (std::size_t i = 0; i < a.kernels.size(); ++i)
        for (const auto& f : a.kernels[i].diagnosis.findings)
            // A gain within run-to-run noise is no opportunity (rules/README.md, "Ranking").
            if (f.est_time_saved_combined_ns && *f.est_time_saved_combined_ns > 0 && f.est_speedup &&
                *f.est_speedup >= 1.0 + run_to_run_noise)
                out.push_back({i, &f});
    std::stable_sort(out.begin(), out.end(), [](const opportunity& x, const opportunity& y) {
        return *x.finding->est_time_saved_combined_ns > *y.finding->est_time_saved_combined_ns;
    });
    return out;
}

std::string load_text(const unit_load& u) {
    return format_percent(u.busy) + " busy" +
           (u.practical < 1.0 ? ", " + format_percent(u.pressure()) + " of its practical share" : std::string());
}

std::string reason_text(const verdict_reason& r) {
    auto pct = [](double v) { return format_percent(v); };
    auto num = [](double v) { return format_number(v); };
    auto id = [](const std::optional<unit_load>& u) { return u ? std::string(name(u->id)) : std::string(); };
    auto at = [&](const std::optional<unit_load>& u, const char* none) {
        return u ? id(u) + " at " + load_text(*u) : std::string(none);
    };
    switch (r.kind) {
        case reason_kind::short_launches:
            return "each launch lasts " + num(r.value / 1000.0) + " us on average, under the " +
                   num(r.threshold / 1000.0) + " us where launch overhead is of the same size as the work";
        case reason_kind::idle_sms:
            return "the grid has " + num(r.value) + " blocks for " + num(r.count) + " SMs, so " +
                   num(r.count - r.value) + " SMs have nothing to do";
        case reason_kind::under_one_wave:
            return "the grid fills " + num(r.value) +
                   " of one wave (launch__waves_per_multiprocessor): every SM has a block, with fewer warps resident "
                   "than it can hold";
        case reason_kind::grid_fills_gpu:
            return "the grid fills the GPU (" + num(r.value) + " blocks, " + num(r.count) +
                   " waves), so the warps wait on latency rather than on a unit's throughput";
        case reason_kind::memory_near_roof:
            return id(r.unit) + " runs at " + load_text(*r.unit) + " (" + std::string(r.unit->formula) +
                   "), at or above the " + pct(r.threshold) +
                   " that counts as near a roof, and above every compute unit (best " + at(r.other, "none measured") +
                   ")";
        case reason_kind::lower_level_named:
            return id(r.unit) + " runs at " + load_text(*r.unit) + ", at least " + pct(r.threshold) + " of " +
                   id(r.other) + "'s load: the traffic comes from " + id(r.unit) + ", so it is named as the limiter";
        case reason_kind::compute_near_roof:
            return id(r.unit) + " runs at " + load_text(*r.unit) + " (" + std::string(r.unit->formula) +
                   "), above every memory level (best " + at(r.other, "none measured") + ")";
        case reason_kind::tensor_precision:
            return "the tensor pipe's MMA cycles carry " + pct(r.unit->busy) + ", and its work is " +
                   std::string(name(*r.named)) + " (" + pct(r.value) + " of that precision's fastest-path peak), so " +
                   std::string(name(*r.named)) + " is named as the limiter";
        case reason_kind::specific_unit:
            return id(r.unit) + " carries " + load_text(*r.unit) + ", at least " + pct(r.threshold) +
                   " of that, so it is named as the limiter";
        case reason_kind::sm_as_whole:
            return "no single precision or pipe reaches " + pct(r.threshold) +
                   " of the SM's utilisation (or the export has none per pipe: the details page does not), so the SM "
                   "as a whole is named";
        case reason_kind::not_placed:
            return "the capture lacks " + lacking_text(r.lacks);
        case reason_kind::bound_open:
            return "the capture does not decide what limits the kernel: the busiest measured unit is " +
                   at(r.unit, "none") + ", and units it has no counters for may be near a roof";
        case reason_kind::limiter_open:
            return "the capture does not decide the limiter: units it has no counters for may carry as much";
        case reason_kind::below_every_roof:
            return "no resource reaches " + pct(r.threshold) +
                   " of its practical share (busiest: " + at(r.unit, "none") + ")";
        case reason_kind::verdict_within_noise: {
            std::string list;
            for (const auto& a : r.alternatives) list += (list.empty() ? "" : " or ") + a;
            return "within run-to-run noise (" + pct(r.value) +
                   " of a busy share, measured between two captures of one program) the verdict " + "could also be " +
                   list + ": another capture of the same program may say so";
        }
    }
    return "";
}

std::string lacking_text(lacking_input l) {
    switch (l) {
        case lacking_input::nothing:
            return "";
        case lacking_input::duration:
            return "gpu__time_duration.sum (collect it with --section SpeedOfLight or --metrics "
                   "gpu__time_duration.sum)";
        case lacking_input::gpu_peaks:
            return "the GPU's peaks: no spec could be chosen for it and the capture holds no peak counters (pass "
                   "--gpu, or collect --set full and export --page raw, whose rows hold the peaks)";
    }
    return "";
}

std::string warning_text(const roof_warning& w) {
    const std::string id = name(w.id);
    switch (w.kind) {
        case roof_warning_kind::peak_differs: {
            const char* what = info(w.id).kind == resource_kind::memory ? " bandwidth" : " peak";
            return id + what + ": the capture's measured peak " + format_number(w.value) + " differs from the spec's " +
                   format_number(w.spec_value) + " (at the same clock) by " +
                   signed_decimals((w.value / w.spec_value - 1.0) * 100, 0) + "%; the measured peak is used";
        }
        case roof_warning_kind::above_roof:
            return id + " is above its roof: " + format_percent(w.value) + " of " +
                   (w.peak.empty() ? w.against.str() : peak_source_text(w.peak)) +
                   "; the peak or the work count is wrong, so treat this point with suspicion";
        case roof_warning_kind::no_peak:
            return id + ": the kernel did " + format_number(w.value) +
                   " FLOPs but neither the capture nor the spec gives a peak; it is left off the roofline";
    }
    return "";
}

std::string note_text(const roof_note& n) {
    switch (n.kind) {
        case roof_note_kind::fp16_moves:
            return "fp16: the " + format_number(n.value) +
                   " FP16 'FLOPs' of the HFMA/HADD/HMUL counters are HFMA2.MMA register moves "
                   "(sm__inst_executed_pipe_fma_type_fp16 is 0: the FMA pipe ran no half-precision instruction); they "
                   "are not counted";
        case roof_note_kind::bf16_rate:
            return "fp16: this roof is the FP16 rate (" + significant(n.value, 4) +
                   " TFLOP/s at boost); this GPU runs BF16 on the CUDA cores at " + significant(n.spec_value, 4) +
                   " (" + n.source +
                   "), and ncu counts BF16 half2 instructions in the same HFMA/HADD/HMUL counters, so they cannot be "
                   "told apart: if this kernel's half-precision math is BF16, its fp16 roof is " +
                   significant(n.spec_value, 4) + " TFLOP/s and its fp16 shares and floor are " +
                   significant(n.value / n.spec_value, 3) + "x those shown";
        case roof_note_kind::l1_gmma_feed:
            return "l1: " + decimals(n.value, 1) +
                   "% of the L1 data path's peak are wgmma operand reads from shared memory (shared-memory wavefronts "
                   "that are no load, store or atomic): the tensor pipe's feed, counted with it, not as L1 load";
    }
    return "";
}

std::string note_text(const diagnose::diagnosis_note& n) {
    switch (n.kind) {
        case diagnose::diagnosis_note_kind::gainless:
            return n.id + " fired (" + n.tree + "/" + n.node + "), but its fix leaves the time within " +
                   format_percent(n.limit) + " of what it is (" + format_times(n.speedup) +
                   "; bound after it: " + binds_after_text(n.binds_after) + "): not an opportunity";
        case diagnose::diagnosis_note_kind::near_roof_outpromised:
            return "near-roof is not reported: " + n.id + " promises " + format_times(n.speedup) +
                   " on the same kernel, more than the " + format_times(n.limit) + " near-roof allows";
    }
    return "";
}

const std::string& default_practical_reason() {
    // The GPU whose shares are the defaults: models/roofline_model.cpp, default_practical.
    static const std::string text =
        "not measured on this GPU: each is the H100 SXM's measured share of the same roof (hwspecs/h100-sxm.json, "
        "fitted by roofline calibrate), since what the best kernels sustain against a datasheet peak comes from the "
        "same mechanisms on recent NVIDIA parts (the H200, the other GPU measured, is within 5 points of it on every "
        "roof but L2); run roofline calibrate on a capture of kernels/ on this GPU to measure them";
    return text;
}

std::string practical_source_text(resource r, const practical_choice& p) {
    switch (p.origin) {
        case practical_origin::spec:
            return p.source;
        case practical_origin::tensor_mean: {
            std::string from;
            for (resource f : p.from) from += (from.empty() ? "" : ", ") + std::string(name(f));
            return "none measured for " + std::string(name(r)) + "; the mean of this GPU's measured tensor shares (" +
                   from + "): the same pipe and the same operand feed";
        }
        case practical_origin::default_share:
            return "default, " + default_practical_reason();
        case practical_origin::default_tensor_mean:
            return "default, the mean of the default tensor shares (the same pipe and the same operand feed); " +
                   default_practical_reason();
        case practical_origin::raw_peak:
            return "none measured: the raw peak (estimates stay upper bounds)";
    }
    return "";
}

namespace {

std::string figure_text(const peak_figure& f) {
    switch (f.from) {
        case peak_figure::kind::none:
            return "";
        case peak_figure::kind::counters:
            return "measured: " + f.what;
        case peak_figure::kind::spec:
            break;
    }
    std::string s = f.estimated ? "ESTIMATED (not published for this GPU, nor measured in the capture): " : "";
    s += "spec " + f.what + ": " + significant(f.figure, 6);
    if (f.bandwidth) return s + " TB/s (" + f.source + ")";
    if (f.acc != peak_figure::accumulate::unsaid)
        return s + " TFLOP/s with " + (f.acc == peak_figure::accumulate::fp16 ? "FP16" : "FP32") +
               " accumulate, scaled to the capture's SM clock (" + f.source + ")";
    return s + " TFLOP/s at " + significant(f.at_mhz, 6) + " MHz, scaled to the capture's SM clock (" + f.source + ")";
}

}  // namespace

std::string peak_source_text(const peak_origin& p) {
    if (!p.mix) return p.figure ? figure_text(*p.figure) : std::string();
    const accumulate_mix& m = *p.mix;
    std::string text = "the FP16- and FP32-accumulate rates differ on this GPU; ";
    if (!m.ops16)
        return text +
               "the capture does not split the ops by accumulate type, so all are taken at the FP32-accumulate rate "
               "(what frameworks use; a kernel that accumulates in FP16 reads up to twice its real share): " +
               figure_text(m.fp32);
    const double in16 = std::clamp(*m.ops16, 0.0, m.ops);
    return text + format_number(in16) + " ops with FP16 accumulate at " + format_number(m.rate16) + "/s (" +
           figure_text(m.fp16) + ") and " + format_number(m.ops - in16) + " with FP32 accumulate at " +
           format_number(m.rate32) + "/s (" + figure_text(m.fp32) + ")";
}

std::string useful_formula_text(useful_basis b) {
    switch (b) {
        case useful_basis::busy:
            return "";
        case useful_basis::l2_asked_less_excess:
            return "lts__t_sectors_srcunit_tex.sum.pct_of_peak_sustained_elapsed x (1 - excess global sectors that "
                   "reached L2 / lts__t_sectors_srcunit_tex.sum); the fills and write-backs of DRAM traffic are the "
                   "dram resource's work";
        case useful_basis::l2_at_most_asked:
            return "at most lts__t_sectors_srcunit_tex.sum.pct_of_peak_sustained_elapsed: without the excess sectors "
                   "of uncoalesced accesses the useful share is not known";
        case useful_basis::l2_at_most_busy:
            return "at most lts__throughput.avg.pct_of_peak_sustained_elapsed: without the excess sectors of "
                   "uncoalesced accesses the useful share is not known";
        case useful_basis::l1_wavefronts:
            return "LSU data-stage wavefronts (l1tex__data_pipe_lsu_wavefronts, pct of peak) less wgmma operand reads "
                   "and shared-memory excess wavefronts (derived__memory_l1_wavefronts_shared_excessive), with global "
                   "wavefronts at what a coalesced pattern needs: max(requests, ideal sectors / 4)";
        case useful_basis::l1_at_most_busy:
            return "at most the busy share: without L1's wavefront counters the useful share is not known";
        case useful_basis::dram_owed_writes:
            return "at least the busy share; at most that plus the writes its stores still owe (dirty in L2 at its "
                   "end), unknown without l1tex__t_sectors_pipe_lsu_mem_global_op_st.sum: at most L2's capacity, and "
                   "at most what L1's LSU data stage carried (l1's busy share x 128 B x SMs x SM clock x duration)";
        case useful_basis::stated_rate:
            return "the FLOP rate as a whole percent of the peak, as ncu's SOLFPRoofline rule states it on the details "
                   "page: within 0.5 point of it (the instruction counters are on the raw page of the same report)";
    }
    return "";
}

std::string gpu_match_text(const gpu_match_reason& r) {
    const gpu_identity& id = r.identity;
    switch (r.how) {
        case gpu_match_reason::kind::forced:
            return "chosen with --gpu";
        case gpu_match_reason::kind::device_name:
            return "matched by device name \"" + id.display_name + "\"";
        case gpu_match_reason::kind::cc_sms_dram_clock:
            return "matched by CC " + id.cc + ", " + std::to_string(std::lround(id.sm_count.value_or(0.0))) +
                   " SMs and a DRAM clock of " + decimals(id.dram_clock_mhz.value_or(0.0), 0) + " MHz";
        case gpu_match_reason::kind::compute_capability:
            return "matched by compute capability " + id.cc +
                   (id.sm_count ? " and " + std::to_string(std::lround(*id.sm_count)) + " SMs" : std::string());
        case gpu_match_reason::kind::from_capture:
            return "no spec file matches it: peaks from the capture's own counters (unknown: " + r.detail + ")";
        case gpu_match_reason::kind::not_identified:
            return "not identified: " + r.detail +
                   ". Without it no kernel is placed on a roof and only what the capture measured is reported; --gpu "
                   "adds each kernel's roofline, bound, limiter, findings and gain estimates";
    }
    return "";
}

std::string sm_clock_text(const kernel_roofline& k) {
    return k.sm_clock_counter ? k.sm_clock_counter : "spec boost clock (the capture holds no SM clock)";
}

std::string undecided_text(const diagnose::undecided_item& u) {
    switch (u.kind) {
        case diagnose::undecided_item::what::verdict:
            return "the verdict";
        case diagnose::undecided_item::what::node:
            return u.tree + "/" + u.node;
        case diagnose::undecided_item::what::estimate:
            return "the estimate of " + u.tree + "/" + u.node;
    }
    return "";
}

std::string binds_after_text(const diagnose::after_bound& b) {
    switch (b.kind) {
        case diagnose::after_bound_kind::none:
            return "";
        case diagnose::after_bound_kind::resource:
            return name(b.id);
        case diagnose::after_bound_kind::limiter_kept:
            return std::string(name(b.id)) + " (the limiter, which this fix leaves as it is)";
        case diagnose::after_bound_kind::latency_kept:
            return std::string(name(b.id)) + " (its busy share shrinks; the latency the kernel waits on stays)";
        case diagnose::after_bound_kind::own_bound:
            return "its own bound";
        case diagnose::after_bound_kind::shortest_launch:
            return "the shortest launch";
        case diagnose::after_bound_kind::atomic_chain:
            return "the atomics on one L2 line (atomic_chain_ns)";
        case diagnose::after_bound_kind::unchanged:
            return "nothing the fix changes: the kernel keeps its time";
    }
    return "";
}

const char* fusion_title() { return "Consecutive DRAM-bound kernels pass a buffer through DRAM"; }

const std::vector<std::string>& fusion_fixes() {
    static const std::vector<std::string> f = {
        "Fuse the run into one kernel that reads the input once, applies every step in registers, and writes the "
        "result once.",
        "If the steps come from a framework, let its compiler fuse them (torch.compile, XLA, a fused epilogue)."};
    return f;
}

const char* engine_finding_title(diagnose::engine_finding k) {
    switch (k) {
        case diagnose::engine_finding::none:
            return "";
        case diagnose::engine_finding::fusion_run:
            return fusion_title();
        case diagnose::engine_finding::unexplained:
            return "No rule explains this kernel's time";
        case diagnose::engine_finding::missing_counters:
            return "Not decided: the capture lacks the counters to tell";
    }
    return "";
}

std::string finding_title(const diagnose::finding& f) {
    return f.engine == diagnose::engine_finding::none ? f.title.str() : engine_finding_title(f.engine);
}

namespace {

std::string fusion_explain(const diagnose::finding& f) {
    std::string names;
    for (const auto& n : f.run_kernels) names += (names.empty() ? "" : " + ") + n;
    const std::size_t next = f.run_kernels.empty() ? 0 : f.run_kernels.size() - 1;
    return "A hypothesis: the next " + std::to_string(next) + " kernel(s) (" + names +
           ") run right after this one on the same grid, each bound by DRAM, and each reads about as many bytes as "
           "the one before wrote: the shape of a chain of passes over one buffer. Nsight Compute does not see data "
           "flow: if each does read the previous one's output (the source can tell), one fused kernel keeps the "
           "intermediates in registers and only the first read and the last write touch DRAM. The estimate is for "
           "the whole run of kernels." +
           std::string(f.below_kernel_findings
                           ? " These kernels also read as many bytes as each other and write as many as each other, "
                             "as implementations of one operation captured side by side do: ranked after this "
                             "kernel's own findings."
                           : "");
}

}  // namespace

std::string finding_explain(const diagnose::finding& f) {
    switch (f.engine) {
        case diagnose::engine_finding::none:
            return f.explain;
        case diagnose::engine_finding::fusion_run:
            return fusion_explain(f);
        case diagnose::engine_finding::unexplained:
            return std::string(f.after_findings ? "No diagnosis tree found a fix that gains (the notes list the "
                                                  "patterns that fired and why their fixes leave the time as it is): "
                                                : "No diagnosis tree fired: ") +
                   "the kernel is below the roofs, with no wasted traffic, divergence or stall pattern the trees "
                   "know. The evidence lists what the warps waited on (each stall reason's share of the waiting). A "
                   "source-level profile (a kernel built with -lineinfo, ncu's Source page) or the PM sampling "
                   "timeline decides it.";
        case diagnose::engine_finding::missing_counters: {
            std::string open;
            for (const auto& u : f.undecided) open += (open.empty() ? "" : ", ") + undecided_text(u);
            const std::string n = std::to_string(f.undecided.size());
            return f.after_findings
                       ? "The findings below fired, but " + n +
                             " rule nodes or estimates could not be evaluated for lack of counters (" + open +
                             "), and any may gain more than they do: which fix comes first is not "
                             "decided. Collect them and analyse again."
                       : "No rule node the capture could evaluate fired, and " + n +
                             " could not be evaluated for lack of counters (" + open +
                             "). Collect them and analyse again: any of those may be the answer.";
        }
    }
    return "";
}

std::vector<std::string> finding_fixes(const diagnose::finding& f) {
    switch (f.engine) {
        case diagnose::engine_finding::none:
            return std::vector<std::string>(f.fixes.begin(), f.fixes.end());
        case diagnose::engine_finding::fusion_run:
            if (f.framework_run)
                return {
                    "These are PyTorch's (or Triton's, CuPy's) kernels, one per op: torch.compile fuses the ops "
                    "that launch them into one kernel (torch.compile on the function or module; CuPy: "
                    "@cupy.fuse), which reads the input once and writes the result once."};
            return fusion_fixes();
        case diagnose::engine_finding::unexplained:
            // A library kernel's: its origin's levers (diagnose.cpp), not a look at source its caller cannot edit.
            if (!f.fixes.empty()) return std::vector<std::string>(f.fixes.begin(), f.fixes.end());
            return {"Profile the source (-lineinfo, ncu's Source page) to see which instructions the warps wait on.",
                    "Compare with the floor: the kernel cannot run faster than its largest floor at the practical "
                    "shares (the estimate)."};
        case diagnose::engine_finding::missing_counters: {
            std::vector<std::string> out;
            // Re-export before re-profile: the report this details page came from already holds them.
            if (f.raw_page_holds)
                out.push_back(
                    "Re-export the raw page of the same report, which holds every counter this analysis "
                    "lacks (no new profile): `ncu -i REPORT.ncu-rep --csv --page raw > report_raw.csv`, "
                    "then `roofline analyze report_raw.csv`; or `roofline analyze REPORT.ncu-rep`, which "
                    "exports it where ncu is on the PATH.");
            if (!f.collect.empty())
                out.push_back(std::string(f.raw_page_holds ? "Only for a report captured without --set full: profile"
                                                           : "Profile") +
                              " again with `ncu " + f.collect +
                              " ...` (or `roofline metrics --format section`'s file).");
            return out;
        }
    }
    return {};
}

std::string finding_estimate_why(const diagnose::finding& f) {
    if (f.engine == diagnose::engine_finding::unexplained)
        return "Whatever the cause, the work stays: the estimate is the kernel's largest floor at the practical "
               "shares.";
    if (f.engine == diagnose::engine_finding::fusion_run && f.est_speedup)
        return "Fused, the run reads its input once and writes its result once: the DRAM bytes of the run less both "
               "trips of every intermediate buffer, at the practical DRAM share. The estimate is for the whole run.";
    return f.estimate_why;
}

std::vector<std::string> finding_estimate_changes(const diagnose::finding& f) {
    if (f.engine == diagnose::engine_finding::fusion_run && f.est_speedup)
        return {"dram (whole run) = DRAM bytes of the run - bytes through the intermediates"};
    return f.estimate_changes;
}

std::string evidence_name(const diagnose::evidence_value& e) {
    switch (e.kind) {
        case diagnose::evidence_kind::expression:
            return e.expression;
        case diagnose::evidence_kind::run_kernels:
            return "kernels in the run";
        case diagnose::evidence_kind::run_dram_bytes:
            return "DRAM bytes of the run";
        case diagnose::evidence_kind::run_intermediate_bytes:
            return "DRAM bytes through the intermediate buffers (written once, read once)";
        case diagnose::evidence_kind::run_time_ns:
            return "time of the run (ns)";
        case diagnose::evidence_kind::stall_reasons_missing:
            return "what the warps waited on: not in this capture (ncu --section WarpStateStats collects every stall "
                   "reason)";
    }
    return "";
}

std::string origin_label(const kernel_origin& o) { return label(o.kind); }

std::string origin_text(const kernel_origin& o, const std::string& gpu_cc) {
    if (o.kind == origin_kind::user) return "your code (no library or compiler pattern matches the name)";
    std::string s = o.library.str() + ", by pattern `" + o.pattern.str() + "`";
    std::vector<std::string> said;
    const origin_facts& f = o.facts;
    if (f.built_for_sm > 0) {
        std::string cc = gpu_cc;
        cc.erase(std::remove(cc.begin(), cc.end(), '.'), cc.end());
        std::string built = "built for sm_" + std::to_string(f.built_for_sm);
        if (!cc.empty() && cc != std::to_string(f.built_for_sm)) built += " (the GPU is sm_" + cc + ")";
        said.push_back(built);
    }
    if (f.alignment > 0)
        said.push_back("operands aligned to " + std::to_string(f.alignment) +
                       (f.alignment == 1 ? " element" : " elements"));
    if (f.math == "fp32_simt")
        said.push_back("FP32 on CUDA cores");
    else if (f.math == "fp64_simt")
        said.push_back("FP64 on CUDA cores");
    else if (!f.math.empty()) {
        std::string m = f.math.str();
        said.push_back(m.substr(0, m.find('_')) + " on tensor cores");
    }
    if (!f.tile.empty()) said.push_back("tile " + f.tile);
    if (f.split_k) said.push_back("split-K");
    if (f.path == "strided")
        said.push_back("ATen's strided elementwise path (an input is not contiguous)");
    else if (f.path == "unrolled")
        said.push_back("ATen's unrolled path (inputs not readable as vectors)");
    else if (f.path == "vectorized")
        said.push_back("ATen's vectorized path" + (f.vector_width > 0
                                                       ? " (" + std::to_string(f.vector_width) + " elements a load)"
                                                       : std::string()));
    else if (!f.path.empty())
        said.push_back(std::string(f.path.str()) + " kernel");
    if (!f.fused_ops.empty()) said.push_back("fuses `" + f.fused_ops + "`");
    for (std::size_t i = 0; i < said.size(); ++i) s += (i == 0 ? ": " : ", ") + said[i];
    s += source_owned(o.kind) ? "; its template arguments are yours to change"
                              : "; not your source: its fixes are what the call can change";
    return s;
}

}  // namespace roofline
