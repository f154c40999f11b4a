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

std::string flop_unit(const op_cost& cost) { return cost.compute ? work_unit(*cost.compute) : "FLOP"; }

std::string ns_or_unknown(const std::optional<double>& ns) { return ns ? format_duration_ns(*ns) : "unknown"; }

std::string peak_text(const op_floor& gpu_floor, const op_cost& cost) {
    if (!cost.compute || cost.flops <= 0) return "n/a";
    return gpu_floor.compute_peak ? format_si(*gpu_floor.compute_peak, rate_unit(*cost.compute)) : "unknown";
}

std::string share_text(double share, bool is_default) {
    return format_percent(share) + (is_default ? " (default)" : "");
}

std::string bound_text(const op_floor& gpu_floor) {
    if (!gpu_floor.bound_by || !gpu_floor.limiter) return "unknown";
    return std::string(name(*gpu_floor.bound_by)) + " / " + name(*gpu_floor.limiter);
}

std::string floor_text(const op_floor& gpu_floor) {
    return gpu_floor.floor_ns ? format_duration_ns(*gpu_floor.floor_ns)
                              : "unknown (at least " + format_duration_ns(gpu_floor.memory_ns) + ")";
}

// The floor formula with this GPU's numbers in it.
std::string worked_floor(const op_cost& cost, const op_floor& gpu_floor) {
    const std::string memory = format_si(cost.bytes, "B") + " / (" + format_si(gpu_floor.dram_peak, "B/s") + " x " +
                               format_percent(gpu_floor.dram_practical.share) + ")";
    if (!cost.compute || cost.flops <= 0)
        return "floor = " + memory + " = " + format_duration_ns(gpu_floor.memory_ns) +
               " (no arithmetic: the memory time)";
    if (!gpu_floor.compute_peak)
        return "floor = max(unknown, " + memory + " = " + format_duration_ns(gpu_floor.memory_ns) +
               "): the spec gives no " + name(*cost.compute) + " peak, so the compute time is unknown";
    return "floor = max(" + format_si(cost.flops, flop_unit(cost)) + " / (" +
           format_si(*gpu_floor.compute_peak, rate_unit(*cost.compute)) + " x " +
           format_percent(gpu_floor.compute_practical.share) + "), " + memory + ") = max(" +
           format_duration_ns(*gpu_floor.compute_ns) + ", " + format_duration_ns(gpu_floor.memory_ns) +
           ") = " + format_duration_ns(*gpu_floor.floor_ns);
}

// A floor under the shortest kernel measured on this GPU: no single kernel reaches it.
// Where the compute peak comes from: "tensor_fp16: <the spec's source> (at 1755 MHz)".
std::string compute_peak_text(const op_floor& gpu_floor) {
    if (gpu_floor.compute_peak_bf16) return "fp16.bf16: " + gpu_floor.compute_peak_source;
    if (!gpu_floor.compute_peak)
        return std::string(name(gpu_floor.compute_precision)) + ": the spec gives no peak (" +
               gpu_floor.compute_peak_source + ")";
    return std::string(name(gpu_floor.compute_precision)) + ": " + gpu_floor.compute_peak_source +
           (gpu_floor.compute_peak_at_mhz ? " (at " + decimals(*gpu_floor.compute_peak_at_mhz, 0) + " MHz)" : "");
}

bool under_launch(const op_floor& gpu_floor) {
    return gpu_floor.floor_ns && gpu_floor.min_kernel_ns && *gpu_floor.floor_ns < *gpu_floor.min_kernel_ns;
}
std::string launch_note(const op_floor& gpu_floor) {
    return "The floor is under the shortest kernel measured on this GPU (" +
           format_duration_ns(*gpu_floor.min_kernel_ns) +
           "): one kernel launch costs more than this op's work; fuse it into a neighbour";
}

std::string work_line(const op_cost& cost) {
    return cost.compute && cost.flops > 0
               ? name(*cost.compute) +
                     std::string(cost.bf16 && *cost.compute == resource::fp16 ? " (BF16 rate where it differs)" : "")
               : "none (no arithmetic)";
}

