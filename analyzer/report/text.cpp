#include "analyzer/report/text.hpp"

#include "analyzer/base/format.hpp"
#include "analyzer/read/kernel_names.hpp"
#include "models/classify.hpp"

#include <algorithm>
#include <cctype>
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
        return "between " + one_value_text(x.expression, b->lo) + " and " + one_value_text(x.expression, b->hi);
    }
    const auto v = x.value();
    if (!v) return absent;
    if (x.type == diagnose::value_type::boolean) return *v != 0.0 ? "true" : "false";
    return one_value_text(x.expression, *v);
}

std::string count_text(std::size_t n, const char* singular, const char* plural) {
    return std::to_string(n) + " " + (n == 1 ? singular : plural);
}

std::string kernel_label(const std::string& full) {
    const std::string s = short_name(full);
    // The last "::" outside template arguments and parentheses ends the namespaces; ncu's
    // "unnamed>::" has no '<', so depth never goes below zero.
    int depth = 0;
    std::size_t start = 0;
    for (std::size_t i = 0; i < s.size(); ++i) {
        const char c = s[i];
        if (c == '<' || c == '(')
            ++depth;
        else if (c == '>' || c == ')')
            depth = depth > 0 ? depth - 1 : 0;
        else if (c == ':' && depth == 0 && i + 1 < s.size() && s[i + 1] == ':')
            start = i + 2;
    }
    std::string out = s.substr(start);
    constexpr std::size_t longest = 40;
    if (out.size() > longest) {
        const auto open = out.find('<');
        if (open != std::string::npos && open > 0) out = out.substr(0, open) + "<...>";
        if (out.size() > longest) {
            out.resize(longest - 3);
            while (!out.empty() && std::isspace(static_cast<unsigned char>(out.back()))) out.pop_back();
            out += "...";
        }
    }
    return out.empty() ? s : out;
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
            return id + " is above its roof: " + format_percent(w.value) + " of " + w.against +
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
                   "; bound after it: " + n.binds_after + "): not an opportunity";
        case diagnose::diagnosis_note_kind::near_roof_outpromised:
            return "near-roof is not reported: " + n.id + " promises " + format_times(n.speedup) +
                   " on the same kernel, more than the " + format_times(n.limit) + " near-roof allows";
        case diagnose::diagnosis_note_kind::near_roof_undecided:
            return "near-roof is not reported: its rule fired (rules/near-roof.json), but " + std::to_string(n.count) +
                   " other rule nodes or estimates could not be evaluated, and any may gain more";
    }
    return "";
}

const char* catch_all_title(diagnose::catch_all_kind k) {
    switch (k) {
        case diagnose::catch_all_kind::none:
            return "";
        case diagnose::catch_all_kind::unexplained:
            return "No rule explains this kernel's time";
        case diagnose::catch_all_kind::missing_counters:
            return "Not decided: the capture lacks the counters to tell";
    }
    return "";
}

std::string finding_title(const diagnose::finding& f) {
    return f.catch_all == diagnose::catch_all_kind::none ? f.title.str() : catch_all_title(f.catch_all);
}

std::string finding_explain(const diagnose::finding& f) {
    switch (f.catch_all) {
        case diagnose::catch_all_kind::none:
            return f.explain;
        case diagnose::catch_all_kind::unexplained:
            return std::string(f.after_findings ? "No diagnosis tree found a fix that gains (the notes list the "
                                                  "patterns that fired and why their fixes leave the time as it is): "
                                                : "No diagnosis tree fired: ") +
                   "the kernel is below the roofs, with no wasted traffic, divergence or stall pattern the trees "
                   "know. The evidence lists what the warps waited on (each stall reason's share of the waiting). A "
                   "source-level profile (a kernel built with -lineinfo, ncu's Source page) or the PM sampling "
                   "timeline decides it.";
        case diagnose::catch_all_kind::missing_counters: {
            std::string open;
            for (const auto& u : f.undecided) open += (open.empty() ? "" : ", ") + u;
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
    switch (f.catch_all) {
        case diagnose::catch_all_kind::none:
            return std::vector<std::string>(f.fixes.begin(), f.fixes.end());
        case diagnose::catch_all_kind::unexplained:
            return {"Profile the source (-lineinfo, ncu's Source page) to see which instructions the warps wait on.",
                    "Compare with the floor: the kernel cannot run faster than its largest floor at the practical "
                    "shares (the estimate)."};
        case diagnose::catch_all_kind::missing_counters:
            if (f.collect.empty()) return {};
            return {"Profile again with `ncu " + f.collect + " ...` (or `roofline metrics --format section`'s file)."};
    }
    return {};
}

std::string finding_estimate_why(const diagnose::finding& f) {
    if (f.catch_all == diagnose::catch_all_kind::unexplained)
        return "Whatever the cause, the work stays: the estimate is the kernel's largest floor at the practical "
               "shares.";
    return f.estimate_why;
}

std::string evidence_name(const diagnose::evidence_value& e) {
    if (e.kind == diagnose::evidence_kind::stall_reasons_missing)
        return "what the warps waited on: not in this capture (ncu --section WarpStateStats collects every stall "
               "reason)";
    return e.expression;
}

}  // namespace roofline
