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

std::string rate_unit(resource id) { return work_unit(id) + "/s"; }
std::string work_unit(resource id) { return info(id).work_unit; }

std::string intensity_text(const kernel_roofline& roof, resource level) {
    auto value = roof.intensity(level);
    return value ? format_number(*value) : "n/a";
}

namespace {

bool starts_with(const std::string& text, const char* prefix) { return text.rfind(prefix, 0) == 0; }
bool ends_with(const std::string& text, const std::string& suffix) {
    return text.size() >= suffix.size() && text.compare(text.size() - suffix.size(), suffix.size(), suffix) == 0;
}
bool is_name(const std::string& text) {
    return !text.empty() && std::all_of(text.begin(), text.end(), [](char ch) {
        return std::isalnum(static_cast<unsigned char>(ch)) || ch == '_' || ch == '.';
    });
}

}  // namespace

namespace {

std::string one_value_text(const std::string& value_name, double value) {
    if (is_name(value_name)) {
        if (ends_with(value_name, "_ns")) return format_duration_ns(value);
        if (value_name.find("pct") != std::string::npos) return format_percent(value / 100.0);
        if (starts_with(value_name, "util_") || starts_with(value_name, "useful_") ||
            starts_with(value_name, "pressure_") || starts_with(value_name, "practical_") ||
            ends_with(value_name, "_share"))
            return format_percent(value);
    }
    return format_number(value);
}

}  // namespace

std::string named_value_text(const diagnose::evidence_value& evidence, const char* absent) {
    if (const auto bounds = evidence.bounds()) {
        // The capture only bounds it.
        if (evidence.type == diagnose::value_type::boolean) return "undecided";
        return "between " + one_value_text(evidence_name(evidence), bounds->lo) + " and " +
               one_value_text(evidence_name(evidence), bounds->hi);
    }
    const auto value = evidence.value();
    if (!value) return absent;
    if (evidence.type == diagnose::value_type::boolean) return *value != 0.0 ? "true" : "false";
    return one_value_text(evidence_name(evidence), *value);
}

std::string count_text(std::size_t count, const char* singular, const char* plural) {
    return std::to_string(count) + " " + (count == 1 ? singular : plural);
}

std::vector<std::string> kernel_labels(const analysis& analysed) {
    std::vector<std::string> labels;
    labels.reserve(analysed.kernels.size());
    std::map<std::string, std::size_t> count;
    for (const auto& kernel : analysed.kernels) ++count[labels.emplace_back(kernel_label(kernel.group.name))];
    std::map<std::string, std::size_t> seen;
    for (auto& label_text : labels)
        if (count[label_text] > 1) label_text += " #" + std::to_string(++seen[label_text]);
    return labels;
}

std::string achieved_text(const kernel_result& kernel) {
    // The limiter's rate when it has a work count (a compute/fp32 kernel shows FLOP/s even
    // when ncu's SM throughput binds), else the binding resource's.
    const resource_use* shown = kernel.roof.find(kernel.verdict.limiter);
    if (!shown || shown->work <= 0) shown = kernel.roof.find(kernel.roof.binding);
    if (!shown) return "-";
    if (shown->work > 0 && kernel.roof.duration_ns > 0)
        return format_si(shown->work / (kernel.roof.duration_ns * 1e-9), rate_unit(shown->id)) + " " + name(shown->id);
    return format_percent(shown->utilisation) + " of " + name(shown->id);
}

std::string roof_pct_text(const kernel_result& kernel) {
    if (!kernel.roof.placed) return "-";
    // Where the capture only bounds it: from what the counters prove to what they allow.
    std::string text =
        kernel.roof.pct_of_roof_hi > kernel.roof.pct_of_roof
            ? format_percent(kernel.roof.pct_of_roof / 100.0) + "-" + format_percent(kernel.roof.pct_of_roof_hi / 100.0)
            : format_percent(kernel.roof.pct_of_roof / 100.0);
    if (kernel.roof.binding && kernel.verdict.limiter && kernel.roof.binding != kernel.verdict.limiter)
        text += " " + std::string(name(*kernel.roof.binding));
    return text;
}