std::string defaulted_keys(const op_cost& cost) {
    std::string text;
    for (const auto& param : cost.parameters)
        if (param.defaulted) text += (text.empty() ? "" : ", ") + param.key;
    return text;
}

doc::document document_of(const prediction& predicted) {
    const op_cost& cost = predicted.cost;
    doc::document page;
    page.add_heading(1, "roofline predict: " + cost.op);
    const std::string defaults = defaulted_keys(cost);
    page.add_paragraph(doc::phrase()
                           .code(prediction_command(cost))
                           .words(defaults.empty() ? std::string() : " (defaults: " + defaults + ")"));
    page.add_heading(2, "The work (the same on every GPU)");
    doc::table_block work{{"quantity", "value", "formula"}, {}};
    work.rows.push_back({"FLOPs", format_si(cost.flops, flop_unit(cost)), cost.flops_formula});
    work.rows.push_back({"compulsory DRAM bytes", format_si(cost.bytes, "B"), cost.bytes_formula});
    work.rows.push_back(
        {"arithmetic intensity", format_number(cost.intensity()) + " " + flop_unit(cost) + "/B", "FLOPs / bytes"});
    work.rows.push_back({"runs on", work_line(cost), ""});
    page.add_table(std::move(work));
    page.add_heading(2, std::string("The floor ") +
                            (predicted.floors.size() == 1 ? "on " + predicted.floors.front().gpu_name : "on each GPU"));
    doc::table_block floors{{"GPU", "floor", "bound", "compute time", "memory time", "floor at 100% of peaks",
                             "compute peak", "its share", "DRAM", "its share", "ridge (FLOP/B)"},
                            {}};
    for (const auto& gpu_floor : predicted.floors)
        floors.rows.push_back({gpu_floor.gpu_id, floor_text(gpu_floor), bound_text(gpu_floor),
                               gpu_floor.compute_ns ? format_duration_ns(*gpu_floor.compute_ns) : "unknown",
                               format_duration_ns(gpu_floor.memory_ns), ns_or_unknown(gpu_floor.peak_floor_ns),
                               peak_text(gpu_floor, cost),
                               cost.compute && cost.flops > 0 ? share_text(gpu_floor.compute_practical.share,
                                                                           gpu_floor.compute_practical.is_default)
                                                              : "n/a",
                               format_si(gpu_floor.dram_peak, "B/s"),
                               share_text(gpu_floor.dram_practical.share, gpu_floor.dram_practical.is_default),
                               gpu_floor.ridge ? format_number(*gpu_floor.ridge) : "n/a"});
    page.add_table(std::move(floors));
    page.add_paragraph(doc::phrase()
                           .code(op_floor_formula())
                           .words("; the bound is whichever time is larger, the op's intensity against the GPU's ridge "
                                  "point says the same."));
    std::vector<doc::phrase> per_gpu;
    for (const auto& gpu_floor : predicted.floors) {
        std::string line = gpu_floor.gpu_id + ": " + worked_floor(cost, gpu_floor) + ".";
        if (cost.compute && cost.flops > 0)
            line += " Compute peak: " + compute_peak_text(gpu_floor) +
                    "; its share: " + practical_source_text(gpu_floor.compute_precision, gpu_floor.compute_practical) +
                    ".";
        line += " DRAM: " + gpu_floor.dram_peak_source +
                "; its share: " + practical_source_text(resource::dram, gpu_floor.dram_practical) + ".";
        if (under_launch(gpu_floor)) line += " " + launch_note(gpu_floor) + ".";
        per_gpu.push_back(line);
    }
    page.add_list(std::move(per_gpu));
    page.add_heading(2, "What this op's model counts");
    std::vector<doc::phrase> notes;
    for (const auto& note : cost.notes) notes.push_back(op_note_phrase(note));
    page.add_list(std::move(notes));
    page.add_heading(2, "Assumptions (every floor)");
    page.add_list(std::vector<doc::phrase>(op_floor_assumptions().begin(), op_floor_assumptions().end()));
    return page;
}

std::string markdown(const prediction& predicted) { return doc::markdown(document_of(predicted)); }

// Columns padded to their widest cell, two spaces apart, indented by two; the first row is a row too.
std::string columns(const std::vector<std::vector<std::string>>& rows) {
    table columns_table(std::vector<column>(rows.front().size()));
    for (const auto& row : rows) columns_table.row(row);
    text_layout no_header;
    no_header.header = false;
    return columns_table.text(no_header);
}

