#include "analyzer/timeline/timeline_report.hpp"

#include "analyzer/base/format.hpp"
#include "analyzer/read/kernel_names.hpp"
#include "analyzer/read/kernel_origin.hpp"
#include "analyzer/render/document.hpp"
#include "analyzer/render/json_number.hpp"
#include "analyzer/render/table.hpp"
#include "analyzer/timeline/timeline_svg.hpp"
#include "analyzer/base/noise.hpp"

#include <nlohmann/json.hpp>

#include <charconv>
#include <map>
#include <sstream>

namespace roofline::timeline {
namespace {

using ordered_json = nlohmann::ordered_json;

// The JSON lists this many of the longest gaps of each cause.
constexpr std::size_t listed_per_cause = 20;

// "GPU 0 (NVIDIA H100 80GB HBM3)": the name as the trace gives it, escaped for markdown (or, on a terminal,
// with its control characters replaced).
std::string device_title(const device_timeline& gpu, bool markdown = true) {
    return "GPU " + std::to_string(gpu.device) +
           (gpu.name.empty() ? "" : " (" + (markdown ? markdown_text(gpu.name) : printable(gpu.name)) + ")");
}

doc::phrase device_phrase(const device_timeline& gpu) {
    doc::phrase title("GPU " + std::to_string(gpu.device));
    if (!gpu.name.empty()) title.words(" (").input(gpu.name).words(")");
    return title;
}

std::string since(const device_timeline& gpu, std::int64_t ns) {
    return "+" + format_duration_ns(double(ns - gpu.first_ns));
}

std::string plural(std::size_t count, const char* one, const char* many) {
    return std::to_string(count) + " " + (count == 1 ? one : many);
}

// A kernel by its short name; a copy or memset by CUPTI's name ("Memcpy HtoD (Pageable -> Device)").
std::string op_name(const trace& tr, std::size_t op) {
    const std::string& name = tr.name(tr.ops[op].name);
    return printable(tr.ops[op].kind == op_kind::kernel ? short_name(name) : name);
}

// One gap, with the evidence for its cause.
doc::phrase gap_phrase(const trace& tr, const device_timeline& gpu, const idle_gap& gap) {
    doc::phrase text(format_duration_ns(double(gap.length())) + " idle from " + since(gpu, gap.start_ns) + ": ");
    const std::string next = op_name(tr, gap.next_op);
    if (gap.blocking) {
        const api_call& blocking_call = tr.calls[*gap.blocking];
        const api_call& launch_call = tr.calls[*gap.launch];
        text.words("the CPU was in ").code(tr.name(blocking_call.name));
        if (gap.caller) text.words(" (called in ").code(tr.name(tr.cpu_ops[*gap.caller].name)).words(")");
        text.words(" from " + since(gpu, blocking_call.start_ns) + " until " + since(gpu, blocking_call.end_ns) + "; ")
            .code(next)
            .words(" was launched " + format_duration_ns(double(launch_call.start_ns - blocking_call.end_ns)) +
                   " after it returned");
    } else if (gap.launch) {
        const api_call& launch_call = tr.calls[*gap.launch];
        const auto late = launch_call.start_ns - gap.start_ns;
        text.code(next).words(" was launched by ").code(tr.name(launch_call.name));
        text.words(" " + format_duration_ns(double(late < 0 ? -late : late)) +
                   (late >= 0 ? " after the GPU went idle" : " before the GPU went idle"));
        if (tr.ops[gap.next_op].pageable)
            text.words("; the transfer began " +
                       format_duration_ns(double(tr.ops[gap.next_op].start_ns - launch_call.start_ns)) +
                       " after the call did (the driver stages pageable memory through a pinned buffer first)");
    } else {
        text.code(next).words(
            " has no launching call in the trace (no CUDA runtime or driver event with its correlation id)");
    }
    return text;
}

std::string gap_text(const trace& tr, const device_timeline& gpu, const idle_gap& gap) {
    return doc::markdown(gap_phrase(tr, gpu, gap));
}

// The CPU category a host-gap finding names (unknown for every other finding).
cpu_category category_of(finding_kind kind) { return info(kind).category.value_or(cpu_category::unknown); }

// "`enumerate(DataLoader)#...` 1.2 s, `train.py(30): main` ...": the names that carried a category's time.
doc::phrase names_text(const trace& tr, const std::vector<named_time>& times, std::size_t limit) {
    doc::phrase text;
    for (std::size_t i = 0; i < std::min(limit, times.size()); ++i)
        text.words(i ? ", " : "")
            .code(printable(tr.name(times[i].name)))
            .words(" " + format_duration_ns(double(times[i].ns)));
    return text;
}

std::string category_headline(const timeline_finding& finding, const device_timeline& gpu, const std::string& where) {
    const category_time& ct = gpu.time_of(category_of(finding.kind));
    std::string what;
    switch (finding.kind) {
        case finding_kind::data_loading:
            what = gpu.loader_workers ? "the main thread waited for the DataLoader's worker processes"
                                      : "the main thread made the DataLoader's batches itself";
            break;
        case finding_kind::optimizer:
            what = "the CPU ran the optimizer's step, one parameter at a time";
            break;
        case finding_kind::dispatch:
            what = "the CPU dispatched and launched operators one at a time from Python";
            break;
        case finding_kind::python:
            what = "the CPU ran the program's own code outside any operator (Python, NumPy, I/O)";
            break;
        default:
            what = "the CPU was inside ranges the program named";
            break;
    }
    std::string text = "while the GPU sat idle" + where + ", " + what + ": " + format_duration_ns(double(ct.ns)) +
                       " (" + format_percent(double(ct.ns) / double(gpu.span_ns())) + " of the span";
    if (finding.kind == finding_kind::dispatch && gpu.short_host.total_ns > 0)
        text += "; and " + format_duration_ns(double(gpu.short_host.total_ns)) + " in " +
                plural(gpu.short_host.count, "interval", "intervals") + " between back-to-back launches";
    return text + ")";
}

std::string finding_headline(const timeline_finding& finding, const device_timeline& gpu, const std::string& where) {
    auto idle = [&](gap_cause cause) {
        const auto& tot = gpu.total(cause);
        return plural(tot.count, "gap", "gaps") + ", " + format_duration_ns(double(tot.total_ns)) + " idle (" +
               format_percent(double(tot.total_ns) / double(gpu.span_ns())) + " of the span)";
    };
    switch (finding.kind) {
        case finding_kind::sync:
            return "the GPU waited while the CPU sat in synchronising calls" + where + ": " + idle(gap_cause::sync);
        case finding_kind::host:
            return "the CPU issued work after the GPU had gone idle" + where + ": " + idle(gap_cause::host);
        case finding_kind::pageable:
            return "copies of pageable host memory" + where + " (" + plural(gpu.pageable_copies, "copy", "copies") +
                   ", " + format_si(double(gpu.pageable_bytes), "B") + ", " +
                   format_duration_ns(double(gpu.pageable_ns)) + " on the GPU, " +
                   format_duration_ns(double(gpu.pageable_exclusive_ns)) +
                   " of it with nothing else running), and the gaps after them or after synchronous copies: " +
                   idle(gap_cause::pageable);
        case finding_kind::memset:
            return "the GPU waited on synchronous memsets" + where + ": " + idle(gap_cause::memset);
        case finding_kind::small_kernels:
            return std::to_string(gpu.small_kernels) + " of " + std::to_string(gpu.kernels) + " kernels" + where +
                   " ran under " + format_duration_ns(double(small_kernel_ns)) + ": launch-bound, with " +
                   plural(gpu.short_gaps.count, "short gap", "short gaps") + " (" +
                   format_duration_ns(double(gpu.short_gaps.total_ns)) + ") between them";
        case finding_kind::communication:
            return "NCCL kernels" + where + " ran " + format_duration_ns(double(gpu.communication_ns)) + ", " +
                   format_duration_ns(double(gpu.communication_ns - gpu.overlap_ns)) +
                   " of it with no compute kernel beside it (" +
                   format_percent(double(gpu.overlap_ns) / double(gpu.communication_ns)) + " overlapped)";
        case finding_kind::busy:
            return "no idle cause" + where + " costs more than run-to-run noise (" + format_percent(run_to_run_noise) +
                   "): the GPU is busy " + format_percent(gpu.utilisation()) + " of the span";
        case finding_kind::data_loading:
        case finding_kind::optimizer:
        case finding_kind::dispatch:
        case finding_kind::python:
        case finding_kind::user_range:
            return category_headline(finding, gpu, where);
        case finding_kind::small_grids:
            return std::to_string(gpu.small_grids.count) + " of " + std::to_string(gpu.kernels) + " kernels" + where +
                   " launched fewer blocks than the GPU has SMs (" +
                   format_duration_ns(double(gpu.small_grids.total_ns)) +
                   " of GPU time): the SMs without a block sat idle while they ran, " +
                   format_duration_ns(double(gpu.small_grid_idle_sm_ns)) + " of the whole GPU's time (" +
                   format_percent(double(gpu.small_grid_idle_sm_ns) / double(gpu.span_ns())) +
                   " of the span; batches too small to fill the GPU). Not estimated: the fix changes each launch's "
                   "work";
    }
    return "";
}

std::string floor_text(const timeline_finding& finding, const device_timeline& gpu, std::int64_t min_gap_ns) {
    const std::string span = format_duration_ns(double(finding.before_ns));
    const std::string after_gpu = format_duration_ns(double(finding.before_ns - finding.removed_ns));
    std::string text;
    if (finding.kind == finding_kind::communication) {
        text = "time after >= span - the shorter of the communication and the compute that run alone = " + span +
               " - " + format_duration_ns(double(finding.removed_ns)) + " = " + after_gpu;
    } else if (finding.kind == finding_kind::pageable && gpu.pageable_exclusive_ns > 0) {
        const auto idle = gpu.total(gap_cause::pageable).total_ns;
        text =
            "time after >= span - these gaps - the busy time only the pageable copies account for (pinned, "
            "asynchronous copies run beside the compute) = " +
            span + " - " + format_duration_ns(double(idle)) + " - " +
            format_duration_ns(double(gpu.pageable_exclusive_ns)) + " = " + after_gpu;
        text += gpu.pinned_rate && gpu.pageable_bytes > 0
                    ? ", and >= the copies' bytes at the fastest pinned copy's rate in the trace = " +
                          format_si(double(gpu.pageable_bytes), "B") + " / " +
                          format_si(*gpu.pinned_rate * 1e9, "B/s") + " = " +
                          format_duration_ns(double(gpu.pageable_bytes) / *gpu.pinned_rate)
                    : "; unknown: the copies' own time at pinned speed (the trace holds no pinned copy of 1 MiB "
                      "or more to measure the link by, or no size for the pageable copies), taken as hidden under the "
                      "compute";
        text += finding.binds == floor_kind::link ? " (the link binds)" : "";
    } else if (finding.kind == finding_kind::dispatch) {
        text = "time after >= span - these gaps - the intervals between back-to-back launches = " + span + " - " +
               format_duration_ns(double(finding.removed_ns)) + " = " + after_gpu;
        if (finding.graph_floor_ns)
            text += ", and >= what a CUDA graph's replay leaves: busy + " + std::to_string(gpu.kernels) +
                    " kernels x " + format_duration_ns(double(graph_kernel_gap_ns)) +
                    " between them = " + format_duration_ns(double(gpu.busy_ns)) + " + " +
                    format_duration_ns(double(std::int64_t(gpu.kernels) * graph_kernel_gap_ns)) + " = " +
                    format_duration_ns(double(*finding.graph_floor_ns)) +
                    (finding.after_ns == *finding.graph_floor_ns ? " (binds)" : "");
    } else if (category_of(finding.kind) != cpu_category::unknown && finding.binds == floor_kind::cpu) {
        const std::int64_t all_host = gpu.total(gap_cause::host).total_ns + gpu.short_host.total_ns;
        text = "the CPU stays the bottleneck: what it did in the other host gaps (" +
               format_duration_ns(double(all_host - finding.removed_ns)) + ") is more than the GPU's busy time (" +
               format_duration_ns(double(gpu.busy_ns)) +
               ") or this is not its largest cost, so the time after is its own remaining time: span - this "
               "category's = " +
               span + " - " + format_duration_ns(double(finding.removed_ns)) + " = " + after_gpu +
               " (the CPU's time, which the profiler inflates: --step-time scales it by the measured step)";
    } else if (finding.all_host) {
        text =
            "time after >= span - every host gap (this category was the CPU's largest cost, and what it did in the "
            "others is less than the GPU's busy time, so it runs ahead of the GPU once this is gone) = " +
            span + " - " + format_duration_ns(double(finding.removed_ns)) + " = " + after_gpu;
    } else if (finding.kind == finding_kind::host && gpu.short_host.count > 0) {
        text = "time after >= span - these gaps - the shorter intervals the GPU also waited for a launch in = " + span +
               " - " + format_duration_ns(double(gpu.total(gap_cause::host).total_ns)) + " - " +
               format_duration_ns(double(gpu.short_host.total_ns)) + " (" +
               plural(gpu.short_host.count, "interval", "intervals") + " under " +
               format_duration_ns(double(min_gap_ns)) + ") = " + after_gpu;
    } else {
        text = "time after >= span - this idle time = " + span + " - " +
               format_duration_ns(double(finding.removed_ns)) + " = " + after_gpu;
    }
    if (finding.kind == finding_kind::data_loading) {
        if (finding.loader_per_batch_ns && finding.rest_per_step_ns && finding.workers_to_hide)
            text +=
                "; the loader's own CPU time is " + format_duration_ns(double(*finding.loader_per_batch_ns)) +
                " a batch on the main thread and the rest of the step " +
                format_duration_ns(double(*finding.rest_per_step_ns)) + ", so N worker processes leave max(" +
                format_duration_ns(double(*finding.rest_per_step_ns)) + ", " +
                format_duration_ns(double(*finding.loader_per_batch_ns)) +
                " / N) a step: " + std::to_string(*finding.workers_to_hide) + " workers hide it (fewer: " +
                format_duration_ns(double(*finding.loader_per_batch_ns) / std::max(1, *finding.workers_to_hide - 1)) +
                " a step at " + std::to_string(std::max(1, *finding.workers_to_hide - 1)) + ")";
        if (!finding.with_workers.empty()) {
            text += "; against the measured step the loader takes " +
                    format_duration_ns(double(*finding.loader_measured_ns)) +
                    " a batch, so a step with N workers takes:";
            for (const auto& [workers, ns] : finding.with_workers)
                text += std::string(workers == 1 ? " " : ", ") + std::to_string(workers) + ": " +
                        format_duration_ns(double(ns));
        }
        if (gpu.loader_workers)
            text +=
                "; unknown: how many more workers it takes (the workers' CPU time per batch is in their own "
                "processes, not in this trace)";
    }
    if (finding.kind == finding_kind::sync || finding.kind == finding_kind::pageable ||
        finding.kind == finding_kind::memset) {
        const auto cause = finding.kind == finding_kind::sync       ? gap_cause::sync
                           : finding.kind == finding_kind::pageable ? gap_cause::pageable
                                                                    : gap_cause::memset;
        const auto blocked = gpu.cpu_blocked_ns[static_cast<std::size_t>(cause)];
        text += ", and >= the CPU's own time = span - its time blocked in those calls = " + span + " - " +
                format_duration_ns(double(blocked)) + " = " + format_duration_ns(double(finding.before_ns - blocked));
        text += finding.binds == floor_kind::cpu ? " (the CPU's time binds)" : "";
    }
    return text;
}

const device_timeline& device_of(const timeline_model& model, std::int32_t id) {
    for (const auto& gpu : model.devices)
        if (gpu.device == id) return gpu;
    return model.devices.front();
}

std::string category_meaning(cpu_category category) {
    switch (category) {
        case cpu_category::data_loading:
            return "a DataLoader's batch (its record_function range or torch/utils/data frames)";
        case cpu_category::optimizer:
            return "the optimizer's step or zero_grad";
        case cpu_category::sync:
            return "waiting in a synchronising call (`.item()`, `.cpu()`, `synchronize`)";
        case cpu_category::copies:
            return "waiting in a pageable or synchronous copy or memset";
        case cpu_category::user_range:
            return "a range the program named (record_function, NVTX), outside any operator";
        case cpu_category::dispatch:
            return "inside an operator or a CUDA call, or Python between two launches";
        case cpu_category::python:
            return "the program's own code outside any operator (Python, NumPy, I/O)";
        case cpu_category::unknown:
            return "not recorded (the trace holds no CPU operators)";
    }
    return "";
}

// The steps' critical path: on the GPU, on the CPU, waiting (timeline_model.hpp, critical_path).
void path_section(doc::document& out, const timeline_model& model, const device_timeline& gpu) {
    const critical_path& crit_path = gpu.path;
    if (crit_path.steps == 0 || crit_path.total_ns <= 0) return;
    const trace& tr = *model.source;
    auto share = [&](std::int64_t ns) { return format_percent(double(ns) / double(crit_path.total_ns)); };
    out.add_heading(3, "The critical path of a step");
    doc::table_block path{{"steps", "a step", "on the GPU", "on the CPU", "waiting"}, {}};
    path.rows.push_back(
        {std::to_string(crit_path.steps),
         format_duration_ns(double(crit_path.total_ns) / double(crit_path.steps)) + " (" +
             format_duration_ns(double(crit_path.shortest_ns)) + " to " +
             format_duration_ns(double(crit_path.longest_ns)) + ")",
         format_duration_ns(double(crit_path.gpu_ns) / double(crit_path.steps)) + " (" + share(crit_path.gpu_ns) + ")",
         format_duration_ns(double(crit_path.cpu_ns) / double(crit_path.steps)) + " (" + share(crit_path.cpu_ns) + ")",
         format_duration_ns(double(crit_path.wait_ns) / double(crit_path.steps)) + " (" + share(crit_path.wait_ns) +
             ")"});
    out.add_table(std::move(path));
    doc::phrase text(
        "A step runs from the start of the first op it launched to the next step's first op. On the GPU: its "
        "kernels, copies and memsets ran (the top kernels below); on the CPU: the GPU sat idle until the CPU "
        "launched the next op (what the CPU was doing, below); waiting: the next op was already queued but "
        "started late (another stream's event, a collective's peers, launch latency).");
    const std::int64_t cpu_total = [&] {
        std::int64_t sum = 0;
        for (const auto& cat_time : gpu.cpu) sum += cat_time.ns;
        return sum;
    }();
    if (crit_path.cpu_ns > 0 && cpu_total > 0) {
        std::vector<std::pair<std::int64_t, cpu_category>> top;
        for (cpu_category category : all_categories)
            if (gpu.time_of(category).ns > 0) top.emplace_back(gpu.time_of(category).ns, category);
        std::sort(top.begin(), top.end(), [](const auto& left, const auto& right) { return left.first > right.first; });
        text.words(std::string(" The CPU's part is mostly ") + category_name(top.front().second));
        if (!gpu.time_of(top.front().second).top.empty())
            text.words(" (").append(names_text(tr, gpu.time_of(top.front().second).top, 1)).words(")");
        text.words(".");
    }
    out.add_paragraph(std::move(text));
}

// What the launching threads did while the GPU waited for the CPU (the sync, copy and host gaps).
void cpu_section(doc::document& out, const timeline_model& model, const device_timeline& gpu) {
    std::int64_t total = 0;
    for (const auto& cat_time : gpu.cpu) total += cat_time.ns;
    if (total <= 0) return;
    const trace& tr = *model.source;
    out.add_heading(3, "What the CPU was doing while the GPU waited for it");
    doc::table_block cats{{"category", "idle", "of it", "per step", "where", "what it means"}, {}};
    for (cpu_category category : all_categories) {
        const category_time& ct = gpu.time_of(category);
        if (ct.ns <= 0) continue;
        doc::phrase where = names_text(tr, ct.top, 2);
        if (!ct.frames.empty()) where.words(where.empty() ? "" : "; ").append(names_text(tr, ct.frames, 1));
        cats.rows.push_back(
            {category_name(category), format_duration_ns(double(ct.ns)), format_percent(double(ct.ns) / double(total)),
             model.steps.count > 0 ? format_duration_ns(double(ct.ns) / double(model.steps.count)) : "-",
             where.empty() ? doc::phrase("-") : where, doc::phrase().marked(category_meaning(category))});
    }
    out.add_table(std::move(cats));
    if (!gpu.cpu_recorded)
        out.add_paragraph(
            "Unknown: what the CPU did in the host gaps. The trace holds no CPU operators or Python frames "
            "(torch.profiler: ProfilerActivity.CPU, with_stack=True for the frames).");
    else if (tr.py_frames.empty())
        out.add_paragraph(
            "The trace holds no Python frames of the program (torch.profiler with_stack=True records "
            "them): the categories stand, the lines of code under them are not named.");
}

void device_section(doc::document& out, const timeline_model& model, const device_timeline& gpu) {
    out.add_heading(2, device_phrase(gpu));
    doc::table_block summary{
        {"span", "busy", "utilisation", "gaps over " + format_duration_ns(double(model.min_gap_ns)), "their idle time",
         "shorter gaps", "kernels", "under " + format_duration_ns(double(small_kernel_ns))},
        {}};
    std::int64_t long_total = 0;
    for (const auto& gap : gpu.gaps) long_total += gap.length();
    summary.rows.push_back(
        {format_duration_ns(double(gpu.span_ns())), format_duration_ns(double(gpu.busy_ns)),
         format_percent(gpu.utilisation()), std::to_string(gpu.gaps.size()), format_duration_ns(double(long_total)),
         std::to_string(gpu.short_gaps.count) + " (" + format_duration_ns(double(gpu.short_gaps.total_ns)) + ")",
         std::to_string(gpu.kernels), std::to_string(gpu.small_kernels)});
    out.add_table(std::move(summary));
    std::string busy = "Busy is the union of the " + std::to_string(gpu.ops) +
                       " kernel, copy and memset intervals over every stream (ops that overlap, as a graph replay's "
                       "do, count once); the span runs from the first op's start to the last one's end.";
    if (gpu.before_trace.count > 0)
        busy += " Left out: " + plural(gpu.before_trace.count, "op", "ops") + " (" +
                format_duration_ns(double(gpu.before_trace.total_ns)) +
                " of GPU time) launched before the trace began, which ran before the first op launched within it (the "
                "idle time after them is the profiler's start, not the program's).";
    // Never silent: without grids or the SM count, whether the batch fills the GPU is not known.
    if (gpu.grids_known == 0 && gpu.compute_ns > 0)
        busy +=
            " Unknown: whether the kernels' grids fill the SMs (small-grids): the trace gives no kernel grid or no "
            "SM count for this GPU (Kineto: args.grid and deviceProperties numSms; nsys SQLite: gridX/Y/Z and "
            "TARGET_INFO_GPU smCount; nsys stats CSVs carry no SM count).";
    out.add_paragraph(busy);
    out.add_heading(3, "Idle time by cause");
    doc::table_block causes{{"cause", "gaps", "idle", "of the span", "what it means"}, {}};
    for (gap_cause cause : all_causes) {
        const auto& tot = gpu.total(cause);
        if (tot.count == 0) continue;
        causes.rows.push_back({cause_name(cause), std::to_string(tot.count), format_duration_ns(double(tot.total_ns)),
                               format_percent(double(tot.total_ns) / double(gpu.span_ns())), cause_meaning(cause)});
    }
    if (causes.rows.empty())
        out.add_paragraph("No idle gap is longer than " + format_duration_ns(double(model.min_gap_ns)) + ".");
    else
        out.add_table(std::move(causes));
    path_section(out, model, gpu);
    cpu_section(out, model, gpu);
    std::vector<doc::phrase> extra;
    if (gpu.pageable_copies > 0)
        extra.push_back(plural(gpu.pageable_copies, "copy", "copies") +
                        " from or to pageable host memory: " + format_si(double(gpu.pageable_bytes), "B") + ", " +
                        format_duration_ns(double(gpu.pageable_ns)) + " on the GPU.");
    if (gpu.communication_ns > 0)
        extra.push_back("NCCL kernels: " + format_duration_ns(double(gpu.communication_ns)) + " of communication, " +
                        format_duration_ns(double(gpu.overlap_ns)) + " (" +
                        format_percent(double(gpu.overlap_ns) / double(gpu.communication_ns)) +
                        ") overlapped with compute kernels.");
    if (!extra.empty()) out.add_list(std::move(extra));
}

// The operator that launched a kernel and the frame of the user's code around it: "`aten::mm` in
// `train.py(42): step`"; "-" where the trace has neither (no CPU activity).
doc::phrase launched_by_text(const trace& tr, const kernel_total& kt) {
    doc::phrase text;
    if (kt.launched_by) text.code(printable(tr.name(*kt.launched_by)));
    if (kt.frame) text.words(text.empty() ? "" : " in ").code(printable(tr.name(*kt.frame)));
    return text.empty() ? doc::phrase("-") : text;
}

void kernels_section(doc::document& out, const timeline_report& report) {
    const trace& tr = *report.model->source;
    out.add_heading(2, "Top kernels by GPU time");
    for (const auto& gpu : report.model->devices) {
        if (report.model->devices.size() > 1) out.add_paragraph(device_phrase(gpu).words(":"));
        // Shares of the kernels' summed time: kernels that overlap (streams, graph replays) can sum to more
        // than the busy time, and a share never passes 100%.
        std::int64_t kernel_time = 0;
        for (const auto& kt : gpu.kernel_totals) add_to(kernel_time, kt.total_ns);
        doc::table_block kernel_table{
            {"#", "kernel", "origin", "launched by", "launches", "GPU time", "of kernel time", "average"}, {}};
        // Names shortened as analyze shortens them (numbered where two read the same); the full names follow.
        const std::size_t listed = std::min<std::size_t>(gpu.kernel_totals.size(), 10);
        std::vector<std::string> labels;
        std::map<std::string, std::size_t> count, seen;
        for (std::size_t i = 0; i < listed; ++i)
            ++count[labels.emplace_back(kernel_label(printable(tr.name(gpu.kernel_totals[i].name))))];
        for (auto& label_text : labels)
            if (count[label_text] > 1) label_text += " #" + std::to_string(++seen[label_text]);
        for (std::size_t i = 0; i < listed; ++i) {
            const auto& kt = gpu.kernel_totals[i];
            kernel_table.rows.push_back(
                {std::to_string(i + 1), doc::phrase().code(labels[i]), label(classify_origin(tr.name(kt.name)).kind),
                 launched_by_text(tr, kt), std::to_string(kt.launches), format_duration_ns(double(kt.total_ns)),
                 format_percent(kernel_time > 0 ? double(kt.total_ns) / double(kernel_time) : 0.0),
                 format_duration_ns(double(kt.total_ns) / double(kt.launches))});
        }
        out.add_table(std::move(kernel_table));
        if (gpu.kernel_totals.size() > 10)
            out.add_paragraph(std::to_string(gpu.kernel_totals.size() - 10) + " more kernels not listed.");
        doc::document names;
        doc::bullet_list full;
        full.ordered = true;
        for (std::size_t i = 0; i < listed; ++i)
            full.items.push_back(doc::phrase().code(printable(tr.name(gpu.kernel_totals[i].name))));
        names.add_list(std::move(full));
        out.add_details("Full names", names);
    }
    if (report.triage && !report.triage->commands.empty()) {
        out.add_paragraph(doc::phrase().marked(
            "Profile the top kernels with the counters `roofline analyze` reads (the commands `roofline triage` "
            "writes; replace `./app` with the program's command line, or pass --app):"));
        out.add_code("sh", triage_script(*report.triage));
    }
}

}  // namespace

std::string cause_meaning(gap_cause cause) {
    switch (cause) {
        case gap_cause::sync:
            return "the CPU waited in a synchronising call while the GPU drained, then launched the next work: nothing "
                   "was queued behind it";
        case gap_cause::host:
            return "the CPU issued the next work after the GPU had gone idle: the CPU is the bottleneck";
        case gap_cause::pageable:
            return "the CPU waited in a copy of pageable host memory (staged through a pinned buffer) or a synchronous "
                   "copy";
        case gap_cause::memset:
            return "the CPU waited in a synchronous cudaMemset";
        case gap_cause::other:
            return "the next work was queued before the GPU went idle but started late (a wait on another stream's "
                   "event, "
                   "launch latency), or no call in the trace launched it";
    }
    return "";
}

std::string finding_fix(const timeline_finding& finding) {
    const finding_info& what = info(finding.kind);
    return finding.queued && what.fix_queued ? what.fix_queued : what.fix;
}

namespace {

doc::document document_of(const timeline_report& report, bool chart) {
    const timeline_model& model = *report.model;
    const trace& tr = *model.source;
    doc::document out;
    out.add_heading(1, doc::phrase("Timeline of ").code(tr.file));
    if (chart)
        out.add_figure(
            {"timeline", "#timeline-chart", "<figure class=\"timeline\">" + timeline_svg(model) + "</figure>"});
    std::size_t ops = 0;
    for (const auto& gpu : model.devices) ops += gpu.ops;
    std::string head = tr.form + ": " + std::to_string(tr.events_read) + " events read, " + std::to_string(ops) +
                       " GPU ops on " + plural(model.devices.size(), "GPU", "GPUs") + ".";
    doc::phrase intro(head);
    if (model.steps.count > 0)
        intro.words(
            " " + plural(model.steps.count, "step", "steps") +
            " (ProfilerStep#N): " + format_duration_ns(double(model.steps.mean_ns)) +
            (model.steps.count > 1 ? " each on average (" + format_duration_ns(double(model.steps.min_ns)) + " to " +
                                         format_duration_ns(double(model.steps.max_ns)) + ")"
                                   : std::string()) +
            " on the CPU; the GPU work they launched spans " +
            format_duration_ns(double(model.devices.front().steps_span_ns()) / double(model.steps.count)) + " a step" +
            (model.devices.size() > 1 ? " on GPU " + std::to_string(model.devices.front().device) : std::string()) +
            " (the top kernels below are that work's).");
    else
        intro.marked(
            " The trace marks no steps (no ProfilerStep#N or NVTX step range): every figure is over the span "
            "of the GPU's activity, which may begin and end within a step, so it is no whole number of steps. "
            "Step markers come with the CPU activity (torch.profiler: ProfilerActivity.CPU and `prof.step()`; "
            "nsys: NVTX ranges).");
    out.add_paragraph(std::move(intro));
    if (tr.calls.empty())
        out.add_paragraph(doc::phrase().marked(
            std::string("Unknown: the cause of every gap. The trace holds no CUDA runtime or driver call, so no op's "
                        "launch can be told: every gap is `other`. ") +
            (tr.form == "nsys stats cuda_gpu_trace report"
                 ? "Pass the run's `nsys stats --report cuda_api_trace --format csv` report with --api."
                 : "Profile with the CPU activity on (torch.profiler: ProfilerActivity.CPU; nsys: --trace=cuda).")));
    out.add_heading(2, "Findings");
    doc::bullet_list findings;
    findings.ordered = true;
    for (const auto& finding : report.findings) {
        const device_timeline& gpu = device_of(model, finding.device);
        const std::string where = model.devices.size() > 1 ? " on GPU " + std::to_string(gpu.device) : "";
        doc::phrase head_line =
            doc::phrase().strong(finding_id(finding.kind)).words(": " + finding_headline(finding, gpu, where) + ".");
        if (finding.est_speedup)
            head_line.words(" Estimate: up to " + format_times(*finding.est_speedup) + " (" +
                            format_duration_ns(double(finding.before_ns)) + " -> " +
                            format_duration_ns(double(finding.after_ns)) + ").");
        if (finding.est_speedup_measured)
            head_line.words(" Against the step time measured without the profiler: up to " +
                            format_times(*finding.est_speedup_measured) + " (" +
                            format_duration_ns(double(*finding.measured_step_ns)) + " -> " +
                            format_duration_ns(double(*finding.after_per_step_ns)) + " a step).");
        std::vector<doc::phrase> under;
        if (category_of(finding.kind) != cpu_category::unknown) {
            const category_time& ct = gpu.time_of(category_of(finding.kind));
            if (!ct.top.empty()) under.push_back(doc::phrase("Where: ").append(names_text(tr, ct.top, 3)).words("."));
            if (!ct.frames.empty())
                under.push_back(doc::phrase("In the program's code: ").append(names_text(tr, ct.frames, 3)).words("."));
            if (model.steps.count > 0)
                under.push_back("Per step: " + format_duration_ns(double(ct.ns) / double(model.steps.count)) + " of " +
                                format_duration_ns(double(gpu.steps_span_ns()) / double(model.steps.count)) + ".");
        }
        for (auto gi : finding.gaps) under.push_back(gap_phrase(tr, gpu, gpu.gaps[gi]).words("."));
        if (finding.est_speedup) under.push_back("Estimate: " + floor_text(finding, gpu, model.min_gap_ns) + ".");
        if (finding.est_speedup &&
            (finding.kind == finding_kind::host || finding.kind == finding_kind::small_kernels ||
             category_of(finding.kind) != cpu_category::unknown) &&
            !tr.calls.empty())
            under.push_back(
                "Caution: the profiler costs the CPU time on every operator it records and every CUDA call CUPTI "
                "traces, so the trace's CPU-bound gaps are longer than the run's, and the gain without the profiler "
                "is smaller (the time after the fix, the GPU's own work, is not inflated).");
        under.push_back(doc::phrase("Fix: ").marked(finding_fix(finding)));
        findings.items.push_back({std::move(head_line), std::move(under)});
    }
    out.add_list(std::move(findings));
    for (const auto& gpu : model.devices) device_section(out, model, gpu);
    kernels_section(out, report);
    return out;
}

}  // namespace

std::string timeline_markdown(const timeline_report& report) { return doc::markdown(document_of(report, false)); }

std::string timeline_html(const timeline_report& report) { return doc::html_page(document_of(report, true)); }

namespace {

// `text` broken between words into lines of at most `width` columns (a word longer than that stands alone),
// each after `indent`; 0: one line.
std::string wrapped(const std::string& text, std::size_t width, const std::string& indent) {
    if (width == 0 || width <= indent.size() + 10) return indent + text + "\n";
    std::string out, line;
    std::istringstream words(text);
    for (std::string word; words >> word;) {
        if (!line.empty() && indent.size() + line.size() + 1 + word.size() > width) {
            out += indent + line + "\n";
            line.clear();
        }
        line += (line.empty() ? "" : " ") + word;
    }
    return out + indent + line + "\n";
}

}  // namespace

std::string timeline_terminal(const timeline_report& report, std::size_t width) {
    const timeline_model& model = *report.model;
    const trace& tr = *model.source;
    std::ostringstream out;
    out << tr.file << ": " << tr.form << "\n";
    for (const auto& gpu : model.devices) {
        out << "\n"
            << wrapped(device_title(gpu, false) + ": busy " + format_percent(gpu.utilisation()) + " of " +
                           format_duration_ns(double(gpu.span_ns())) + " (" + format_duration_ns(double(gpu.busy_ns)) +
                           ")",
                       width, "");
        table causes({column{"cause"}, column{"gaps", align::right}, column{"idle", align::right},
                      column{"of span", align::right}});
        for (gap_cause cause : all_causes)
            if (gpu.total(cause).count > 0)
                causes.row({cause_name(cause), std::to_string(gpu.total(cause).count),
                            format_duration_ns(double(gpu.total(cause).total_ns)),
                            format_percent(double(gpu.total(cause).total_ns) / double(gpu.span_ns()))});
        if (!causes.empty()) out << causes.text();
        // What the CPU was doing in those gaps, largest first, with the range that carried the most of each.
        std::vector<std::pair<std::int64_t, cpu_category>> cats;
        for (cpu_category category : all_categories)
            if (gpu.time_of(category).ns > 0) cats.emplace_back(gpu.time_of(category).ns, category);
        std::stable_sort(cats.begin(), cats.end(),
                         [](const auto& left, const auto& right) { return left.first > right.first; });
        if (!cats.empty()) {
            table cpu({column{"the CPU, meanwhile"}, column{"idle", align::right}, column{"per step", align::right},
                       column{"where"}});
            for (const auto& [ns, category] : cats) {
                const category_time& ct = gpu.time_of(category);
                const auto& where = !ct.frames.empty() ? ct.frames : ct.top;
                cpu.row({category_name(category), format_duration_ns(double(ns)),
                         model.steps.count ? format_duration_ns(double(ns) / double(model.steps.count)) : "-",
                         where.empty() ? "-" : kernel_label(printable(tr.name(where.front().name)))});
            }
            out << cpu.text();
        }
    }
    out << "\nFindings:\n";
    std::size_t number = 0;
    for (const auto& finding : report.findings) {
        const device_timeline& gpu = device_of(model, finding.device);
        out << "  " << ++number << ". " << finding_id(finding.kind);
        if (model.devices.size() > 1) out << " (GPU " << gpu.device << ")";
        if (finding.est_speedup) out << "  up to " << format_times(*finding.est_speedup);
        if (finding.est_speedup_measured)
            out << " (" << format_times(*finding.est_speedup_measured) << " against the measured step)";
        out << "\n" << wrapped(finding_fix(finding), width, "     ");
    }
    return out.str();
}

// What the launching threads did during the gaps the CPU caused, by category (docs/timeline.md).
ordered_json cpu_json(const trace& tr, const timeline_model& model, const device_timeline& gpu) {
    auto named = [&](const std::vector<named_time>& times) {
        ordered_json entries = ordered_json::array();
        for (const auto& item : times) entries.push_back({{"name", tr.name(item.name)}, {"ns", item.ns}});
        return entries;
    };
    ordered_json by = ordered_json::object();
    for (cpu_category category : all_categories) {
        const category_time& ct = gpu.time_of(category);
        by[category_name(category)] = {
            {"ns", ct.ns},
            {"per_step_ns",
             model.steps.count > 0 ? ordered_json(ct.ns / std::int64_t(model.steps.count)) : ordered_json(nullptr)},
            {"gaps", ct.gaps},
            {"top", named(ct.top)},
            {"frames", named(ct.frames)}};
    }
    return {{"recorded", gpu.cpu_recorded},
            {"by_category", by},
            {"loader",
             {{"in_process_ns", gpu.loader_in_process_ns},
              {"batches", gpu.loader_batches},
              {"worker_processes", gpu.loader_workers}}}};
}

std::string timeline_json(const timeline_report& report) {
    const timeline_model& model = *report.model;
    const trace& tr = *model.source;
    ordered_json root;
    root["schema"] = "roofline-timeline/1";
    root["input"] = {{"file", tr.file}, {"form", tr.form}, {"events", tr.events_read}};
    root["min_gap_ns"] = model.min_gap_ns;
    root["steps"] = model.steps.count == 0 ? ordered_json(nullptr)
                                           : ordered_json{{"count", model.steps.count},
                                                          {"mean_ns", model.steps.mean_ns},
                                                          {"min_ns", model.steps.min_ns},
                                                          {"max_ns", model.steps.max_ns}};
    ordered_json devices = ordered_json::array();
    for (const auto& gpu : model.devices) {
        ordered_json by_cause = ordered_json::object();
        for (gap_cause cause : all_causes)
            by_cause[cause_name(cause)] = {{"count", gpu.total(cause).count}, {"total_ns", gpu.total(cause).total_ns}};
        std::int64_t long_total = 0;
        for (const auto& gap : gpu.gaps) long_total += gap.length();
        // The longest gaps of each cause, not every gap: the output stays the size of a summary
        // however long the trace (a step with a thousand launch gaps has a thousand of them).
        ordered_json longest = ordered_json::array();
        for (gap_cause cause : all_causes)
            for (auto gi : longest_of(gpu, cause, listed_per_cause)) {
                const idle_gap& gap = gpu.gaps[gi];
                ordered_json gap_json = {{"start_ns", gap.start_ns - gpu.first_ns},
                                         {"length_ns", gap.length()},
                                         {"cause", cause_name(gap.cause)},
                                         {"next_op", tr.name(tr.ops[gap.next_op].name)}};
                gap_json["launch"] =
                    gap.launch ? ordered_json(tr.name(tr.calls[*gap.launch].name)) : ordered_json(nullptr);
                gap_json["blocking_call"] =
                    gap.blocking ? ordered_json(tr.name(tr.calls[*gap.blocking].name)) : ordered_json(nullptr);
                gap_json["caller"] =
                    gap.caller ? ordered_json(tr.name(tr.cpu_ops[*gap.caller].name)) : ordered_json(nullptr);
                longest.push_back(std::move(gap_json));
            }
        ordered_json top = ordered_json::array();
        for (std::size_t i = 0; i < gpu.kernel_totals.size() && i < 10; ++i) {
            const auto& kt = gpu.kernel_totals[i];
            const kernel_origin origin = classify_origin(tr.name(kt.name));
            top.push_back(
                {{"name", tr.name(kt.name)},
                 {"origin", name(origin.kind)},
                 {"library", origin.library.empty() ? ordered_json(nullptr) : ordered_json(origin.library.str())},
                 {"launched_by", kt.launched_by ? ordered_json(tr.name(*kt.launched_by)) : ordered_json(nullptr)},
                 {"frame", kt.frame ? ordered_json(tr.name(*kt.frame)) : ordered_json(nullptr)},
                 {"launches", kt.launches},
                 {"total_ns", kt.total_ns},
                 {"communication", kt.communication}});
        }
        ordered_json dev = {
            {"device", gpu.device},
            {"name", gpu.name.empty() ? ordered_json(nullptr) : ordered_json(gpu.name)},
            {"span_ns", gpu.span_ns()},
            {"busy_ns", gpu.busy_ns},
            {"steps_span_ns", model.steps.count > 0 ? ordered_json(gpu.steps_span_ns()) : ordered_json(nullptr)},
            {"utilisation", json_number<ordered_json>(gpu.utilisation())},
            {"ops", {{"kernels", gpu.kernels}, {"copies", gpu.copies}, {"memsets", gpu.memsets}}}};
        dev["gaps"] = {{"count", gpu.gaps.size()},
                       {"total_ns", long_total},
                       {"by_cause", by_cause},
                       {"shorter",
                        {{"count", gpu.short_gaps.count},
                         {"total_ns", gpu.short_gaps.total_ns},
                         {"host", {{"count", gpu.short_host.count}, {"total_ns", gpu.short_host.total_ns}}}}},
                       {"longest", longest}};
        dev["before_trace"] = {{"count", gpu.before_trace.count}, {"total_ns", gpu.before_trace.total_ns}};
        dev["small_kernels"] = {{"count", gpu.small_kernels}, {"total_ns", gpu.small_kernel_ns}};
        dev["small_grids"] = {{"grids_known", gpu.grids_known},
                              {"count", gpu.small_grids.count},
                              {"total_ns", gpu.small_grids.total_ns},
                              {"idle_sm_ns", gpu.small_grid_idle_sm_ns}};
        dev["pageable_copies"] = {
            {"count", gpu.pageable_copies}, {"bytes", gpu.pageable_bytes}, {"total_ns", gpu.pageable_ns}};
        dev["communication"] = {
            {"total_ns", gpu.communication_ns}, {"compute_ns", gpu.compute_ns}, {"overlap_ns", gpu.overlap_ns}};
        dev["top_kernels"] = top;
        dev["cpu"] = cpu_json(tr, model, gpu);
        dev["critical_path"] =
            gpu.path.steps == 0
                ? ordered_json(nullptr)
                : ordered_json{{"steps", gpu.path.steps},          {"total_ns", gpu.path.total_ns},
                               {"gpu_ns", gpu.path.gpu_ns},        {"cpu_ns", gpu.path.cpu_ns},
                               {"wait_ns", gpu.path.wait_ns},      {"shortest_ns", gpu.path.shortest_ns},
                               {"longest_ns", gpu.path.longest_ns}};
        devices.push_back(std::move(dev));
    }
    root["devices"] = devices;
    ordered_json findings = ordered_json::array();
    for (const auto& finding : report.findings) {
        const device_timeline& gpu = device_of(model, finding.device);
        ordered_json evidence = ordered_json::array();
        for (auto gi : finding.gaps) evidence.push_back(gap_text(tr, gpu, gpu.gaps[gi]));
        ordered_json entry = {{"id", finding_id(finding.kind)}, {"device", finding.device}};
        entry["cause"] =
            info(finding.kind).cause ? ordered_json(cause_name(*info(finding.kind).cause)) : ordered_json(nullptr);
        entry["category"] = category_of(finding.kind) != cpu_category::unknown
                                ? ordered_json(category_name(category_of(finding.kind)))
                                : ordered_json(nullptr);
        if (finding.workers_to_hide)
            entry["loader"] = {{"per_batch_ns", *finding.loader_per_batch_ns},
                               {"rest_per_step_ns", *finding.rest_per_step_ns},
                               {"workers_to_hide", *finding.workers_to_hide}};
        if (finding.graph_floor_ns) entry["graph_floor_ns"] = *finding.graph_floor_ns;
        if (!finding.with_workers.empty()) {
            ordered_json with_workers = ordered_json::array();
            for (const auto& [workers, ns] : finding.with_workers)
                with_workers.push_back({{"workers", workers}, {"step_ns", ns}});
            entry["loader"]["measured_per_batch_ns"] = *finding.loader_measured_ns;
            entry["loader"]["with_workers"] = with_workers;
        }
        entry["est_speedup"] =
            finding.est_speedup ? json_number<ordered_json>(*finding.est_speedup) : ordered_json(nullptr);
        entry["before_ns"] = finding.before_ns;
        entry["after_ns"] = finding.after_ns;
        entry["removed_ns"] = finding.removed_ns;
        entry["binds"] = finding.binds == floor_kind::cpu ? "cpu" : finding.binds == floor_kind::link ? "link" : "gpu";
        if (finding.est_speedup_measured)
            entry["against_measured_step"] = {
                {"step_ns", *finding.measured_step_ns},
                {"after_per_step_ns", *finding.after_per_step_ns},
                {"est_speedup", json_number<ordered_json>(*finding.est_speedup_measured)}};
        entry["evidence"] = evidence;
        entry["fix"] = finding_fix(finding);
        findings.push_back(std::move(entry));
    }
    root["findings"] = findings;
    return json_text(root);
}

}  // namespace roofline::timeline