namespace {

// How each bound is shown: the chart's fill (hex) and the terminal's ANSI SGR colour.
struct bound_style {
    bound kind;
    const char* hex;
    const char* ansi;
};
constexpr bound_style bound_styles[] = {
    {bound::memory, "#1f77b4", "34"},     {bound::compute, "#d62728", "31"}, {bound::latency, "#ff7f0e", "33"},
    {bound::small_grid, "#9467bd", "35"}, {bound::launch, "#7f7f7f", "37"},  {bound::unknown, "#7f7f7f", "37"},
};

const bound_style& style_of(bound kind) {
    for (const auto& style : bound_styles)
        if (style.kind == kind) return style;
    return bound_styles[std::size(bound_styles) - 1];
}

}  // namespace

const char* bound_hex_colour(bound kind) { return style_of(kind).hex; }
const char* bound_ansi_colour(bound kind) { return style_of(kind).ansi; }

std::vector<opportunity> opportunities(const analysis& analysed) {
    std::vector<opportunity> out;
    for (std::size_t i = 0; i < analysed.kernels.size(); ++i)
        for (const auto& finding : analysed.kernels[i].diagnosis.findings)
            // A gain within run-to-run noise is no opportunity (rules/README.md, "Ranking").
            if (finding.est_time_saved_combined_ns && *finding.est_time_saved_combined_ns > 0 && finding.est_speedup &&
                *finding.est_speedup >= 1.0 + run_to_run_noise)
                out.push_back({i, &finding});
    std::stable_sort(out.begin(), out.end(), [](const opportunity& left, const opportunity& right) {
        return *left.finding->est_time_saved_combined_ns > *right.finding->est_time_saved_combined_ns;
    });
    return out;
}

std::string load_text(const unit_load& load) {
    return format_percent(load.busy) + " busy" +
           (load.practical < 1.0 ? ", " + format_percent(load.pressure()) + " of its practical share" : std::string());
}

std::string reason_text(const verdict_reason& reason) {
    auto pct = [](double value) { return format_percent(value); };
    auto num = [](double value) { return format_number(value); };
    auto id = [](const std::optional<unit_load>& load) { return load ? std::string(name(load->id)) : std::string(); };
    auto at = [&](const std::optional<unit_load>& load, const char* none) {
        return load ? id(load) + " at " + load_text(*load) : std::string(none);
    };
    switch (reason.kind) {
        case reason_kind::short_launches:
            return "each launch lasts " + num(reason.value / 1000.0) + " us on average, under the " +
                   num(reason.threshold / 1000.0) + " us where launch overhead is of the same size as the work";
        case reason_kind::idle_sms:
            return "the grid has " + num(reason.value) + " blocks for " + num(reason.count) + " SMs, so " +
                   num(reason.count - reason.value) + " SMs have nothing to do";
        case reason_kind::under_one_wave:
            return "the grid fills " + num(reason.value) +
                   " of one wave (launch__waves_per_multiprocessor): every SM has a block, with fewer warps resident "
                   "than it can hold";
        case reason_kind::grid_fills_gpu:
            return "the grid fills the GPU (" + num(reason.value) + " blocks, " + num(reason.count) +
                   " waves), so the warps wait on latency rather than on a unit's throughput";
        case reason_kind::memory_near_roof:
            return id(reason.unit) + " runs at " + load_text(*reason.unit) + " (" + std::string(reason.unit->formula) +
                   "), at or above the " + pct(reason.threshold) +
                   " that counts as near a roof, and above every compute unit (best " +
                   at(reason.other, "none measured") + ")";
        case reason_kind::lower_level_named:
            return id(reason.unit) + " runs at " + load_text(*reason.unit) + ", at least " + pct(reason.threshold) +
                   " of " + id(reason.other) + "'s load: the traffic comes from " + id(reason.unit) +
                   ", so it is named as the limiter";
        case reason_kind::compute_near_roof:
            return id(reason.unit) + " runs at " + load_text(*reason.unit) + " (" + std::string(reason.unit->formula) +
                   "), above every memory level (best " + at(reason.other, "none measured") + ")";
        case reason_kind::tensor_precision:
            return "the tensor pipe's MMA cycles carry " + pct(reason.unit->busy) + ", and its work is " +
                   std::string(name(*reason.named)) + " (" + pct(reason.value) +
                   " of that precision's fastest-path peak), so " + std::string(name(*reason.named)) +
                   " is named as the limiter";
        case reason_kind::specific_unit:
            return id(reason.unit) + " carries " + load_text(*reason.unit) + ", at least " + pct(reason.threshold) +
                   " of that, so it is named as the limiter";
        case reason_kind::sm_as_whole:
            return "no single precision or pipe reaches " + pct(reason.threshold) +
                   " of the SM's utilisation (or the export has none per pipe: the details page does not), so the SM "
                   "as a whole is named";
        case reason_kind::not_placed:
            return "the capture lacks " + lacking_text(reason.lacks);
        case reason_kind::bound_open:
            return "the capture does not decide what limits the kernel: the busiest measured unit is " +
                   at(reason.unit, "none") + ", and units it has no counters for may be near a roof";
        case reason_kind::limiter_open:
            return "the capture does not decide the limiter: units it has no counters for may carry as much";
        case reason_kind::below_every_roof:
            return "no resource reaches " + pct(reason.threshold) +
                   " of its practical share (busiest: " + at(reason.unit, "none") + ")";
        case reason_kind::verdict_within_noise: {
            std::string list;
            for (const auto& alternative : reason.alternatives) list += (list.empty() ? "" : " or ") + alternative;
            return "within run-to-run noise (" + pct(reason.value) +
                   " of a busy share, measured between two captures of one program) the verdict " + "could also be " +
                   list + ": another capture of the same program may say so";
        }
    }
    return "";
}