std::string terminal(const prediction& predicted) {
    const op_cost& cost = predicted.cost;
    std::string out = prediction_command(cost) + "\n";
    out += columns(
        {{"FLOPs", format_si(cost.flops, flop_unit(cost)), cost.flops_formula},
         {"bytes", format_si(cost.bytes, "B"), "compulsory: " + cost.bytes_formula},
         {"intensity", format_number(cost.intensity()) + " " + flop_unit(cost) + "/B", "on " + work_line(cost)}});
    out += "\n";
    std::vector<std::vector<std::string>> rows = {
        {"GPU", "floor", "bound", "compute", "memory", "at 100% peaks", "ridge FLOP/B"}};
    for (const auto& gpu_floor : predicted.floors)
        rows.push_back({gpu_floor.gpu_id, floor_text(gpu_floor), bound_text(gpu_floor),
                        gpu_floor.compute_ns ? format_duration_ns(*gpu_floor.compute_ns) : "unknown",
                        format_duration_ns(gpu_floor.memory_ns), ns_or_unknown(gpu_floor.peak_floor_ns),
                        gpu_floor.ridge ? format_number(*gpu_floor.ridge) : "n/a"});
    out += columns(rows) + "\n";
    if (predicted.floors.size() == 1) out += "  " + worked_floor(cost, predicted.floors.front()) + "\n";
    for (const auto& gpu_floor : predicted.floors)
        if (under_launch(gpu_floor)) out += "  " + gpu_floor.gpu_id + ": " + launch_note(gpu_floor) + "\n";
    out += "  " + op_floor_formula() + "\n\nassumptions:\n";
    for (const auto& assumption : op_floor_assumptions()) out += "  - " + assumption + "\n";
    out += "this op:\n";
    for (const auto& note : cost.notes) out += "  - " + op_note_text(note) + "\n";
    return out;
}

ojson optional_number(const std::optional<double>& value) {
    return value ? json_number<ojson>(*value) : ojson(nullptr);
}

ojson exact_count(double value) {  // FLOPs and bytes are whole counts; keep every digit a double has
    if (std::fabs(value) < 9007199254740992.0 && value == std::floor(value)) return static_cast<std::int64_t>(value);
    return json_number<ojson>(value);
}

