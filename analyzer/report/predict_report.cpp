#include "analyzer/report/predict_report.hpp"

#include "analyzer/render/json_number.hpp"

#include "analyzer/base/format.hpp"
#include "analyzer/render/html_page.hpp"
#include "analyzer/render/document.hpp"
#include "analyzer/render/table.hpp"
#include "analyzer/report/text.hpp"

#include <nlohmann/json.hpp>

#include <algorithm>
#include <charconv>
#include <cmath>
#include <cstdint>
#include <stdexcept>

namespace roofline {

namespace {

using ojson = nlohmann::ordered_json;

std::string flop_unit(const op_cost& c) { return c.compute ? work_unit(*c.compute) : "FLOP"; }

std::string ns_or_unknown(const std::optional<double>& ns) { return ns ? format_duration_ns(*ns) : "unknown"; }

std::string peak_text(const op_floor& f, const op_cost& c) {
    if (!c.compute || c.flops <= 0) return "n/a";
    return f.compute_peak ? format_si(*f.compute_peak, rate_unit(*c.compute)) : "unknown";
}

std::string share_text(double share, bool is_default) {
    return format_percent(share) + (is_default ? " (default)" : "");
}

std::string bound_text(const op_floor& f) {
    if (!f.bound_by || !f.limiter) return "unknown";
    return std::string(name(*f.bound_by)) + " / " + name(*f.limiter);
}

std::string floor_text(const op_floor& f) {
    return f.floor_ns ? format_duration_ns(*f.floor_ns) : "unknown (at least " + format_duration_ns(f.memory_ns) + ")";
}

// The floor formula with this GPU's numbers in it.
std::string worked_floor(const op_cost& c, const op_floor& f) {
    const std::string memory = format_si(c.bytes, "B") + " / (" + format_si(f.dram_peak, "B/s") + " x " +
                               format_percent(f.dram_practical.share) + ")";
    if (!c.compute || c.flops <= 0)
        return "floor = " + memory + " = " + format_duration_ns(f.memory_ns) + " (no arithmetic: the memory time)";
    if (!f.compute_peak)
        return "floor = max(unknown, " + memory + " = " + format_duration_ns(f.memory_ns) + "): the spec gives no " +
               name(*c.compute) + " peak, so the compute time is unknown";
    return "floor = max(" + format_si(c.flops, flop_unit(c)) + " / (" +
           format_si(*f.compute_peak, rate_unit(*c.compute)) + " x " + format_percent(f.compute_practical.share) +
           "), " + memory + ") = max(" + format_duration_ns(*f.compute_ns) + ", " + format_duration_ns(f.memory_ns) +
           ") = " + format_duration_ns(*f.floor_ns);
}

// A floor under the shortest kernel measured on this GPU: no single kernel reaches it.
// Where the compute peak comes from: "tensor_fp16: <the spec's source> (at 1755 MHz)".
std::string compute_peak_text(const op_floor& f) {
    if (f.compute_peak_bf16) return "fp16.bf16: " + f.compute_peak_source;
    if (!f.compute_peak)
        return std::string(name(f.compute_precision)) + ": the spec gives no peak (" + f.compute_peak_source + ")";
    return std::string(name(f.compute_precision)) + ": " + f.compute_peak_source +
           (f.compute_peak_at_mhz ? " (at " + decimals(*f.compute_peak_at_mhz, 0) + " MHz)" : "");
}

bool under_launch(const op_floor& f) { return f.floor_ns && f.min_kernel_ns && *f.floor_ns < *f.min_kernel_ns; }
std::string launch_note(const op_floor& f) {
    return "The floor is under the shortest kernel measured on this GPU (" + format_duration_ns(*f.min_kernel_ns) +
           "): one kernel launch costs more than this op's work; fuse it into a neighbour";
}

std::string work_line(const op_cost& c) {
    return c.compute && c.flops > 0
               ? name(*c.compute) +
                     std::string(c.bf16 && *c.compute == resource::fp16 ? " (BF16 rate where it differs)" : "")
               : "none (no arithmetic)";
}

std::string defaulted_keys(const op_cost& c) {
    std::string s;
    for (const auto& p : c.parameters)
        if (p.defaulted) s += (s.empty() ? "" : ", ") + p.key;
    return s;
}

doc::document document_of(const prediction& p) {
    const op_cost& c = p.cost;
    doc::document d;
    d.add_heading(1, "roofline predict: " + c.op);
    const std::string defaults = defaulted_keys(c);
    d.add_paragraph(doc::phrase()
                        .code(prediction_command(c))
                        .words(defaults.empty() ? std::string() : " (defaults: " + defaults + ")"));
    d.add_heading(2, "The work (the same on every GPU)");
    doc::table_block work{{"quantity", "value", "formula"}, {}};
    work.rows.push_back({"FLOPs", format_si(c.flops, flop_unit(c)), c.flops_formula});
    work.rows.push_back({"compulsory DRAM bytes", format_si(c.bytes, "B"), c.bytes_formula});
    work.rows.push_back(
        {"arithmetic intensity", format_number(c.intensity()) + " " + flop_unit(c) + "/B", "FLOPs / bytes"});
    work.rows.push_back({"runs on", work_line(c), ""});
    d.add_table(std::move(work));
    d.add_heading(
        2, std::string("The floor ") + (p.floors.size() == 1 ? "on " + p.floors.front().gpu_name : "on each GPU"));
    doc::table_block floors{{"GPU", "floor", "bound", "compute time", "memory time", "floor at 100% of peaks",
                             "compute peak", "its share", "DRAM", "its share", "ridge (FLOP/B)"},
                            {}};
    for (const auto& f : p.floors)
        floors.rows.push_back(
            {f.gpu_id, floor_text(f), bound_text(f), f.compute_ns ? format_duration_ns(*f.compute_ns) : "unknown",
             format_duration_ns(f.memory_ns), ns_or_unknown(f.peak_floor_ns), peak_text(f, c),
             c.compute && c.flops > 0 ? share_text(f.compute_practical.share, f.compute_practical.is_default) : "n/a",
             format_si(f.dram_peak, "B/s"), share_text(f.dram_practical.share, f.dram_practical.is_default),
             f.ridge ? format_number(*f.ridge) : "n/a"});
    d.add_table(std::move(floors));
    d.add_paragraph(doc::phrase()
                        .code(op_floor_formula())
                        .words("; the bound is whichever time is larger, the op's intensity against the GPU's ridge "
                               "point says the same."));
    std::vector<doc::phrase> per_gpu;
    for (const auto& f : p.floors) {
        std::string line = f.gpu_id + ": " + worked_floor(c, f) + ".";
        if (c.compute && c.flops > 0)
            line += " Compute peak: " + compute_peak_text(f) +
                    "; its share: " + practical_source_text(f.compute_precision, f.compute_practical) + ".";
        line += " DRAM: " + f.dram_peak_source +
                "; its share: " + practical_source_text(resource::dram, f.dram_practical) + ".";
        if (under_launch(f)) line += " " + launch_note(f) + ".";
        per_gpu.push_back(line);
    }
    d.add_list(std::move(per_gpu));
    d.add_heading(2, "What this op's model counts");
    std::vector<doc::phrase> notes;
    for (const auto& n : c.notes) notes.push_back(op_note_phrase(n));
    d.add_list(std::move(notes));
    d.add_heading(2, "Assumptions (every floor)");
    d.add_list(std::vector<doc::phrase>(op_floor_assumptions().begin(), op_floor_assumptions().end()));
    return d;
}

std::string markdown(const prediction& p) { return doc::markdown(document_of(p)); }

// Columns padded to their widest cell, two spaces apart, indented by two; the first row is a row too.
std::string columns(const std::vector<std::vector<std::string>>& rows) {
    table t(std::vector<column>(rows.front().size()));
    for (const auto& r : rows) t.row(r);
    text_layout no_header;
    no_header.header = false;
    return t.text(no_header);
}

std::string terminal(const prediction& p) {
    const op_cost& c = p.cost;
    std::string out = prediction_command(c) + "\n";
    out += columns({{"FLOPs", format_si(c.flops, flop_unit(c)), c.flops_formula},
                    {"bytes", format_si(c.bytes, "B"), "compulsory: " + c.bytes_formula},
                    {"intensity", format_number(c.intensity()) + " " + flop_unit(c) + "/B", "on " + work_line(c)}});
    out += "\n";
    std::vector<std::vector<std::string>> rows = {
        {"GPU", "floor", "bound", "compute", "memory", "at 100% peaks", "ridge FLOP/B"}};
    for (const auto& f : p.floors)
        rows.push_back({f.gpu_id, floor_text(f), bound_text(f),
                        f.compute_ns ? format_duration_ns(*f.compute_ns) : "unknown", format_duration_ns(f.memory_ns),
                        ns_or_unknown(f.peak_floor_ns), f.ridge ? format_number(*f.ridge) : "n/a"});
    out += columns(rows) + "\n";
    if (p.floors.size() == 1) out += "  " + worked_floor(c, p.floors.front()) + "\n";
    for (const auto& f : p.floors)
        if (under_launch(f)) out += "  " + f.gpu_id + ": " + launch_note(f) + "\n";
    out += "  " + op_floor_formula() + "\n\nassumptions:\n";
    for (const auto& a : op_floor_assumptions()) out += "  - " + a + "\n";
    out += "this op:\n";
    for (const auto& n : c.notes) out += "  - " + op_note_text(n) + "\n";
    return out;
}

ojson optional_number(const std::optional<double>& v) { return v ? json_number<ojson>(*v) : ojson(nullptr); }

ojson exact_count(double v) {  // FLOPs and bytes are whole counts; keep every digit a double has
    if (std::fabs(v) < 9007199254740992.0 && v == std::floor(v)) return static_cast<std::int64_t>(v);
    return json_number<ojson>(v);
}

std::string json(const prediction& p) {
    const op_cost& c = p.cost;
    ojson j;
    j["op"] = c.op;
    j["command"] = "roofline predict " + prediction_command(c);
    ojson params = ojson::object();
    ojson defaulted = ojson::array();
    const op_info* info = nullptr;
    for (const auto& o : op_catalogue())
        if (o.name == c.op) info = &o;
    for (const auto& prm : c.parameters) {
        bool whole = false;
        if (info)
            for (const auto& k : info->keys)
                if (k.name == prm.key) whole = k.choices.empty();
        params[prm.key] = whole ? ojson(std::stoull(prm.value)) : ojson(prm.value);
        if (prm.defaulted) defaulted.push_back(prm.key);
    }
    j["parameters"] = params;
    j["defaulted"] = defaulted;
    j["flops"] = exact_count(c.flops);
    j["flops_unit"] = flop_unit(c);
    j["flops_formula"] = c.flops_formula;
    j["compute"] = c.compute && c.flops > 0 ? ojson(name(*c.compute)) : ojson(nullptr);
    j["bytes"] = exact_count(c.bytes);
    j["bytes_formula"] = c.bytes_formula;
    j["intensity"] = json_number<ojson>(c.intensity());
    j["formula"] = op_floor_formula();
    ojson gpus = ojson::array();
    for (const auto& f : p.floors) {
        gpus.push_back(
            {{"id", f.gpu_id},
             {"name", f.gpu_name},
             {"floor_ns", optional_number(f.floor_ns)},
             {"peak_floor_ns", optional_number(f.peak_floor_ns)},
             {"compute_ns", optional_number(f.compute_ns)},
             {"memory_ns", json_number<ojson>(f.memory_ns)},
             {"bound", f.bound_by ? ojson(name(*f.bound_by)) : ojson(nullptr)},
             {"limiter", f.limiter && f.bound_by ? ojson(name(*f.limiter)) : ojson(nullptr)},
             {"ridge_flop_per_byte", optional_number(f.ridge)},
             {"min_kernel_ns", optional_number(f.min_kernel_ns)},
             {"compute_peak_per_second", optional_number(f.compute_peak)},
             {"compute_peak_source", c.compute && c.flops > 0 ? ojson(compute_peak_text(f)) : ojson(nullptr)},
             {"compute_practical_share",
              c.compute && c.flops > 0 ? json_number<ojson>(f.compute_practical.share) : ojson(nullptr)},
             {"compute_practical_source", c.compute && c.flops > 0
                                              ? ojson(practical_source_text(f.compute_precision, f.compute_practical))
                                              : ojson(nullptr)},
             {"compute_practical_default",
              c.compute && c.flops > 0 ? ojson(f.compute_practical.is_default) : ojson(nullptr)},
             {"dram_bytes_per_second", json_number<ojson>(f.dram_peak)},
             {"dram_peak_source", f.dram_peak_source},
             {"dram_practical_share", json_number<ojson>(f.dram_practical.share)},
             {"dram_practical_source", practical_source_text(resource::dram, f.dram_practical)},
             {"dram_practical_default", f.dram_practical.is_default}});
    }
    j["gpus"] = gpus;
    j["assumptions"] = op_floor_assumptions();
    ojson notes = ojson::array();
    for (const auto& n : c.notes) notes.push_back(op_note_text(n));
    j["notes"] = notes;
    return json_text(j);
}

}  // namespace

const std::vector<std::string>& predict_format_names() {
    static const std::vector<std::string> names = {"markdown", "json", "terminal", "html"};
    return names;
}

std::string render_prediction(const prediction& p, const std::string& format) {
    if (format == "markdown") return markdown(p);
    if (format == "json") return json(p);
    if (format == "terminal") return terminal(p);
    if (format == "html") return doc::html_page(document_of(p));
    throw std::invalid_argument("no predict format \"" + format + "\"");
}

std::string prediction_command(const op_cost& c) {
    std::string s = c.op;
    for (const auto& p : c.parameters) s += " " + p.key + "=" + p.value;
    return s;
}

doc::phrase op_note_phrase(const op_note& n) {
    switch (n.kind) {
        case op_note_kind::gemm_beta_zero:
            return "A multiply-add is 2 FLOPs; C = A x B with beta = 0, so C is written and never read (C += A x B "
                   "would add M x N x " +
                   format_number(n.element_bytes) + " B per batch).";
        case op_note_kind::gemm_transpose_recorded:
            return "transa=" + n.transa + " transb=" + n.transb +
                   " are recorded and change nothing here: a transpose changes the order in which a kernel walks A "
                   "and B, not how many FLOPs it does or how many bytes must cross DRAM at least once.";
        case op_note_kind::gemm_batch_own_operands:
            return "Each batch reads its own A and B; a batched GEMM that shares one operand across the batch "
                   "(weights) reads it once, so its compulsory bytes are lower.";
        case op_note_kind::gemm_fp32_on_cuda_cores:
            return "fp32 runs on the CUDA cores (FFMA); allow TF32 (dtype=tf32) to put it on the tensor cores.";
        case op_note_kind::gemm_fp64_path:
            return "fp64 runs on the FP64 tensor path (DMMA) where the GPU has one, else on the FP64 CUDA cores.";
        case op_note_kind::gemm_int8_ops:
            return "int8 work is counted in integer OPs (multiply-add = 2), against the spec's TOPS.";
        case op_note_kind::attention_fused:
            return "Fused (FlashAttention-style): the scores S = Q K^T and probabilities P never reach DRAM; Q, K, V "
                   "are read once and O written once.";
        case op_note_kind::attention_flops:
            return "FLOPs: Q K^T and P V, 2 x head_dim FLOPs per (query, key) pair each. The softmax's exponentials "
                   "and sums (about 5 per score) run on the CUDA cores and the SFU beside the tensor work and are not "
                   "counted.";
        case op_note_kind::attention_forward_only:
            return "Forward pass only (no log-sum-exp written for a backward pass).";
        case op_note_kind::attention_causal:
            return "causal=1: the mask is aligned bottom-right (query i sees keys up to i + kv_len - q_len, "
                   "FlashAttention 2.1+), and masked pairs cost nothing; with q_len = kv_len that keeps q(q+1)/2 "
                   "pairs, about half.";
        case op_note_kind::attention_grouped_query:
            return "Grouped-query attention: " + std::to_string(n.count) + " K/V heads for " + std::to_string(n.total) +
                   " query heads; each K/V head is read once for its whole group.";
        case op_note_kind::elementwise_no_broadcast:
            return doc::phrase("Every input tensor has ")
                .code("elements")
                .words(" elements (no broadcast: a broadcast operand is far smaller and read once).");
        case op_note_kind::elementwise_flops_stated:
            return "flops_per_element is yours to state: 1 for add or multiply, about 5 for erf-GELU (x/sqrt(2), "
                   "erf, +1, x x, x 0.5), more for tanh-GELU; at these intensities the floor is the memory time "
                   "whatever it is.";
        case op_note_kind::reduction_flops:
            return "A sum over each row: 1 FLOP per element (the add that folds it in; cols - 1 per row, rounded to "
                   "cols).";
        case op_note_kind::reduction_bytes:
            return "Bytes: the input read once, one result per row written.";
        case op_note_kind::layernorm_flops:
            return "7 FLOPs per element: mean (1 add), x - mean (1), variance (square and add: 2), times 1/sigma (1), "
                   "times gamma plus beta (2); the per-row square root and division are rows, not rows x cols, and "
                   "not counted.";
        case op_note_kind::layernorm_bytes:
            return "Bytes: x read once, y written once, gamma and beta (cols each) read once.";
        case op_note_kind::rmsnorm_flops:
            return "4 FLOPs per element: x squared and summed (2), times 1/rms (1), times gamma (1); the per-row "
                   "square root is not counted.";
        case op_note_kind::rmsnorm_bytes:
            return "Bytes: x read once, y written once, gamma (cols) read once.";
        case op_note_kind::softmax_flops:
            return "5 FLOPs per element: the row maximum (1 compare), x - max (1), exp (1, on the SFU), the sum (1), "
                   "the scaling by 1/sum (1).";
        case op_note_kind::softmax_bytes:
            return "Bytes: x read once, y written once (a kernel that reads x twice, for the max and then the sum, "
                   "moves more).";
        case op_note_kind::embedding_rows_gathered:
            return doc::phrase("Only the rows gathered cross DRAM, not the whole table (" + std::to_string(n.count) +
                               " x " + std::to_string(n.total) + "); at most ")
                .code("vocab")
                .words(" distinct rows exist, so repeated tokens are counted once (compulsory traffic).");
        case op_note_kind::embedding_int64_indices:
            return "Indices are int64 (PyTorch's type for embedding indices).";
        case op_note_kind::conv2d_implicit_gemm:
            return "Implicit GEMM: M = N x P x Q, N = K, K = C x R x S, 2 FLOPs per multiply-add; a Winograd or FFT "
                   "kernel does fewer multiplies, so its floor can sit below this one.";
        case op_note_kind::conv2d_bytes:
            return "Bytes: input, filter and output once each; implicit GEMM's im2col reuse happens in cache, not in "
                   "DRAM.";
        case op_note_kind::conv2d_fp32_on_cuda_cores:
            return "fp32 runs on the CUDA cores; dtype=tf32 puts it on the tensor cores.";
    }
    return "";
}

std::string op_note_text(const op_note& n) { return doc::markdown(op_note_phrase(n)); }

const std::vector<std::string>& op_floor_assumptions() {
    static const std::vector<std::string> a = {
        "Compulsory traffic only: every input crosses DRAM once and every output once; anything a kernel re-reads (a "
        "tile that "
        "fell out of L2, a second pass) adds to it.",
        "Practical share of each peak: what well-written kernels measured on this GPU sustain (the spec's "
        "practical_fraction, "
        "a geometric mean over roofline calibrate's kernels, or the documented default where it has none): a typical "
        "best, not a "
        "ceiling, so a kernel can beat it by a few percent; nothing beats the floor at 100% of each peak, given beside "
        "it.",
        "Cold caches: inputs come from DRAM and every output is counted as written; an input a previous kernel left in "
        "L2, or an "
        "output a write-back L2 still holds when the kernel ends, does not cross DRAM inside the kernel (up to the "
        "L2's size).",
        "No launch overhead: a kernel lasts a few microseconds at least (the spec's min_kernel_ns where measured), "
        "whatever its work.",
        "Perfect overlap of compute and memory: the floor is the larger of the two times, not their sum.",
        "Peaks at the clocks the spec publishes them at (boost clock; tensor figures at the datasheet's tensor clock): "
        "a GPU held at "
        "a lower clock (as ncu does) runs compute-bound work proportionally slower.",
    };
    return a;
}

const std::string& op_floor_formula() {
    static const std::string f =
        "floor = max(FLOPs / (compute peak x practical share), bytes / (DRAM bandwidth x practical share))";
    return f;
}

}  // namespace roofline