std::string lacking_text(lacking_input lacking) {
    switch (lacking) {
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

std::string warning_text(const roof_warning& warning) {
    const std::string id = name(warning.id);
    switch (warning.kind) {
        case roof_warning_kind::peak_differs: {
            const char* what = info(warning.id).kind == resource_kind::memory ? " bandwidth" : " peak";
            return id + what + ": the capture's measured peak " + format_number(warning.value) +
                   " differs from the spec's " + format_number(warning.spec_value) + " (at the same clock) by " +
                   signed_decimals((warning.value / warning.spec_value - 1.0) * 100, 0) +
                   "%; the measured peak is used";
        }
        case roof_warning_kind::above_roof:
            return id + " is above its roof: " + format_percent(warning.value) + " of " +
                   (warning.peak.empty() ? warning.against.str() : peak_source_text(warning.peak)) +
                   "; the peak or the work count is wrong, so treat this point with suspicion";
        case roof_warning_kind::no_peak:
            return id + ": the kernel did " + format_number(warning.value) +
                   " FLOPs but neither the capture nor the spec gives a peak; it is left off the roofline";
    }
    return "";
}

std::string note_text(const roof_note& note) {
    switch (note.kind) {
        case roof_note_kind::fp16_moves:
            return "fp16: the " + format_number(note.value) +
                   " FP16 'FLOPs' of the HFMA/HADD/HMUL counters are HFMA2.MMA register moves "
                   "(sm__inst_executed_pipe_fma_type_fp16 is 0: the FMA pipe ran no half-precision instruction); they "
                   "are not counted";
        case roof_note_kind::bf16_rate:
            return "fp16: this roof is the FP16 rate (" + significant(note.value, 4) +
                   " TFLOP/s at boost); this GPU runs BF16 on the CUDA cores at " + significant(note.spec_value, 4) +
                   " (" + note.source +
                   "), and ncu counts BF16 half2 instructions in the same HFMA/HADD/HMUL counters, so they cannot be "
                   "told apart: if this kernel's half-precision math is BF16, its fp16 roof is " +
                   significant(note.spec_value, 4) + " TFLOP/s and its fp16 shares and floor are " +
                   significant(note.value / note.spec_value, 3) + "x those shown";
        case roof_note_kind::l1_gmma_feed:
            return "l1: " + decimals(note.value, 1) +
                   "% of the L1 data path's peak are wgmma operand reads from shared memory (shared-memory wavefronts "
                   "that are no load, store or atomic): the tensor pipe's feed, counted with it, not as L1 load";
    }
    return "";
}

std::string note_text(const diagnose::diagnosis_note& note) {
    switch (note.kind) {
        case diagnose::diagnosis_note_kind::gainless:
            if (note.at_most)
                return note.id + " fired (" + note.tree + "/" + note.node + "), but even where the counters it lacks " +
                       "are most in its favour its fix leaves the time within " + format_percent(note.limit) +
                       " of what it is (at most " + format_times(note.speedup) + "): not an opportunity";
            return note.id + " fired (" + note.tree + "/" + note.node + "), but its fix leaves the time within " +
                   format_percent(note.limit) + " of what it is (" + format_times(note.speedup) +
                   "; bound after it: " + binds_after_text(note.binds_after) + "): not an opportunity";
        case diagnose::diagnosis_note_kind::near_roof_outpromised:
            return "near-roof is not reported: " + note.id + " promises " + format_times(note.speedup) +
                   " on the same kernel, more than the " + format_times(note.limit) + " near-roof allows";
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

std::string practical_source_text(resource id, const practical_choice& choice) {
    switch (choice.origin) {
        case practical_origin::spec:
            return choice.source;
        case practical_origin::tensor_mean: {
            std::string from;
            for (resource mixed : choice.from) from += (from.empty() ? "" : ", ") + std::string(name(mixed));
            return "none measured for " + std::string(name(id)) + "; the mean of this GPU's measured tensor shares (" +
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

std::string figure_text(const peak_figure& figure) {
    switch (figure.from) {
        case peak_figure::kind::none:
            return "";
        case peak_figure::kind::counters:
            return "measured: " + figure.what;
        case peak_figure::kind::spec:
            break;
    }
    std::string text = figure.estimated ? "ESTIMATED (not published for this GPU, nor measured in the capture): " : "";
    text += "spec " + figure.what + ": " + significant(figure.figure, 6);
    if (figure.bandwidth) return text + " TB/s (" + figure.source + ")";
    if (figure.acc != peak_figure::accumulate::unsaid)
        return text + " TFLOP/s with " + (figure.acc == peak_figure::accumulate::fp16 ? "FP16" : "FP32") +
               " accumulate, scaled to the capture's SM clock (" + figure.source + ")";
    return text + " TFLOP/s at " + significant(figure.at_mhz, 6) + " MHz, scaled to the capture's SM clock (" +
           figure.source + ")";
}

}  // namespace

std::string peak_source_text(const peak_origin& origin) {
    if (!origin.mix) return origin.figure ? figure_text(*origin.figure) : std::string();
    const accumulate_mix& mix = *origin.mix;
    std::string text = "the FP16- and FP32-accumulate rates differ on this GPU; ";
    if (!mix.ops16)
        return text +
               "the capture does not split the ops by accumulate type, so all are taken at the FP32-accumulate rate "
               "(what frameworks use; a kernel that accumulates in FP16 reads up to twice its real share): " +
               figure_text(mix.fp32);
    const double in16 = std::clamp(*mix.ops16, 0.0, mix.ops);
    return text + format_number(in16) + " ops with FP16 accumulate at " + format_number(mix.rate16) + "/s (" +
           figure_text(mix.fp16) + ") and " + format_number(mix.ops - in16) + " with FP32 accumulate at " +
           format_number(mix.rate32) + "/s (" + figure_text(mix.fp32) + ")";
}

std::string useful_formula_text(useful_basis basis) {
    switch (basis) {
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

std::string gpu_match_text(const gpu_match_reason& reason) {
    const gpu_identity& id = reason.identity;
    switch (reason.how) {
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
            return "no spec file matches it: peaks from the capture's own counters (unknown: " + reason.detail + ")";
        case gpu_match_reason::kind::not_identified:
            return "not identified: " + reason.detail +
                   ". Without it no kernel is placed on a roof and only what the capture measured is reported; --gpu "
                   "adds each kernel's roofline, bound, limiter, findings and gain estimates";
    }
    return "";
}

std::string sm_clock_text(const kernel_roofline& roof) {
    return roof.sm_clock_counter ? roof.sm_clock_counter : "spec boost clock (the capture holds no SM clock)";
}

std::string undecided_text(const diagnose::undecided_item& item) {
    switch (item.kind) {
        case diagnose::undecided_item::what::verdict:
            return "the verdict";
        case diagnose::undecided_item::what::node:
            return item.tree + "/" + item.node;
        case diagnose::undecided_item::what::estimate:
            return "the estimate of " + item.tree + "/" + item.node;
    }
    return "";
}

std::string binds_after_text(const diagnose::after_bound& after) {
    switch (after.kind) {
        case diagnose::after_bound_kind::none:
            return "";
        case diagnose::after_bound_kind::resource:
            return name(after.id);
        case diagnose::after_bound_kind::limiter_kept:
            return std::string(name(after.id)) + " (the limiter, which this fix leaves as it is)";
        case diagnose::after_bound_kind::latency_kept:
            return std::string(name(after.id)) + " (its busy share shrinks; the latency the kernel waits on stays)";
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
    static const std::vector<std::string> fixes = {
        "Fuse the run into one kernel that reads the input once, applies every step in registers, and writes the "
        "result once.",
        "If the steps come from a framework, let its compiler fuse them (torch.compile, XLA, a fused epilogue)."};
    return fixes;
}

const char* engine_finding_title(diagnose::engine_finding engine) {
    switch (engine) {
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

std::string finding_title(const diagnose::finding& finding) {
    return finding.engine == diagnose::engine_finding::none ? finding.title.str()
                                                            : engine_finding_title(finding.engine);
}

namespace {

std::string fusion_explain(const diagnose::finding& finding) {
    std::string names;
    for (const auto& kernel_name : finding.run_kernels) names += (names.empty() ? "" : " + ") + kernel_name;
    const std::size_t next = finding.run_kernels.empty() ? 0 : finding.run_kernels.size() - 1;
    return "A hypothesis: the next " + std::to_string(next) + " kernel(s) (" + names +
           ") run right after this one on the same grid, each bound by DRAM, and each reads about as many bytes as "
           "the one before wrote: the shape of a chain of passes over one buffer. Nsight Compute does not see data "
           "flow: if each does read the previous one's output (the source can tell), one fused kernel keeps the "
           "intermediates in registers and only the first read and the last write touch DRAM. The estimate is for "
           "the whole run of kernels." +
           std::string(finding.below_kernel_findings
                           ? " These kernels also read as many bytes as each other and write as many as each other, "
                             "as implementations of one operation captured side by side do: ranked after this "
                             "kernel's own findings."
                           : "");
}

}  // namespace

std::string finding_explain(const diagnose::finding& finding) {
    switch (finding.engine) {
        case diagnose::engine_finding::none:
            return finding.explain;
        case diagnose::engine_finding::fusion_run:
            return fusion_explain(finding);
        case diagnose::engine_finding::unexplained:
            return std::string(finding.after_findings
                                   ? "No diagnosis tree found a fix that gains (the notes list the "
                                     "patterns that fired and why their fixes leave the time as it is): "
                                   : "No diagnosis tree fired: ") +
                   "the kernel is below the roofs, with no wasted traffic, divergence or stall pattern the trees "
                   "know. The evidence lists what the warps waited on (each stall reason's share of the waiting). A "
                   "source-level profile (a kernel built with -lineinfo, ncu's Source page) or the PM sampling "
                   "timeline decides it.";
        case diagnose::engine_finding::missing_counters: {
            std::string open;
            for (const auto& item : finding.undecided) open += (open.empty() ? "" : ", ") + undecided_text(item);
            const std::string undecided_count = std::to_string(finding.undecided.size());
            return finding.after_findings
                       ? "The findings below fired, but " + undecided_count +
                             " rule nodes or estimates could not be evaluated for lack of counters (" + open +
                             "), and any may gain more than they do: which fix comes first is not "
                             "decided. Collect them and analyse again."
                       : "No rule node the capture could evaluate fired, and " + undecided_count +
                             " could not be evaluated for lack of counters (" + open +
                             "). Collect them and analyse again: any of those may be the answer.";
        }
    }
    return "";
}

std::vector<std::string> finding_fixes(const diagnose::finding& finding) {
    switch (finding.engine) {
        case diagnose::engine_finding::none:
            return std::vector<std::string>(finding.fixes.begin(), finding.fixes.end());
        case diagnose::engine_finding::fusion_run:
            if (finding.framework_run)
                return {
                    "These are PyTorch's (or Triton's, CuPy's) kernels, one per op: torch.compile fuses the ops "
                    "that launch them into one kernel (torch.compile on the function or module; CuPy: "
                    "@cupy.fuse), which reads the input once and writes the result once."};
            return fusion_fixes();
        case diagnose::engine_finding::unexplained:
            // A library kernel's: its origin's levers (diagnose.cpp), not a look at source its caller cannot edit.
            if (!finding.fixes.empty()) return std::vector<std::string>(finding.fixes.begin(), finding.fixes.end());
            return {"Profile the source (-lineinfo, ncu's Source page) to see which instructions the warps wait on.",
                    "Compare with the floor: the kernel cannot run faster than its largest floor at the practical "
                    "shares (the estimate)."};
        case diagnose::engine_finding::missing_counters: {
            std::vector<std::string> out;
            // Re-export before re-profile: the report this details page came from already holds them.
            if (finding.raw_page_holds)
                out.push_back(
                    "Re-export the raw page of the same report, which holds every counter this analysis "
                    "lacks (no new profile): `ncu -i REPORT.ncu-rep --csv --page raw > report_raw.csv`, "
                    "then `roofline analyze report_raw.csv`; or `roofline analyze REPORT.ncu-rep`, which "
                    "exports it where ncu is on the PATH.");
            if (!finding.collect.empty())
                out.push_back(
                    std::string(finding.raw_page_holds ? "Only for a report captured without --set full: profile"
                                                       : "Profile") +
                    " again with `ncu " + finding.collect + " ...` (or `roofline metrics --format section`'s file).");
            return out;
        }
    }
    return {};
}

std::string finding_estimate_why(const diagnose::finding& finding) {
    if (finding.engine == diagnose::engine_finding::unexplained)
        return "Whatever the cause, the work stays: the estimate is the kernel's largest floor at the practical "
               "shares.";
    if (finding.engine == diagnose::engine_finding::fusion_run && finding.est_speedup)
        return "Fused, the run reads its input once and writes its result once: the DRAM bytes of the run less both "
               "trips of every intermediate buffer, at the practical DRAM share. The estimate is for the whole run.";
    return finding.estimate_why;
}

std::vector<std::string> finding_estimate_changes(const diagnose::finding& finding) {
    if (finding.engine == diagnose::engine_finding::fusion_run && finding.est_speedup)
        return {"dram (whole run) = DRAM bytes of the run - bytes through the intermediates"};
    return finding.estimate_changes;
}

std::string evidence_name(const diagnose::evidence_value& evidence) {
    switch (evidence.kind) {
        case diagnose::evidence_kind::expression:
            return evidence.expression;
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

std::string origin_label(const kernel_origin& origin) { return label(origin.kind); }

std::string origin_text(const kernel_origin& origin, const std::string& gpu_cc) {
    if (origin.kind == origin_kind::user) return "your code (no library or compiler pattern matches the name)";
    std::string text = origin.library.str() + ", by pattern `" + origin.pattern.str() + "`";
    std::vector<std::string> said;
    const origin_facts& facts = origin.facts;
    if (facts.built_for_sm > 0) {
        std::string cc = gpu_cc;
        cc.erase(std::remove(cc.begin(), cc.end(), '.'), cc.end());
        std::string built = "built for sm_" + std::to_string(facts.built_for_sm);
        if (!cc.empty() && cc != std::to_string(facts.built_for_sm)) built += " (the GPU is sm_" + cc + ")";
        said.push_back(built);
    }
    if (facts.alignment > 0)
        said.push_back("operands aligned to " + std::to_string(facts.alignment) +
                       (facts.alignment == 1 ? " element" : " elements"));
    if (facts.math == "fp32_simt")
        said.push_back("FP32 on CUDA cores");
    else if (facts.math == "fp64_simt")
        said.push_back("FP64 on CUDA cores");
    else if (!facts.math.empty() && facts.math != "no_mma") {  // no_mma: the kind's, not this name's, word
        std::string math = facts.math.str();
        said.push_back(math.substr(0, math.find('_')) + " on tensor cores");
    }
    if (!facts.tile.empty()) said.push_back("tile " + facts.tile);
    if (facts.split_k) said.push_back("split-K");
    if (facts.path == "strided")
        said.push_back("ATen's strided elementwise path (an input is not contiguous)");
    else if (facts.path == "unrolled")
        said.push_back("ATen's unrolled path (inputs not readable as vectors)");
    else if (facts.path == "vectorized")
        said.push_back("ATen's vectorized path" + (facts.vector_width > 0
                                                       ? " (" + std::to_string(facts.vector_width) + " elements a load)"
                                                       : std::string()));
    else if (!facts.path.empty())
        said.push_back(std::string(facts.path.str()) + " kernel");
    if (!facts.fused_ops.empty()) said.push_back("fuses `" + facts.fused_ops + "`");
    for (std::size_t i = 0; i < said.size(); ++i) text += (i == 0 ? ": " : ", ") + said[i];
    text += source_owned(origin.kind) ? "; its template arguments are yours to change"
                                      : "; not your source: its fixes are what the call can change";
    return text;
}

}  // namespace roofline