std::string json(const prediction& predicted) {
    const op_cost& cost = predicted.cost;
    ojson out;
    out["op"] = cost.op;
    out["command"] = "roofline predict " + prediction_command(cost);
    ojson params = ojson::object();
    ojson defaulted = ojson::array();
    const op_info* info = nullptr;
    for (const auto& op : op_catalogue())
        if (op.name == cost.op) info = &op;
    for (const auto& prm : cost.parameters) {
        bool whole = false;
        if (info)
            for (const auto& key : info->keys)
                if (key.name == prm.key) whole = key.choices.empty();
        params[prm.key] = whole ? ojson(std::stoull(prm.value)) : ojson(prm.value);
        if (prm.defaulted) defaulted.push_back(prm.key);
    }
    out["parameters"] = params;
    out["defaulted"] = defaulted;
    out["flops"] = exact_count(cost.flops);
    out["flops_unit"] = flop_unit(cost);
    out["flops_formula"] = cost.flops_formula;
    out["compute"] = cost.compute && cost.flops > 0 ? ojson(name(*cost.compute)) : ojson(nullptr);
    out["bytes"] = exact_count(cost.bytes);
    out["bytes_formula"] = cost.bytes_formula;
    out["intensity"] = json_number<ojson>(cost.intensity());
    out["formula"] = op_floor_formula();
    ojson gpus = ojson::array();
    for (const auto& gpu_floor : predicted.floors) {
        gpus.push_back(
            {{"id", gpu_floor.gpu_id},
             {"name", gpu_floor.gpu_name},
             {"floor_ns", optional_number(gpu_floor.floor_ns)},
             {"peak_floor_ns", optional_number(gpu_floor.peak_floor_ns)},
             {"compute_ns", optional_number(gpu_floor.compute_ns)},
             {"memory_ns", json_number<ojson>(gpu_floor.memory_ns)},
             {"bound", gpu_floor.bound_by ? ojson(name(*gpu_floor.bound_by)) : ojson(nullptr)},
             {"limiter", gpu_floor.limiter && gpu_floor.bound_by ? ojson(name(*gpu_floor.limiter)) : ojson(nullptr)},
             {"ridge_flop_per_byte", optional_number(gpu_floor.ridge)},
             {"min_kernel_ns", optional_number(gpu_floor.min_kernel_ns)},
             {"compute_peak_per_second", optional_number(gpu_floor.compute_peak)},
             {"compute_peak_source",
              cost.compute && cost.flops > 0 ? ojson(compute_peak_text(gpu_floor)) : ojson(nullptr)},
             {"compute_practical_share",
              cost.compute && cost.flops > 0 ? json_number<ojson>(gpu_floor.compute_practical.share) : ojson(nullptr)},
             {"compute_practical_source",
              cost.compute && cost.flops > 0
                  ? ojson(practical_source_text(gpu_floor.compute_precision, gpu_floor.compute_practical))
                  : ojson(nullptr)},
             {"compute_practical_default",
              cost.compute && cost.flops > 0 ? ojson(gpu_floor.compute_practical.is_default) : ojson(nullptr)},
             {"dram_bytes_per_second", json_number<ojson>(gpu_floor.dram_peak)},
             {"dram_peak_source", gpu_floor.dram_peak_source},
             {"dram_practical_share", json_number<ojson>(gpu_floor.dram_practical.share)},
             {"dram_practical_source", practical_source_text(resource::dram, gpu_floor.dram_practical)},
             {"dram_practical_default", gpu_floor.dram_practical.is_default}});
    }
    out["gpus"] = gpus;
    out["assumptions"] = op_floor_assumptions();
    ojson notes = ojson::array();
    for (const auto& note : cost.notes) notes.push_back(op_note_text(note));
    out["notes"] = notes;
    return json_text(out);
}

}  // namespace

const std::vector<printer<prediction>>& predict_printers() {
    static const std::vector<printer<prediction>> table = {
        {"markdown", [](const prediction& predicted) { return markdown(predicted); }},
        {"json", [](const prediction& predicted) { return json(predicted); }},
        {"terminal", [](const prediction& predicted) { return terminal(predicted); }},
        {"html", [](const prediction& predicted) { return doc::html_page(document_of(predicted)); }}};
    return table;
}

const std::vector<std::string>& predict_format_names() {
    static const std::vector<std::string> names = printer_names(predict_printers());
    return names;
}

std::string render_prediction(const prediction& predicted, const std::string& format) {
    return print_as(predict_printers(), format, predicted);
}

std::string prediction_command(const op_cost& cost) {
    std::string command = cost.op;
    for (const auto& param : cost.parameters) command += " " + param.key + "=" + param.value;
    return command;
}

doc::phrase op_note_phrase(const op_note& note) {
    switch (note.kind) {
        case op_note_kind::gemm_beta_zero:
            return "A multiply-add is 2 FLOPs; C = A x B with beta = 0, so C is written and never read (C += A x B "
                   "would add M x N x " +
                   format_number(note.element_bytes) + " B per batch).";
        case op_note_kind::gemm_transpose_recorded:
            return "transa=" + note.transa + " transb=" + note.transb +
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
            return "Grouped-query attention: " + std::to_string(note.count) + " K/V heads for " +
                   std::to_string(note.total) + " query heads; each K/V head is read once for its whole group.";
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
            return doc::phrase("Only the rows gathered cross DRAM, not the whole table (" + std::to_string(note.count) +
                               " x " + std::to_string(note.total) + "); at most ")
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

std::string op_note_text(const op_note& note) { return doc::markdown(op_note_phrase(note)); }

const std::vector<std::string>& op_floor_assumptions() {
    static const std::vector<std::string> assumptions = {
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
    return assumptions;
}

const std::string& op_floor_formula() {
    static const std::string formula =
        "floor = max(FLOPs / (compute peak x practical share), bytes / (DRAM bandwidth x practical share))";
    return formula;
}

}  // namespace roofline
